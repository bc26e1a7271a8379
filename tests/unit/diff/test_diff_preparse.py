"""Parsing on two cores gives exactly what parsing in one process gives."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.spec import preparse
from toolgen.spec.positions import SourceFile
from toolgen.spec.source import parse_source


def test_forked_parsing_matches_sequential_parsing_and_skips_bad_texts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, alternating: None
) -> None:
    monkeypatch.setattr(preparse, "MIN_PARALLEL_BYTES", 0)
    paths = sorted(SPECS.rglob("*.yaml"))
    texts = {p.read_text(encoding="utf-8"): p for p in paths}
    bad = tmp_path / "bad.yaml"
    texts["key: [unclosed\n"] = bad
    parsed = preparse.parse_all(texts, lambda text, source: None)
    assert set(parsed) == set(texts) - {"key: [unclosed\n"}
    assert len(parsed) >= 4  # both processes take some
    shipped = [s for s in parsed.values() if getattr(s, "_tables", "") is None]
    assert shipped  # the child's files arrive with their positions packed, unpacked below
    for text, source in parsed.items():
        expected = parse_source(text, texts[text])
        assert source.data == expected.data
        assert source.positions == expected.positions
        assert source.key_positions == expected.key_positions


def test_each_process_keeps_the_texts_it_parsed_and_the_parse_cache_holds_them_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, alternating: None
) -> None:
    from toolgen.spec import parsecache

    monkeypatch.setattr(preparse, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setenv(parsecache.ENV, str(tmp_path / "cache"))
    paths = sorted(SPECS.rglob("*.yaml"))
    kept_here: list[str] = []
    texts = {p.read_text(encoding="utf-8"): p for p in paths}
    parsed = preparse.parse_all(texts, lambda text, source: kept_here.append(text))
    assert 0 < len(kept_here) < len(parsed)  # the child kept the others, in its process

    parsecache.SharedReader().preload(paths)
    for text, path in texts.items():
        found = parsecache.lookup(text, path, str(path))
        assert found is not None and found.data == parsed[text].data


def test_what_the_child_ships_is_checked_and_a_bad_shipment_is_not_taken() -> None:
    path = SPECS / "notes" / "notes.yaml"
    fresh = parse_source(path.read_text(encoding="utf-8"), path)

    def again() -> SourceFile:
        return fresh

    received = SourceFile.from_shipped(path, "notes.yaml", fresh.shipped(), again)
    assert received is not None and received.data == fresh.data
    assert received.positions == fresh.positions
    shipped = fresh.shipped()
    not_pairs = [(fresh.data,), (fresh.data, "not bytes"), [fresh.data, b""]]
    for bad in [
        None,
        (fresh.data, fresh.packed_positions()),  # not marshalled
        shipped[: len(shipped) // 2],  # cut short
        b"\xff not marshal",
        *(marshal.dumps(value) for value in not_pairs),
    ]:
        assert SourceFile.from_shipped(path, "notes.yaml", bad, again) is None
