"""Progress of long builds: say which step is still running, and how long a slow one took.

A build of an ordinary spec set takes well under a second and prints one line
per spec set; a huge one (a 5 MB spec, a 580,000-value enum) can take many
seconds, where a silent terminal looks hung. `step` reports the step that is
running once the build has been running for `every` seconds, then every `every`
seconds (from a daemon thread), and how long a reported step took, or a step
that ends a longer silence (should the thread not have had its turn): fast builds
print nothing more. The build's clock (`clock`) makes several shorter steps of
a long build report too; without it, each step counts from its own start.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

Progress = Callable[[str], None]

EVERY = 2.0
"""Seconds between two reports while a build is still running."""


class _Clock:
    """When the last report was (or the build started): the next one is due `every` after."""

    def __init__(self, since: float | None = None) -> None:
        self._last = time.perf_counter() if since is None else since
        self._lock = threading.Lock()

    def due(self, every: float) -> float:
        return self._last + every

    def claim(self, every: float) -> bool:
        """True (and the report is noted) when no report was made in the last `every` s."""
        with self._lock:
            now = time.perf_counter()
            if now < self._last + every:
                return False
            self._last = now
            return True


_CLOCK: contextvars.ContextVar[_Clock | None] = contextvars.ContextVar(
    "toolgen_build_clock", default=None
)


def process_started() -> float:
    """When this process started, as a `perf_counter` time (Linux's /proc; elsewhere now):
    a command's silence counts from there, imports included."""
    now = time.perf_counter()
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start, in ticks
        return now - max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return now


@contextlib.contextmanager
def clock(since: float | None = None) -> Iterator[None]:
    """Count the steps run inside from the start of the build: `since` (a `perf_counter`
    time, such as when the command started), else now. Inside another clock, that one counts."""
    if _CLOCK.get() is not None:
        yield
        return
    token = _CLOCK.set(_Clock(since))
    try:
        yield
    finally:
        _CLOCK.reset(token)


@contextlib.contextmanager
def step(progress: Progress | None, what: str, *, every: float | None = None) -> Iterator[None]:
    """Run the block; while it runs past the build's first `every` seconds (default `EVERY`),
    report `  WHAT: still running (Ns)` every `every` seconds, then `  WHAT: done in N.Ns`."""
    if progress is None:
        yield
        return
    interval = EVERY if every is None else every
    build = _CLOCK.get() or _Clock()
    started = time.perf_counter()
    stop = threading.Event()
    reported = threading.Event()

    def tick() -> None:
        while not stop.wait(max(build.due(interval) - time.perf_counter(), 0.0)):
            if build.claim(interval):
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
        # The ticker may not have had its turn (a busy machine, a long call that holds the
        # GIL): a step that ends a silence longer than the interval says so itself.
        if reported.is_set() or took > interval or build.claim(interval):
            progress(f"  {what}: done in {took:.1f}s")
