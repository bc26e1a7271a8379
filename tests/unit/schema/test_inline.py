"""`inline_refs`: references inlined but the recursive ones, the same values accepted."""

from __future__ import annotations

import os
from typing import Any

import jsonschema_rs
import pytest
from conftest import ROOT, TESTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategies import (
    FAMILIES,
    FAMILY_NAMES,
    SMALL_VALUES,
    instances,
    ref_with_siblings,
)

from toolgen.schema.inline import inline_refs, merge_ref
from toolgen.schema.limits import MAX_INLINED_SCHEMAS
from toolgen.schema.validation import SchemaValidator
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.published import load_published

NUMBERS = st.one_of(
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([0, 1, 1.0, 2.5, -1, -0.0, 10, 100]),
)
KEYS = st.sampled_from(["a", "b", "c", "id", "é", "x-y"])
JSON: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
"""Any JSON value, small: what the inlined and the original schema must judge alike."""
EXAMPLES = int(os.environ.get("TOOLGEN_SCHEMA_EXAMPLES", "60"))
"""Examples per keyword family (each a schema and a value): the same ones each run, but in
`.ci/run`, which draws more, new ones each run."""

TREE = {
    "type": "object",
    "properties": {
        "tag": {"$ref": "#/$defs/Tag", "description": "the root tag"},
        "tree": {"$ref": "#/$defs/Tree"},
    },
    "$defs": {
        "Tag": {"type": "string", "pattern": "^[a-z]+$", "description": "a tag"},
        "Tree": {
            "type": "object",
            "properties": {
                "tag": {"$ref": "#/$defs/Tag"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
            },
        },
        "Unused": {"type": "integer"},
    },
}


def refs(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
        return own + [r for v in schema.values() for r in refs(v)]
    if isinstance(schema, list):
        return [r for v in schema for r in refs(v)]
    return []


def test_only_a_recursive_ref_stays_with_the_defs_it_needs() -> None:
    out = inline_refs(TREE)
    assert refs(out) == ["#/$defs/Tree", "#/$defs/Tree"]
    assert list(out["$defs"]) == ["Tree"]
    assert out["properties"]["tag"] == {
        "type": "string",
        "pattern": "^[a-z]+$",
        "description": "the root tag",
    }
    assert out["$defs"]["Tree"]["properties"]["tag"]["description"] == "a tag"


@pytest.mark.parametrize(
    ("target", "siblings", "merged"),
    [
        ({"type": "string"}, {}, {"type": "string"}),
        ({"type": "string"}, {"minLength": 1}, {"type": "string", "minLength": 1}),
        ({"type": "string", "description": "a"}, {"description": "b"}, {"type": "string", "description": "b"}),
        ({"type": "string"}, {"type": "integer"}, {"type": "integer", "allOf": [{"type": "string"}]}),
        ({"maxLength": 9}, {"maxLength": 3, "allOf": [{"a": 1}]}, {"maxLength": 3, "allOf": [{"a": 1}, {"maxLength": 9}]}),
        (True, {"minimum": 1}, {"minimum": 1}),
        (False, {"minimum": 1}, False),
        ({}, {"minimum": 1}, {"minimum": 1}),
    ],
)  # fmt: skip
def test_a_target_and_the_keywords_beside_its_ref_mean_both(
    target: Any, siblings: dict[str, Any], merged: Any
) -> None:
    assert merge_ref(target, siblings) == merged


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$anchor": "a"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/A/$defs/B"}},
         "$defs": {"A": {"$defs": {"B": {"items": {"$ref": "#/$defs/A/$defs/B"}}}}}},
    ],
    ids=["another document", "dangling", "an anchor", "recursion into a nested $defs"],
)  # fmt: skip
def test_a_schema_it_cannot_inline_faithfully_is_returned_as_it_is(schema: Any) -> None:
    assert inline_refs(schema) is schema


def test_a_schema_that_would_grow_past_the_limit_keeps_its_refs() -> None:
    defs: dict[str, Any] = {"D0": {"type": "string"}}
    for i in range(1, 16):  # each def refers twice to the one before: 2**15 leaves
        defs[f"D{i}"] = {"type": "array", "prefixItems": [{"$ref": f"#/$defs/D{i - 1}"}] * 2}
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/D15"}}, "$defs": defs}
    assert MAX_INLINED_SCHEMAS < 2**15
    assert inline_refs(schema) is schema


@pytest.mark.parametrize(
    ("schema", "kept"),
    [
        ({"type": "object", "properties": {"next": {"$ref": "#"}}}, ["#"]),
        ({"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/properties/a"}},
                                           "b": {"$ref": "#/properties/a"}}},
         ["#/properties/a", "#/properties/a"]),
        ({"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}}, []),
    ],
    ids=["the root", "a pointer into properties, recursive", "a pointer into properties"],
)  # fmt: skip
def test_refs_of_any_pointer_are_inlined_unless_recursive(schema: Any, kept: list[str]) -> None:
    assert refs(inline_refs(schema)) == kept


def test_a_schema_without_refs_is_returned_as_it_is() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert inline_refs(schema) is schema


# -- the same values accepted --------------------------------------------------------


def referenced_schemas() -> list[tuple[str, Any]]:
    """Every input and output schema with a `$ref` of the example spec sets (as bundled)
    and of the corpus's published tools, with its id."""
    found: list[tuple[str, Any]] = []
    sets = [load_spec_set(p) for p in sorted((ROOT / "specs").iterdir())]
    sets += [load_published(p) for p in sorted((TESTS / "data" / "corpus").glob("*.json"))]
    sets.append(load_spec_set(TESTS / "golden" / "specs" / "edge"))
    for toolset in sets:
        for tool in toolset.tools:
            for part, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
                if schema is not None and refs(schema):
                    found.append((f"{toolset.server.name}/{tool.name}/{part}", schema))
    return found


SCHEMAS = referenced_schemas()


def test_the_sample_has_recursive_and_non_recursive_refs() -> None:
    inlined = [inline_refs(s) for _, s in SCHEMAS]
    assert len(SCHEMAS) >= 20
    assert any(refs(s) for s in inlined) and any(not refs(s) for s in inlined)


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[n for n, _ in SCHEMAS])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_inlined_schema_accepts_exactly_the_values_the_referenced_one_accepts(
    name: str, schema: Any, data: st.DataObject
) -> None:
    inlined = inline_refs(schema)
    value = data.draw(st.one_of(st.dictionaries(KEYS, JSON), JSON, instances([schema, inlined])))
    verdicts = [jsonschema_rs.validator_for(s).is_valid(value) for s in (schema, inlined)]
    assert verdicts[0] == verdicts[1], value


# -- keywords beside a reference that act on each other -------------------------------------

POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}
BESIDE: list[tuple[str, Any, dict[str, Any], Any, bool]] = [
    # (case, the def, the keywords beside its $ref, a value, whether the listing merges them)
    ("additionalProperties beside an open def", POINT, {"additionalProperties": False}, {"x": 1}, False),
    ("patternProperties beside a closed def", {**POINT, "additionalProperties": False},
     {"patternProperties": {"^x-": {"type": "string"}}}, {"x-a": "s"}, False),
    ("properties beside a def of additionalProperties", {"additionalProperties": {"type": "string"}},
     {"properties": {"x": {"type": "number"}}}, {"x": 1}, False),
    ("maxContains beside contains", {"type": "array", "contains": {"type": "string"}}, {"maxContains": 1}, ["a", "b"], False),
    ("contains beside minContains", {"minContains": 2}, {"contains": {"type": "string"}}, ["a"], False),
    ("items beside prefixItems", {"prefixItems": [{"type": "integer"}]}, {"items": {"type": "string"}}, [1], False),
    ("prefixItems beside items", {"items": False}, {"prefixItems": [{"type": "integer"}]}, [1], False),
    ("then beside if", {"if": {"type": "string"}}, {"then": {"minLength": 3}}, "ab", False),
    ("else beside if", {"if": {"required": ["x"]}}, {"else": False}, {}, False),
    ("allOf beside unevaluatedProperties", {"unevaluatedProperties": False},
     {"allOf": [{"properties": {"x": {}}}]}, {"x": 1}, False),
    ("prefixItems beside unevaluatedItems", {"unevaluatedItems": False}, {"prefixItems": [{}]}, [1], False),
    ("dependentSchemas beside unevaluatedProperties", {"unevaluatedProperties": False},
     {"dependentSchemas": {"x": {"properties": {"x": {}}}}}, {"x": 1}, False),
    ("unevaluatedProperties beside properties", POINT, {"unevaluatedProperties": False}, {"x": 1}, False),
    ("dependentRequired beside a def", POINT, {"dependentRequired": {"x": ["y"]}}, {"x": 1}, True),
    ("minProperties beside a def", POINT, {"minProperties": 1}, {}, True),
    ("required beside a def", POINT, {"required": ["x"]}, {"y": 1}, True),
    ("a description beside a def", POINT, {"description": "here"}, {"x": "a"}, True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("target", "siblings", "value", "merges"), [c[1:] for c in BESIDE], ids=[c[0] for c in BESIDE]
)
def test_keywords_beside_a_ref_are_merged_into_its_target_only_where_that_means_the_same(
    target: Any, siblings: dict[str, Any], value: Any, merges: bool
) -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/T", **siblings}},
        "$defs": {"T": target},
    }
    listed = inline_refs(schema)
    assert ("allOf" not in listed["properties"]["p"]) == merges
    assert "$defs" not in listed
    verdict = SchemaValidator(schema).is_valid({"p": value})
    assert SchemaValidator(listed).is_valid({"p": value}) == verdict


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="TOOLGEN_SCHEMA_EXAMPLES" not in os.environ,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_a_ref_inlined_beside_keywords_that_act_on_each_other_accepts_exactly_what_it_did(
    family: str, data: st.DataObject
) -> None:
    schema, parts = data.draw(ref_with_siblings(family), label="schema")
    inlined = inline_refs(schema)
    drawn = data.draw(instances([schema, inlined, *parts], FAMILY_NAMES), label="value")
    bundled, listed = SchemaValidator(schema), SchemaValidator(inlined)
    for value in [drawn, *SMALL_VALUES]:
        assert bundled.is_valid(value) == listed.is_valid(value), (inlined, value)
