"""`Mcp-Param-{Name}` headers: 2026-07-28 over HTTP mirrors annotated arguments in headers.

A property of a tool's input schema that carries `x-mcp-header: Name` is sent as
the header `Mcp-Param-Name` too, and servers refuse a `tools/call` without it
(-32020). Values that a header cannot carry as they are (non-ASCII, leading or
trailing spaces) are sent Base64-encoded as `=?base64?...?=`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from toolgen.verify.transport import dumps


def param_headers(params: list[tuple[str, tuple[str, ...]]], arguments: Any) -> dict[str, str]:
    """The `Mcp-Param-*` headers for one call's arguments (absent and null ones are left out)."""
    headers = {}
    for name, path in params:
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        text = _text(value)
        if text is not None:
            headers[f"Mcp-Param-{name}"] = text
    return headers


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return dumps(value).decode()
    if not isinstance(value, str):
        return None
    plain = all(" " <= ch <= "~" for ch in value) and value == value.strip(" \t")
    if plain and not value.startswith("=?base64?"):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode()}?="
