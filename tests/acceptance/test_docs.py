"""The README and the docs site say what is true of this repository, for a user: no history
(issue numbers, dates of benchmark runs), no path that is not in the repository, set-up
commands that CI runs, the format schema at the address the site publishes it, and shell
completion that works as documented."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from toolgen.spec.model import FORMAT_SCHEMA
from toolgen.spec.protocol import SUPPORTED_REVISIONS
from toolgen.version import DOCS_URL

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
PAGE_IDS = [str(page.relative_to(ROOT)) for page in PAGES]
INSTALL = "pip install -c constraints.txt -e '.[dev]'"

MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
CITATION = re.compile(r"[\w.]+(?:[/-][\w.]+)+\s*$")
"""Another project's tracker, named before its number (`openai/codex #8174`): a source."""
HISTORY = {
    "an issue number": r"(?i)\bissues?\s+#?\d+",
    "a day and month": rf"\b\d{{1,2}}\s+{MONTH}(?=[\s,]|$)|\b{MONTH}\s+\d{{1,2}}\b",
    "a time of day": r"\b(?:at|from|to)\s+\d{1,2}:\d\d\b",
}
OUTSIDE = r"\.\./|(?<![\w.-])shared/|(?<![\w.~-])/(?:work|home|root|tmp|opt)/"
"""Paths that leave the repository: a parent directory, the briefs beside it, a machine's."""
REPO_PATH = r"(?<![\w./<>-])((?:tests|scripts|benchmarks|examples|toolgen|docs|\.ci)/[\w./-]*)"
"""A path into a folder of the repository that users do not create themselves."""


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def test_the_readme_reads_in_ten_minutes() -> None:
    assert len(_text(README).splitlines()) <= 300


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_page_tells_history(page: Path) -> None:
    text = _text(page)
    for what, pattern in HISTORY.items():
        assert not re.findall(pattern, text, re.MULTILINE), f"{page.name} names {what}"
    for number in re.finditer(r"(?<![\w&/-])#\d+\b", text):
        assert CITATION.search(text[: number.start()]), f"{page.name} names issue {number[0]}"
    dates = set(re.findall(r"\b20\d\d-\d\d-\d\d\b", text)) - set(SUPPORTED_REVISIONS)
    assert not dates, f"{page.name} names dates that are not protocol revisions: {dates}"


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_path_a_page_names_is_in_the_repository(page: Path) -> None:
    text = _text(page)
    assert not re.findall(OUTSIDE, text), page.name
    for path in re.findall(REPO_PATH, text):
        path = path.rstrip(".")
        assert (ROOT / path).exists(), f"{page.name} names {path}, which is not in the repository"
    base = page.parent
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+:", target):
            assert (base / target).resolve().is_relative_to(ROOT), target
            assert (base / target).exists(), f"{page.name} links to {target}, which is missing"


def test_the_readme_set_up_commands_install_what_ci_installs() -> None:
    text = _text(README)
    start = text.index("## Quick start")
    commands = re.findall(r"```sh\n(.*?)\n```", text[start : text.index("\n## ", start + 1)])
    prefix = f"python3 -m venv .venv && . .venv/bin/activate && {INSTALL} && "
    assert commands == [prefix + "toolgen build", prefix + "python -m pytest"]
    assert f"python -m {INSTALL}" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert (ROOT / "constraints.txt").is_file()


def test_the_format_schema_is_published_where_its_id_says() -> None:
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["site_url"]
    schema = json.loads(FORMAT_SCHEMA.read_text(encoding="utf-8"))
    assert site == DOCS_URL  # the one address toolgen's own messages and comments link to
    assert schema["$id"] == site + "spec-format.schema.json"
    assert (ROOT / "docs" / "spec-format.schema.json").is_file()  # copied to the site's root
    assert "SPEC-FORMAT" not in json.dumps(schema)


@pytest.mark.parametrize(
    ("words", "expected"),
    [("toolgen li", {"lint"}), ("toolgen lint --format ", {"text", "json", "sarif", "github"})],
)
def test_shell_completion_works_as_documented(words: str, expected: set[str]) -> None:
    install = _text(ROOT / "docs" / "install.md")
    assert 'eval "$(_TOOLGEN_COMPLETE=bash_source toolgen)"' in install
    env = {
        **os.environ,
        "_TOOLGEN_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    done = subprocess.run(
        [sys.executable, "-m", "toolgen"], env=env, capture_output=True, text=True, timeout=60
    )
    offered = {line.split(",", 1)[1] for line in done.stdout.splitlines()}
    assert expected <= offered, done.stdout + done.stderr
