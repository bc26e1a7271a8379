"""The build keeps parsed spec files in a cache: a file read before is not parsed again,
and every position of it stays where a fresh parse puts it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.spec import parsecache, source
from toolgen.spec.errors import SpecError
from toolgen.spec.loader import spec_sets
from toolgen.spec.pipeline import load_set
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
    monkeypatch.setattr(parsecache, "parse_source", counting)
    return seen


def _tools(specs: Path) -> list[str]:
    """Each tool of the spec set read through the cache, as `name file:line:col`."""
    toolset = load_set(spec_sets([specs])[0], parsecache.SharedReader())
    return [f"{t.name} {t.origin.locate('input', 'properties')}" for t in toolset.tools]


def _specs(tmp_path: Path) -> Path:
    root = tmp_path / "specs"
    root.mkdir()
    (root / "main.yaml").write_text(NOTES_WITH_FINDINGS, encoding="utf-8")
    shutil.copy(SPECS / "notes" / "tags.yaml", root / "tags.yaml")
    return root


def test_a_second_read_parses_nothing_and_keeps_every_position(
    parses: list[str], tmp_path: Path
) -> None:
    specs = _specs(tmp_path)
    first = _tools(specs)
    assert len(parses) == 2
    assert any("main.yaml:9:9" in tool for tool in first), first
    parses.clear()
    assert _tools(specs) == first
    assert parses == []


def test_the_same_text_elsewhere_is_found_and_named_after_its_new_place(
    parses: list[str], tmp_path: Path
) -> None:
    specs = _specs(tmp_path)
    first = _tools(specs)
    moved = tmp_path / "moved"
    shutil.copytree(specs, moved)
    parses.clear()
    again = _tools(moved)
    assert parses == []
    assert again == [f.replace(str(specs), str(moved)) for f in first] != first


def test_a_damaged_entry_is_parsed_again(parses: list[str], tmp_path: Path) -> None:
    specs = _specs(tmp_path)
    first = _tools(specs)
    for entry in (tmp_path / "cache" / "sources").glob("*.bin"):
        entry.write_bytes(b"\x00garbage")
    parses.clear()
    assert _tools(specs) == first
    assert len(parses) == 2


def test_a_file_that_does_not_load_is_never_cached_and_keeps_its_error(
    parses: list[str], tmp_path: Path
) -> None:
    specs = tmp_path / "bad"
    specs.mkdir()
    (specs / "main.yaml").write_text("toolgen: 1\nserver: {name: [\n", encoding="utf-8")
    errors = []
    for _ in range(2):
        with pytest.raises(SpecError) as caught:
            _tools(specs)
        errors.append([(d.code, d.location) for d in caught.value.diagnostics])
    assert errors[0] == errors[1] and errors[0][0][1].file.endswith("main.yaml")
    assert len(parses) == 2


def test_the_cache_can_be_turned_off(
    parses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parsecache.ENV, "off")
    specs = _specs(tmp_path)
    _tools(specs)
    _tools(specs)
    assert len(parses) == 4
    assert not (tmp_path / "cache").exists()


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
