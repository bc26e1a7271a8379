"""A computation in a forked child (`spec.forked.Beside`, which a big build's models use)
comes back as data, its exceptions are raised here, and the child is reaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import wait_for_exits, wait_until

from toolgen.spec import forked

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


@needs_fork
def test_the_child_part_runs_in_another_process_and_comes_back_as_data() -> None:
    theirs = forked.Beside(lambda: {"pid": os.getpid(), "rows": [(1, "a")]}).result()
    assert theirs["pid"] != os.getpid()
    assert theirs["rows"] == [(1, "a")]


@needs_fork
def test_a_failing_child_raises_its_exception_here() -> None:
    def fail() -> None:
        raise RuntimeError("the child's part fails")

    with pytest.raises(RuntimeError):
        forked.Beside(fail).result()


@needs_fork
def test_a_result_that_is_not_plain_data_is_not_sent() -> None:
    with pytest.raises(ValueError):
        forked.Beside(lambda: object()).result()


@needs_fork
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_a_child_that_sent_its_value_is_reaped_at_the_next_fork_once_gone() -> None:
    wait_for_exits()
    assert forked.Beside(lambda: 1).result() == 1
    for pid in list(forked._EXITING):  # not gone yet when its value came: wait until it is
        _wait_until_exited(pid)
    assert forked.Beside(lambda: 3).result() == 3
    assert len(forked._EXITING) <= 1  # at most the second child, if it is still leaving
    wait_for_exits()


def _wait_until_exited(pid: int) -> None:
    """Wait (up to 30 s) until `pid` is a zombie: it has exited and waits to be reaped."""

    def zombie() -> bool:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"

    assert wait_until(zombie, 30), f"child {pid} did not exit"
