"""Where what outlives one request is kept: tasks, resumable stream events, and the records
of legacy sessions.

One process keeps them in its memory (`MemoryStore`, the default). Several instances
serving one endpoint (`serve --http --workers N`, or servers on several machines behind
a load balancer) share them through Redis (`toolgen.serve.redis_store`), so that any
instance answers `tasks/get`, `tasks/update` and `tasks/cancel`, resumes a stream and
serves a session, whichever instance created them (`serve --http --store URL`, see
`toolgen.serve.http.server.open_store`).

What a store holds is plain JSON data; what runs (a task's handler, a call's stream, a
question waiting for the client's answer) stays in the instance that runs it. Instances
reach each other with *signals* (`publish`: every instance's `listener` gets them) and
tell whether another one still runs (`alive`): each instance has an id (`instance`),
which the records it writes name as their owner. Stateless requests never touch the
store: it is on the path of a request only when the request needs what it holds.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import orjson

from toolgen.limits import STREAM_BYTES

Record = dict[str, Any]
Edit = Callable[[Record], Record | None]
"""A change to a record: the new record, or None for no change."""
Listener = Callable[[dict[str, Any]], None]

STREAM_TTL: Final = 3600.0
"""Seconds the events of a stream are kept after its last event (for a client to resume)."""
STREAM_EVENTS: Final = 1000
"""Events kept per stream (the oldest go first): a resuming client gets at most these."""
MAX_STREAMS: Final = 10_000
"""Streams one in-process store keeps at most (the oldest go first)."""


class StoreError(ValueError):
    """A store URL that names no store toolgen can use."""


class Store:
    """The interface every store implements (the docs of each method say what it does)."""

    instance: str
    """This instance's id: records it writes name it as their owner."""
    listener: Listener | None = None
    """Gets every signal any instance publishes (set by the server before `start`)."""

    async def start(self) -> None:
        """Connect and begin listening for signals (on the event loop that serves)."""

    async def close(self) -> None:
        """Stop listening and disconnect."""

    # -- tasks ----------------------------------------------------------------------------

    async def put_task(self, task_id: str, record: Record, ttl: float) -> None:
        """Keep `record` under `task_id` for `ttl` seconds."""
        raise NotImplementedError

    async def get_task(self, task_id: str) -> Record | None:
        """The record of a task (None: unknown or expired)."""
        raise NotImplementedError

    async def change_task(self, task_id: str, edit: Edit) -> Record | None:
        """Apply `edit` to the task's record atomically (no other change comes between the
        read and the write); the record after it, None when there is no such task."""
        raise NotImplementedError

    # -- legacy sessions ------------------------------------------------------------------

    async def put_session(self, session_id: str, record: Record) -> None:
        """Keep a new session's record (not used yet)."""
        raise NotImplementedError

    async def use_session(self, session_id: str, now: float) -> Record | None:
        """The record of a session as it was (its `lastSeen`: the use before this one), now
        marked as used at `now` (None: unknown or ended)."""
        raise NotImplementedError

    async def save_session(self, session_id: str, record: Record) -> None:
        """Replace the record of a session that exists (a change its client made)."""
        raise NotImplementedError

    async def end_session(self, session_id: str) -> bool:
        """Forget a session; False when there was none."""
        raise NotImplementedError

    async def session_count(self) -> int:
        raise NotImplementedError

    async def oldest_session(self, *, unused: bool) -> tuple[str, float] | None:
        """The session never used since it began (`unused`), or used least recently, with
        when it began or was last used; None when there is none."""
        raise NotImplementedError

    # -- stream events --------------------------------------------------------------------

    async def add_event(self, stream: str, seq: int, message: Record, final: bool) -> None:
        """Keep event `seq` of `stream` (from 1, in order; `final`: the stream's last)."""
        raise NotImplementedError

    def events(self, stream: str, after: int, wait: float) -> AsyncIterator[tuple[int, Record]]:
        """The events of `stream` after `after`, then new ones as they come, until its final
        event or `wait` seconds without one; nothing for an unknown stream."""
        raise NotImplementedError

    # -- instances ------------------------------------------------------------------------

    async def publish(self, signal: dict[str, Any]) -> None:
        """Send `signal` to every instance's `listener` (this one's too)."""
        raise NotImplementedError

    async def alive(self, instance: str) -> bool:
        """Whether the instance with this id still runs."""
        raise NotImplementedError


def new_instance_id() -> str:
    return secrets.token_urlsafe(12)


class MemoryStore(Store):
    """The store of one process: everything in its memory, nothing shared."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.instance = new_instance_id()
        self._clock = clock
        self._tasks: dict[str, tuple[float, Record]] = {}
        self._sessions: OrderedDict[str, Record] = OrderedDict()
        """By last use, least recent first."""
        self._unused: OrderedDict[str, float] = OrderedDict()
        """Sessions not used since they began, oldest first, with when they began."""
        self._streams: OrderedDict[str, _Stream] = OrderedDict()
        self._stream_bytes = 0

    # -- tasks ----------------------------------------------------------------------------

    async def put_task(self, task_id: str, record: Record, ttl: float) -> None:
        now = self._clock()
        for old_id, (expiry, _) in list(self._tasks.items()):  # creation order is expiry order
            if expiry > now:
                break
            del self._tasks[old_id]
        self._tasks[task_id] = (now + ttl, record)

    async def get_task(self, task_id: str) -> Record | None:
        found = self._tasks.get(task_id)
        if found is None:
            return None
        if found[0] <= self._clock():
            del self._tasks[task_id]
            return None
        return found[1]

    async def change_task(self, task_id: str, edit: Edit) -> Record | None:
        record = await self.get_task(task_id)
        if record is None:
            return None
        changed = edit(record)
        if changed is None:
            return record
        self._tasks[task_id] = (self._tasks[task_id][0], changed)
        return changed

    # -- legacy sessions ------------------------------------------------------------------

    async def put_session(self, session_id: str, record: Record) -> None:
        self._sessions[session_id] = record
        self._unused[session_id] = record["lastSeen"]

    async def use_session(self, session_id: str, now: float) -> Record | None:
        record = self._sessions.get(session_id)
        if record is None:
            return None
        self._sessions[session_id] = {**record, "lastSeen": now}
        self._sessions.move_to_end(session_id)
        self._unused.pop(session_id, None)
        return record

    async def save_session(self, session_id: str, record: Record) -> None:
        if session_id in self._sessions:
            self._sessions[session_id] = record

    async def end_session(self, session_id: str) -> bool:
        self._unused.pop(session_id, None)
        return self._sessions.pop(session_id, None) is not None

    async def session_count(self) -> int:
        return len(self._sessions)

    async def oldest_session(self, *, unused: bool) -> tuple[str, float] | None:
        if unused:
            return next(iter(self._unused.items()), None)
        for session_id, record in self._sessions.items():
            return session_id, record["lastSeen"]
        return None

    # -- stream events --------------------------------------------------------------------

    async def add_event(self, stream: str, seq: int, message: Record, final: bool) -> None:
        found = self._streams.get(stream)
        if found is None:
            found = self._streams[stream] = _Stream()
        size = len(orjson.dumps(message))
        self._stream_bytes += size - found.add(seq, message, size, final, self._clock())
        self._streams.move_to_end(stream)
        self._expire_streams()
        while len(self._streams) > 1 and (
            len(self._streams) > MAX_STREAMS or self._stream_bytes > STREAM_BYTES
        ):
            self._stream_bytes -= self._streams.popitem(last=False)[1].size

    async def events(
        self, stream: str, after: int, wait: float
    ) -> AsyncIterator[tuple[int, Record]]:
        self._expire_streams()
        found = self._streams.get(stream)
        if found is None:
            return
        while True:
            for seq, message in found.after(after):
                yield seq, message
                after = seq
            if found.done:
                return
            try:
                async with asyncio.timeout(wait):
                    await found.changed()
            except TimeoutError:
                return

    def _expire_streams(self) -> None:
        now = self._clock()
        while self._streams:
            stream, oldest = next(iter(self._streams.items()))
            if oldest.last + STREAM_TTL > now:
                break
            self._stream_bytes -= self._streams.pop(stream).size

    # -- instances ------------------------------------------------------------------------

    async def publish(self, signal: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(signal)

    async def alive(self, instance: str) -> bool:
        return instance == self.instance


class _Stream:
    """The events of one stream in memory, and who waits for the next."""

    __slots__ = ("_waiters", "done", "items", "last", "size")

    def __init__(self) -> None:
        self.items: list[tuple[int, Record, int]] = []
        self.done = False
        self.last = 0.0
        self.size = 0
        """Bytes of the events kept (as JSON)."""
        self._waiters: list[asyncio.Future[None]] = []

    def add(self, seq: int, message: Record, size: int, final: bool, now: float) -> int:
        """Keep an event of `size` bytes; the bytes of the events dropped for it."""
        self.items.append((seq, message, size))
        dropped = 0
        while len(self.items) > STREAM_EVENTS:
            dropped += self.items.pop(0)[2]
        self.size += size - dropped
        self.done = self.done or final
        self.last = now
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()
        return dropped

    def after(self, seq: int) -> list[tuple[int, Record]]:
        return [(found, message) for found, message, _ in self.items if found > seq]

    async def changed(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        await waiter
