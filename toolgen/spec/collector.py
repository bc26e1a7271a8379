"""Pausing Python's cycle collector for batch work.

A build, a lint or a diff of a large spec set makes millions of objects that live
until the command ends (parsed files, schemas, findings) and makes few cycles.
The collector's passes walk that growing heap again and again and free next to
nothing: about 0.4 s of a 1.7 s first lint of 1,000 tools, 10-15% of a build.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collector passes inside the block; the collector runs again after it, as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
