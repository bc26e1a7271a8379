"""The diff documentation cannot drift: docs/diff-changes.md, and docs/diff.md's worked example,
configuration example and options are checked against the code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS
from test_diff import git

from toolgen.cli import cli
from toolgen.diff.config import load_config
from toolgen.diff.docs import changes_markdown

DIFF_DOC = ROOT / "docs" / "diff.md"
CHANGES_DOC = ROOT / "docs" / "diff-changes.md"


def _section() -> str:
    return DIFF_DOC.read_text(encoding="utf-8")


def test_changes_document_matches_the_codes(update_goldens: bool) -> None:
    if update_goldens:
        CHANGES_DOC.write_text(changes_markdown(), encoding="utf-8")
        return
    assert CHANGES_DOC.read_text(encoding="utf-8") == changes_markdown(), (
        "docs/diff-changes.md is stale: run with --update-goldens"
    )


def test_the_worked_example_matches_a_real_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    section = _section()
    patch = re.search(r"```diff\n(.*?)```", section, re.DOTALL)
    shown = re.search(r"\$ (toolgen diff [^\n]*)\n(.*?)\$ echo \$\?\n(\d)\n", section, re.DOTALL)
    assert patch is not None and shown is not None
    shutil.copytree(SPECS / "notes", tmp_path / "specs" / "notes")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "notes")
    spec = tmp_path / "specs" / "notes" / "notes.yaml"
    removed = "".join(
        line[1:] + "\n" for line in patch.group(1).splitlines() if line.startswith("-")
    )
    added = "".join(line[1:] + "\n" for line in patch.group(1).splitlines() if line.startswith("+"))
    text = spec.read_text(encoding="utf-8")
    assert removed in text
    spec.write_text(text.replace(removed, added), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [*shown.group(1).split()[1:], "--isolated"])
    assert result.stdout + result.stderr == shown.group(2)
    assert result.exit_code == int(shown.group(3))


def test_the_config_example_is_valid_configuration(tmp_path: Path) -> None:
    example = re.search(r"```toml\n(\[tool\.toolgen\.diff\].*?)```", _section(), re.DOTALL)
    assert example is not None
    (tmp_path / "pyproject.toml").write_text(example.group(1), encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")
    assert [i.code for i in config.ignores] == ["TD502", "TD203"]


def test_every_diff_option_on_the_diff_page_exists() -> None:
    help_text = CliRunner().invoke(cli, ["diff", "--help"]).stdout
    for option in sorted(set(re.findall(r"`(--[a-z-]+)", _section())) - {"--protocol"}):
        assert option in help_text, option
    assert "--protocol" in CliRunner().invoke(cli, ["digest", "--help"]).stdout
