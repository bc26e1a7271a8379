"""Serving a spec set over MCP: validation, the engine, handlers, stdio and HTTP transports.

Internal: applications and generated code use the public `toolgen.runtime`.
"""
