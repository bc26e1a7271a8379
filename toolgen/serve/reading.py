"""Reading stdin on threads (leader/followers), so that a sync handler runs on the thread
that read its call.

Handing a call from the event loop to a worker thread costs a thread wake-up, and on a
busy machine a wake-up waits for a time slice: it was most of a threaded call's time.
Here one thread at a time, the *leader*, reads stdin and handles each line itself; a
sync handler's call can run right there, with no other thread on its path. The event
loop keeps watch (`ThreadCall`, the stdio session's ticker): when a call on the leader
runs longer than `PROMOTE_AFTER`, a new leader is promoted and goes on reading
(cancellations, pings, other calls) while the old one finishes its call, answers it
and ends. So a handler that blocks delays reading by a few milliseconds at most, once.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Final

from toolgen.serve.connection import BlockingCall
from toolgen.serve.context import CallContext
from toolgen.serve.jsonrpc import RequestId
from toolgen.serve.pipes import READ_SIZE, LineReader

PROMOTE_AFTER: Final = 0.005
"""Seconds a call may run on the reading thread before another thread takes over reading."""
HOLD_POLL: Final = 0.05
"""Seconds between checks while reading is held (the in-flight cap, a client not reading)."""

log = logging.getLogger("toolgen.runtime")


class ThreadCall:
    """A call running on a reading thread: what `Connection.inflight` holds for it."""

    __slots__ = (
        "__weakref__",
        "abandoned",
        "blocking",
        "context",
        "finished",
        "give_up",
        "promoted",
        "request_id",
        "started",
    )

    def __init__(
        self,
        request_id: RequestId,
        blocking: BlockingCall,
        context: CallContext,
        give_up: Callable[[ThreadCall], None],
    ) -> None:
        self.request_id = request_id
        self.blocking = blocking
        self.context = context
        self.give_up = give_up
        self.started = time.monotonic()
        self.finished = self.abandoned = self.promoted = False

    def cancel(self) -> bool:
        """The call ended before its handler (notifications/cancelled, shutdown)."""
        self.give_up(self)
        return True

    def overdue(self, now: float) -> bool:
        """Whether the call has run over its timeout."""
        limit = self.blocking.timeout
        return limit is not None and now - self.started >= limit

    def next_check(self, now: float) -> float:
        """Seconds until the watchdog should look at this call again."""
        limit = self.blocking.timeout
        if limit is None:
            return PROMOTE_AFTER
        return max(0.0, min(PROMOTE_AFTER, self.started + limit - now))


class Leaders:
    """The reading role: one thread at a time reads `fd`, splits lines and handles them.

    `handle(line)` runs on the leader and may run a call there (`start_call` /
    `end_call` bracket it); `promote(call)` (any thread) makes a new thread the leader
    while that call runs. `hold()` says when to stop reading for now (`wake()` ends
    the wait); `on_eof()` runs once, after the last line.
    """

    def __init__(
        self,
        fd: int,
        handle: Callable[[bytes], None],
        on_oversize: Callable[[], None],
        hold: Callable[[], bool],
        on_eof: Callable[[], None],
    ) -> None:
        self._fd = os.dup(fd)  # ours: closed by the last leader, never a reused number
        self._handle = handle
        self._hold = hold
        self._on_eof = on_eof
        self._pending: deque[bytes] = deque()
        self._ended = False
        self._lines = LineReader(self._pending.append, self._end, on_oversize)
        self._lock = threading.Lock()
        self._leader = 0
        self._closed = False
        self._resume = threading.Event()

    def start(self) -> None:
        self._spawn()

    def close(self) -> None:
        """The session is over: no leader handles anything more."""
        with self._lock:
            self._closed = True
        self._resume.set()

    def wake(self) -> None:
        """Reading may go on (the condition `hold` checks has changed)."""
        self._resume.set()

    def promote(self, call: ThreadCall) -> None:
        """`call` runs long: a new thread takes over reading (once per call, and only while
        the call still runs: its thread stays the leader once it has finished)."""
        with self._lock:
            if call.finished or call.promoted or self._closed:
                return
            call.promoted = True
        self._spawn()

    def abandon(self, call: ThreadCall) -> bool:
        """The call ended first: True when its handler still runs (now stuck)."""
        with self._lock:
            if call.finished or call.abandoned:
                return False
            call.abandoned = True
            return True

    def finish(self, call: ThreadCall) -> bool:
        """The handler returned: True when it had been abandoned (it is no longer stuck)."""
        with self._lock:
            call.finished = True
            return call.abandoned

    def _spawn(self) -> None:
        with self._lock:
            self._leader += 1
            me = self._leader
        threading.Thread(target=self._lead, args=(me,), name="toolgen-stdin", daemon=True).start()

    def _leads(self, me: int) -> bool:
        with self._lock:
            return self._leader == me and not self._closed

    def _lead(self, me: int) -> None:
        try:
            while self._leads(me):
                if self._hold():
                    self._resume.wait(HOLD_POLL)
                    self._resume.clear()
                elif self._pending:
                    self._handle(self._pending.popleft())
                elif self._ended:
                    self._stop()
                    return
                else:
                    self._read()
        except Exception:  # pragma: no cover - a bug here must end the server, not hang it
            log.exception("reading stdin failed")
            self._stop()

    def _read(self) -> None:
        try:
            chunk = os.read(self._fd, READ_SIZE)
        except BlockingIOError:  # stdin shares a non-blocking file with stdout (a socket)
            select.select([self._fd], [], [], HOLD_POLL)
            return
        except OSError:
            chunk = b""
        if chunk:
            self._lines.data_received(chunk)
        else:
            self._lines.connection_lost(None)

    def _end(self) -> None:
        self._ended = True

    def _stop(self) -> None:
        with self._lock:
            if self._fd < 0:
                return
            self._closed = True
            fd, self._fd = self._fd, -1
        os.close(fd)
        self._on_eof()
