"""Streamable HTTP transport for the MCP engine (the `http` extra).

`serve_http` runs a server with uvicorn; `create_app` gives the ASGI app to
mount or to run under any ASGI server. See `app` for the behaviour.
"""

from __future__ import annotations

from toolgen.serve.http.security import SecurityPolicy
from toolgen.serve.http.server import create_app, parse_address, serve_http

__all__ = ["SecurityPolicy", "create_app", "parse_address", "serve_http"]
