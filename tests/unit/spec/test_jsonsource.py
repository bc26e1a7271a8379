"""The JSON reader gives exactly what the YAML reader gives for JSON, only faster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS

from toolgen.spec.errors import SpecError
from toolgen.spec.jsonsource import parse_json
from toolgen.spec.source import parse_source

SAMPLES = [
    '{"a": [1, -2.5e3, true, false, null, "x\\/y \\u00e9"], "b": {}, "c": []}',
    '{\n\t"a": 1,\n\t"b": [\n\t\t{"c": "d"}\n\t]\n}\n',
    '[{"name":"x","inputSchema":{"type":"object"}},{"name":"y"}]',
    '  "just a string"  ',
]


@pytest.mark.parametrize("text", SAMPLES)
def test_values_and_positions_match_the_yaml_reader(text: str) -> None:
    fast = parse_json(text, Path("t.json"))
    slow = parse_source(text, Path("t.json"))
    assert fast.data == json.loads(text) == slow.data
    assert fast.positions == slow.positions
    assert fast.key_positions == slow.key_positions


def test_surrogate_pair_escapes_are_one_character() -> None:
    assert parse_json('["wave \\ud83d\\udc4b"]', Path("t.json")).data == ["wave \U0001f44b"]


def test_every_corpus_file_reads_as_the_yaml_reader_reads_it() -> None:
    for path in sorted(CORPUS.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        fast, slow = parse_json(text, path), parse_source(text, path)
        assert (fast.data, fast.positions, fast.key_positions) == (
            slow.data,
            slow.positions,
            slow.key_positions,
        ), path.name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1,\n "a": 2}', ("duplicate-key", 2, 2)),
        ('{"a": 1', ("yaml-syntax", 1, 8)),
        ('{"a" 1}', ("yaml-syntax", 1, 6)),
        ("[1, 2,]", ("yaml-syntax", 1, 7)),
        ('{"a": NaN}', ("yaml-syntax", 1, 7)),
        ('{"a": 1e999}', ("yaml-syntax", 1, 7)),
        ("{} {}", ("yaml-syntax", 1, 4)),
        ('{"a": "\\x"}', ("yaml-syntax", 1, 8)),
        ("", ("yaml-syntax", 1, 1)),
    ],
    ids=[
        "duplicate",
        "unclosed",
        "no-colon",
        "trailing-comma",
        "nan",
        "inf",
        "extra",
        "escape",
        "empty",
    ],
)
def test_invalid_json_is_reported_at_its_position(
    text: str, expected: tuple[str, int, int]
) -> None:
    with pytest.raises(SpecError) as caught:
        parse_json(text, Path("t.json"), "t.json")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location is not None
    assert (diagnostic.code, diagnostic.location.line, diagnostic.location.column) == expected
