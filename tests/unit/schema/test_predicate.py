"""Schemas of common keywords checked in Python give jsonschema-rs's verdict, on generated
schemas and values, on the corpus's real schemas, and a server of such tools loads
jsonschema-rs only when a value is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema_rs
import pytest
from conftest import CORPUS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from toolgen.schema.predicate import Unsure, compile_predicate

NUMBERS = st.one_of(
    st.integers(-(2**60), 2**60),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([0, 1, 1.0, 2.5, -1, -0.0, 10, 100]),
)
KEYS = st.sampled_from(["a", "b", "c", "id", "é", "x-y"])
JSON: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
TYPE = st.sampled_from(["null", "boolean", "object", "array", "number", "integer", "string"])


def _keywords(sub: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    small = st.integers(0, 4)
    bound = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0]))
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(TYPE, st.lists(TYPE, min_size=1, max_size=3, unique=True)),
            "enum": st.lists(JSON, min_size=1, max_size=4),
            "const": JSON,
            "minimum": bound,
            "maximum": bound,
            "exclusiveMinimum": bound,
            "exclusiveMaximum": bound,
            "minLength": small,
            "maxLength": small,
            "minItems": small,
            "maxItems": small,
            "minProperties": small,
            "maxProperties": small,
            "required": st.lists(KEYS, max_size=3, unique=True),
            "properties": st.dictionaries(KEYS, sub, max_size=3),
            "additionalProperties": sub,
            "items": sub,
            "allOf": st.lists(sub, min_size=1, max_size=2),
            "anyOf": st.lists(sub, min_size=1, max_size=2),
            "oneOf": st.lists(sub, min_size=1, max_size=3),
            "not": sub,
            "description": st.text(max_size=5),
            "format": st.sampled_from(["email", "date-time", "uri"]),
            "x-note": JSON,
        },
    )


SCHEMA: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.booleans(), _keywords(st.just(True))),
    _keywords,
    max_leaves=6,
)


def verdicts(schema: Any, value: Any) -> tuple[bool, bool] | None:
    """(the predicate's verdict, jsonschema-rs's); None when the predicate is unsure."""
    check = compile_predicate(schema)
    assert check is not None, schema
    try:
        mine = check(value)
    except Unsure:
        return None
    return mine, jsonschema_rs.Draft202012Validator(schema, offline=True).is_valid(value)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMA, JSON)
def test_a_compiled_schema_gives_jsonschema_rs_verdict_on_any_value(
    schema: Any, value: Any
) -> None:
    both = verdicts(schema, value)
    assume(both is not None)
    assert both is not None
    assert both[0] == both[1], (schema, value)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_values_sampled_from_a_schema_get_jsonschema_rs_verdict(data: st.DataObject) -> None:
    """Mostly valid values (the other test's are mostly invalid); hypothesis-jsonschema
    samples some unsatisfiable schemas anyway, so the verdicts are compared, not assumed."""
    schema = data.draw(SCHEMA)
    try:
        value = data.draw(from_schema(schema))
    except Exception:  # a schema hypothesis-jsonschema cannot sample (unsatisfiable)
        assume(False)
    both = verdicts(schema, value)
    assume(both is not None)
    assert both is not None
    assert both[0] == both[1], (schema, value)


def corpus_schemas() -> list[Any]:
    tools = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    return [t["inputSchema"] for t in tools]


def test_every_corpus_input_schema_compiles() -> None:
    assert all(compile_predicate(schema) is not None for schema in corpus_schemas())


@pytest.mark.parametrize("index", range(0, 117, 6))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_corpus_schemas_agree_with_jsonschema_rs_on_their_values_and_others(
    index: int, data: st.DataObject
) -> None:
    schema = corpus_schemas()[index]
    value = data.draw(st.one_of(from_schema(schema), JSON, st.dictionaries(KEYS, JSON)))
    both = verdicts(schema, value)
    assume(both is not None)
    assert both is not None
    assert both[0] == both[1], value


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a"},
        {"$ref": "#/$defs/A", "$defs": {"A": {"type": "string"}}},
        {"patternProperties": {"^a": {}}},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
        {"type": "strng"},
        {"type": [{"a": 1}]},
        {"minLength": 1.5},
        {"properties": {"a": {"if": {}}}},
        "not a schema",
    ],
)
def test_schemas_with_other_keywords_are_left_to_jsonschema_rs(schema: Any) -> None:
    assert compile_predicate(schema) is None


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), 2**64, {1: "a"}, object(), [{"a": {2: 3}}]]
)
def test_values_json_cannot_hold_as_such_are_left_to_jsonschema_rs(value: Any) -> None:
    check = compile_predicate({"const": [{"a": {"b": 1}}]})
    assert check is not None
    with pytest.raises(Unsure):
        check(value)


class _Ordered(dict):  # type: ignore[type-arg]
    """A dict subclass: a mapping, but not a value JSON parsing makes."""


@pytest.mark.parametrize(
    "schema",
    [
        {"not": {"type": "integer"}},
        {"not": {"type": "object"}},
        {"not": {"type": "number"}},
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        {"oneOf": [{"type": "object"}, {"minProperties": 0}]},
        {"properties": {"n": {"not": {"type": "integer"}}}},
    ],
)
@pytest.mark.parametrize(
    "value", [2**60, -(2**60), 2**64, float("nan"), float("inf"), _Ordered(), {"n": 2**60}]
)
def test_negation_never_turns_an_odd_values_false_into_a_pass(schema: Any, value: Any) -> None:
    check = compile_predicate(schema)
    assert check is not None
    try:
        passed = check(value)
    except Unsure:
        return  # asked of jsonschema-rs
    if passed:
        assert jsonschema_rs.Draft202012Validator(schema, offline=True).is_valid(value)


VALIDATE = """
import sys
from toolgen.schema.validation import SchemaValidator
schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
          "required": ["n"], "additionalProperties": False}
validator = SchemaValidator(schema)
assert validator.issues({"n": 3}) == []
print("jsonschema_rs" in sys.modules)
print([issue.keyword for issue in validator.issues({"n": 0})])
print("jsonschema_rs" in sys.modules)
"""


def test_jsonschema_rs_is_loaded_only_to_describe_a_refused_value() -> None:
    result = subprocess.run(
        [sys.executable, "-c", VALIDATE], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.split("\n")[:3] == ["False", "['minimum']", "True"]
