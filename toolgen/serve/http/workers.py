"""Several worker processes on one port (`toolgen serve --http --workers N`, POSIX only).

The parent binds every listening socket, forks the workers, and then only
watches them:

- Each worker gets its own listening socket on the same port (`SO_REUSEPORT`,
  Linux: the kernel spreads connections evenly), or all share one socket
  where the platform has no such balancing. The bind and security options are
  the parent's, so every worker applies the same policy.
- State the workers must agree on is made before the fork and inherited: the
  key that signs `requestState` (`inputs.StateSigner`). Each worker makes its
  own engine, with its own connection to the store they share (tasks,
  streams and sessions: any worker answers for any other).
- Workers run in their own process group, so Ctrl-C at a terminal reaches only
  the parent, which stops each worker once (SIGTERM: uvicorn's graceful
  shutdown), waits `STOP_GRACE` seconds, kills what is left, and then ends as
  a single server would: Ctrl-C exits 130, SIGTERM ends it by SIGTERM. On Linux a worker also stops with its
  parent (`PR_SET_PDEATHSIG`: SIGTERM), so even `kill -9` of the parent leaves no
  orphan serving the port.
- A stop signal ends a worker as it ends a single server: by its default action,
  at once before the worker serves, after uvicorn's graceful shutdown while it does.
- A worker that stops on its own is reported on stderr; the others keep
  serving; when none is left the parent exits 1.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, NoReturn

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
STOP_GRACE: Final = 5.0
"""Seconds workers get to finish after SIGTERM before they are killed."""
POLL: Final = 0.05
PR_SET_PDEATHSIG: Final = 1


def can_fork() -> bool:
    """Whether this platform can run workers (fork, and process groups)."""
    return hasattr(os, "fork") and hasattr(os, "setpgid")


def balanced_by_kernel() -> bool:
    """Whether each worker can have its own socket on the port, balanced by the kernel."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


class AllWorkersStopped(RuntimeError):
    """Every worker stopped on its own (each was reported on stderr)."""


class _Stop(Exception):
    """A stop signal reached the parent."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class Supervisor:
    """Forks `count` workers (`run(index)` in each), watches them, and stops them all."""

    count: int
    run: Callable[[int], None]
    after_fork: Callable[[], None] = lambda: None
    """Called in the parent once every worker runs (e.g. to close its copies of the sockets)."""
    children: dict[int, int] = field(default_factory=dict)
    """Running workers: pid → index."""
    parent: int = field(default_factory=os.getpid)

    def serve(self) -> int | None:
        """Run until a stop signal (returned) or until every worker stopped (None)."""
        previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            for signum in STOP_SIGNALS:
                signal.signal(signum, _raise_stop)
            for index in range(self.count):
                pid = os.fork()
                if pid == 0:
                    self._child(index)
                self.children[pid] = index
            self.after_fork()
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            self._watch()
            return None
        except _Stop as stop:
            for signum in STOP_SIGNALS:
                signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C: the grace is bounded
            return stop.signum
        finally:
            self._stop_all()
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _watch(self) -> None:
        """Wait for workers; report each that stops (a stop signal raises `_Stop`)."""
        while self.children:
            pid, status = os.wait()
            index = self.children.pop(pid, None)
            if index is None:
                continue
            left = len(self.children)
            _say(
                f"error: worker {index} (pid {pid}) stopped ({describe(status)}); "
                f"{left} of {self.count} workers left"
            )
        _say("error: every worker stopped")

    def _child(self, index: int) -> NoReturn:
        """In a new worker: its own process group, stop with the parent, serve, exit."""
        code = 0
        try:
            os.setpgid(0, 0)
            _die_with_parent(self.parent)
            # uvicorn handles the stop signals while it serves and raises again what it caught
            # once its graceful shutdown is done; their default action then ends the worker
            # at once, as it ends one that has not begun to serve. Nothing else may take
            # them: a handler that ignores one loses it, and a worker that returned would wait
            # for asyncio to end every task, a handler that goes on when cancelled included.
            for signum in STOP_SIGNALS:
                signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            self.run(index)
        except BaseException as exc:  # the parent reports the exit status; say why once
            _say(f"error: worker {index} failed: {type(exc).__name__}: {exc}")
            code = 1
        finally:
            sys.stderr.flush()
            os._exit(code)

    def _stop_all(self) -> None:
        """SIGTERM every worker, wait up to `STOP_GRACE` s, SIGKILL the rest; reap all."""
        for pid in self.children:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self.children and time.monotonic() < deadline:
            self._reap()
            time.sleep(POLL)
        for pid in self.children:
            _signal(pid, signal.SIGKILL)
        while self.children:
            for pid in list(self.children):
                _reap_one(pid, 0)
                self.children.pop(pid)

    def _reap(self) -> None:
        for pid in list(self.children):
            if _reap_one(pid, os.WNOHANG):
                self.children.pop(pid)


def describe(status: int) -> str:
    """A wait status in words: `exit status 1`, `killed by SIGKILL`."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        return f"killed by {name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _reap_one(pid: int, flags: int) -> bool:
    """Whether `pid` has ended (and is reaped); an unknown pid counts as ended."""
    try:
        done, _ = os.waitpid(pid, flags)
    except ChildProcessError:
        return True
    return done == pid


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


def _die_with_parent(parent: int) -> None:
    """Linux: SIGTERM this process when its parent (pid `parent`) ends (elsewhere: nothing).
    A graceful stop, as the parent's own: the worker tells the store that it stopped, so
    the tasks it ran read `failed` at once elsewhere (SIGKILL: once its sign of life expires)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent ended before prctl took effect
        os._exit(0)


def _say(text: str) -> None:
    """One line on stderr in one write: lines of several workers never interleave."""
    sys.stderr.write(f"toolgen: {text}\n")
    sys.stderr.flush()


def close_all(sockets: Sequence[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
