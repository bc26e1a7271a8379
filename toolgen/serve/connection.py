"""Per-connection state of the MCP engine: the legacy handshake, and the calls in flight.

A `Connection` is the process for stdio and the session for Streamable HTTP (a stateless
request gets one of its own). The engine puts each call it accepts among `inflight`;
whoever answers the call takes it off first (`claim`), and `notifications/cancelled`
takes it off and cancels it, so a call is answered once or, cancelled, never. Both may
happen on any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, Protocol

from toolgen.serve import jsonrpc
from toolgen.serve.jsonrpc import RequestId

Response = dict[str, Any]

MAX_CAPABILITIES: Final = 4096
"""Bytes of JSON kept of the capabilities a client declares in `initialize`."""
MAX_CAPABILITY_NAMES: Final = 64
"""Names kept of a larger capabilities object."""


def kept_capabilities(declared: Any) -> dict[str, Any]:
    """What a connection keeps of the `capabilities` a client declared in `initialize`: the
    object itself when its JSON fits in `MAX_CAPABILITIES` bytes, else the names of its
    first `MAX_CAPABILITY_NAMES` members (each `{}`), which is what toolgen checks
    (`sampling`, `elicitation`, `roots`). So whatever a client sends, a session holds a
    bounded amount of memory."""
    if type(declared) is not dict:
        return {}
    try:
        size = len(jsonrpc.dumps(declared))
    except Exception:  # not JSON (cannot come from a peer): keep the names only
        size = MAX_CAPABILITIES + 1
    if size <= MAX_CAPABILITIES:
        return declared
    names = [str(name)[:128] for name in list(declared)[:MAX_CAPABILITY_NAMES]]
    return {name: {} for name in names}


class Cancellable(Protocol):
    """A call in flight (`toolgen.serve.calls.PendingCall`)."""

    def cancel(self) -> None: ...


class Connection:
    """Per-connection state: the legacy handshake's version and the calls in flight."""

    __slots__ = (
        "_freed",
        "_lock",
        "_waiters",
        "client_capabilities",
        "inflight",
        "legacy_version",
        "log_level",
    )

    def __init__(self) -> None:
        self.legacy_version: str | None = None
        self.client_capabilities: dict[str, Any] | None = None
        """What the client declared in `initialize` (legacy era; None: not initialized)."""
        self.log_level: str | None = None
        """Least severe log level set by `logging/setLevel` (legacy era; None: never set)."""
        self.inflight: dict[RequestId, Cancellable] = {}
        self._lock = threading.Lock()
        """Taken by `claim` on every call: with `acquire`/`release` there (see `Calls.lock`)."""
        self._freed = threading.Condition(self._lock)
        """Notified when a call leaves `inflight` while someone waits (`wait_room`)."""
        self._waiters = 0

    def claim(self, request_id: RequestId, call: Cancellable) -> bool:
        """Take `call` off the calls in flight to answer it; False when it was cancelled or
        answered already (then it must not be answered)."""
        self._lock.acquire()
        try:
            if self.inflight.get(request_id) is not call:
                return False
            del self.inflight[request_id]
            if self._waiters:
                self._freed.notify_all()
            return True
        finally:
            self._lock.release()

    def wait_room(self, limit: int, still: Callable[[], bool]) -> bool:
        """Wait while `limit` calls are in flight (a transport that reads no more until one
        ends); False as soon as `still()` is False (the waiter should stop)."""
        if len(self.inflight) < limit:  # (the common case, without the lock)
            return still()
        with self._lock:
            self._waiters += 1
            try:
                while len(self.inflight) >= limit and still():
                    self._freed.wait()
            finally:
                self._waiters -= 1
        return still()

    def cancel(self, request_id: Any) -> bool:
        """Cancel the call with this id; False when none is in flight (then nothing happens)."""
        if not jsonrpc.is_request_id(request_id):
            return False
        with self._lock:
            call = self.inflight.pop(request_id, None)  # the id is free again at once
            if self._waiters:
                self._freed.notify_all()
        if call is None:
            return False
        call.cancel()
        return True

    def cancel_all(self) -> None:
        for request_id in list(self.inflight):
            self.cancel(request_id)
        with self._lock:
            self._freed.notify_all()  # a waiter in `wait_room` asks `still()` again
