"""Per-connection state of the MCP engine, and what a transport hands back and forth.

`Connection` holds the legacy handshake's version and the calls in flight
(stdio: the process; HTTP: the session). `PendingCall` is a `tools/call` whose
handler still has to run (with a `BlockingCall` when its handler is sync and may run
on a thread the transport chooses); `DirectReply` is the optional hook that lets worker
threads answer their own calls (see `toolgen.serve.engine`).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from toolgen.serve import jsonrpc
from toolgen.serve.jsonrpc import RequestId

Response = dict[str, Any]


class Cancellable(Protocol):
    """A call in flight: an asyncio task, or a transport's handle of a call run on a thread."""

    def cancel(self) -> bool: ...


class Connection:
    """Per-connection state: the legacy handshake's version and the calls in flight."""

    __slots__ = ("_lock", "client_capabilities", "inflight", "legacy_version", "log_level")

    def __init__(self) -> None:
        self.legacy_version: str | None = None
        self.client_capabilities: dict[str, Any] | None = None
        """What the client declared in `initialize` (legacy era; None: not initialized)."""
        self.log_level: str | None = None
        """Least severe log level set by `logging/setLevel` (legacy era; None: never set)."""
        self.inflight: dict[RequestId, Cancellable] = {}
        self._lock = threading.Lock()
        """Guards `inflight` against worker threads that answer their calls (`claim`)."""

    def track(self, request_id: RequestId, task: asyncio.Future[Any]) -> None:
        """Make `task` cancellable by `notifications/cancelled` until it is done."""
        self.inflight[request_id] = task
        task.add_done_callback(lambda _: self._untrack(request_id, task))

    def enter(self, request_id: RequestId, call: Cancellable) -> None:
        """Make a call that is not a task (run on a thread, see `toolgen.serve.reading`)
        cancellable until it is claimed; from any thread."""
        self.inflight[request_id] = call  # (atomic; nobody claims an id not in flight yet)

    def _untrack(self, request_id: RequestId, task: asyncio.Future[Any]) -> None:
        self.claim(request_id, task)

    def claim(self, request_id: RequestId, task: Cancellable) -> bool:
        """Take the call off the in-flight list to answer it, from any thread; False when
        it was cancelled or claimed already (then it must not be answered)."""
        with self._lock:
            if self.inflight.get(request_id) is not task:
                return False
            del self.inflight[request_id]
            return True

    def cancel(self, request_id: Any) -> bool:
        """Cancel the call with this id; False when none is in flight (then nothing happens)."""
        if not jsonrpc.is_request_id(request_id):
            return False
        with self._lock:
            task = self.inflight.pop(request_id, None)  # the id is free again at once
        return task is not None and _cancel(task)

    def cancel_all(self) -> None:
        for task in list(self.inflight.values()):
            _cancel(task)


def _cancel(call: Cancellable) -> bool:
    """Cancel `call` from any thread: an asyncio task is cancelled on its own loop."""
    if isinstance(call, asyncio.Future):
        loop = call.get_loop()
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            if call.done():
                return False
            loop.call_soon_threadsafe(call.cancel)
            return True
    return call.cancel()


class PendingCall:
    """A validated `tools/call` whose handler has not run yet (see the module docs)."""

    __slots__ = ("_coroutine", "blocking", "request_id")

    def __init__(
        self,
        request_id: RequestId,
        coroutine: Coroutine[Any, Any, Response | None] | None = None,
        blocking: BlockingCall | None = None,
    ) -> None:
        """Give `coroutine`, or `blocking` (whose `coroutine()` makes it when needed)."""
        self.request_id = request_id
        self._coroutine = coroutine
        self.blocking = blocking
        """The same call as one blocking function, when its handler is sync and runs off
        the event loop: a transport may run it on a thread of its own instead."""

    @property
    def coroutine(self) -> Coroutine[Any, Any, Response | None]:
        """The call as a coroutine, to run as a task (made on first use)."""
        if self._coroutine is None:
            assert self.blocking is not None
            self._coroutine = self.blocking.coroutine()
        return self._coroutine


class BlockingCall(Protocol):
    """A sync handler's whole call (handler, result check, response) as plain functions."""

    name: str
    timeout: float | None
    """Seconds the call may run (None: no limit); the transport enforces it."""

    def run(self) -> Response:
        """Run the handler here and return the response to send (never raises)."""

    def timed_out(self) -> Response:
        """The response that answers the call when it ran over `timeout`."""

    def coroutine(self) -> Coroutine[Any, Any, Response | None]:
        """The call as a coroutine that runs the handler on a worker thread."""


@dataclass(frozen=True, slots=True)
class DirectReply:
    """A transport's hook to answer sync calls from their worker threads (see the module docs)."""

    connection: Connection
    send: Callable[[Response, bool], bool]
    """`send(response, wait)`: serialize and write a response (whole lines, after the call's
    notifications) from any thread; with `wait` False it may decline (False), e.g. while
    another thread writes, and the loop sends it instead."""


DIRECT_REPLY: contextvars.ContextVar[DirectReply | None] = contextvars.ContextVar(
    "toolgen_direct_reply", default=None
)
