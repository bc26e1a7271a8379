"""Make a big spec set's models in worker processes while the build renders the rest.

The models step (datamodel-code-generator, DCG) is most of a full build. Its units are
independent: a unit's fragment is the same text whichever DCG run makes it
(`toolgen.build.python.models`). So the units of a big spec set are shared out between
worker processes (`concurrent.futures.ProcessPoolExecutor`, one per core, at most
`MAX_JOBS`), each running DCG over its share, while this process renders the other
files; the models emitter then only splices.

The workers are forked (they start at once, with DCG already imported), which is safe
only while this process runs one thread: the executor forks every worker before it
starts its own thread, and a process with other threads (a progress ticker, an
application's) makes its models in process instead. So do platforms without `fork`,
and macOS, where forking is unsafe.

The output never depends on the workers: a share whose worker fails is made again in
process, which raises there what the worker raised (such as a spec error).
`TOOLGEN_BUILD_JOBS=1` turns this off; `TOOLGEN_BUILD_JOBS=N` asks for N workers.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from toolgen.build.python.modelplan import ModelPlan
from toolgen.build.python.models import generate_fragments
from toolgen.build.python.modelsplice import Fragment
from toolgen.spec.errors import Location

MIN_UNITS = 50
"""Spec sets with fewer units make their models in process: a worker costs more than it saves."""
MAX_JOBS = 4
FORKS = "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"


def jobs_for(units: int) -> int:
    """How many workers should make the models of `units` units (0: none, in process)."""
    if units < MIN_UNITS or not FORKS or threading.active_count() > 1:
        return 0
    asked = os.environ.get("TOOLGEN_BUILD_JOBS", "").strip()
    jobs = int(asked) if asked.isdigit() else min(_cores(), MAX_JOBS)
    return jobs if jobs >= 2 else 0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform (the BSDs)
        return os.cpu_count() or 1


@contextmanager
def fragments_beside(plan: ModelPlan, where: Location | None) -> Iterator[Made]:
    """Start making every unit's fragment of `plan` (in workers when it is big enough); the
    block renders the rest, then asks `Made.result`. Workers are shut down on the way out."""
    jobs = jobs_for(len(plan.units))
    if not jobs:
        yield Made(plan, where, [])
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        shares = [list(range(len(plan.units)))[job::jobs] for job in range(jobs)]
        futures = [(share, pool.submit(generate_fragments, plan, share, where)) for share in shares]
        try:
            yield Made(plan, where, futures)
        finally:
            for _, future in futures:
                future.cancel()


class Made:
    """The fragments being made for one plan."""

    def __init__(
        self,
        plan: ModelPlan,
        where: Location | None,
        futures: list[tuple[list[int], Future[dict[int, Fragment]]]],
    ) -> None:
        self._plan, self._where, self._futures = plan, where, futures

    def result(self) -> dict[int, Fragment]:
        """Every unit's fragment, by unit index (what a failed worker did not make is made
        here, raising what it raised)."""
        if not self._futures:
            return generate_fragments(self._plan, range(len(self._plan.units)), self._where)
        made: dict[int, Fragment] = {}
        for share, future in self._futures:
            try:
                made.update(future.result())
            except Exception:  # a spec error, a dead worker: this process makes its share
                made.update(generate_fragments(self._plan, share, self._where))
        return made
