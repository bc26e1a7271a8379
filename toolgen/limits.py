"""How much toolgen reads from a peer, and how long it waits, in one place.

A peer is a server that `verify`, `import` or `call` talks to, or a client of
`serve`. Whatever it sends is read within these bounds, so a broken or hostile
peer costs a bounded amount of memory and time (docs/security.md lists them all).
The default timeouts of every command and API live here too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Final

MESSAGE_ENV: Final = "TOOLGEN_MAX_MESSAGE"
"""The environment variable that sets `max_message()` (bytes)."""
DEFAULT_MAX_MESSAGE: Final = 64 * 1024 * 1024
"""The default of `max_message()`, and the longest stdio line `serve` reads."""
MAX_BUFFERED: Final = 64 * 1024 * 1024
"""Bytes of request bodies `serve --http` buffers for all requests together (past it, 503)."""
STREAM_BYTES: Final = 64 * 1024 * 1024
"""Bytes of resumable stream events (as JSON) `serve --http` keeps in its memory (without a
shared store); past it, the oldest streams go first."""
CALL_TIMEOUT: Final = 60.0
"""Seconds a tool call may take by default: a served call before it answers with an error
(`serve`, the generated server stub, `toolgen.sdk`), and a call, a listing or an import
toolgen makes of a server before it gives up (`call`, `import`)."""
VERIFY_TIMEOUT: Final = 10.0
"""Seconds `verify` waits for each answer of the server it checks, by default."""
MAX_PAGES: Final = 1000
"""Pages of one list (`tools/list` and its `nextCursor`s) read before giving up."""
MAX_DEPTH: Final = 1024
"""Nesting of one JSON message (orjson's own limit, also the serving side's)."""
STDERR_LINE: Final = 4096
"""Bytes kept of each line a server writes to stderr (the rest of the line is dropped)."""


def max_message() -> int:
    """The largest message read from a peer, in bytes: a stdio line, an HTTP body, one
    server-sent event. `TOOLGEN_MAX_MESSAGE` sets it (a whole number of bytes)."""
    text = os.environ.get(MESSAGE_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_MESSAGE
    if not text.isdigit() or int(text) < 1024:
        raise ValueError(f"{MESSAGE_ENV}={text!r}: expected a whole number of bytes, at least 1024")
    return int(text)


class TooLong:
    """A line longer than the limit, dropped; only its size so far is kept."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __repr__(self) -> str:
        return f"TooLong({self.size})"


class Lines:
    """Splits a byte stream into lines (without their newline) of at most `limit` bytes.

    A longer line is dropped as it arrives, never held whole: `feed` gives one
    `TooLong` for it once it passes the limit and skips the rest of it. A partial
    line is kept as a list of chunks, so a long line costs linear time. `limit` may be
    lowered between chunks (what is left of a budget for several lines)."""

    __slots__ = ("_parts", "_size", "_skipping", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False

    def feed(self, chunk: bytes) -> Iterator[bytes | TooLong]:
        """The lines `chunk` completes, in order."""
        start, size = 0, len(chunk)
        while start < size and (end := chunk.find(b"\n", start)) >= 0:
            if self._skipping:
                self._skipping = False  # the end of an oversize line: dropped
            elif self._size + end - start > self.limit:
                yield TooLong(self._size + end - start)
                self._parts, self._size = [], 0
            elif self._parts:
                self._parts.append(chunk[start:end])
                line = b"".join(self._parts)
                self._parts, self._size = [], 0  # the parts are gone before the line is used
                yield line
                del line
            else:
                yield chunk[start:end]
            start = end + 1
        if start < size and not self._skipping:
            self._size += size - start
            if self._size > self.limit:
                yield TooLong(self._size)
                self._parts, self._size, self._skipping = [], 0, True
            else:
                self._parts.append(chunk[start:])

    def end(self) -> bytes | None:
        """The last line, when the stream ended without a newline after it."""
        last = b"".join(self._parts) if self._parts else None
        self._parts, self._size = [], 0
        return last


def read_lines(read: Callable[[], bytes], limit: int) -> Iterator[bytes | TooLong]:
    """The lines `read()` gives until it gives b"" (see `Lines`)."""
    lines = Lines(limit)
    while chunk := read():
        yield from lines.feed(chunk)
    if (last := lines.end()) is not None:
        yield last
