"""Generated Python reads like code the project's own formatter and linter accept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SPECS

from toolgen import load_toolset
from toolgen.build.run import render_package

SETS = [SPECS / "notes", SPECS / "shop", SPECS / "conformance"]
"""Not the golden `edge` set: in its models datamodel-code-generator quotes a string holding
both quote kinds with single quotes, where ruff wants double (a known difference)."""


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    config = ["--config", str(ROOT / "pyproject.toml")]
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *config],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("spec_set", SETS, ids=lambda p: p.name)
def test_every_generated_python_file_is_ruff_format_and_ruff_check_clean(
    spec_set: Path, tmp_path: Path
) -> None:
    files = render_package(load_toolset(spec_set), source_note=spec_set.name)
    for name, text in files.items():
        if name.endswith(".py"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text, encoding="utf-8")
    for command in (["format", "--check", "--diff"], ["check", "--no-cache"]):
        run = _ruff(*command, str(tmp_path))
        assert run.returncode == 0, run.stdout + run.stderr
