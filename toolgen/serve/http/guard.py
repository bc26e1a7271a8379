"""Bounds on what HTTP clients can hold: connections, request heads, buffered bodies.

uvicorn has no timeout for reading a request's head: a client that connects
and sends nothing (or a byte a minute) keeps its connection, and about a
thousand of them exhaust the process's file descriptors. `guarded_protocol`
wraps uvicorn's HTTP protocol class so that

- at most `max_connections` connections are open at once (one more is
  answered 503 and closed at once), and
- a connection has `head_timeout` seconds to deliver a complete request head,
  from when it opens and again after each response (keep-alive); then it is
  closed. A request being answered (an SSE stream, a long call) is never cut.
  The deadline moves with each response, but its timer is only re-armed when it
  fires early (cancelling and re-creating a timer per response cost more than
  the check), and
- a connection may send at most `max_head` bytes while a request head is due
  (the request line and headers; nothing of a body counts): past that it is
  answered 431 and closed. A read that would pass the limit is searched for the
  head's end (only then: a head of usual size costs a sum and a comparison), so a
  longer head is refused before the parser sees it, whether it arrives in one read
  or many; the parser holds at most `max_head` bytes of a head (plus one read when
  a read might complete a blank line begun in the one before). After
  the answer the connection is still read, and what arrives dropped, for up to
  `LINGER` bytes (or until the head timeout): a client still sending its head
  then gets to read the 431, where closing at once would reset the connection
  (the kernel answers unread bytes with a reset, which discards the 431).

It also hands uvicorn a `CoalescingTransport`: uvicorn writes a response's head
and its body with two `send` calls (two TCP segments, two wake-ups of the
client); everything written during one event-loop step now goes out in one.

Bodies are bounded in the endpoint (`SecurityPolicy.body_timeout`: 408), and a
`BodyBudget` caps the bytes buffered by all requests together (503).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

DEFAULT_MAX_CONNECTIONS: Final = 512
DEFAULT_HEAD_TIMEOUT: Final = 10.0
DEFAULT_MAX_HEAD: Final = 64 * 1024
"""Bytes of a request head: 4 times h11's own default (16 KiB) and between nginx's
default (8 KiB per header line, 32 KiB in all) and http.client's (64 KiB per line,
100 headers): any real client fits (bearer tokens and cookies are a few KiB), while
512 connections at the limit hold 32 MiB of heads."""
MAX_READ: Final = 256 * 1024
"""The most one read delivers to a protocol (asyncio's and uvloop's socket transports)."""
LINGER: Final = 1024 * 1024
"""Bytes read and dropped after a 431 before the connection is closed."""


_HEAD_END: Final = re.compile(rb"\n\r?\n")
"""The blank line that ends a request head (h11 also takes a bare LF)."""


def _may_end_head(data: bytes, budget: int) -> bool:
    """Whether a request head may end within the first `budget` bytes of `data`: its blank
    line is there, or `data` starts with what may complete one begun in the last read."""
    return data.startswith((b"\n", b"\r\n")) or _HEAD_END.search(data, 0, budget) is not None


def _refusal(status: str, text: str) -> bytes:
    """A whole plain-text response that closes the connection."""
    body = text.encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


_BUSY: Final = _refusal("503 Service Unavailable", "Too many connections: try again later\n")


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    head_timeout: float = DEFAULT_HEAD_TIMEOUT
    max_head: int = DEFAULT_MAX_HEAD


def guarded_protocol(base: type[Any], limits: ConnectionLimits) -> type[Any]:
    """A subclass of uvicorn's HTTP protocol class `base` that enforces `limits` and
    coalesces each event-loop step's writes (see `CoalescingTransport`)."""

    head_too_large = _refusal(
        "431 Request Header Fields Too Large",
        f"Request head too large: at most {limits.max_head} bytes\n",
    )

    class Guarded(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None
        _head_deadline: float = 0.0
        _head_bytes: int = 0
        _refused: bool = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                transport.write(_BUSY)
                transport.close()
                return
            self.transport = CoalescingTransport(transport, self.loop)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused:  # dropped while the 431 lingers
                self._head_bytes += len(data)
                if self._head_bytes > limits.max_head + LINGER:
                    self.transport.close()
                return
            cycle = self.cycle
            in_body = cycle is not None and cycle.more_body
            budget = limits.max_head - self._head_bytes
            if not in_body and len(data) > budget and not _may_end_head(data, budget):
                self._refuse_head()
                return
            super().data_received(data)
            if not in_body and self.cycle is cycle:
                self._head_bytes += len(data)  # no head completed: all of it may be head
                if self._head_bytes > limits.max_head:
                    self._refuse_head()
            else:  # a body, or a head that completed in this read
                self._head_bytes = 0

        def _refuse_head(self) -> None:
            transport = self.transport
            if transport.is_closing():
                return  # the parser refused it already (400)
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:  # a response is on the wire
                transport.close()
                return
            self._refused = True
            transport.write(head_too_large)
            transport.write_eof()

        def on_response_complete(self) -> None:
            transport = self.transport
            if isinstance(transport, CoalescingTransport):
                transport.flush()  # the response is whole: send it now
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            """Give the client `head_timeout` seconds from now for its next request head."""
            self._head_deadline = self.loop.time() + limits.head_timeout
            if self._head_timer is None:
                self._head_timer = self.loop.call_at(self._head_deadline, self._head_expired)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_expired(self) -> None:
            self._head_timer = None
            if self.loop.time() < self._head_deadline:  # a response moved the deadline
                self._head_timer = self.loop.call_at(self._head_deadline, self._head_expired)
                return
            cycle = self.cycle
            waiting_for_head = cycle is None or cycle.response_complete
            if waiting_for_head and not self.transport.is_closing():
                self.transport.close()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


class CoalescingTransport:
    """A connection's transport whose writes during one event-loop step go out together.

    Bytes and their order are unchanged; only the number of `send` calls drops
    (uvicorn writes a response's head and body separately). Pending bytes are sent
    at the end of the step (`call_soon`), when the response completes, and before
    the connection closes. Everything else is the wrapped transport's own."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def writelines(self, chunks: Iterable[bytes]) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        """Send what was written so far (a no-op when nothing is pending)."""
        pending = self._pending
        if pending:
            self._pending = []
            if len(pending) == 1:
                self._transport.write(pending[0])
            else:
                self._transport.writelines(pending)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    def is_closing(self) -> bool:
        closing: bool = self._transport.is_closing()
        return closing

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class BodyBudget:
    """Bytes of request bodies buffered by all requests together, up to `limit`.

    Used on the event loop only (no lock): each POST `hold`s its share while it is
    answered and gives it back when done (`with budget.hold() as held:`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def hold(self) -> Held:
        return Held(self)


class Held:
    """One request's share of a `BodyBudget`; leaving the `with` block gives it back."""

    __slots__ = ("_budget", "size")

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.size = 0

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._budget.used -= self.size
        self.size = 0

    def take(self, size: int) -> bool:
        """Reserve `size` more bytes; False (nothing reserved) when the budget is spent."""
        budget = self._budget
        if budget.used + size > budget.limit:
            return False
        budget.used += size
        self.size += size
        return True


class BodyDeadlines:
    """The time limit on reading request bodies, kept by one timer for all requests.

    A timer per request (`asyncio.timeout`) cost more than reading a body that has
    already arrived, as nearly every body has when its request starts. Here a reader
    registers its task (`start`), one sweep every `timeout / 4` (only while some task
    reads) cancels the tasks past their deadline, and `expired` tells the reader that
    its cancellation was the deadline (then it answers 408). A body is cut between
    `timeout` and `1.25 * timeout` after its request started."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._reading: dict[asyncio.Task[Any], tuple[float, int]] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, task: asyncio.Task[Any]) -> None:
        loop = task.get_loop()
        self._reading[task] = (loop.time() + self.timeout, task.cancelling())
        if self._sweeper is None or self._loop is not loop:  # (a new loop: tests, reloads)
            self._loop = loop
            self._sweeper = loop.call_later(self.timeout / 4, self._sweep, loop)

    def stop(self, task: asyncio.Task[Any]) -> None:
        self._reading.pop(task, None)
        self._expired.discard(task)

    def expired(self, task: asyncio.Task[Any]) -> bool:
        """Whether `task`'s cancellation (just caught) is its deadline's and nobody
        else's; then the cancellation is withdrawn (`uncancel`), as `asyncio.timeout` does."""
        if task not in self._expired:
            return False
        self._expired.discard(task)
        found = self._reading.get(task)
        cancelling = found[1] if found is not None else 0
        return task.uncancel() <= cancelling

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self._loop:
            return  # an older loop's sweep: the current loop has its own
        self._sweeper = None
        now = loop.time()
        for task, (deadline, _) in list(self._reading.items()):
            if task.done():  # its loop stopped while it read: nothing to cut
                self.stop(task)
            elif deadline <= now and task.get_loop() is loop and task not in self._expired:
                self._expired.add(task)
                task.cancel()
        if self._reading:
            self._sweeper = loop.call_later(self.timeout / 4, self._sweep, loop)
