"""2026-07-28 request metadata headers: checked against the JSON-RPC body they mirror.

Intermediaries route on `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`
and `Mcp-Param-*` without parsing bodies, so a server that executes the body
must refuse a request whose headers say something else (HTTP 400,
JSON-RPC -32020 `HeaderMismatch`). Values may be sent Base64-encoded as
`=?base64?...?=`; they are decoded before comparing.

`Mcp-Param-{Name}` headers come from `x-mcp-header` annotations on the
properties of a tool's input schema (`ParamHeaders.for_tool`).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolgen.spec.ir import ToolSet
from toolgen.spec.protocol import header_params

HEADER_MISMATCH: Final = -32020
PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
METHOD_HEADER: Final = "mcp-method"
NAME_HEADER: Final = "mcp-name"
PARAM_HEADER_PREFIX: Final = "mcp-param-"
NAME_SOURCES: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",  # the tasks extension: routes a task's requests to its server
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
"""Methods that require `Mcp-Name`, and the `params` field it mirrors."""
_SENTINEL_START: Final = "=?base64?"
_SENTINEL_END: Final = "?="
_NOT_IN_VALUE: Final = re.compile(r"[^\t -~]")
"""A character a header value may not carry (only visible ASCII, space and tab)."""


class HeaderMismatchError(ValueError):
    """A required header is missing, malformed, or disagrees with the body."""


def decode_value(raw: str) -> str:
    """A header value as the client meant it: OWS trimmed, Base64 sentinel decoded.

    Raises HeaderMismatchError for characters a header may not carry or bad Base64.
    """
    value = raw.strip(" \t")
    if _NOT_IN_VALUE.search(value):
        raise HeaderMismatchError("contains characters not allowed in a header value")
    if value.startswith(_SENTINEL_START) and value.endswith(_SENTINEL_END):
        encoded = value[len(_SENTINEL_START) : -len(_SENTINEL_END)]
        try:
            return base64.b64decode(encoded, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise HeaderMismatchError("is not valid Base64-encoded UTF-8") from None
    return value


def _require(headers: Mapping[str, str], name: str, display: str) -> str:
    raw = headers.get(name)
    if raw is None:
        raise HeaderMismatchError(f"Missing required header {display}")
    return raw


def check_standard_headers(headers: Mapping[str, str], message: Mapping[str, Any]) -> None:
    """Raise HeaderMismatchError unless the standard headers match a modern-era request.

    `headers` has lower-case names (Starlette's `Headers` does). The protocol
    version is only compared when the body names one (a body without it is
    an invalid-params error, reported after this check).
    """
    method = message.get("method")
    params = message.get("params")
    params = params if type(params) is dict or isinstance(params, Mapping) else {}
    version_header = _require(headers, PROTOCOL_VERSION_HEADER, "MCP-Protocol-Version").strip()
    meta = params.get("_meta")
    if type(meta) is dict or isinstance(meta, Mapping):  # (the exact type first: cheaper)
        body_version = meta.get("io.modelcontextprotocol/protocolVersion")
        if isinstance(body_version, str) and body_version != version_header:
            raise HeaderMismatchError(
                f"Header mismatch: MCP-Protocol-Version header value {version_header!r} "
                f"does not match body value {body_version!r}"
            )
    method_header = _require(headers, METHOD_HEADER, "Mcp-Method").strip(" \t")
    if method_header != method:
        raise HeaderMismatchError(
            f"Header mismatch: Mcp-Method header value {method_header[:100]!r} "
            f"does not match body value {str(method)[:100]!r}"
        )
    source = NAME_SOURCES.get(method) if isinstance(method, str) else None
    if source is not None and isinstance(params.get(source), str):
        raw_name = _require(headers, NAME_HEADER, "Mcp-Name")
        try:
            name = decode_value(raw_name)
        except HeaderMismatchError as exc:
            raise HeaderMismatchError(f"Header mismatch: Mcp-Name {exc}") from None
        if name != params[source]:
            raise HeaderMismatchError(
                f"Header mismatch: Mcp-Name header value {name[:128]!r} "
                f"does not match body value {params[source][:128]!r}"
            )


@dataclass(frozen=True, slots=True)
class ParamHeader:
    """One `x-mcp-header` annotation: the header name part and the property path."""

    name: str
    path: tuple[str, ...]


class ParamHeaders:
    """The `x-mcp-header` annotations of every tool, found once."""

    def __init__(self, toolset: ToolSet) -> None:
        self._by_tool: dict[str, tuple[ParamHeader, ...]] = {}
        for tool in toolset.tools:
            found = tuple(
                ParamHeader(name, path) for name, path in header_params(tool.input_schema)
            )
            if found:
                self._by_tool[tool.name] = found

    def __bool__(self) -> bool:
        return bool(self._by_tool)

    def check(self, headers: Mapping[str, str], tool: Any, arguments: Any) -> None:
        """Raise HeaderMismatchError unless each annotated argument present in the body has
        its `Mcp-Param-{Name}` header with the same value."""
        for param in self._by_tool.get(tool, ()) if isinstance(tool, str) else ():
            value = _at(arguments, param.path)
            if value is None:
                continue  # absent or null: the client omits the header; nothing to expect
            display = f"Mcp-Param-{param.name}"
            raw = headers.get(PARAM_HEADER_PREFIX + param.name.lower())
            if raw is None:
                raise HeaderMismatchError(f"Missing required header {display}")
            try:
                text = decode_value(raw)
            except HeaderMismatchError as exc:
                raise HeaderMismatchError(f"Header mismatch: {display} {exc}") from None
            if not _same(text, value):
                raise HeaderMismatchError(
                    f"Header mismatch: {display} header value does not match the argument "
                    f"{'.'.join(param.path)}"
                )


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    node = arguments
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _same(text: str, value: Any) -> bool:
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int | float):
        try:
            number = float(text)
        except ValueError:
            return False
        return math.isfinite(number) and number == value
    return isinstance(value, str) and text == value
