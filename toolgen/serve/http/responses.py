"""HTTP responses of the `/mcp` endpoint: JSON-RPC errors, JSON or SSE answers, `Accept`.

Small pure helpers shared by the endpoint (`app`) and the call runner (`calls`).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from toolgen.serve import jsonrpc
from toolgen.serve.http.headers import HEADER_MISMATCH

MODERN_ERROR_STATUS: Final = {
    jsonrpc.PARSE_ERROR: 400,
    jsonrpc.INVALID_REQUEST: 400,
    jsonrpc.METHOD_NOT_FOUND: 404,
    HEADER_MISMATCH: 400,
    jsonrpc.MISSING_CLIENT_CAPABILITY: 400,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
}
"""HTTP status of a 2026-07-28 error response, by JSON-RPC code (others: 200)."""
SSE_HEADERS: Final = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
JSON_TYPE: Final = "application/json"
SSE_TYPE: Final = "text/event-stream"
_JSON_TYPE_HEADER: Final = (b"content-type", JSON_TYPE.encode())
_ACCEPT_CACHE_SIZE: Final = 64


@dataclass(frozen=True, slots=True)
class Accept:
    """Which answer forms the client takes."""

    json: bool
    sse: bool


class JsonResponse(Response):
    """A JSON body with its `content-length` and `content-type` headers: what Starlette's
    `Response` sends for it, without its generic header building on every answer."""

    media_type = JSON_TYPE

    def __init__(
        self, body: bytes, status_code: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        self.status_code = status_code
        self.background = None
        self.body = body
        if headers:
            self.init_headers(headers)
        else:
            self.raw_headers = [(b"content-length", str(len(body)).encode()), _JSON_TYPE_HEADER]


_accepted: dict[str | None, Accept] = {}
"""`accepts` answers by header value: clients send the same few `Accept` headers."""


def accepts(header: str | None) -> Accept:
    """What the `Accept` header allows (missing: JSON only, like any plain HTTP client)."""
    found = _accepted.get(header)
    if found is None:
        found = _parse_accept(header)
        if len(_accepted) < _ACCEPT_CACHE_SIZE:
            _accepted[header] = found
    return found


def _parse_accept(header: str | None) -> Accept:
    if header is None:
        return Accept(json=True, sse=False)
    types = {part.split(";", 1)[0].strip().lower() for part in header.split(",")}
    any_type = "*/*" in types
    return Accept(
        json=any_type or JSON_TYPE in types or "application/*" in types,
        sse=SSE_TYPE in types or "text/*" in types,
    )


def error_body(code: int, message: str, request_id: Any = None, data: Any = None) -> bytes:
    """A JSON-RPC error; without a readable request id, `"id": null` (as JSON-RPC 2.0 says)."""
    known = request_id if jsonrpc.is_request_id(request_id) else None
    return jsonrpc.dumps(jsonrpc.error(known, code, message, data))


def error(
    status: int,
    code: int,
    message: str,
    request_id: Any = None,
    data: Any = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """An HTTP error answer whose body is a JSON-RPC error."""
    return JsonResponse(error_body(code, message, request_id, data), status, headers)


def sse_event(message: Mapping[str, Any], event_id: str | None = None) -> bytes:
    """One JSON-RPC message as a Server-Sent Event (with an `id` to resume after it)."""
    head = b"event: message\n" if event_id is None else f"id: {event_id}\nevent: message\n".encode()
    return head + b"data: " + jsonrpc.dumps(message) + b"\n\n"


def answer(
    reply: dict[str, Any] | None,
    accept: Accept,
    modern: bool,
    headers: dict[str, str] | None = None,
) -> Response:
    """The engine's reply as JSON (or one SSE event for a client that takes only SSE).

    Errors keep HTTP 200 in the legacy era (400 when not even the id was
    readable); 2026-07-28 gives them the statuses its transport spec names.
    """
    if reply is None:
        return Response(status_code=202, headers=headers)
    status = 200
    problem = reply.get("error")
    if problem is not None:
        if modern:
            status = MODERN_ERROR_STATUS.get(problem.get("code"), 200)
        elif reply.get("id") is None:
            status = 400  # could not even read the request
    if not accept.json:
        return Response(
            sse_event(reply), status, {**SSE_HEADERS, **(headers or {})}, media_type=SSE_TYPE
        )
    return JsonResponse(jsonrpc.dumps(reply), status, headers)


def headers_of(request: Request) -> dict[str, str]:
    """The request's headers as a dict (see `scope_headers`)."""
    return scope_headers(request.scope)


def scope_headers(scope: MutableMapping[str, Any]) -> dict[str, str]:
    """An ASGI request's headers as a dict, built once per request (Starlette's `Headers`
    scans the raw list on every lookup). A repeated header's values are joined with
    ", " as HTTP allows, so a second `Origin`, `Host` or token never goes unseen."""
    found: dict[str, str] | None = scope.get("toolgen.headers")
    if found is None:
        raw = scope["headers"]
        found = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in raw}
        if len(found) < len(raw):  # a repeated header: join its values, in order
            found = {}
            for raw_name, raw_value in raw:
                name = raw_name.decode("latin-1").lower()
                value = raw_value.decode("latin-1")
                found[name] = f"{found[name]}, {value}" if name in found else value
        scope["toolgen.headers"] = found
    return found
