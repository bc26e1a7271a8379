"""Progress of long build steps: say a step is still running, and how long a slow one took.

A build of an ordinary spec set takes well under a second and prints one line
per spec set; a huge one (a 5 MB spec, a 580,000-value enum) can take many
seconds in one step, where a silent terminal looks hung. `step` reports such a
step while it runs (every `every` seconds, from a daemon thread) and once it
ends, only when it ran longer than `every`: fast builds print nothing more.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

Progress = Callable[[str], None]

EVERY = 2.0
"""Seconds between two reports of a step that is still running."""


@contextlib.contextmanager
def step(progress: Progress | None, what: str, *, every: float | None = None) -> Iterator[None]:
    """Run the block; while it runs past `every` seconds (default `EVERY`), report
    `  WHAT: still running (Ns)` every `every` seconds, then `  WHAT: done in N.Ns`."""
    if progress is None:
        yield
        return
    interval = EVERY if every is None else every
    started = time.perf_counter()
    stop = threading.Event()
    reported = threading.Event()

    def tick() -> None:
        while not stop.wait(interval):
            reported.set()
            progress(f"  {what}: still running ({time.perf_counter() - started:.0f}s)")

    ticker = threading.Thread(target=tick, name="toolgen-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        took = time.perf_counter() - started
        if reported.is_set() or took > interval:  # the ticker may not have run on a busy machine
            progress(f"  {what}: done in {took:.1f}s")
