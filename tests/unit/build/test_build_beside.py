"""The models of a big build are made by worker processes beside the rest: the same output,
the same errors, and nothing left running."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot

from toolgen.build.python import modeljobs
from toolgen.build.run import build

needs_workers = pytest.mark.skipif(not modeljobs.FORKS, reason="no safe fork on this platform")


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Every spec set is big enough for two workers; the shares they are given are kept."""
    if threading.active_count() > 1:  # left by another test: the build would not fork
        pytest.skip("other threads are running in this process")
    shares: list[list[int]] = []
    submit = modeljobs.ProcessPoolExecutor.submit

    def counted(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        shares.append(list(args[1]))
        return submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(modeljobs.ProcessPoolExecutor, "submit", counted)
    monkeypatch.setattr(modeljobs, "MIN_UNITS", 1)
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "2")
    return shares


@needs_workers
def test_a_build_with_the_models_made_by_workers_writes_what_an_in_process_build_writes(
    project: Path, monkeypatch: pytest.MonkeyPatch, workers: list[list[int]]
) -> None:
    build([project / "specs" / "notes"], project / "beside")
    assert len(workers) == 2
    assert sorted(unit for share in workers for unit in share) == list(range(7))  # defs, 6 tools
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert len(workers) == 2
    assert snapshot(project / "beside" / "notes") == snapshot(project / "inline" / "notes")


class DeadPool:
    """An executor whose every worker died before it answered."""

    def __init__(self, jobs: int, **_: object) -> None:
        pass

    def __enter__(self) -> DeadPool:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(BrokenProcessPool("a worker died"))
        return future


@needs_workers
def test_the_share_of_a_worker_that_died_is_made_by_the_build_itself(
    project: Path, monkeypatch: pytest.MonkeyPatch, workers: list[list[int]]
) -> None:
    monkeypatch.setattr(modeljobs, "ProcessPoolExecutor", DeadPool)
    build([project / "specs" / "notes"], project / "died")
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    build([project / "specs" / "notes"], project / "inline")
    assert snapshot(project / "died" / "notes") == snapshot(project / "inline" / "notes")


def test_small_spec_sets_one_core_and_jobs_1_stay_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # threads: the next test
    workers = modeljobs.FORKS
    assert modeljobs.jobs_for(modeljobs.MIN_UNITS - 1) == 0
    assert modeljobs.jobs_for(modeljobs.MIN_UNITS) == (2 if workers else 0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert modeljobs.jobs_for(10_000) == (modeljobs.MAX_JOBS if workers else 0)
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "1")
    assert modeljobs.jobs_for(10_000) == 0
    monkeypatch.setenv("TOOLGEN_BUILD_JOBS", "3")
    assert modeljobs.jobs_for(10_000) == (3 if workers else 0)
    monkeypatch.delenv("TOOLGEN_BUILD_JOBS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert modeljobs.jobs_for(10_000) == 0


def test_a_process_running_other_threads_makes_its_models_in_process() -> None:
    started, stop = threading.Event(), threading.Event()
    other = threading.Thread(target=lambda: (started.set(), stop.wait()))
    other.start()
    started.wait()
    try:
        assert modeljobs.jobs_for(10_000) == 0  # forking now could copy a held lock
    finally:
        stop.set()
        other.join()


def descendants() -> set[int]:
    """The processes below this one (Linux)."""
    found: set[int] = set()
    todo = [os.getpid()]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            try:
                pids = {int(pid) for pid in task.read_text().split()}
            except OSError:  # ended meanwhile
                continue
            todo += pids - found
            found |= pids
    return found


@needs_workers
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_no_worker_outlives_its_build(project: Path, workers: list[list[int]]) -> None:
    before = descendants()
    build([project / "specs" / "notes"], project / "out")
    assert len(workers) == 2
    assert descendants() == before
