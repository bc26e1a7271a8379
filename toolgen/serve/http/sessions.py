"""Legacy-era (initialize handshake) sessions of the HTTP transport.

A session is created by a successful `initialize`, named by an unguessable
`Mcp-Session-Id`, and holds the engine `Connection` (negotiated version,
log level, calls in flight). It ends on `DELETE`, after `idle_timeout`
seconds without a request, or to make room for a new one: first a session
never used after `initialize` (oldest first, so a flood of `initialize` evicts
its own sessions, not real clients'), else the least recently used one if it
was idle for `PROTECTED_IDLE` seconds; when every session is in recent use,
`initialize` is refused (503). Sessions live in this process's memory: behind a load
balancer, legacy clients need sticky routing on `Mcp-Session-Id` (the
stateless 2026-07-28 era needs nothing); `toolgen serve --http --workers N`
does that routing itself (see `forward`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from toolgen.serve.connection import Connection

DEFAULT_MAX_SESSIONS: Final = 10_000
DEFAULT_IDLE_TIMEOUT: Final = 3600.0
PROTECTED_IDLE: Final = 300.0
"""A session used within this many seconds is never evicted to make room for a new one."""


class SessionsFull(Exception):
    """Every session is in recent use: a new one would have to evict a live client."""


@dataclass(slots=True)
class Session:
    """One legacy client's state between requests."""

    id: str
    connection: Connection = field(default_factory=Connection)
    last_seen: float = 0.0
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    """What the client declared in `initialize` (sampling, elicitation, ...)."""
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    """Requests sent to the client, by id, until its response arrives in a POST."""
    _next_request: int = 0

    def next_request_id(self) -> str:
        """A fresh id for a request to the client (strings: never confused with the client's)."""
        self._next_request += 1
        return f"toolgen-{self._next_request}"

    def cancel_waiting(self) -> None:
        for future in self.waiting.values():
            future.cancel()
        self.waiting.clear()


class SessionStore:
    """Sessions by id, with idle expiry and a size bound (least recently used goes first)."""

    def __init__(
        self,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        prefix: str = "",
    ) -> None:
        """`prefix` starts every id (a worker's name, see `forward`)."""
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._clock = clock
        self.prefix = prefix
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._unused: OrderedDict[str, None] = OrderedDict()
        """Sessions never used since `initialize`, oldest first: evicted first."""

    def __len__(self) -> int:
        return len(self._sessions)

    def create(
        self, connection: Connection | None = None, client_capabilities: Any = None
    ) -> Session:
        """A new session for `connection` (evicting expired ones, then as the module docs
        say); `SessionsFull` when every session is in recent use."""
        now = self._clock()
        self._expire(now)
        while len(self._sessions) >= self.max_sessions:
            self.end(self._victim(now))
        session = Session(self.prefix + secrets.token_urlsafe(24), connection or Connection(), now)
        if isinstance(client_capabilities, dict):
            session.client_capabilities = client_capabilities
        self._sessions[session.id] = session
        self._unused[session.id] = None
        return session

    def _victim(self, now: float) -> str:
        """The session to end for a new one; `SessionsFull` when all are in recent use."""
        if self._unused:
            return next(iter(self._unused))
        session_id, oldest = next(iter(self._sessions.items()))
        if now - oldest.last_seen < PROTECTED_IDLE:
            raise SessionsFull
        return session_id

    def get(self, session_id: str) -> Session | None:
        """The live session with this id (None: unknown, ended or expired), marked as used."""
        session = self._sessions.get(session_id)
        if session is None:
            return None
        now = self._clock()
        if now - session.last_seen > self.idle_timeout:
            self.end(session_id)
            return None
        session.last_seen = now
        self._sessions.move_to_end(session_id)
        self._unused.pop(session_id, None)
        return session

    def end(self, session_id: str) -> bool:
        """End a session, cancelling its calls in flight; False when there was none."""
        session = self._sessions.pop(session_id, None)
        self._unused.pop(session_id, None)
        if session is None:
            return False
        session.connection.cancel_all()
        session.cancel_waiting()
        return True

    def end_all(self) -> None:
        for session_id in list(self._sessions):
            self.end(session_id)

    def _expire(self, now: float) -> None:
        while self._sessions:
            session_id, oldest = next(iter(self._sessions.items()))
            if now - oldest.last_seen <= self.idle_timeout:
                break
            self.end(session_id)
