"""Parsing on two cores gives exactly what parsing in one process gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.frontend import preparse
from toolgen.frontend.source import parse_source


def test_forked_parsing_matches_sequential_parsing_and_skips_bad_texts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(preparse, "MIN_PARALLEL_BYTES", 0)
    paths = sorted(SPECS.rglob("*.yaml"))
    texts = {p.read_text(encoding="utf-8"): p for p in paths}
    bad = tmp_path / "bad.yaml"
    texts["key: [unclosed\n"] = bad
    parsed = preparse.parse_all(texts)
    assert set(parsed) == set(texts) - {"key: [unclosed\n"}
    assert len(parsed) >= 4  # both halves are used
    for text, source in parsed.items():
        expected = parse_source(text, texts[text])
        assert source.data == expected.data
        assert source.positions == expected.positions
        assert source.key_positions == expected.key_positions
