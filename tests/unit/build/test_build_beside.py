"""The models of a big build are made in forked children beside the rest: same output,
same cache, the same errors."""

from __future__ import annotations

import functools
import marshal
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot, wait_for_exits

from toolgen.build.python import modeljobs
from toolgen.build.run import build, check
from toolgen.spec import forked
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every spec set is big enough to fork for, on two cores; the children given work (forked
    for it, or forked before and warmed up) are counted."""
    forks: list[object] = []

    class Counted(forked.Beside):
        def __init__(self, compute: object) -> None:
            forks.append(compute)
            super().__init__(compute)  # type: ignore[arg-type]

    give = forked.Standby.give

    def counted_give(self: forked.Standby, compute: Any) -> None:
        if compute is not None:
            forks.append(compute)
        give(self, compute)

    monkeypatch.setattr(modeljobs, "Beside", Counted)
    monkeypatch.setattr(forked.Standby, "give", counted_give)
    monkeypatch.setattr(modeljobs, "MIN_TOOLS", 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS", raising=False)
    return forks


@needs_fork
def test_a_build_with_the_models_made_in_children_writes_what_an_in_process_build_writes(
    project: Path, monkeypatch: pytest.MonkeyPatch, two_cores: list[object]
) -> None:
    build([project / "specs" / "notes"], project / "beside")
    assert len(two_cores) == 2  # the units the cache lacks, shared between two children
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert len(two_cores) == 2
    assert snapshot(project / "beside" / "notes") == snapshot(project / "inline" / "notes")
    (cache_beside,) = (project / "beside" / ".toolgen-cache").glob("*.bin")
    (cache_inline,) = (project / "inline" / ".toolgen-cache").glob("*.bin")
    assert marshal.loads(cache_beside.read_bytes()) == marshal.loads(cache_inline.read_bytes())


@needs_fork
def test_check_without_a_cache_and_a_rebuild_from_the_cache_agree_with_the_children(
    project: Path, two_cores: list[object]
) -> None:
    out = project / "out"
    build([project / "specs" / "notes"], out)
    made = len(two_cores)
    assert check([project / "specs" / "notes"], out) == ""
    assert len(two_cores) == made + 2  # check has no cache: its children hand over in memory
    shutil.rmtree(out / "notes")
    build([project / "specs" / "notes"], out)  # every fragment is cached: nothing to fork
    assert len(two_cores) == made + 2
    assert check([project / "specs" / "notes"], out) == ""


@needs_fork
def test_a_child_that_dies_leaves_its_units_to_the_build_itself(
    project: Path, monkeypatch: pytest.MonkeyPatch, two_cores: list[object]
) -> None:
    def die(*_: object) -> dict[str, object]:
        os._exit(3)

    monkeypatch.setattr(modeljobs, "_fragments", die)
    build([project / "specs" / "notes"], project / "died")
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert snapshot(project / "died" / "notes") == snapshot(project / "inline" / "notes")


@needs_fork
def test_the_child_sends_back_its_value() -> None:
    assert forked.Beside(lambda: {"models.py": "x" * 300_000}).result() == {
        "models.py": "x" * 300_000
    }


@needs_fork
def test_an_exception_in_the_child_is_raised_in_the_parent() -> None:
    def fail() -> None:
        raise ValueError("no models")

    with pytest.raises(ValueError, match="no models"):
        forked.Beside(fail).result()


@needs_fork
def test_a_child_that_dies_or_raises_what_does_not_unpickle_asks_for_an_in_process_run() -> None:
    def die() -> None:
        os._exit(3)

    def spec_error() -> None:
        raise SpecError([Diagnostic(ErrorCode.INVALID_SCHEMA, "bad", Location("a.yaml", 1, 1))])

    for compute in (die, spec_error):
        with pytest.raises(forked.ChildFailed):
            forked.Beside(compute).result()


def test_small_spec_sets_one_core_and_jobs_1_stay_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    fork = hasattr(os, "fork")
    assert modeljobs.jobs_for(modeljobs.MIN_TOOLS - 1) == 0
    assert modeljobs.jobs_for(modeljobs.MIN_TOOLS) == (2 if fork else 0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert modeljobs.jobs_for(10_000) == (modeljobs.MAX_JOBS if fork else 0)
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    assert modeljobs.jobs_for(10_000) == 0
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "3")
    assert modeljobs.jobs_for(10_000) == (3 if fork else 0)
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert modeljobs.jobs_for(10_000) == 0


def die_in_child(*_: object) -> None:
    """A models job that kills its (pool) child: module-level, so that it can be sent."""
    os._exit(3)


def child_pids() -> set[int]:
    """This process's child processes, zombies included (Linux)."""
    pids: set[int] = set()
    for task in Path("/proc/self/task").glob("*/children"):
        pids.update(int(pid) for pid in task.read_text().split())
    return pids


@needs_fork
def test_a_pool_child_that_dies_leaves_its_units_to_the_build_itself(
    project: Path, monkeypatch: pytest.MonkeyPatch, two_cores: list[object]
) -> None:
    monkeypatch.setattr(modeljobs, "_fragments", die_in_child)
    build([project / "specs" / "notes"], project / "died")
    assert len(two_cores) == 2  # sent to the pool's children, which died
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert snapshot(project / "died" / "notes") == snapshot(project / "inline" / "notes")


@needs_fork
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_pool_children_not_needed_are_dismissed_and_reaped(
    project: Path, two_cores: list[object]
) -> None:
    out = project / "out"
    build([project / "specs" / "notes"], out)
    wait_for_exits()
    before = child_pids()
    spec = next((project / "specs" / "notes").glob("*.yaml"))
    spec.write_text(spec.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    build([project / "specs" / "notes"], out)  # every fragment cached: both children dismissed
    assert len(two_cores) == 2
    wait_for_exits()
    assert child_pids() == before


@needs_fork
def test_a_standby_child_prepares_first_then_computes_what_it_is_given(tmp_path: Path) -> None:
    marker = tmp_path / "prepared"
    child = forked.Standby(marker.touch)
    for _ in range(3000):  # prepared before it is given anything (up to 30 s on a busy machine)
        if marker.exists():
            break
        time.sleep(0.01)
    assert marker.exists()
    child.give(functools.partial(str.upper, "models"))
    assert child.result() == "MODELS"


@needs_fork
def test_a_standby_child_given_nothing_ends_and_one_given_the_unsendable_fails() -> None:
    idle = forked.Standby(lambda: None)
    idle.give(None)
    assert idle.result() is None
    unsendable = forked.Standby(lambda: None)
    unsendable.give(lambda: "a local function does not pickle")
    with pytest.raises(forked.ChildFailed):
        unsendable.result()
