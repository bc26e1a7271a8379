"""Run one slow step of a build in a forked child process while the parent does the rest.

A full build spends about two thirds of its time in the models step
(datamodel-code-generator), which needs nothing but the loaded tool set; the
other emitters need the same and nothing of the models. On a machine with a
second core, forking a child for the models step after the spec set is
loaded makes the build's wall time about max(models, rest) instead of their
sum. The child inherits everything (the tool set, the cache's entries, the
DCG fix), computes one value and sends it back `marshal`led (plain data
only); an exception comes back pickled and is raised in the parent as if the
step had run there (one that does not survive pickling makes the caller run the
step in process, where it raises again). `TOOLGEN_BUILD_JOBS=1` turns it off.
"""

from __future__ import annotations

import marshal
import os
import pickle
from collections.abc import Callable
from typing import Any

MIN_TOOLS = 50
"""Spec sets with fewer tools run the step in process: a fork costs more than it saves."""


def worth_forking(tools: int) -> bool:
    """Whether a step over `tools` tools should run in a child: fork exists, a second core
    is ours to use, the spec set is big enough, and `TOOLGEN_BUILD_JOBS` is not 1."""
    if not hasattr(os, "fork") or os.environ.get("TOOLGEN_BUILD_JOBS", "").strip() == "1":
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) >= 2 and tools >= MIN_TOOLS


class Beside:
    """`compute()` running in a forked child; `result()` waits for its value (or exception)."""

    def __init__(self, compute: Callable[[], Any]) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, and leave without running the parent's cleanups
            os.close(read)
            _child(compute, write)
        os.close(write)
        self._pid = pid
        self._read = read

    def result(self) -> Any:
        chunks = []
        with os.fdopen(self._read, "rb") as pipe:
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(self._pid, 0)
        data = b"".join(chunks)
        if os.waitstatus_to_exitcode(status) != 0 or not data:
            raise ChildFailed(f"the build's child process ended with status {status}")
        kind, payload = data[:1], data[1:]
        if kind == b"v":
            return marshal.loads(payload)
        try:
            error = pickle.loads(payload)
        except Exception as exc:  # an exception that does not unpickle: run the step here
            raise ChildFailed(f"the build's child process failed: {exc}") from None
        raise error  # the exception the step raised, as the step raised it


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
