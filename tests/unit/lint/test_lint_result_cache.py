"""lint keeps each spec set's findings (`toolgen.lint.resultcache`): linting the same input
with the same configuration and toolgen again reads them back, and anything that can change
a finding (a file, a file another refers to, a file's name, the configuration, toolgen's
code) gives a result exactly equal to linting without the cache."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS
from lint_support import lint_result, uncached_lint_result

from toolgen import cache
from toolgen.lint.config import LintConfig, parse_section
from toolgen.spec import pipeline

ALL = LintConfig(select=("ALL",))


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """A fresh cache directory, and the roots of the spec sets actually loaded."""
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    seen: list[str] = []
    real = pipeline.load_set

    def counting(spec_set: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(spec_set.root.name)
        return real(spec_set, *args, **kwargs)

    monkeypatch.setattr(pipeline, "load_set", counting)
    return seen


def _result(paths: list[Path], config: LintConfig = ALL) -> list[dict[str, Any]]:
    return lint_result(paths, config)


def _uncached(paths: list[Path], config: LintConfig = ALL) -> list[dict[str, Any]]:
    return uncached_lint_result(paths, config)


def _copy_specs(tmp_path: Path) -> Path:
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root)
    return root


def test_a_second_lint_loads_nothing_and_reports_exactly_what_an_uncached_lint_does(
    loads: list[str], tmp_path: Path
) -> None:
    specs = _copy_specs(tmp_path)
    first = _result([specs])
    assert sorted(loads) == ["conformance", "notes", "shop"]
    loads.clear()
    again = _result([specs])
    assert loads == []
    assert again == first == _uncached([specs])
    assert len(first) > 10


def _edit_file(specs: Path) -> None:
    main = specs / "notes" / "notes.yaml"
    text = main.read_text(encoding="utf-8")
    main.write_text(text.replace("annotations: {", "annotations: {destructive: true, ", 1))


def _edit_referenced_file(specs: Path) -> None:
    """tags.yaml holds the defs notes.yaml refers to: moving them moves findings."""
    tags = specs / "notes" / "tags.yaml"
    tags.write_text("# moved down\n" + tags.read_text(encoding="utf-8"), encoding="utf-8")


def _rename_file(specs: Path) -> None:
    (specs / "shop" / "shop.yaml").rename(specs / "shop" / "store.yaml")


EDITS: dict[str, Callable[[Path], None]] = {
    "a file": _edit_file,
    "a file another refers to": _edit_referenced_file,
    "a file's name": _rename_file,
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_an_edited_input_is_linted_again(loads: list[str], tmp_path: Path, edit: str) -> None:
    specs = _copy_specs(tmp_path)
    before = _result([specs])
    EDITS[edit](specs)
    loads.clear()
    after = _result([specs])
    assert loads  # the edited set is loaded again (the others come from the cache)
    assert after == _uncached([specs]) != before


CONFIGS: dict[str, LintConfig] = {
    "fewer rules": LintConfig(select=("TG1",)),
    "a severity": replace(ALL, severity=parse_section({"severity": {"TG111": "error"}}).severity),
    "an ignore": replace(ALL, ignore=("TG111",)),
    "per-tool ignores": replace(
        ALL,
        per_tool_ignores=parse_section(
            {"per-tool-ignores": {"*_note": ["TG111"]}}
        ).per_tool_ignores,
    ),
    "a rule option": replace(ALL, options=parse_section({"max-name-length": 8}).options),
    "a verb list": replace(ALL, options=parse_section({"extend-read-verbs": ["create"]}).options),
}


@pytest.mark.parametrize("name", list(CONFIGS), ids=list(CONFIGS))
def test_another_configuration_is_linted_again(loads: list[str], tmp_path: Path, name: str) -> None:
    specs = _copy_specs(tmp_path)
    before = _result([specs])
    loads.clear()
    after = _result([specs], CONFIGS[name])
    assert loads
    assert after == _uncached([specs], CONFIGS[name]) != before


def test_fail_on_judges_findings_and_does_not_change_them(loads: list[str], tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    before = _result([specs])
    loads.clear()
    assert _result([specs], replace(ALL, fail_on="info")) == before
    assert loads == []


def test_other_toolgen_code_is_linted_again(
    loads: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = _copy_specs(tmp_path)
    before = _result([specs])
    monkeypatch.setattr(cache, "toolgen_fingerprint", lambda: "another toolgen")
    loads.clear()
    assert _result([specs]) == before
    assert sorted(loads) == ["conformance", "notes", "shop"]


def test_the_toolgen_fingerprint_changes_with_every_kind_of_file_lint_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "toolgen"
    package = Path(cache.__file__).resolve().parent
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "_PACKAGE", copy)
    try:
        for name in ["lint/rules/annotations.py", "spec/spec-format.schema.json", "spec/ir.py"]:
            cache.toolgen_fingerprint.cache_clear()
            before = cache.toolgen_fingerprint()
            with open(copy / name, "a", encoding="utf-8") as edited:
                edited.write("\n")
            cache.toolgen_fingerprint.cache_clear()
            assert cache.toolgen_fingerprint() != before, name
    finally:
        cache.toolgen_fingerprint.cache_clear()


def test_another_working_directory_shows_other_names_and_is_linted_again(
    loads: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = _copy_specs(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = _result([Path("specs")])
    monkeypatch.chdir(specs)
    loads.clear()
    after = _result([Path(".")])
    assert loads
    assert after == _uncached([Path(".")]) != before


def test_a_damaged_entry_is_linted_again(loads: list[str], tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    before = _result([specs])
    entries = list((tmp_path / "cache" / "lint").iterdir())
    assert len(entries) == 3
    for entry in entries:
        entry.write_bytes(b"\x00garbage")
    loads.clear()
    assert _result([specs]) == before
    assert len(loads) == 3


def test_a_spec_set_that_does_not_load_is_never_stored(loads: list[str], tmp_path: Path) -> None:
    specs = tmp_path / "bad"
    specs.mkdir()
    (specs / "main.yaml").write_text("toolgen: 1\nserver: {name: [\n", encoding="utf-8")
    first = _result([specs])
    assert first[0]["failed"]
    assert _result([specs]) == first
    assert loads == ["bad", "bad"]
    assert not (tmp_path / "cache" / "lint").exists()


def test_old_results_are_pruned_and_the_newest_kept(
    loads: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 4)
    notes = _copy_specs(tmp_path) / "notes"
    configs = [
        replace(ALL, options=parse_section({"max-name-length": n}).options) for n in range(20, 30)
    ]
    for config in configs:  # one entry each
        _result([notes], config)
    assert 2 <= len(list((tmp_path / "cache" / "lint").iterdir())) <= 4
    loads.clear()
    _result([notes], configs[-1])
    assert loads == []
