"""Legacy-era (initialize handshake) sessions of the HTTP transport.

A session is created by a successful `initialize` and named by an unguessable
`Mcp-Session-Id`. Its *record* (negotiated version, the client's capabilities, log
level, last use) lives in the store (`toolgen.serve.store`), so any instance sharing
the store serves its requests; what runs (its calls in flight, the requests a call sent
to the client and waits for) lives in the instance running it, as a `Session`.
Instances reach each other with signals: a cancellation, a client's answer or the end
of a session that reaches another instance is passed on to all.

A record is bounded (`connection.kept_capabilities`), and so is their number: a
session ends on `DELETE`, after `idle_timeout` seconds without a request, or to make
room for a new one: first a session never used after `initialize` (oldest first, so a
flood of `initialize` evicts its own sessions, not real clients'), else the least
recently used one if it was idle for `PROTECTED_IDLE` seconds; when every session is in
recent use, `initialize` is refused (503).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from toolgen.serve.connection import Connection
from toolgen.serve.store import Record, Store

DEFAULT_MAX_SESSIONS: Final = 10_000
DEFAULT_IDLE_TIMEOUT: Final = 3600.0
PROTECTED_IDLE: Final = 300.0
"""A session used within this many seconds is never evicted to make room for a new one."""


class SessionsFull(Exception):
    """Every session is in recent use: a new one would have to evict a live client."""


@dataclass(slots=True)
class Session:
    """One legacy session as this instance serves it: its record's state in `connection`,
    and what runs here."""

    id: str
    connection: Connection = field(default_factory=Connection)
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    """What the client declared in `initialize` (sampling, elicitation, ...), as kept."""
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    """Requests sent to the client, by id, until its response arrives in a POST."""
    _next_request: int = 0

    def next_request_id(self) -> str:
        """A fresh id for a request to the client (strings: never confused with the client's;
        unguessable, as another instance may route the answer)."""
        self._next_request += 1
        return f"toolgen-{self._next_request}-{secrets.token_urlsafe(6)}"

    def idle(self) -> bool:
        """Whether nothing of this session runs here."""
        return not self.connection.inflight and not self.waiting

    def end(self) -> None:
        """Cancel what runs here."""
        self.connection.cancel_all()
        for future in self.waiting.values():
            future.cancel()
        self.waiting.clear()


class Sessions:
    """The sessions of an endpoint: records in the store, what runs here by id."""

    def __init__(
        self,
        store: Store,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.store = store
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._here: dict[str, Session] = {}

    async def create(self, connection: Connection) -> str:
        """A new session for `connection`, just initialized (evicting expired ones, then as
        the module docs say); `SessionsFull` when every session is in recent use."""
        now = self._clock()
        while (oldest := await self.store.oldest_session(unused=False)) is not None:
            if now - oldest[1] <= self.idle_timeout:
                break
            await self.end(oldest[0])
        count = await self.store.session_count()
        while count >= self.max_sessions:
            victim = await self.store.oldest_session(unused=True)
            if victim is None:
                victim = await self.store.oldest_session(unused=False)
                if victim is None or now - victim[1] < PROTECTED_IDLE:
                    raise SessionsFull
            await self.end(victim[0])
            count -= 1
        session_id = secrets.token_urlsafe(24)
        await self.store.put_session(session_id, _record(connection, now))
        return session_id

    async def get(self, session_id: str) -> Session | None:
        """The live session with this id (None: unknown, ended or expired), marked as used;
        its connection holds the record's state."""
        now = self._clock()
        record = await self.store.use_session(session_id, now)
        if record is None:
            self._drop(session_id)
            return None
        if now - record["lastSeen"] > self.idle_timeout:
            await self.end(session_id)
            return None
        session = self._here.get(session_id)
        if session is None:
            session = self._here[session_id] = Session(session_id)
        connection = session.connection
        connection.legacy_version = record["version"]
        connection.log_level = record.get("logLevel")
        capabilities = orjson.loads(record["capabilities"])
        connection.client_capabilities = session.client_capabilities = capabilities
        return session

    async def save(self, session: Session) -> None:
        """Keep what the client changed of its session (its log level)."""
        await self.store.save_session(session.id, _record(session.connection, self._clock()))

    def release(self, session: Session) -> None:
        """A request of `session` is done here: forget it here if nothing of it runs."""
        if session.idle():
            self._here.pop(session.id, None)

    async def end(self, session_id: str) -> bool:
        """End a session, cancelling what runs of it, here and elsewhere; False when there
        was none."""
        ended = await self.store.end_session(session_id)
        self._drop(session_id)
        await self.store.publish({"kind": "session-end", "session": session_id})
        return ended

    def end_all(self) -> None:
        """Cancel everything that runs here (the server stops)."""
        for session_id in list(self._here):
            self._drop(session_id)

    async def cancel(self, session: Session, request_id: Any) -> None:
        """`notifications/cancelled` of a session: its call, here or elsewhere."""
        if not session.connection.cancel(request_id):
            signal = {"kind": "cancel", "session": session.id, "request": request_id}
            await self.store.publish(signal)

    async def route_answer(self, session: Session, message: dict[str, Any]) -> None:
        """The client's response to a handler's request: wake the handler waiting for it,
        here or elsewhere."""
        if not self._answer(session.id, message):
            signal = {"kind": "answer", "session": session.id, "message": message}
            await self.store.publish(signal)

    def on_signal(self, signal: Record) -> None:
        """A signal about a session some of which may run here."""
        session_id = signal.get("session")
        session = self._here.get(session_id) if type(session_id) is str else None
        if session is None:
            return
        kind = signal.get("kind")
        if kind == "session-end":
            self._drop(session.id)
        elif kind == "cancel":
            session.connection.cancel(signal.get("request"))
        elif kind == "answer" and type(signal.get("message")) is dict:
            self._answer(session.id, signal["message"])

    def _answer(self, session_id: str, message: dict[str, Any]) -> bool:
        session = self._here.get(session_id)
        request_id = message.get("id")
        if session is None or type(request_id) is not str:
            return False
        waiting = session.waiting.pop(request_id, None)
        if waiting is None:
            return False
        if not waiting.done():
            waiting.set_result(message)
        return True

    def _drop(self, session_id: str) -> None:
        session = self._here.pop(session_id, None)
        if session is not None:
            session.end()


def _record(connection: Connection, now: float) -> Record:
    """What the store keeps of a session: bounded, whatever the client sent."""
    return {
        "version": connection.legacy_version,
        "capabilities": orjson.dumps(connection.client_capabilities or {}).decode(),
        "logLevel": connection.log_level,
        "lastSeen": now,
    }
