"""Merging `allOf` branches (how `diff` reads `$ref` + siblings and pydantic's wrapped refs)
never changes which values are valid: checked with a real validator on sample values."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from toolgen.schema.allof import merge_branch

VALUES: list[Any] = [
    None,
    True,
    0,
    3,
    -2.5,
    "",
    "ab",
    "abcdefgh",
    [],
    [1],
    ["a", "a"],
    [1, "x", None],
    {},
    {"id": "x"},
    {"id": 1},
    {"id": "x", "extra": 1},
    {"extra": True},
    {"x-a": "s"},
]
PAIRS: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    ({"description": "d"}, {"type": "string", "maxLength": 4}, True),
    ({"minLength": 1}, {"type": "string", "maxLength": 4}, True),
    ({"type": "object", "properties": {"id": {"type": "string"}}}, {"required": ["id"]}, True),
    (
        {"type": "object", "properties": {"id": {"type": "string"}}},
        {"additionalProperties": False},
        False,
    ),
    (
        {"properties": {"id": {"type": "string"}}},
        {"patternProperties": {"^x-": {"type": "string"}}},
        False,
    ),
    ({"type": "string"}, {"type": "integer"}, False),
    ({"type": ["string", "integer"]}, {"type": ["string", "integer"], "minimum": 0}, True),
    ({"items": {"type": "integer"}}, {"prefixItems": [{"type": "string"}]}, False),
    ({"items": {"type": "integer"}}, {"maxItems": 2, "uniqueItems": True}, True),
    ({"if": {"type": "string"}, "then": {"minLength": 3}}, {"else": {"type": "integer"}}, False),
    ({"maximum": 5}, {"minimum": 0, "multipleOf": 1}, True),
    ({"enum": [0, 3, "ab"]}, {"type": "integer"}, True),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, {"maxLength": 2}, True),
]


@pytest.mark.parametrize("base, branch, merges", PAIRS)
def test_a_merged_allof_branch_accepts_exactly_what_allof_accepts(
    base: dict[str, Any], branch: dict[str, Any], merges: bool
) -> None:
    merged = merge_branch(base, branch)
    assert (merged is not None) == merges
    if merged is None:
        return  # compared as allOf, which is always right
    both = {"allOf": [base, branch]}
    for value in VALUES:
        expected = jsonschema.Draft202012Validator(both).is_valid(value)
        assert jsonschema.Draft202012Validator(merged).is_valid(value) == expected, value


def test_branches_whose_keywords_read_each_other_are_not_merged() -> None:
    assert merge_branch({"properties": {"a": {}}}, {"additionalProperties": False}) is None
    assert merge_branch({"items": {}}, {"prefixItems": [{}]}) is None
    assert merge_branch({"type": "string"}, {"type": "integer"}) is None
    assert merge_branch({"description": "mine"}, {"description": "theirs", "type": "string"}) == {
        "description": "mine",
        "type": "string",
    }
