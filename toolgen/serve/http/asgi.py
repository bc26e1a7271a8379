"""The ASGI app of the `/mcp` endpoint: MCP clients' requests skip Starlette's stack.

Under load, Starlette's layers (error middleware, CORS middleware, exception
middleware, router, route, request/response wrapper) cost the server more CPU
per request than the endpoint itself. Requests from MCP clients (no `Origin`
header: not a browser) to the endpoint's own path with a method it serves
(`GET`, `POST`, `DELETE`) go straight to `McpEndpoint.handle`, with what the
stack gave them: the `Vary: Origin` header the CORS middleware adds to every
response. An exception that escapes is uvicorn's to answer (500, as Starlette's
error middleware did).

Everything else goes to the Starlette app, unchanged: browser requests (CORS
preflight and headers), other paths (404), other methods (405), a mount under
a `root_path`, and the lifespan (which ends the sessions on shutdown).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from starlette.requests import Request

from toolgen.serve.http.app import McpEndpoint
from toolgen.serve.http.responses import scope_headers

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

DIRECT_METHODS: Final = frozenset({"GET", "POST", "DELETE"})
VARY_ORIGIN: Final = (b"vary", b"Origin")


class McpApp:
    """ASGI: `endpoint` for MCP clients' requests to `path`, `fallback` (the Starlette app
    with the route and the CORS middleware) for everything else."""

    def __init__(self, endpoint: McpEndpoint, fallback: App, path: str) -> None:
        self.endpoint = endpoint
        self.fallback = fallback
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._direct(scope):
            response = await self.endpoint.handle(Request(scope, receive, send))
            response.raw_headers.append(VARY_ORIGIN)
            await response(scope, receive, send)
        else:
            await self.fallback(scope, receive, send)

    def _direct(self, scope: Scope) -> bool:
        """Whether the request is one the endpoint answers without Starlette's help."""
        return (
            scope["type"] == "http"
            and scope["path"] == self.path
            and not scope.get("root_path")
            and scope["method"] in DIRECT_METHODS
            and "origin" not in scope_headers(scope)
        )
