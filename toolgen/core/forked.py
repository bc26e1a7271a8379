"""Part of a job in a forked child while this process does the rest: two cores for the
CPU-bound batch work of a first lint or diff of a large spec set (parsing files, checking
tools).

The child's result comes back `marshal`led: plain data only, so reading it never runs
code. Without `os.fork`, or on any trouble with the child (it failed, its result was not
plain data), the caller gets None for the child's part and does that part itself: the
result is the same, only slower. The child leaves with `os._exit`, running none of the
parent's cleanup and flushing none of its buffers.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def available() -> bool:
    """Whether this platform can fork (not Windows)."""
    return hasattr(os, "fork")


def beside(theirs: Callable[[], Any], mine: Callable[[], T]) -> tuple[Any | None, T]:
    """(`theirs()` run in a forked child, `mine()` run here meanwhile). The first is None
    when the child's part could not be had; `mine`'s exceptions propagate (after the
    child is reaped)."""
    if not available():
        return None, mine()
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None, mine()
    if pid == 0:  # the child: work, send, leave
        os.close(read_end)
        try:
            payload = marshal.dumps(theirs())
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        result = mine()
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            payload = pipe.read()
        os.waitpid(pid, 0)
    try:
        return marshal.loads(payload), result
    except (EOFError, ValueError, TypeError):
        return None, result
