"""A hand-written Streamable HTTP MCP server (Starlette, no SDK) for `toolgen import` tests.

Plain JSON responses, the pages of `handwritten_stdio`, and a bearer token:
a request without `Authorization: Bearer <TOKEN>` gets 401. `app(flood=BYTES)` answers
`tools/list` with one tool whose description is BYTES long, as a JSON body or (`sse=True`)
as one server-sent event.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from import_support.handwritten_stdio import answer, flood_tool

TOKEN = "hand-written-token"


def app(flood: int | None = None, *, sse: bool = False) -> Starlette:
    async def endpoint(request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        message: Any = await request.json()
        reply = answer(message)
        if reply is None:
            return Response(status_code=202)
        if flood is not None and message.get("method") == "tools/list":
            reply["result"] = {"tools": [flood_tool(flood)]}
            if sse:
                event = f"event: message\ndata: {json.dumps(reply)}\n\n"
                return Response(event, media_type="text/event-stream")
        return JSONResponse(reply)

    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])
