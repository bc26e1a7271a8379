"""Generated output matches the reviewed golden files; hostile spec text stays inert.

After an intended change to generated output, run
`python -m pytest tests/acceptance/test_goldens.py --update-goldens` and review the diff.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TESTS

from toolgen import load_toolset
from toolgen.build.run import render_package

GOLDEN = TESTS / "golden"
CASES = sorted(p.name for p in (GOLDEN / "specs").iterdir() if p.is_dir())


def rendered(case: str) -> dict[str, str]:
    toolset = load_toolset(GOLDEN / "specs" / case)
    return render_package(toolset, source_note=f"tests/golden/specs/{case}")


@pytest.mark.parametrize("case", CASES)
def test_generated_files_match_the_goldens(case: str, update_goldens: bool) -> None:
    files = rendered(case)
    expected_dir = GOLDEN / "expected" / case
    if update_goldens:
        for old in sorted(expected_dir.rglob("*"), reverse=True) if expected_dir.exists() else []:
            old.unlink() if old.is_file() else old.rmdir()
        for rel, text in files.items():
            (expected_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / rel).write_text(text, encoding="utf-8")
    expected = {
        p.relative_to(expected_dir).as_posix(): p.read_text(encoding="utf-8")
        for p in expected_dir.rglob("*")
        if p.is_file()
    }
    assert sorted(files) == sorted(expected)
    for rel, text in files.items():
        assert text == expected[rel], f"{rel} differs from its golden (run with --update-goldens)"


@pytest.mark.parametrize("case", CASES)
def test_generated_python_imports_and_executes_no_spec_text(case: str, tmp_path: Path) -> None:
    package_dir = tmp_path / "pkg"
    for rel, text in rendered(case).items():
        (package_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (package_dir / rel).write_text(text, encoding="utf-8")
    modules = sorted(p.stem for p in package_dir.glob("*.py") if p.stem != "__init__")
    code = "import pkg; " + "; ".join(f"import pkg.{m}" for m in modules)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "PWNED").exists()
