"""`toolgen build --target`: python (the default), typescript or both, from the command line
or `target` in pyproject.toml's `[tool.toolgen.build]`; `toolgen check` compares the same targets."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.cli import main

PYTHON = {"__init__.py", "py.typed", "models.py", "server.py", "client.py"}
TYPESCRIPT = {"index.ts", "runtime.ts", "package.json"}
GO = {"tools.go", "go.mod", "go.sum", "internal"}
SHARED = {"schemas", "tools", "annotation-reasons.json", ".toolgen-manifest.json"}


def run(*argv: str) -> int:
    """The exit status of `toolgen ARGV...`."""
    try:
        main([*argv, "--quiet"] if argv[0] == "build" else list(argv))
    except SystemExit as exit_info:
        return int(exit_info.code or 0)
    return 0


@pytest.mark.parametrize(
    ("target", "files"),
    [
        (None, PYTHON | SHARED),
        ("python", PYTHON | SHARED),
        ("typescript", TYPESCRIPT | SHARED),
        ("python,typescript", PYTHON | TYPESCRIPT | SHARED),
        ("typescript, python", PYTHON | TYPESCRIPT | SHARED),
        ("go", GO | SHARED),
        ("go,python", PYTHON | GO | SHARED),
    ],
)
def test_a_build_writes_the_files_of_its_targets(
    tmp_path: Path, target: str | None, files: set[str]
) -> None:
    out = tmp_path / "out"
    option = ["--target", target] if target else []
    assert run("build", str(SPECS / "notes"), "-o", str(out), *option) == 0
    assert {p.name for p in (out / "notes").iterdir()} == files
    assert (out / "notes_handlers.py").exists() == ("python" in (target or "python"))
    assert run("check", str(SPECS / "notes"), "-o", str(out), *option) == 0


def test_check_calls_output_of_other_targets_stale(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("build", str(SPECS / "notes"), "-o", str(out), "--target", "typescript") == 0
    assert run("check", str(SPECS / "notes"), "-o", str(out)) == 1
    assert run("check", str(SPECS / "notes"), "-o", str(out), "--target", "python,typescript") == 1


def test_a_rebuild_for_other_targets_replaces_the_files_it_no_longer_makes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("build", str(SPECS / "notes"), "-o", str(out), "--target", "python,typescript") == 0
    assert run("build", str(SPECS / "notes"), "-o", str(out), "--target", "typescript") == 0
    assert {p.name for p in (out / "notes").iterdir()} == TYPESCRIPT | SHARED


@pytest.mark.parametrize(
    "setting", ['target = "typescript"', 'target = ["typescript"]', 'target = "typescript,"']
)
def test_pyproject_chooses_the_target_when_the_command_line_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.toolgen.build]\n{setting}\n")
    monkeypatch.chdir(tmp_path)
    assert run("build", str(SPECS / "notes"), "-o", "out") == 0
    assert {p.name for p in (tmp_path / "out" / "notes").iterdir()} == TYPESCRIPT | SHARED
    assert run("build", str(SPECS / "notes"), "-o", "out2", "--target", "python") == 0
    assert "models.py" in {p.name for p in (tmp_path / "out2" / "notes").iterdir()}


@pytest.mark.parametrize("target", ["cobol", "", ",", "python,cobol"])
def test_an_unknown_target_is_a_usage_error_and_nothing_is_written(
    tmp_path: Path, target: str
) -> None:
    assert run("build", str(SPECS / "notes"), "-o", str(tmp_path / "out"), "--target", target) == 2
    assert not (tmp_path / "out").exists()


def test_an_unknown_target_in_pyproject_is_a_usage_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.toolgen.build]\ntarget = "cobol"\n')
    monkeypatch.chdir(tmp_path)
    assert run("build", str(SPECS / "notes"), "-o", "out") == 2
    assert "pyproject.toml: [tool.toolgen.build] target" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
