"""A hand-written Streamable HTTP MCP server (Starlette, no SDK) for `toolgen import` tests.

Plain JSON responses, the pages of `handwritten_stdio`, and a bearer token:
a request without `Authorization: Bearer <TOKEN>` gets 401.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from import_support.handwritten_stdio import answer

TOKEN = "hand-written-token"


async def endpoint(request: Request) -> Response:
    if request.headers.get("authorization") != f"Bearer {TOKEN}":
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    message: Any = await request.json()
    reply = answer(message)
    if reply is None:
        return Response(status_code=202)
    return JSONResponse(reply)


def app() -> Starlette:
    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])
