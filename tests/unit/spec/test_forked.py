"""Work on two cores (`core.forked`, and the lint engine's use of it) gives what one process
gives, and falls back to this process when the child's part cannot be had."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, wait_for_exits, wait_until

from toolgen.lint import engine
from toolgen.lint.config import LintConfig
from toolgen.lint.model import Finding
from toolgen.spec import forked
from toolgen.spec.ir import ToolSet
from toolgen.spec.published import read_published

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


@pytest.fixture
def split_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The split as on the machines it is for, whatever this one has (one core, or threads
    left running by other tests)."""
    monkeypatch.setattr(forked, "available", lambda: True)


@needs_fork
def test_the_child_part_runs_in_another_process_and_comes_back_as_data(split_allowed: None) -> None:
    theirs, mine = forked.beside(lambda: {"pid": os.getpid(), "rows": [(1, "a")]}, os.getpid)
    assert mine == os.getpid()
    assert theirs is not None
    assert theirs["pid"] != os.getpid()
    assert theirs["rows"] == [(1, "a")]


@needs_fork
def test_a_failing_child_gives_none_and_this_process_still_does_its_part(
    split_allowed: None,
) -> None:
    def fail() -> None:
        raise RuntimeError("the child's part fails")

    assert forked.beside(fail, lambda: 42) == (None, 42)


@needs_fork
def test_a_result_that_is_not_plain_data_gives_none(split_allowed: None) -> None:
    assert forked.beside(lambda: object(), lambda: "here") == (None, "here")


@needs_fork
def test_this_process_errors_propagate_and_no_child_is_left_behind(split_allowed: None) -> None:
    def fail() -> int:
        raise KeyError("here")

    with pytest.raises(KeyError):
        forked.beside(lambda: 1, fail)
    wait_for_exits()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@needs_fork
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_a_child_that_sent_its_value_is_reaped_at_the_next_fork_once_gone(
    split_allowed: None,
) -> None:
    wait_for_exits()
    assert forked.beside(lambda: 1, lambda: 2) == (1, 2)
    for pid in list(forked._EXITING):  # not gone yet when its value came: wait until it is
        _wait_until_exited(pid)
    assert forked.beside(lambda: 3, lambda: 4) == (3, 4)
    assert len(forked._EXITING) <= 1  # at most the second child, if it is still leaving
    wait_for_exits()


def _wait_until_exited(pid: int) -> None:
    """Wait (up to 30 s) until `pid` is a zombie: it has exited and waits to be reaped."""

    def zombie() -> bool:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"

    assert wait_until(zombie, 30), f"child {pid} did not exit"


@needs_fork
def test_items_taken_in_turns_go_to_one_process_each_and_both_take_some(
    split_allowed: None, tmp_path: Path
) -> None:
    def taker(mark: Path, wait_for: Path) -> Callable[[Iterable[int]], list[int]]:
        """Takes one item, marks it, waits for the other process's mark, takes the rest:
        each takes one at least, however late a busy machine starts either."""

        def take(items: Iterable[int]) -> list[int]:
            queue = iter(items)
            first = next(queue)
            mark.touch()
            _wait_for(wait_for)
            return [first, *queue]

        return take

    child, parent = tmp_path / "child", tmp_path / "parent"
    theirs, mine = forked.in_turns(200, taker(child, parent), taker(parent, child))
    assert theirs is not None
    assert sorted(theirs + mine) == list(range(200))
    assert theirs and mine


def _wait_for(path: Path) -> None:
    assert wait_until(path.exists, 30, step=0.001), f"{path.name} never came"


def test_a_long_handout_hands_out_runs_of_neighbours_in_order() -> None:
    count = forked.Handout.MAX_RECORDS * 3 + 5
    with forked.Handout(count) as handout:
        assert list(handout) == list(range(count))
    with forked.Handout(0) as handout:
        assert list(handout) == []


def test_beside_other_threads_nothing_is_forked() -> None:
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forked.available()
        assert forked.beside(lambda: 1, os.getpid) == (None, os.getpid())
    finally:
        release.set()
        other.join()


def test_without_fork_everything_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "available", lambda: False)
    assert forked.beside(lambda: 1, lambda: 2) == (None, 2)
    assert forked.in_turns(5, list, list) == (None, [0, 1, 2, 3, 4])  # every item taken here


def test_on_one_core_nothing_is_forked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "cores", lambda: 1)
    assert not forked.available()
    assert forked.beside(lambda: 1, os.getpid) == (None, os.getpid())


@pytest.fixture(scope="module")
def corpus() -> tuple[ToolSet, list[Finding]]:
    """The corpus's tools and their findings, checked in this process alone."""
    toolset = read_published(CORPUS).toolset
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "MIN_SPLIT", 10**9)
        return toolset, engine.lint_toolset(toolset, LintConfig())


@needs_fork
def test_checking_tools_on_two_cores_finds_what_one_process_finds(
    monkeypatch: pytest.MonkeyPatch, alternating: None, corpus: tuple[ToolSet, list[Finding]]
) -> None:
    toolset, alone = corpus
    monkeypatch.setattr(engine, "MIN_SPLIT", 2)
    splits: list[object] = []
    beside = forked.beside

    def counted(theirs: Any, mine: Any) -> Any:
        result = beside(theirs, mine)
        splits.append(result[0])
        return result

    monkeypatch.setattr(forked, "beside", counted)
    assert engine.lint_toolset(toolset, LintConfig()) == alone
    assert len(splits) == 1 and isinstance(splits[0], dict) and splits[0]  # the child's share
    assert len(alone) > 10


def _unreadable(received: Any) -> Any:
    return {index: [("not", "a row")] for index in received}


@needs_fork
@pytest.mark.parametrize(
    "spoil", [lambda received: None, _unreadable], ids=["the child fails", "its rows do not read"]
)
def test_tools_the_child_could_not_check_are_checked_here(
    monkeypatch: pytest.MonkeyPatch,
    alternating: None,
    corpus: tuple[ToolSet, list[Finding]],
    spoil: Callable[[Any], Any],
) -> None:
    toolset, alone = corpus
    monkeypatch.setattr(engine, "MIN_SPLIT", 2)
    beside = forked.beside

    def spoiled(theirs: Any, mine: Any) -> Any:
        received, found = beside(theirs, mine)
        return spoil(received), found

    monkeypatch.setattr(forked, "beside", spoiled)
    assert engine.lint_toolset(toolset, LintConfig()) == alone
