"""The models of a big build are made in forked children beside the rest: same output,
same cache, the same errors."""

from __future__ import annotations

import marshal
import os
import shutil
from pathlib import Path

import pytest
from conftest import snapshot

from toolgen.compiler import beside, modeljobs
from toolgen.compiler.build import build, check
from toolgen.core.errors import Diagnostic, ErrorCode, Location, SpecError

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every spec set is big enough to fork for, on two cores; the children are counted."""
    forks: list[object] = []

    class Counted(beside.Beside):
        def __init__(self, compute: object) -> None:
            forks.append(compute)
            super().__init__(compute)  # type: ignore[arg-type]

    monkeypatch.setattr(modeljobs, "Beside", Counted)
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
    assert beside.Beside(lambda: {"models.py": "x" * 300_000}).result() == {
        "models.py": "x" * 300_000
    }


@needs_fork
def test_an_exception_in_the_child_is_raised_in_the_parent() -> None:
    def fail() -> None:
        raise ValueError("no models")

    with pytest.raises(ValueError, match="no models"):
        beside.Beside(fail).result()


@needs_fork
def test_a_child_that_dies_or_raises_what_does_not_unpickle_asks_for_an_in_process_run() -> None:
    def die() -> None:
        os._exit(3)

    def spec_error() -> None:
        raise SpecError([Diagnostic(ErrorCode.INVALID_SCHEMA, "bad", Location("a.yaml", 1, 1))])

    for compute in (die, spec_error):
        with pytest.raises(beside.ChildFailed):
            beside.Beside(compute).result()


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
