"""Long builds say how far they are, by package and step."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from toolgen.compiler import progress
from toolgen.compiler.build import build


def test_a_step_that_runs_long_reports_while_it_runs_and_when_it_ends() -> None:
    lines: list[str] = []
    heard = threading.Event()

    def say(line: str) -> None:
        lines.append(line)
        heard.set()

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
