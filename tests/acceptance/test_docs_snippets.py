"""The docs run: every fenced block of README.md and of every page the site builds runs as a
reader would run it, in page order, in a fresh folder (tests/docs_support.py says how each
language runs). Getting started runs end to end, from an empty folder through pipx to
`toolgen call` and `toolgen verify`. The built site holds nothing of the project's history."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import rust_support
import yaml
from conftest import ROOT
from docs_support import languages, run_page, skips

MOST_SKIPS = 6
"""Blocks marked not runnable (`<!-- skip: next "why" -->`) in all the docs together."""


def _site_pages() -> list[Path]:
    """README.md and the pages the site builds (mkdocs.yml's nav; `exclude_docs` left out)."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    pages: list[str] = []

    def collect(entries: object) -> None:
        for entry in entries if isinstance(entries, list) else []:
            for value in entry.values() if isinstance(entry, dict) else [entry]:
                if isinstance(value, str):
                    pages.append(value)
                else:
                    collect(value)

    collect(config["nav"])
    return [ROOT / "README.md", *(ROOT / "docs" / page for page in pages)]


PAGES = _site_pages()


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_block_of_the_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    if "rust" in languages(page):
        rust_support.require()
    outcome = run_page(page, tmp_path)
    assert len(outcome.skipped) == len(skips(page))


def test_every_page_of_the_docs_is_run() -> None:
    on_disk = {p.name for p in (ROOT / "docs").glob("*.md")} - {"development.md"}
    assert on_disk == {p.name for p in PAGES} - {"README.md"}


def test_few_blocks_are_marked_not_runnable_and_each_says_why() -> None:
    marked = [(page.name, line, why) for page in PAGES for line, why in skips(page)]
    assert len(marked) <= MOST_SKIPS, marked
    assert all(why.strip() for _, _, why in marked)


def test_a_snippet_missing_an_import_fails(tmp_path: Path) -> None:
    page = ROOT / "docs" / "client.md"
    text = page.read_text(encoding="utf-8")
    assert "  from toolgen.client import blocking\n" in text
    broken = tmp_path / "client.md"
    broken.write_text(text.replace("  from toolgen.client import blocking\n", ""), encoding="utf-8")
    (tmp_path / "run").mkdir()
    with pytest.raises(AssertionError, match="NameError: name 'blocking' is not defined"):
        run_page(broken, tmp_path / "run")


def test_a_python_snippet_not_laid_out_as_ruff_formats_it_fails(tmp_path: Path) -> None:
    page = ROOT / "docs" / "client.md"
    text = page.read_text(encoding="utf-8")
    assert "count = await notes.count_notes()  # int\n" in text
    misaligned = tmp_path / "client.md"
    misaligned.write_text(
        text.replace("count = await notes.count_notes()  # int\n", "count = await notes.count_notes()    # int\n"),
        encoding="utf-8",
    )  # fmt: skip
    (tmp_path / "run").mkdir()
    with pytest.raises(AssertionError, match="not Python as ruff formats it"):
        run_page(misaligned, tmp_path / "run")


HISTORY = {
    "a path into the tests": r"\btests/",
    "a pointer to benchmark results": r"benchmarks/RESULTS\.md",
    "an issue": r"(?i)\bissues?\b",
    "what something used to do": r"(?i)\bused to\b",
    "a protocol proposal's number": r"\bSEP-\d+",
}
"""What a user's page does not say."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        check=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return out


def test_the_built_site_tells_no_history(site: Path) -> None:
    found = []
    for html in sorted(site.rglob("*.html")):
        text = html.read_text(encoding="utf-8")
        for what, pattern in HISTORY.items():
            found += [(str(html.relative_to(site)), what, m[0]) for m in re.finditer(pattern, text)]
    assert not found, found


def test_the_built_site_holds_only_user_pages(site: Path) -> None:
    assert not (site / "development").exists() and not (site / "upstream").exists()
    assert "invisible-code-block" not in (site / "client" / "index.html").read_text(
        encoding="utf-8"
    )
