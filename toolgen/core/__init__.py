"""Shared vocabulary of every stage: diagnostics, the IR, MCP protocol facts, positions, naming.

Nothing here imports from another toolgen folder.
"""
