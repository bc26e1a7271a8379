"""Every kind of bad input fails with the right code at the right file:line:col."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import TESTS

from toolgen import SpecError, load_toolset
from toolgen.spec.errors import ErrorCode

CASES: list[dict[str, Any]] = yaml.safe_load(
    (TESTS / "cases" / "spec_errors.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_spec_is_reported_at_its_position(
    case: dict[str, Any], write_specs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_specs(case["files"], raw=case.get("raw", False))
    monkeypatch.chdir(root)
    with pytest.raises(SpecError) as caught:
        load_toolset(root)
    got = [
        {
            "code": d.code,
            "file": d.location.file,
            "line": d.location.line,
            "column": d.location.column,
        }
        for d in caught.value.diagnostics
        if d.location is not None
    ]
    assert got == case["expect"], [str(d) for d in caught.value.diagnostics]


@pytest.mark.parametrize("written", ["datetime", "[string, datetime]", "str"])
def test_an_unknown_type_name_lists_the_json_schema_types(
    written: str, write_specs: Callable[..., Path]
) -> None:
    root = write_specs(
        {
            "main.yaml": f"tools:\n  - name: a\n    input:\n      type: object\n      properties:\n        when: {{type: {written}}}\n"
        }
    )
    with pytest.raises(SpecError) as caught:
        load_toolset(root)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == ErrorCode.INVALID_SCHEMA
    assert diagnostic.location.line == 8
    assert (
        "is not a JSON Schema type; expected one of array, boolean, integer" in diagnostic.message
    )


def test_a_required_name_is_fine_when_the_object_is_open_or_has_pattern_properties(
    write_specs: Callable[..., Path],
) -> None:
    tools = (
        "tools:\n"
        "  - name: a\n"
        "    input: {type: object, patternProperties: {'^i': {}}, required: [idd],"
        " additionalProperties: false}\n"
        "  - name: b\n"
        "    input: {type: object, required: [x]}\n"
        "  - name: c\n"
        "    input: {type: object, not: {type: object, required: [x], additionalProperties: false}}\n"
    )
    assert len(load_toolset(write_specs({"main.yaml": tools})).tools) == 3


YAML_MESSAGES = [
    ("tools:\n  - name: a\n\tdescription: d\n", "indented with a tab: YAML indents with spaces"),
    ('tools:\n  - name: "a\n    description: d\n', "unclosed quote: this string never ends"),
    (
        'tools:\n  - name: "a\n    description: d\n  - name: "b"\n    description: "e"\n',
        "(is the quote at line 4, column 11 closed?)",
    ),
    (
        "tools:\n  - name: a\n    input:\n      type: object\n    required: [x]\n",
        "`required` is a JSON Schema keyword: indent it under `input` or `output`",
    ),
    (
        "tools:\n  - name: a\n    input: {type: object}\n    input: {type: object}\n",
        "if it belongs inside the block above it, indent it further",
    ),
    (
        "tools:\n  - name: a\n    input: {type: object, description: One, two}\n",
        'quote the whole string: "One, two"',
    ),
    (
        "tools:\n  - name: a\n    input: {type: object, description: Note: this}\n",
        "in a `{...}` mapping, quote a value that holds `: ` or `, `",
    ),
]


@pytest.mark.parametrize(("text", "hint"), YAML_MESSAGES)
def test_common_yaml_mistakes_are_named_in_the_message(
    text: str, hint: str, write_specs: Callable[..., Path]
) -> None:
    with pytest.raises(SpecError) as caught:
        load_toolset(write_specs({"main.yaml": text}))
    assert hint in str(caught.value)
