"""Long builds say how far they are; DCG's line splitter is replaced by an equal linear one."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen.compiler import dcgfixes, progress
from toolgen.compiler.build import build


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \r\n\x0c\x0b\x1c\u2028\t"), max_size=40))
def test_the_linear_line_splitter_returns_what_dcgs_own_returns(source: str) -> None:
    dcgfixes.apply()
    assert dcgfixes.split_lines(source) == dcgfixes.REPLACED["_splitlines_no_ff"](source)


def test_the_fix_is_installed_in_dcgs_builtin_formatter() -> None:
    from datamodel_code_generator import _builtin_formatter as formatter

    assert dcgfixes.apply() is True
    assert formatter._splitlines_no_ff is dcgfixes.split_lines


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
