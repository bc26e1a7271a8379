"""MCP stdio servers compared by `benchmarks/run.py`; each serves the same tools."""
