"""Long builds say how far they are, by package and step."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from toolgen.build import progress
from toolgen.build.run import build


class Heard:
    """A progress callback that keeps the lines and signals the first one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.event = threading.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        self.event.set()


def test_a_step_that_runs_long_reports_while_it_runs_and_when_it_ends() -> None:
    say = Heard()
    lines, heard = say.lines, say.event
    with progress.step(say, "pkg: models", every=0.01):
        assert heard.wait(30), "no progress while the step ran"
    assert lines[0].startswith("  pkg: models: still running (")
    assert lines[-1].startswith("  pkg: models: done in ")


def test_a_fast_step_says_nothing() -> None:
    lines: list[str] = []
    with progress.step(lines.append, "pkg: models", every=60.0):
        pass
    assert lines == []


def test_a_build_reports_its_slow_steps_by_package_and_step(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "EVERY", 0.0005)  # every step counts as slow
    lines: list[str] = []
    build([project / "specs" / "notes"], project / "generated", progress=lines.append)
    done = [line for line in lines if ": done in " in line]
    assert any(line.startswith("  notes: models: done in ") for line in done), lines
    assert any(line.startswith("  reading ") for line in done), lines
    assert any(line.startswith("  writing ") for line in done), lines


def test_in_a_long_build_a_short_step_reports_once_the_build_has_run_for_the_interval() -> None:
    say = Heard()
    lines, heard = say.lines, say.event
    with progress.clock():
        with progress.step(say, "pkg: reading", every=1.0):
            time.sleep(0.6)  # a step shorter than the interval says nothing
        time.sleep(0.6)
        lines.clear()
        heard.clear()
        with progress.step(say, "pkg: models", every=1.0):  # the build is past 1 s already
            assert heard.wait(0.9), "the step was not reported while the build ran long"
    assert lines[0].startswith("  pkg: models: still running (")
    assert lines[-1].startswith("  pkg: models: done in ")


class _Idle:
    """A ticker thread that never gets its turn (a long call held the GIL meanwhile)."""

    def __init__(self, **_: object) -> None:
        pass

    def start(self) -> None:
        pass

    def join(self) -> None:
        pass


@pytest.mark.parametrize(("silent_for", "heard"), [(3.0, True), (0.0, False)])
def test_a_step_that_ends_a_silence_longer_than_the_interval_reports_even_unticked(
    monkeypatch: pytest.MonkeyPatch, silent_for: float, heard: bool
) -> None:
    monkeypatch.setattr(progress.threading, "Thread", _Idle)
    lines: list[str] = []
    with progress.clock(since=time.perf_counter() - silent_for):
        with progress.step(lines.append, "writing out", every=2.0):
            pass
        with progress.step(lines.append, "saving", every=2.0):
            pass  # the first step's report broke the silence: this one says nothing
    assert [line.split(": done in ")[0] for line in lines] == (["  writing out"] if heard else [])


def test_without_a_build_clock_a_short_step_says_nothing() -> None:
    lines: list[str] = []
    time.sleep(0.3)
    with progress.step(lines.append, "pkg: models", every=1.0):
        time.sleep(0.1)
    assert lines == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_a_commands_progress_counts_from_the_start_of_its_process() -> None:
    code = (
        "import time; time.sleep(0.5)\n"
        "from toolgen.build.progress import process_started\n"
        "print(time.perf_counter() - process_started())"
    )
    age = float(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        ).stdout
    )
    assert 0.45 <= age < 30
