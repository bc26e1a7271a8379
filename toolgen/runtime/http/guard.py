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

Bodies are bounded in the endpoint (`SecurityPolicy.body_timeout`: 408), and a
`BodyBudget` caps the bytes buffered by all requests together (503).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
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
    """A subclass of uvicorn's HTTP protocol class `base` that enforces `limits`."""

    class Guarded(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                transport.write(_BUSY)
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(limits.head_timeout, self._head_expired)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_expired(self) -> None:
            self._head_timer = None
            cycle = self.cycle
            waiting_for_head = cycle is None or cycle.response_complete
            if waiting_for_head and not self.transport.is_closing():
                self.transport.close()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


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
