"""Make a big spec set's models in forked children while the build renders the rest.

The models step (datamodel-code-generator, DCG) is most of a full build. Its units
are independent: a unit's fragment is the same text whichever DCG run makes it
(`toolgen.build.python.models`). So the units the cache lacks are shared out
between `jobs` forked children, each running DCG over its share, while the
parent renders the other files; the children's fragments then go into the cache,
where the models emitter finds them and only splices. On two cores a full build
then takes about half the models step's time instead of all of it.

The output never depends on the children: a child that fails leaves its units
missing from the cache, and the emitter makes them in process (raising there
what the child raised, such as a spec error). `TOOLGEN_BUILD_JOBS=1` turns this
off; `TOOLGEN_BUILD_JOBS=N` asks for N children.

DCG's first run in a process costs about half a second (its own imports and
templates). A `Pool` forks the children before a big spec set is read, so they
pay it while the parent reads; they then get their shares through a pipe.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING, Any

from toolgen.build.cache import Cache
from toolgen.spec import forked
from toolgen.spec.errors import Location
from toolgen.spec.forked import Beside, ChildFailed, Standby
from toolgen.spec.ir import ToolSet

if TYPE_CHECKING:
    from toolgen.build.python.modelplan import ModelPlan

MIN_TOOLS = 50
"""Spec sets with fewer tools make their models in process: a fork costs more than it saves."""
MAX_JOBS = 4


def jobs_for(tools: int) -> int:
    """How many children should make the models of `tools` tools (0: none, in process):
    one per core (at most `MAX_JOBS`) or `TOOLGEN_BUILD_JOBS`, when fork exists and the spec
    set is big enough."""
    if not hasattr(os, "fork") or tools < MIN_TOOLS:
        return 0
    asked = os.environ.get("TOOLGEN_BUILD_JOBS", "").strip()
    jobs = int(asked) if asked.isdigit() else min(forked.cores(), MAX_JOBS)
    return jobs if jobs >= 2 else 0


class Pool:
    """Children forked before a spec set is read, warming DCG up meanwhile; `start` gives each
    a share of the models (or nothing to do); `close` dismisses the rest and reaps them."""

    def __init__(self, jobs: int) -> None:
        self.idle = [Standby(_warm_up) for _ in range(jobs)]
        self._dismissed: list[Standby] = []

    def dismiss_idle(self) -> None:
        """Tell the children not given work to end (without waiting for them)."""
        for child in self.idle:
            child.give(None)
        self._dismissed += self.idle
        self.idle = []

    def close(self) -> None:
        self.dismiss_idle()
        for child in self._dismissed:
            with suppress(ChildFailed):
                child.result()
        self._dismissed = []


def pool_for(files: int, *, rebuild: bool = False) -> Pool | None:
    """A pool for a spec set of `files` files, when it is big enough to fork for: one child
    for a `rebuild` (most models come from the cache; more are forked if more are missing)."""
    jobs = jobs_for(files)
    if not jobs:
        return None
    return Pool(1 if rebuild else jobs)


def start(
    toolset: ToolSet,
    plan: ModelPlan,
    keys: Sequence[str],
    cache: Cache,
    jobs: int,
    pool: Pool | None = None,
) -> list[Beside]:
    """Children making, between them, every model fragment of `plan` (units by `keys`) that
    `cache` lacks (the pool's, when there is one; the ones it does not need are dismissed)."""
    missing = [index for index, key in enumerate(keys) if cache.get(key) is None]
    shares = [share for job in range(jobs) if (share := missing[job::jobs])]
    where = _origin(toolset)
    children: list[Beside] = []
    for share in shares:
        job = partial(_fragments, where, plan, share, keys)
        if pool and pool.idle:
            child = pool.idle.pop()
            child.give(job)
            children.append(child)
        else:
            children.append(Beside(job))
    if pool:
        pool.dismiss_idle()
    return children


def finish(children: list[Beside], cache: Cache) -> None:
    """Wait for `children` and put the fragments they made into `cache` (a child that failed
    adds nothing: the models emitter makes its units in process)."""
    for child in children:
        try:
            made: dict[str, Any] = child.result()
        except ChildFailed:
            continue
        for key, value in made.items():
            cache.put(key, value)


def _origin(toolset: ToolSet) -> Location | None:
    origin = toolset.server.origin
    return origin.locate() if origin else None


def _warm_up() -> None:
    """In a pool's child: DCG's first run (its imports, templates), on a small schema."""
    from toolgen.build.python import dcgfixes
    from toolgen.build.python.models import warm_up

    dcgfixes.apply()
    warm_up()


def _fragments(
    where: Location | None, plan: ModelPlan, share: list[int], keys: Sequence[str]
) -> dict[str, Any]:
    """In a child: the fragments of the units `share`, by cache key, as cache values."""
    from toolgen.build.python import dcgfixes
    from toolgen.build.python.models import generate_fragments

    dcgfixes.apply()
    made = generate_fragments(plan, share, where)
    return {keys[index]: fragment.to_json() for index, fragment in made.items()}
