"""The event reader (`frontend.yamlevents`) reads YAML exactly as the node reader does.

`parse_source` reads a file from libyaml's events when it can and falls back to
PyYAML's node graph (`parse_composed`) otherwise; whichever reads it, the result
(values, positions and key positions in order, problems) or the errors must be
the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen.spec import source
from toolgen.spec.errors import SpecError


def outcome(read: Any, text: str) -> Any:
    """Everything a reader gives for `text`: its file's contents, or its errors."""
    try:
        parsed = read(text, Path("x.yaml"), "x.yaml")
    except SpecError as exc:
        return ("error", exc.diagnostics)
    return (
        parsed.data,
        list(parsed.positions.items()),
        list(parsed.key_positions.items()),
        parsed.problems,
    )


def assert_read_alike(text: str) -> None:
    assert outcome(source.parse_source, text) == outcome(source.parse_composed, text)


def used_the_events(text: str) -> bool:
    return source._read_plain_yaml(text, "x.yaml") is not None


REPOSITORY_YAML = sorted(
    p
    for p in ROOT.glob("**/*.yaml")
    if not any(part.startswith(".") or part == "node_modules" for part in p.relative_to(ROOT).parts)
)
"""The repository's own YAML files (not the scratch of virtual environments or benchmarks)."""


@pytest.mark.parametrize("path", REPOSITORY_YAML, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_file_of_the_repository_reads_alike(path: Path) -> None:
    assert_read_alike(path.read_text(encoding="utf-8"))


def embedded_texts() -> list[tuple[str, str]]:
    """The YAML files written inside the bad-input cases (most of them broken on purpose)."""
    cases = yaml.safe_load((ROOT / "tests" / "cases" / "spec_errors.yaml").read_text("utf-8"))
    return [
        (f"{case['name']}: {name}", text)
        for case in cases
        for name, text in case["files"].items()
        if isinstance(text, str)
    ]


@pytest.mark.parametrize(("what", "text"), embedded_texts(), ids=lambda v: v[:60])
def test_every_file_of_the_bad_input_cases_reads_alike(what: str, text: str) -> None:
    assert_read_alike(text)


def test_the_repository_specs_are_read_from_events() -> None:
    specs = [p for p in REPOSITORY_YAML if p.parts[len(ROOT.parts)] == "specs"]
    assert specs
    assert all(used_the_events(p.read_text(encoding="utf-8")) for p in specs)


CASES: list[tuple[str, str, bool]] = [
    # (what, text, read from events)
    ("plain mapping", "a: 1\nb: [x, 'y', \"z\"]\nc: {d: null}\n", True),
    ("YAML 1.1 words stay strings", "a: yes\nb: on\nc: No\nd: off\n", True),
    ("core schema scalars", "a: ~\nb: true\nc: 0x1F\nd: 0o17\ne: -1.5e3\nf: .5\ng: ''\n", True),
    ("keys that start like numbers or words", "true_thing: 1\nnull_ok: 2\n'1': 3\n", True),
    ("a root scalar", "just text\n", True),
    ("a root sequence", "- a\n- - b\n  - c\n", True),
    (
        "multi-line scalars",
        "a: >\n  folded\n  text\nb: |\n  kept\n  lines\nc: plain\n  more\n",
        True,
    ),
    ("comments everywhere", "# top\na: 1 # one\n# mid\nb:\n  - x # item\n", True),
    ("empty collections", "a: []\nb: {}\nc:\n", True),
    ("an anchor and an alias", "a: &x {b: 1}\nc: *x\n", False),
    ("a tag", "a: !!str 1\nb: !!int '2'\n", False),
    ("a tag on a collection", "a: !!map {b: 1}\n", False),
    ("an unknown tag", "a: !custom 1\n", False),
    ("a duplicate key", "a: 1\na: 2\n", False),
    ("a number as a key", "1: a\n", False),
    ("null as a key", "~: a\n", False),
    ("a mapping as a key", "? {a: 1}\n: b\n", False),
    ("an integer too long", "a: " + "9" * 5000 + "\n", False),
    ("infinity", "a: .inf\n", False),
    ("a syntax error", "a: [1, 2\nb: 3\n", False),
    ("a tab in indentation", "a:\n\tb: 1\n", False),
    ("two documents", "a: 1\n---\nb: 2\n", False),
    ("an empty file", "", False),
    ("only a comment", "# nothing\n", False),
    ("an explicit document", "---\na: 1\n...\n", True),
    ("nesting at the limit", "a: " + "[" * 99 + "]" * 99 + "\n", True),
    ("nesting past the limit", "a: " + "[" * 101 + "]" * 101 + "\n", False),
]


@pytest.mark.parametrize(("text", "events"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_kind_of_yaml_reads_alike(text: str, events: bool) -> None:
    assert_read_alike(text)
    assert used_the_events(text) is events


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["yes", "no", "on", "null", "~", "0x1F", "0o7", "1e3", ".inf", "-", "- a"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans(), st.sampled_from([None, "'", '"']))
def test_generated_documents_read_alike(value: Any, flow: bool, style: str | None) -> None:
    assert_read_alike(yaml.safe_dump(value, default_flow_style=flow, default_style=style))


@settings(max_examples=200, deadline=None)
@given(
    values,
    st.integers(min_value=0, max_value=200),
    st.sampled_from(["&a ", "*a", "!!str ", ": ", "\n- ", "#"]),
)
def test_damaged_documents_read_alike(value: Any, at: int, insert: str) -> None:
    text = yaml.safe_dump(value, default_flow_style=False)
    at = min(at, len(text))
    assert_read_alike(text[:at] + insert + text[at:])
