"""Validation issues name the field and the problem, in words a model can act on."""

from __future__ import annotations

from typing import Any

import pytest

from toolgen.schema.validation import SchemaValidator

CLOSED_EMPTY = {"type": "object", "additionalProperties": False}

CASES: list[tuple[dict[str, Any], Any, list[str]]] = [
    (
        CLOSED_EMPTY,
        {"extra": 1},
        ["(root): Additional properties are not allowed ('extra' was unexpected)"],
    ),
    (
        CLOSED_EMPTY,
        {"a": 1, "b": [2]},
        ["(root): Additional properties are not allowed ('a', 'b' were unexpected)"],
    ),
    (
        {"type": "object", "properties": {"box": CLOSED_EMPTY}},
        {"box": {"lid": True}},
        ["box: Additional properties are not allowed ('lid' was unexpected)"],
    ),
    (
        {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
        {"zz": 1},
        ["(root): Additional properties are not allowed ('zz' was unexpected)"],
    ),
    (
        {"type": "object", "properties": {"n": {"type": "integer"}}},
        {"n": "x"},
        ['n: "x" is not of type "integer"'],
    ),
]


@pytest.mark.parametrize(("schema", "value", "expected"), CASES)
def test_each_issue_names_the_field_and_the_problem(
    schema: dict[str, Any], value: Any, expected: list[str]
) -> None:
    assert [str(issue) for issue in SchemaValidator(schema).issues(value)] == expected


def test_a_property_that_no_schema_allows_is_named_not_its_value() -> None:
    (issue,) = SchemaValidator(CLOSED_EMPTY).issues({"secret_flag": 12345})
    assert "secret_flag" in issue.message
    assert "12345" not in issue.message
