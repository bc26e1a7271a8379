"""toolgen's one policy for Python's cycle collector.

A build, a lint or a diff of a large spec set makes millions of objects that live
until the command ends (parsed files, schemas, findings) and makes few cycles.
The collector's passes walk that growing heap again and again and free next to
nothing: `paused` keeps it off for such batch work. What a server loads before it
serves, and what a command made once it is about to exit, lives as long as the
process: `keep_forever` moves it out of the collector's generations, so later
collections stay short and the interpreter's last one does not walk it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collector passes inside the block; the collector runs again after it, as it was.
    (Processes forked inside inherit it.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def keep_forever() -> None:
    """Everything alive now lives until the process ends: no collection walks it again.
    (No `gc.collect()` first: it would cost milliseconds of a server's cold start.)"""
    gc.freeze()
