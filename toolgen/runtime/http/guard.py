"""Bounds on what HTTP clients can hold: connections, slow request heads, buffered bodies.

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
  the check).

It also hands uvicorn a `CoalescingTransport`: uvicorn writes a response's head
and its body with two `send` calls (two TCP segments, two wake-ups of the
client); everything written during one event-loop step now goes out in one.

Bodies are bounded in the endpoint (`SecurityPolicy.body_timeout`: 408), and a
`BodyBudget` caps the bytes buffered by all requests together (503).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

DEFAULT_MAX_CONNECTIONS: Final = 512
DEFAULT_HEAD_TIMEOUT: Final = 10.0

_BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
    b"connection: close\r\ncontent-length: 38\r\n\r\nToo many connections: try again later\n"
)


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    head_timeout: float = DEFAULT_HEAD_TIMEOUT


def guarded_protocol(base: type[Any], limits: ConnectionLimits) -> type[Any]:
    """A subclass of uvicorn's HTTP protocol class `base` that enforces `limits` and
    coalesces each event-loop step's writes (see `CoalescingTransport`)."""

    class Guarded(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None
        _head_deadline: float = 0.0

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
    answered and gives it back when done."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    @contextmanager
    def hold(self) -> Iterator[Held]:
        held = Held(self)
        try:
            yield held
        finally:
            self.used -= held.size


class Held:
    """One request's share of a `BodyBudget`."""

    __slots__ = ("_budget", "size")

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.size = 0

    def take(self, size: int) -> bool:
        """Reserve `size` more bytes; False (nothing reserved) when the budget is spent."""
        budget = self._budget
        if budget.used + size > budget.limit:
            return False
        budget.used += size
        self.size += size
        return True
