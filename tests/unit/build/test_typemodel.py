"""The type model: one reading of a spec set's schemas that every target prints from."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import SPECS, TESTS, toolset_of

from toolgen import load_toolset
from toolgen.build.python.modelplan import build_plan
from toolgen.build.typemodel import (
    ANY,
    Enum,
    Intersection,
    Literal,
    Map,
    Nullable,
    Record,
    Ref,
    Scalar,
    Tuple,
    Type,
    TypeModel,
    Union,
    build_model,
    held_cycles,
)


def member(schema: Any, defs: dict[str, Any] | None = None) -> tuple[TypeModel, Type]:
    """The model of a tool whose input has one property `x` of `schema`, and `x`'s type."""
    body = {"type": "object", "properties": {"x": schema}, "$defs": defs or {}}
    model = build_model(toolset_of(("t", body, None)))
    [field] = model.members(Ref("TInput"))
    return model, field.type


CASES: list[tuple[str, Any, Type]] = [
    ("a string", {"type": "string"}, Scalar("string")),
    ("an integer keeps its bounds", {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
     Scalar("integer", 0, 9)),
    ("fractional bounds round inwards", {"type": "integer", "minimum": 0.5, "maximum": 9.5},
     Scalar("integer", 1, 9)),
    ("a type list with null is nullable", {"type": ["string", "null"]}, Nullable(Scalar("string"))),
    ("anyOf with a null branch is nullable", {"anyOf": [{"type": "number"}, {"type": "null"}]},
     Nullable(Scalar("number"))),
    ("a const", {"const": "x"}, Literal("x")),
    ("an enum of one value is a literal", {"enum": [3]}, Literal(3)),
    ("an enum keeps the values its type allows", {"type": "string", "enum": ["a", 1]}, Literal("a")),
    ("null in a typed enum is refused by the type", {"type": "string", "enum": ["a", None]},
     Literal("a")),
    ("an empty schema is any value", {}, ANY),
    ("an open object without properties is a map", {"type": "object"}, Map(ANY)),
    ("a map of constrained values",
     {"type": "object", "additionalProperties": {"type": "number", "maximum": 255}},
     Map(Scalar("number"))),
    ("a ref with a constraint beside it is the ref", {"$ref": "#/$defs/N", "maximum": 3}, Ref("N")),
    ("an intersection keeps the ref",
     {"$ref": "#/$defs/P", "properties": {"y": {"type": "string"}}}, Ref("TInputX")),
]  # fmt: skip


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_schema_reads_as_the_type_of_the_values_it_accepts(schema: Any, expected: Type) -> None:
    defs = {"N": {"type": "integer"}, "P": {"type": "object", "properties": {"x": {}}}}
    assert member(schema, defs)[1] == expected


def test_inline_records_enums_unions_and_tuples_are_named_where_they_are_used() -> None:
    model, _ = member(
        {
            "type": "object",
            "properties": {
                "kind": {"enum": ["a", "b"]},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
                "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
        }
    )
    assert {name: named.role for name, named in model.types.items()} == {
        "TInput": "input",
        "TInputX": "inline",
        "TInputXKind": "inline",
        "TInputXPair": "inline",
        "TInputXId": "inline",
    }
    assert isinstance(model.types["TInputXKind"].type, Enum)
    assert isinstance(model.types["TInputXPair"].type, Tuple)
    assert model.sites["t:input/properties/x/properties/kind"] == "TInputXKind"


def test_a_union_of_records_pinning_one_member_is_discriminated() -> None:
    model = build_model(load_toolset(TESTS / "targets" / "specs" / "features"))
    shape = model.types["Shape"].type
    assert isinstance(shape, Union)
    assert (shape.discriminator, shape.tags) == ("kind", ("circle", "rect"))
    expr = model.types["Expr"].type
    assert isinstance(expr, Union) and expr.discriminator is None


def test_a_union_of_refs_to_defs_is_discriminated_too() -> None:
    defs = {
        name: {
            "type": "object",
            "properties": {"kind": {"const": name.lower()}, "v": {"type": "integer"}},
            "required": ["kind"],
        }
        for name in ("Cat", "Dog")
    }
    model, _ = member({"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}, defs)
    named = model.types["TInputX"].type
    assert isinstance(named, Union) and named.tags == ("cat", "dog")


def test_recursive_types_are_marked() -> None:
    model = build_model(load_toolset(TESTS / "targets" / "specs" / "features"))
    recursive = {name for name, named in model.types.items() if named.recursive}
    assert recursive == {"Expr", "ExprObject", "Tree"}


HELD: list[tuple[str, dict[str, Any], dict[str, set[str]]]] = [
    ("a record holding itself", {"A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}},
     {"A": {"A"}}),
    ("through an array no type holds itself",
     {"A": {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/A"}}}}},
     {}),
    ("through a map neither",
     {"A": {"type": "object", "additionalProperties": {"$ref": "#/$defs/A"}}}, {}),
    ("two records holding each other, nullable or not",
     {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
      "B": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}},
      "C": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}},
     {"A": {"A", "B"}, "B": {"A", "B"}}),
    ("a union branch holds its record, the record an array of the union",
     {"E": {"anyOf": [{"type": "number"}, {"type": "object", "properties": {
         "args": {"type": "array", "items": {"$ref": "#/$defs/E"}}}}]}}, {}),
]  # fmt: skip


@pytest.mark.parametrize(("defs", "expected"), [c[1:] for c in HELD], ids=[c[0] for c in HELD])
def test_types_holding_one_another_in_place_are_the_cycles_that_need_an_indirection(
    defs: dict[str, Any], expected: dict[str, set[str]]
) -> None:
    model, _ = member({"type": "string"}, defs)
    assert {name: set(names) for name, names in held_cycles(model).items()} == expected


def test_held_cycles_follow_a_long_chain_of_defs_without_recursing() -> None:
    chain = {
        f"D{i}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/D{i + 1}"}}}
        for i in range(3000)
    }
    chain["D3000"] = {"type": "object", "properties": {"first": {"$ref": "#/$defs/D0"}}}
    model, _ = member({"type": "string"}, chain)
    cycles = held_cycles(model)
    assert len(cycles) == 3001 and cycles["D0"] == cycles["D3000"]


def test_a_tool_part_that_is_exactly_a_def_is_that_def_and_defs_never_alias_each_other() -> None:
    same = {"type": "object", "properties": {"id": {"type": "string"}}}
    body = {
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "$defs": {"A": same, "B": same},
    }
    model = build_model(toolset_of(("t", body, dict(same))))
    assert model.types["A"].type == model.types["B"].type
    assert isinstance(model.types["A"].type, Record)
    assert model.types["TInput"].type == Ref("A")
    assert model.types["TOutput"].type == Ref("A")


def test_an_allof_of_records_is_one_record_closed_when_a_part_is() -> None:
    model, _ = member(
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {}}, "additionalProperties": False},
            ]
        }
    )
    merged = model.types["TInputX"].type
    assert isinstance(merged, Record) and merged.extra is None
    assert [(f.json, f.required) for f in merged.fields] == [("a", True), ("b", False)]


def test_an_allof_with_a_ref_is_an_intersection_keeping_the_ref() -> None:
    defs = {"N": {"type": "object", "properties": {"n": {}}}}
    model, _ = member({"allOf": [{"$ref": "#/$defs/N"}, {"properties": {"m": {}}}]}, defs)
    both = model.types["TInputX"].type
    assert isinstance(both, Intersection) and both.parts[0] == Ref("N")
    assert [f.json for f in model.members(Ref("TInputX"))] == ["n", "m"]


@pytest.mark.parametrize("spec_set", ["notes", "shop", "conformance"])
def test_the_python_models_name_their_classes_as_the_model_names_its_types(spec_set: str) -> None:
    toolset = load_toolset(SPECS / spec_set)
    model = build_model(toolset)
    plan = build_plan(toolset, model)
    records = {
        name
        for name, named in model.types.items()
        if (isinstance(named.type, Record) and named.role != "input") or named.role == "def"
    }
    assert records <= set(plan.class_names)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"prefixItems": [{}], "anyOf": [{"type": ["object", "null"], "$ref": "#/$defs/Node"}]},
         Tuple((ANY,), 0, ANY)),
        ({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Node"}]}, Scalar("string")),
    ],
    ids=["an intersection with itself", "a union with itself"],
)  # fmt: skip
def test_a_type_that_is_partly_itself_is_the_rest(schema: Any, expected: Type) -> None:
    model, _ = member({"$ref": "#/$defs/Node"}, {"Node": schema})
    assert model.types["Node"].type == expected
