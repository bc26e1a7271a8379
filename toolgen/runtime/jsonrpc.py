"""JSON-RPC 2.0 framing for MCP: error codes, response objects, (de)serialization.

Responses are plain dicts, except that a result may embed pre-serialized
JSON as an `orjson.Fragment` (the prepared `tools/list` pages): transports
must serialize with `dumps` here (orjson), never with the standard library.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""MCP 2026-07-28: the request's `_meta` protocol version is not served here."""

RequestId = str | int

loads = orjson.loads
JSONDecodeError = orjson.JSONDecodeError


def dumps(message: Any) -> bytes:
    """One message as compact UTF-8 JSON (never contains a raw newline)."""
    return orjson.dumps(message)


def is_request_id(value: Any) -> bool:
    """MCP ids are strings or integers (never null, never a float or a boolean)."""
    kind = type(value)
    return kind is str or kind is int


def response(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error(
    request_id: RequestId | None, code: int, message: str, data: Any = None
) -> dict[str, Any]:
    """An error response; `request_id` is None when the id could not be read."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}
