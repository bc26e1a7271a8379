"""The lint documentation cannot drift: the rules table of docs/lint.md, docs/lint-rules.md and
the pre-commit hooks are checked against the code (`--update-goldens` rewrites the first two;
the worked example runs with every other docs snippet, test_docs_snippets.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import ROOT

from toolgen.cli import COMMANDS, cli
from toolgen.lint.docs import rules_markdown, rules_table

LINT_DOC = ROOT / "docs" / "lint.md"
RULES_DOC = ROOT / "docs" / "lint-rules.md"


def _between(text: str, start: str, end: str) -> tuple[int, int]:
    begin = text.index(start) + len(start)
    return begin, text.index(end, begin)


def test_the_lint_page_rules_table_matches_the_registry(update_goldens: bool) -> None:
    text = LINT_DOC.read_text(encoding="utf-8")
    begin, end = _between(text, "<!-- rules:start -->\n", "<!-- rules:end -->")
    if update_goldens:
        LINT_DOC.write_text(text[:begin] + rules_table() + text[end:], encoding="utf-8")
        return
    assert text[begin:end] == rules_table(), (
        "docs/lint.md rules table is stale: run with --update-goldens"
    )


def test_rules_document_matches_the_registry(update_goldens: bool) -> None:
    if update_goldens:
        RULES_DOC.write_text(rules_markdown(), encoding="utf-8")
        return
    assert RULES_DOC.read_text(encoding="utf-8") == rules_markdown(), (
        "docs/lint-rules.md is stale: run with --update-goldens"
    )


def test_pre_commit_hooks_run_existing_commands() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {hook["id"] for hook in hooks} == {"toolgen-lint", "toolgen-check", "toolgen-diff"}
    for hook in hooks:
        program, command = hook["entry"].split()
        assert program == "toolgen"
        assert command in COMMANDS
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        assert {"name", "files"} <= set(hook)


def test_every_lint_option_on_the_lint_page_exists() -> None:
    text = LINT_DOC.read_text(encoding="utf-8")
    help_text = CliRunner().invoke(cli, ["lint", "--help"]).stdout
    for option in sorted(set(re.findall(r"`(--[a-z-]+)", text))):
        assert option in help_text, option


def test_the_config_example_is_valid_configuration(tmp_path: Path) -> None:
    from toolgen.lint.config import load_config

    text = LINT_DOC.read_text(encoding="utf-8")
    begin, end = _between(text, "### Configuration\n\n```toml\n", "```")
    (tmp_path / "pyproject.toml").write_text(text[begin:end], encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")
    assert "TG314" in {r.code for r in config.rules()}
