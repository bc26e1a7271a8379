"""Targets' options: `--option TARGET.NAME=VALUE` or `[tool.toolgen.build.<target>]` in
pyproject.toml (the command line wins), checked against what each target takes, part of what
decides that a build is up to date, and named by `toolgen check`'s fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.cli import main

NOTES = str(SPECS / "notes")


def run(*argv: str) -> int:
    """The exit status of `toolgen ARGV...`."""
    try:
        main(list(argv))
    except SystemExit as exit_info:
        return int(exit_info.code or 0)
    return 0


def module(out: Path) -> str:
    """The module line of the built Go package's go.mod."""
    lines = (out / "notes" / "go.mod").read_text().splitlines()
    return next(line for line in lines if line.startswith("module "))


def test_an_option_sets_the_go_module_path_with_the_package_name_filled_in(tmp_path: Path) -> None:
    out = tmp_path / "out"
    option = ["--option", "go.module=example.com/mcp/{package}"]
    assert run("build", NOTES, "-o", str(out), "--target", "go", "-q", *option) == 0
    assert module(out) == "module example.com/mcp/notes"
    assert run("check", NOTES, "-o", str(out), "--target", "go", *option) == 0


def test_a_changed_option_is_a_changed_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert run("build", NOTES, "-o", str(out), "--target", "go", "-q") == 0
    assert module(out) == "module notes"  # the default: the package name
    option = ["--option", "go.module=example.com/notes"]
    capsys.readouterr()
    assert run("check", NOTES, "-o", str(out), "--target", "go", *option) == 1
    assert "--option go.module=example.com/notes" in capsys.readouterr().err  # the fix says so
    assert run("build", NOTES, "-o", str(out), "--target", "go", "-q", *option) == 0
    assert module(out) == "module example.com/notes"


def test_pyproject_sets_an_option_and_the_command_line_overrides_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.toolgen.build]\ntarget = "go"\n\n[tool.toolgen.build.go]\nmodule = "example.org/{package}"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert run("build", NOTES, "-o", "out", "-q") == 0
    assert module(tmp_path / "out") == "module example.org/notes"
    assert run("build", NOTES, "-o", "out", "-q", "--option", "go.module=x.org/n") == 0
    assert module(tmp_path / "out") == "module x.org/n"


def test_an_option_of_a_target_not_built_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("build", NOTES, "-o", str(out), "--target", "typescript", "-q") == 0
    option = ["--option", "go.module=example.com/notes"]
    assert run("check", NOTES, "-o", str(out), "--target", "typescript", *option) == 0


@pytest.mark.parametrize(
    "option",
    [
        "go.module",  # no value
        "go.mdule=x.org/n",  # no such option
        "cobol.module=x",  # no such target
        "module=x.org/n",  # no target
        "go.module=x.org//n",  # not a module path
        "go.module=/abs",
        "go.module=a b",
    ],
)
def test_a_wrong_option_is_a_usage_error_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    out = tmp_path / "out"
    assert run("build", NOTES, "-o", str(out), "--target", "go", "--option", option) == 2
    assert "--option" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "table",
    [
        '[tool.toolgen.build.go]\nmodle = "x"\n',
        "[tool.toolgen.build.go]\nmodule = 3\n",
        '[tool.toolgen.build]\ngo = "x"\n',
    ],
)
def test_a_wrong_option_in_pyproject_is_a_usage_error_naming_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    table: str,
) -> None:
    (tmp_path / "pyproject.toml").write_text(table)
    monkeypatch.chdir(tmp_path)
    assert run("build", NOTES, "-o", "out", "--target", "go") == 2
    assert "pyproject.toml: [tool.toolgen.build]" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
