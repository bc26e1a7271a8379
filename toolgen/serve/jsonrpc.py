"""JSON-RPC 2.0 framing for MCP: error codes, response objects, (de)serialization.

Responses are plain dicts, except that a result may embed pre-serialized
JSON as an `orjson.Fragment` (the prepared `tools/list` pages): transports
must serialize with `dumps` here (orjson), never with the standard library.

Integers are exact at any size, in and out. orjson reads an integer beyond 64 bits
as a float and refuses to write one, so a message with a run of 19 digits (every
such integer has one) is read again by the standard library, which keeps integers
exact, after orjson has checked it (UTF-8, nesting, no NaN); `dumps` writes an
integer orjson refuses as its digits.

Request ids are echoed exactly as the client wrote them. orjson reads `1.0` and
`1e3` as floats, so a message whose id came out as a float is read again for its
ids alone: an integral number keeps its JSON text as a `NumberId` (written back
verbatim by `response` and `error`); any other float stays a float and is refused
like every id that is neither a string nor an integer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, Final

import orjson

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""MCP 2026-07-28: the request's `_meta` protocol version is not served here."""
MISSING_CLIENT_CAPABILITY: Final = -32021
"""MCP 2026-07-28: the request needs a client capability its `_meta` does not declare."""

JSONDecodeError = orjson.JSONDecodeError


class NumberId(str):
    """A numeric request id that Python cannot hold exactly (`1.0`, `2**70`): its JSON text.

    Hashable and comparable like the text, so a `notifications/cancelled` naming
    the same id finds the call; `response` and `error` write it back unquoted.
    """

    __slots__ = ()


RequestId = str | int

_DIGITS_AS_ZERO: Final = bytes.maketrans(b"123456789", b"000000000")
_WIDE_RUN: Final = b"0" * 19
"""A run of digits as long as the shortest integer beyond 64 bits (-9223372036854775809), once
every digit is a zero: found by two passes in C (`translate`, `in`), which a regular
expression, trying a match at every digit, is not."""
_ORJSON_INTS: Final = range(-(2**63), 2**64)
"""The integers orjson reads and writes itself."""


def loads(data: bytes | str) -> Any:
    """One decoded message (or batch): integers exact at any size, numeric ids kept exactly
    (see the module docs)."""
    message = decode(data)
    if type(message) is dict:
        if _has_float_id(message):
            _restore_ids(message, json.loads(data, parse_float=_Exact, parse_int=_Exact))
    elif type(message) is list and any(
        type(item) is dict and _has_float_id(item) for item in message
    ):
        exact = json.loads(data, parse_float=_Exact, parse_int=_Exact)
        for item, raw in zip(message, exact, strict=True):
            if type(item) is dict:
                _restore_ids(item, raw)
    return message


def decode(data: bytes | str) -> Any:
    """JSON `data` as Python values, integers exact at any size (see the module docs)."""
    value = orjson.loads(data)
    raw = data.encode() if isinstance(data, str) else data
    # (`find`, not `in`: `bytes in bytes` first tries the needle as an integer, and fails)
    if raw.translate(_DIGITS_AS_ZERO).find(_WIDE_RUN) >= 0:  # maybe wide: read it exactly
        try:
            return json.loads(data)
        except RecursionError:  # deeper than the standard library reads (orjson: 1024)
            raise JSONDecodeError("a message with a long number nested too deeply", "", 0) from None
    return value


def _has_float_id(message: dict[str, Any]) -> bool:
    if type(message.get("id")) is float:
        return True
    params = message.get("params")
    return type(params) is dict and type(params.get("requestId")) is float


class _Exact(str):
    """A number's JSON text, as read by the standard library's hooks."""

    __slots__ = ()


def _exact_id(value: Any, fallback: Any) -> Any:
    """`fallback` (orjson's reading) unless `value` is an integral number: its text."""
    if type(value) is not _Exact:
        return fallback
    try:
        number = Decimal(value)
    except InvalidOperation:  # pragma: no cover - the text was valid JSON
        return fallback
    if not number.is_finite() or number != number.to_integral_value():
        return fallback  # 1.5 stays a float (and is refused as an id)
    return NumberId(value)


def _restore_ids(message: dict[str, Any], raw: Any) -> None:
    if type(raw) is not dict:  # pragma: no cover - both parsers read the same text
        return
    if type(message.get("id")) is float:
        message["id"] = _exact_id(raw.get("id"), message["id"])
    params, raw_params = message.get("params"), raw.get("params")
    if type(params) is dict and type(raw_params) is dict and type(params.get("requestId")) is float:
        params["requestId"] = _exact_id(raw_params.get("requestId"), params["requestId"])


def dumps(message: Any, default: Callable[[Any], Any] | None = None, option: int = 0) -> bytes:
    """`message` as compact UTF-8 JSON (never contains a raw newline), integers beyond 64
    bits written exactly; `default` and `option` are orjson's."""
    hook = None if default is None else (lambda value: _wide_as_text(default(value)))
    try:
        return orjson.dumps(message, default=hook, option=option)
    except orjson.JSONEncodeError:  # maybe an integer beyond 64 bits: written as its digits
        return orjson.dumps(_wide_as_text(message), default=hook, option=option)


def _wide_as_text(value: Any) -> Any:
    """`value` with every integer orjson cannot write as a fragment of its digits."""
    kind = type(value)
    if kind is int:
        return value if value in _ORJSON_INTS else orjson.Fragment(str(value).encode())
    if kind is dict:
        return {key: _wide_as_text(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_wide_as_text(item) for item in value]
    return value


def is_request_id(value: Any) -> bool:
    """MCP ids are strings or integers (never null, never a fraction or a boolean)."""
    kind = type(value)
    return kind is str or kind is int or kind is NumberId


def wire_id(request_id: Any) -> Any:
    """The id as it goes on the wire: a `NumberId` unquoted, exactly as it came."""
    if type(request_id) is NumberId:
        return orjson.Fragment(request_id.encode())
    return request_id


def response(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": wire_id(request_id), "result": result}


def error(
    request_id: RequestId | None, code: int, message: str, data: Any = None
) -> dict[str, Any]:
    """An error response; `request_id` is None when the id could not be read (`"id": null`)."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": wire_id(request_id), "error": body}
