"""Turn a handler's return value into an MCP `CallToolResult`.

Handlers return plain data, pydantic models (dumped by alias, JSON mode),
dataclasses, enums, dates, or any mix of them. The value is serialized once with orjson
(which also gives the text fallback) and read back as plain JSON data, the
form the output schema is checked against. Wrapping for legacy clients is
decided by `toolgen.spec.protocol`, never here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from toolgen.schema.validation import ValidationIssue, describe
from toolgen.serve import jsonrpc
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import has_structured_output, structured_value


class ToolError(Exception):
    """Raise in a handler to fail a call with a message meant for the model.

    The call answers `isError: true` with `str(error)` as its text. Any other
    exception answers a generic message and is logged (with its traceback) to
    stderr only, so internals never reach the client.
    """


class ProtocolError(Exception):
    """Raise in a handler to answer the call with a JSON-RPC error instead of a result.

    For faults outside the tool's own domain (a backend the server depends on is gone,
    an internal invariant broke): the call gets `error` `{code, message, data?}`, and a
    call running as a task ends `failed` with it. A tool's own errors, which the model
    should see and act on, are `ToolError` (`isError`).
    """

    def __init__(self, message: str, *, code: int = -32603, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ResultSchemaError(ValueError):
    """A handler's result does not match the tool's output schema (never sent as a success)."""

    def __init__(self, tool: str, issues: list[ValidationIssue]) -> None:
        super().__init__(f"result of tool {tool!r} violates its output schema: {describe(issues)}")
        self.tool = tool
        self.issues = issues


class Content:
    """Return `Content(block, ...)` from the handler of a tool without output schema to
    send MCP content blocks as they are: images, audio, embedded resources, several blocks.

    Each block is a content dict (`{"type": "image", "data": ..., "mimeType": ...}`);
    `is_error=True` marks the result `isError`.
    """

    __slots__ = ("blocks", "is_error")

    def __init__(self, *blocks: dict[str, Any], is_error: bool = False) -> None:
        self.blocks = blocks
        self.is_error = is_error


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model
        return dump(mode="json", by_alias=True)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot serialize a {type(value).__name__} as JSON")


def serialize(value: Any) -> bytes:
    """`value` as compact JSON; pydantic models and sets are converted.

    orjson itself handles dataclasses, enums, UUIDs and dates (RFC 3339). NaN and
    Infinity are refused (TypeError, like any value JSON cannot carry): orjson would
    write them as `null`, silently changing the result.
    """
    data = jsonrpc.dumps(value, default=_default)
    if data.find(b"null") >= 0 and _non_finite(value):  # (`in` would try an int first)
        raise TypeError("cannot serialize NaN or Infinity as JSON")
    return data


def _non_finite(value: Any) -> bool:
    """Whether `value` holds a float NaN or Infinity anywhere (models and dataclasses too)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(item) for item in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_non_finite(item) for item in value)
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return _non_finite(dump(mode="python"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_non_finite(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


def to_plain(value: Any) -> tuple[Any, bytes]:
    """`value` as plain JSON data (dicts, lists, str, int, float, bool, None) and its JSON."""
    if type(value) is not dict:
        serializer = getattr(value, "__pydantic_serializer__", None)
        if serializer is not None and not isinstance(value, type):  # a pydantic model
            # dumped once, as `serialize` would write it, by its serializer itself (what
            # `model_dump` calls, less parsing a dozen keyword arguments, on every call)
            plain = serializer.to_python(value, mode="json", by_alias=True)
            data = jsonrpc.dumps(plain)  # (JSON mode: nothing left for `_default`)
            if data.find(b"null") >= 0 and _non_finite(value):
                raise TypeError("cannot serialize NaN or Infinity as JSON")
            return plain, data
    data = serialize(value)
    return jsonrpc.decode(data), data


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def error_result(message: str) -> dict[str, Any]:
    """A `CallToolResult` reporting a failure the model can read and act on."""
    return {"content": [text_block(message)], "isError": True}


def structured_result(tool: Tool, plain: Any, data: bytes, revision: str) -> dict[str, Any]:
    """The result for an (already validated) plain value: `structuredContent` + text fallback.

    `data` is `plain` serialized. The text block holds the JSON of
    `structuredContent` (so `{"result": ...}` when `revision` wraps it), except
    for a string value: its text is the string itself, as a person or a model
    reads it (a calendar, not its JSON-escaped quotation).
    """
    if not has_structured_output(revision):  # before 2025-06-18: text content only
        return {"content": [text_block(_text(plain, data))], "isError": False}
    structured = structured_value(tool, plain, revision)
    if structured is not plain and not isinstance(plain, str):  # wrapped as {"result": plain}
        data = jsonrpc.dumps(structured)
    return {
        "content": [text_block(_text(plain, data))],
        "structuredContent": structured,
        "isError": False,
    }


def _text(plain: Any, data: bytes) -> str:
    """The text fallback of a result: a string as it is, anything else as its JSON."""
    return plain if isinstance(plain, str) else data.decode()


def unstructured_result(value: Any) -> dict[str, Any]:
    """The result of a tool without output schema: text only.

    A string is sent as is, `None` as no content, `Content` as its blocks,
    anything else as its JSON. Successful results say `isError: false` explicitly
    (the field is optional, but naive clients and some peer suites require it).
    """
    if isinstance(value, Content):
        if _non_finite(value.blocks):
            raise TypeError("cannot serialize NaN or Infinity as JSON")
        return {"content": list(value.blocks), "isError": value.is_error}
    if value is None:
        return {"content": [], "isError": False}
    if isinstance(value, str):
        return {"content": [text_block(value)], "isError": False}
    return {"content": [text_block(serialize(value).decode())], "isError": False}
