"""lint and diff keep parsed spec files in a cache: a file read before is not parsed again,
and every finding and error keeps its file:line:col."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS

from toolgen.diff.sides import SharedReader, Side, load_side
from toolgen.lint.config import LintConfig
from toolgen.lint.runner import lint_paths
from toolgen.spec import parsecache, source
from toolgen.spec.positions import SourceFile

NOTES_WITH_FINDINGS = """toolgen: 1
server: {name: demo, version: '1.0.0'}
tools:
  - name: get_thing
    description: x
    input:
      type: object
      properties:
        id: {type: string}
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """A fresh cache directory, and the display names of the files actually parsed."""
    monkeypatch.setenv(parsecache.ENV, str(tmp_path / "cache"))
    seen: list[str] = []
    real = source.parse_source

    def counting(text: str, path: Path, display: str | None = None) -> source.SourceFile:
        seen.append(display or str(path))
        return real(text, path, display)

    monkeypatch.setattr(source, "parse_source", counting)
    return seen


def _findings(paths: list[Path]) -> list[str]:
    """Each finding as `code file:line:col message`."""
    out = []
    for f in lint_paths(paths, LintConfig()).findings:
        where = f"{f.location.file}:{f.location.line}:{f.location.column}" if f.location else "-"
        out.append(f"{f.code} {where} {f.message}")
    return out


def _specs(tmp_path: Path) -> Path:
    root = tmp_path / "specs"
    root.mkdir()
    (root / "main.yaml").write_text(NOTES_WITH_FINDINGS, encoding="utf-8")
    shutil.copy(SPECS / "notes" / "tags.yaml", root / "tags.yaml")
    return root


def test_a_second_lint_parses_nothing_and_reports_the_same_findings_with_positions(
    parses: list[str], tmp_path: Path
) -> None:
    specs = _specs(tmp_path)
    first = _findings([specs])
    assert len(parses) == 2 and first
    assert any("main.yaml:6:5" in finding for finding in first), first
    parses.clear()
    assert _findings([specs]) == first
    assert parses == []


def test_the_same_text_elsewhere_is_found_and_named_after_its_new_place(
    parses: list[str], tmp_path: Path
) -> None:
    specs = _specs(tmp_path)
    first = _findings([specs])
    moved = tmp_path / "moved"
    shutil.copytree(specs, moved)
    parses.clear()
    again = _findings([moved])
    assert parses == []
    assert again == [f.replace(str(specs), str(moved)) for f in first] != first


def test_a_damaged_entry_is_parsed_again(parses: list[str], tmp_path: Path) -> None:
    specs = _specs(tmp_path)
    first = _findings([specs])
    for entry in (tmp_path / "cache" / "sources").glob("*.bin"):
        entry.write_bytes(b"\x00garbage")
    shutil.rmtree(tmp_path / "cache" / "lint")  # the set's findings: else nothing is read
    parses.clear()
    assert _findings([specs]) == first
    assert len(parses) == 2


def test_a_file_that_does_not_load_is_never_cached_and_keeps_its_error(
    parses: list[str], tmp_path: Path
) -> None:
    specs = tmp_path / "bad"
    specs.mkdir()
    (specs / "main.yaml").write_text("toolgen: 1\nserver: {name: [\n", encoding="utf-8")
    first = _findings([specs])
    assert any("main.yaml:" in f for f in first), first
    assert _findings([specs]) == first
    assert len(parses) == 2


def test_the_cache_can_be_turned_off(
    parses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parsecache.ENV, "off")
    specs = _specs(tmp_path)
    _findings([specs])
    _findings([specs])
    assert len(parses) == 4
    assert not (tmp_path / "cache").exists()


def test_a_second_diff_parses_nothing(parses: list[str], tmp_path: Path) -> None:
    old = SPECS / "notes"
    new = tmp_path / "new"
    shutil.copytree(old, new)
    (new / "tags.yaml").write_text(
        (new / "tags.yaml").read_text(encoding="utf-8").replace("A lowercase", "One lowercase"),
        encoding="utf-8",
    )
    sides = [load_side(str(p), SharedReader()) for p in (old, new)]
    assert parses
    parses.clear()
    again = [load_side(str(p), SharedReader()) for p in (old, new)]
    assert parses == []
    assert _shape(again) == _shape(sides)


def _shape(sides: list[Side]) -> list[object]:
    return [
        (t.name, t.input_schema, t.output_schema, t.origin.locate() if t.origin else None)
        for side in sides
        for toolset in side.toolsets
        for t in toolset.tools
    ]


def _load_notes(specs: Path) -> object:
    from toolgen.spec.loader import spec_sets
    from toolgen.spec.pipeline import load_set

    toolset = load_set(spec_sets([specs])[0], SharedReader())
    return [
        (t.name, t.input_schema, t.output_schema, t.origin.locate(), t.annotations)
        for t in toolset.tools
    ]


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The display names of the files whose schemas were checked."""
    from toolgen.spec import model as spec

    seen: list[str] = []
    real = spec._schema_problems

    def counting(data: dict[str, object], source: SourceFile) -> list[object]:
        seen.append(source.display)
        return real(data, source)  # type: ignore[return-value]

    monkeypatch.setattr(spec, "_schema_problems", counting)
    return seen


def test_a_file_that_passed_every_check_is_not_checked_again_and_loads_the_same(
    parses: list[str], checks: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = tmp_path / "notes"
    shutil.copytree(SPECS / "notes", specs)
    first = _load_notes(specs)
    assert len(checks) == 2
    checks.clear()
    assert _load_notes(specs) == first
    assert checks == []
    monkeypatch.setattr(parsecache, "code_fingerprint", lambda stages: "other code")
    assert _load_notes(specs) == first
    assert len(checks) == 2  # other checking code: checked again


def test_a_file_that_fails_a_check_is_checked_and_reported_every_time(
    parses: list[str], checks: list[str], tmp_path: Path
) -> None:
    specs = tmp_path / "bad"
    specs.mkdir()
    (specs / "main.yaml").write_text(
        NOTES_WITH_FINDINGS.replace("id: {type: string}", "id: {type: strang}"), encoding="utf-8"
    )
    first = _findings([specs])
    assert [f.split()[0] for f in first] == ["invalid-schema"], first
    assert _findings([specs]) == first
    assert len(checks) == 2
    assert not (tmp_path / "cache" / "checked").exists()


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch, alternating: None) -> None:
    """A preload parses on two cores, however small the input and whatever this machine
    has, the child taking every other file."""
    from toolgen.spec import preparse

    monkeypatch.setattr(preparse, "MIN_PARALLEL_BYTES", 0)


def test_a_preload_checks_each_file_where_it_parsed_it_and_the_load_after_it_checks_nothing(
    parses: list[str], checks: list[str], split: None, tmp_path: Path
) -> None:
    specs = tmp_path / "notes"
    shutil.copytree(SPECS / "notes", specs)
    files = sorted(specs.glob("*.yaml"))
    reader = SharedReader()
    reader.preload(files)
    assert len(checks) == 1  # this process checked one file; the child the other
    assert len(list((tmp_path / "cache" / "checked").iterdir())) == len(files) == 2
    checks.clear()
    from toolgen.spec.loader import spec_sets
    from toolgen.spec.pipeline import load_set

    toolset = load_set(spec_sets([specs])[0], reader)
    assert checks == []
    assert [t.name for t in toolset.tools] == [t[0] for t in _load_notes(SPECS / "notes")]


def test_a_preloaded_file_that_fails_a_check_is_reported_by_the_load_with_its_position(
    parses: list[str], split: None, tmp_path: Path
) -> None:
    specs = _specs(tmp_path)
    main = specs / "main.yaml"
    main.write_text(
        NOTES_WITH_FINDINGS.replace("id: {type: string}", "id: {type: strang}"), encoding="utf-8"
    )
    first = _findings([specs])
    assert [f.split()[0] for f in first] == ["invalid-schema"], first
    assert first[0].split()[1].endswith("/specs/main.yaml:9:20")
    assert len(list((tmp_path / "cache" / "checked").iterdir())) == 1  # tags.yaml only


def test_a_diff_of_two_spec_sets_parses_both_in_one_split(
    parses: list[str], split: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolgen.diff.run import run_diff
    from toolgen.spec import forked

    new = tmp_path / "new"
    shutil.copytree(SPECS / "notes", new)
    (new / "tags.yaml").write_text(
        (new / "tags.yaml").read_text(encoding="utf-8").replace("A lowercase", "One lowercase"),
        encoding="utf-8",
    )
    splits: list[int] = []
    real = forked.beside

    def counting(theirs: Any, mine: Any) -> Any:
        splits.append(1)
        return real(theirs, mine)

    monkeypatch.setattr(forked, "beside", counting)
    report = run_diff(str(SPECS / "notes"), str(new))
    assert len(splits) == 1
    assert sorted(parses) == sorted(set(parses))  # no text parsed twice here
    assert [c.code for s in report.servers for c in s.changes] != []


def notes_copy(tmp_path: Path) -> tuple[Path, str]:
    """A copy of the notes spec file under `tmp_path`, and its text."""
    path = tmp_path / "notes.yaml"
    shutil.copy(SPECS / "notes" / "notes.yaml", path)
    return path, path.read_text(encoding="utf-8")


def test_a_cached_file_has_every_position_of_a_fresh_parse_and_unpacks_them_only_when_asked(
    parses: list[str], tmp_path: Path
) -> None:
    path, text = notes_copy(tmp_path)
    fresh = parsecache.parse_source_cached(text, path, "notes.yaml")
    cached = parsecache.lookup(text, path, "notes.yaml")
    assert cached is not None and cached is not fresh
    assert cached._tables is None  # type: ignore[attr-defined]  # nothing unpacked yet
    moved = cached.renamed(tmp_path / "moved.yaml", "moved.yaml")
    assert cached.data == fresh.data and moved.data is cached.data
    assert cached.positions == fresh.positions and cached.key_positions == fresh.key_positions
    assert moved.positions == fresh.positions
    for where in [(), ("tools", 0, "name"), ("tools", 1, "input", "properties")]:
        assert cached.locate(where) == fresh.locate(where)
        assert moved.locate(where, key=True).file == "moved.yaml"


def test_damaged_packed_positions_are_read_again_from_the_text(
    parses: list[str], tmp_path: Path
) -> None:
    path, text = notes_copy(tmp_path)
    fresh = source.parse_source(text, path, "notes.yaml")
    parses.clear()
    damaged = SourceFile.from_packed(
        path, "notes.yaml", fresh.data, b"\x00garbage", lambda: source.parse_source(text, path)
    )
    assert damaged.positions == fresh.positions
    assert damaged.key_positions == fresh.key_positions
    assert len(parses) == 1


def test_checked_markers_are_pruned_like_parsed_files(
    parses: list[str], checks: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parsecache, "MAX_ENTRIES", 2)
    for index in range(5):
        specs = tmp_path / f"set{index}"
        specs.mkdir()
        text = NOTES_WITH_FINDINGS.replace("description: x", f"description: tool {index}")
        (specs / "main.yaml").write_text(text, encoding="utf-8")
        _load_notes(specs)
    assert len(checks) == 5
    assert 1 <= len(list((tmp_path / "cache" / "checked").iterdir())) <= 2


def test_a_full_cache_directory_is_listed_once_per_process_not_at_every_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "sources"
    directory.mkdir()
    for index in range(100):
        (directory / f"{index:04}.bin").write_bytes(b"")
    listings: list[Path] = []
    real_count = parsecache._count
    monkeypatch.setattr(parsecache, "_count", lambda d: listings.append(d) or real_count(d))
    monkeypatch.setattr(parsecache, "MAX_ENTRIES", 110)
    for index in range(20):
        parsecache.store(directory / f"new{index:02}.bin", b"x")
    assert listings == [directory]  # one listing; the stores that followed were counted
    # the 11th store made 111 entries: the newest 55 were kept, and 9 more stored since
    assert len(list(directory.glob("*.bin"))) == 55 + 9
