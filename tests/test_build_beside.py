"""The models step of a big build runs in a forked child beside the rest: same output,
same cache, the same errors."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest
from conftest import snapshot

from toolgen.compiler import beside
from toolgen.compiler.build import build
from toolgen.core.errors import Diagnostic, ErrorCode, Location, SpecError

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@needs_fork
def test_a_build_with_the_models_beside_writes_what_an_in_process_build_writes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forks: list[object] = []

    class Counted(beside.Beside):
        def __init__(self, compute: object) -> None:
            forks.append(compute)
            super().__init__(compute)  # type: ignore[arg-type]

    monkeypatch.setattr(beside, "Beside", Counted)
    monkeypatch.setattr(beside, "MIN_TOOLS", 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS", raising=False)
    build([project / "specs" / "notes"], project / "beside")
    assert len(forks) == 1
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert len(forks) == 1
    assert snapshot(project / "beside" / "notes") == snapshot(project / "inline" / "notes")
    (cache_beside,) = (project / "beside" / ".toolgen-cache").glob("*.bin")
    (cache_inline,) = (project / "inline" / ".toolgen-cache").glob("*.bin")
    assert marshal.loads(cache_beside.read_bytes()) == marshal.loads(cache_inline.read_bytes())


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


def test_small_spec_sets_and_jobs_1_stay_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert not beside.worth_forking(beside.MIN_TOOLS - 1)
    assert beside.worth_forking(beside.MIN_TOOLS) == hasattr(os, "fork")
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    assert not beside.worth_forking(10_000)
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not beside.worth_forking(10_000)
