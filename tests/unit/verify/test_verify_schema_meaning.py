"""verify compares a listed schema with the spec's by meaning (through `toolgen diff`'s comparison):
written differently is not drift, a changed constraint is, at its path."""

from __future__ import annotations

from typing import Any

import pytest

from toolgen.verify.listing import meaning_difference

BASE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "tag": {"$ref": "#/$defs/Tag"},
    },
    "required": ["limit", "tag"],
    "additionalProperties": False,
    "$defs": {"Tag": {"type": "string", "maxLength": 20}},
}

SAME = [
    (
        "inlined ref",
        {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "tag": {"type": "string", "maxLength": 20},
            },
            "required": ["limit", "tag"],
            "additionalProperties": False,
        },
    ),
    (
        "renamed defs, reordered keys and required",
        {
            "additionalProperties": False,
            "required": ["tag", "limit"],
            "$defs": {"Label": {"maxLength": 20, "type": "string"}},
            "properties": {
                "tag": {"$ref": "#/$defs/Label", "description": "a tag"},
                "limit": {"maximum": 100, "minimum": 1, "type": "integer", "title": "Limit"},
            },
            "type": "object",
        },
    ),
    (
        "draft-07 definitions",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"T": {"type": "string", "maxLength": 20}},
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5},
                "tag": {"$ref": "#/definitions/T"},
            },
            "required": ["limit", "tag"],
            "additionalProperties": False,
        },
    ),
]

DIFFERENT = [
    ("removed maximum", ("properties", "limit", "maximum"), {"maximum": None}),
    ("changed type", ("properties", "limit", "type"), {"type": "number"}),
    ("opened object", ("additionalProperties",), {"additionalProperties": None}),
]


@pytest.mark.parametrize(("name", "schema"), SAME, ids=[n for n, _ in SAME])
def test_schemas_written_differently_are_equivalent(name: str, schema: dict[str, Any]) -> None:
    assert meaning_difference(BASE, schema) is None
    assert meaning_difference(schema, BASE) is None


def _changed(path: tuple[str, ...], change: dict[str, Any]) -> dict[str, Any]:
    import copy

    schema = copy.deepcopy(BASE)
    node = schema
    for key in path[:-1]:
        node = node[key]
    ((key, value),) = change.items()
    if value is None:
        del node[key]
    else:
        node[key] = value
    return schema


@pytest.mark.parametrize(("name", "path", "change"), DIFFERENT, ids=[n for n, _, _ in DIFFERENT])
def test_a_changed_constraint_is_a_difference_at_its_path(
    name: str, path: tuple[str, ...], change: dict[str, Any]
) -> None:
    found = meaning_difference(BASE, _changed(path, change))
    assert found is not None
    where, message = found
    assert where[: len(path) - 1] == path[:-1]  # the node whose constraint changed
    assert path[-1] in (*where, message) or path[-1] in message


def test_type_lists_enum_order_and_nullable_any_of_are_not_drift() -> None:
    assert meaning_difference({"type": ["null", "string"]}, {"type": ["string", "null"]}) is None
    assert meaning_difference({"enum": ["b", "a"]}, {"enum": ["a", "b"]}) is None


def test_recursive_schemas_compare_by_shape() -> None:
    one = {
        "$ref": "#/$defs/Node",
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
    }
    two = {
        "$ref": "#/$defs/N",
        "$defs": {"N": {"properties": {"next": {"$ref": "#/$defs/N"}}, "type": "object"}},
    }
    assert meaning_difference(one, two) is None
    three = {
        "$ref": "#/$defs/N",
        "$defs": {"N": {"properties": {"next": {"type": "string"}}, "type": "object"}},
    }
    assert meaning_difference(one, three) is not None


def test_a_declared_older_dialect_is_read_in_that_dialect() -> None:
    spec = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
            "tag": {"type": "string"},
        },
        "dependentRequired": {"pair": ["tag"]},
    }
    draft_07 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
            "tag": {"type": "string"},
        },
        "dependencies": {"pair": ["tag"]},
    }
    assert meaning_difference(spec, draft_07) is None
    assert meaning_difference(draft_07, spec) is None
    draft_07["dependencies"] = {"pair": ["other"]}
    assert meaning_difference(spec, draft_07) is not None
