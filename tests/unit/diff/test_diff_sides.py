"""A diff reads both sides through one reader: a file equal on both sides is parsed once,
and each side's copy still says where it is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SPECS

from toolgen.diff import sides
from toolgen.diff.run import run_diff
from toolgen.spec.positions import SourceFile


def test_a_file_equal_on_both_sides_is_parsed_once_and_located_on_its_own_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = tmp_path / "new"
    shutil.copytree(SPECS / "notes", new)
    tags = new / "tags.yaml"
    tags.write_text(tags.read_text(encoding="utf-8").replace("A lowercase", "One lowercase"))
    parsed: list[str] = []
    real = sides.parse_source

    def counting(text: str, path: Path, display: str | None = None) -> SourceFile:
        parsed.append(path.name)
        return real(text, path, display)

    monkeypatch.setattr(sides, "parse_source", counting)
    report = run_diff(str(SPECS / "notes"), str(new))
    assert sorted(parsed) == ["notes.yaml", "tags.yaml", "tags.yaml"]  # notes.yaml: once
    assert report.changes
    assert all(str(new) in str(c.location) for c in report.changes if c.location), [
        str(c.location) for c in report.changes
    ]
