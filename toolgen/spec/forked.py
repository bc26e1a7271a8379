"""Compute in forked child processes while this process does other work: more cores for
the CPU-bound batch work of a big build.

`Beside` computes one value in a child, and a `Standby` child is forked before its
computation is known (`toolgen.build.python.modeljobs` makes a big build's models with them).

The child inherits everything (the tool set, the caches' entries), computes one value
and sends it back `marshal`led (plain data only, so reading it never runs code); an
exception comes back pickled and is raised in the parent as if the computation had run
there (one that does not survive pickling, or a child that dies, is `ChildFailed`: the
caller computes the value in process, where it raises again). A child leaves with
`os._exit`, running none of the parent's cleanups and flushing none of its buffers.

A `Standby` child is forked before its computation is known: it prepares (imports,
warm-up) while the parent works, then runs what `give` sends it (pickled), or ends when
dismissed (or when the parent goes away).
"""

from __future__ import annotations

import marshal
import os
import pickle
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any

_OPEN_JOB_PIPES: set[int] = set()
"""The parent's write ends of pipes to standby children: a child closes those it inherited, so
that each standby sees the end of its pipe when the parent closes or loses its own."""


def cores() -> int:
    """How many cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_EXITING: set[int] = set()
"""Children that sent their whole value and are leaving. A parent does not wait for a
child's exit on the way to its value (tearing a big child's memory down takes a few ms):
they are reaped when they are gone, at the next value or fork (`_reap_exited`)."""


def _reap_exited() -> None:
    """Reap the children of `_EXITING` that have exited, without waiting for the others."""
    for pid in list(_EXITING):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped by someone else
            done = pid
        if done:
            _EXITING.discard(pid)


class Beside:
    """`compute()` running in a forked child; `result()` waits for its value (or exception)."""

    def __init__(self, compute: Callable[[], Any]) -> None:
        _reap_exited()
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            raise
        if pid == 0:  # the child: compute, send, and leave without running the parent's cleanups
            os.close(read)
            for fd in _OPEN_JOB_PIPES:
                os.close(fd)
            _child(compute, write)
        os.close(write)
        self._pid = pid
        self._read = read

    def result(self) -> Any:
        chunks = []
        with os.fdopen(self._read, "rb") as pipe:
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        data = b"".join(chunks)
        kind, payload = data[:1], data[1:]
        if kind == b"v":
            try:
                value = marshal.loads(payload)
            except (EOFError, ValueError, TypeError):
                pass  # cut short: the child failed while sending, as its status tells
            else:  # the whole value: the child is leaving, and is reaped without a wait
                _EXITING.add(self._pid)
                _reap_exited()
                return value
        _, status = os.waitpid(self._pid, 0)
        if os.waitstatus_to_exitcode(status) != 0 or kind != b"e":
            raise ChildFailed(f"the build's child process ended with status {status}")
        try:
            error = pickle.loads(payload)
        except Exception as exc:  # an exception that does not unpickle: run the step here
            raise ChildFailed(f"the build's child process failed: {exc}") from None
        raise error  # the exception the step raised, as the step raised it


class Standby(Beside):
    """A child that runs `prepare()` now and later computes what `give` sends it (a picklable
    callable, or None: nothing to do); `result()` as for `Beside`."""

    def __init__(self, prepare: Callable[[], object]) -> None:
        jobs, self._jobs = os.pipe()
        self._unsent = False
        _OPEN_JOB_PIPES.add(self._jobs)
        super().__init__(partial(_standby, prepare, jobs))
        os.close(jobs)

    def give(self, compute: Callable[[], Any] | None) -> None:
        """Send the computation (None: nothing to do) and close the pipe. One that does not
        pickle is not sent: `result()` then raises `ChildFailed` (the caller runs it itself)."""
        _OPEN_JOB_PIPES.discard(self._jobs)
        try:
            data = pickle.dumps(compute, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a local function, say: the child is told to end
            self._unsent = True
            data = pickle.dumps(None)
        with suppress(BrokenPipeError), os.fdopen(self._jobs, "wb") as pipe:  # gone: see result()
            pipe.write(data)

    def result(self) -> Any:
        value = super().result()
        if self._unsent:
            raise ChildFailed("the computation could not be sent to the build's child process")
        return value


def _standby(prepare: Callable[[], object], jobs: int) -> Any:
    """In a standby child: prepare, then compute what the parent sends (None when it sends
    nothing or is gone)."""
    with suppress(Exception):  # a failed warm-up: the computation meets (and reports) it again
        prepare()
    with os.fdopen(jobs, "rb") as pipe:
        data = pipe.read()
    compute = pickle.loads(data) if data else None
    return compute() if compute is not None else None


class ChildFailed(RuntimeError):
    """The child sent no value or readable exception (killed, out of memory, an exception
    that does not pickle): the caller runs the step in process instead."""


def _child(compute: Callable[[], Any], write: int) -> None:
    code = 0
    try:
        try:
            data = b"v" + marshal.dumps(compute())
        except BaseException as exc:  # every exception goes back to the parent
            try:
                data = b"e" + pickle.dumps(exc)
            except Exception:  # an exception that does not pickle: the parent runs the step
                data = b""
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)
    except BaseException:  # never return into the parent's code
        code = 1
    finally:
        os._exit(code)
