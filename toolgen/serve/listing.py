"""`tools/list` pages, serialized once per revision, behind opaque cursors.

A cursor is base64url of `<offset>:<fingerprint>`, the fingerprint naming
the tool list it belongs to, so a cursor from another server (or another
build of this one) is rejected instead of silently paging a different list.
Clients must treat cursors as opaque; this encoding may change.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any, Final

import orjson

from toolgen.serve import jsonrpc
from toolgen.serve.tools import Tools
from toolgen.spec.protocol import is_modern, list_tools_result

DEFAULT_PAGE_SIZE: Final = 256
"""Tools per page: large enough that clients which never follow `nextCursor` see real
tool sets whole (the 117-tool GitHub server fits), small enough to bound a response."""


class InvalidCursor(ValueError):
    """A `cursor` this server did not issue (answered with -32602)."""


class ToolListing:
    """Prepared `tools/list` results: `page(revision, cursor)` → JSON bytes of the result."""

    def __init__(
        self,
        tools: Tools,
        page_size: int = DEFAULT_PAGE_SIZE,
        modern_meta: dict[str, Any] | None = None,
    ) -> None:
        """`modern_meta` is the `_meta` of results from 2026-07-28 on (e.g. the server's info)."""
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self._tools = tools
        self._page_size = page_size
        self._modern_meta = modern_meta
        names = "\0".join(tool.name for tool in tools.tools)
        self._fingerprint = hashlib.sha256(names.encode()).hexdigest()[:12]
        self._pages: dict[tuple[str, int], orjson.Fragment] = {}

    def cursor(self, offset: int) -> str:
        raw = f"{offset}:{self._fingerprint}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def offset(self, cursor: str) -> int:
        """The position a cursor names; `InvalidCursor` unless this listing issued it."""
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            text, fingerprint = raw.split(":")
            offset = int(text)
        except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
            raise InvalidCursor(cursor) from exc
        total = len(self._tools.tools)
        if fingerprint != self._fingerprint or not 0 < offset < total or offset % self._page_size:
            raise InvalidCursor(cursor)
        return offset

    def page(self, revision: str, cursor: str | None) -> orjson.Fragment:
        """The serialized result for the page at `cursor` (None: the first page)."""
        offset = 0 if cursor is None else self.offset(cursor)
        key = (revision, offset)
        found = self._pages.get(key)
        if found is None:
            found = orjson.Fragment(jsonrpc.dumps(self._build(revision, offset)))
            self._pages[key] = found
        return found

    def _build(self, revision: str, offset: int) -> dict[str, Any]:
        result = list_tools_result(self._tools.toolset, revision)
        if self._modern_meta and is_modern(revision):
            result["_meta"] = self._modern_meta
        if len(result["tools"]) <= self._page_size:
            return result
        end = offset + self._page_size
        result["tools"] = result["tools"][offset:end]
        if end < len(self._tools.tools):
            result["nextCursor"] = self.cursor(end)
        return result
