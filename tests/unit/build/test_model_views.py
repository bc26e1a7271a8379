"""Schemas whose models the build could not make, or made stricter than the schema: each
builds, and its models take every value the runtime accepts."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import import_module, toolset_of
from pydantic import BaseModel

from toolgen.build.python.models import render_models
from toolgen.spec.ir import ToolSet

POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}
REF = {"$ref": "#/$defs/Point"}

# (case, the schema of property `v` (defs: Point), values the runtime accepts for `v`)
CASES: list[tuple[str, Any, list[Any]]] = [
    ("a map of bounded numbers", {"type": "object", "additionalProperties": {"type": "number", "maximum": 255}},
     [{"A": 12.5, "B": 255}, {}]),
    ("a map of bounded strings", {"type": "object", "additionalProperties": {"type": "string", "maxLength": 2}},
     [{"a": "xy"}]),
    ("a map of patterned strings", {"type": "object", "additionalProperties": {"type": "string", "pattern": "^a"}},
     [{"k": "ab"}]),
    ("a map of numbers from a minimum", {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
     [{"k": 1}]),
    ("an array of bounded integers", {"type": "array", "items": {"type": "integer", "minimum": 1}}, [[1, 2]]),
    ("an array of arrays of bounded integers",
     {"type": "array", "items": {"type": "array", "items": {"type": "integer", "minimum": 1}}}, [[[1], []]]),
    ("a union of bounded values", {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "maxLength": 2}]},
     [1, "ab"]),
    ("properties beside a $ref", {**REF, "properties": {"y": {"type": "string"}}}, [{"x": 1}, {}]),
    ("additionalProperties: false beside a $ref", {**REF, "additionalProperties": False}, [{}]),
    ("minProperties beside a $ref", {**REF, "minProperties": 1}, [{"x": 1}]),
    ("unevaluatedProperties beside a $ref", {**REF, "unevaluatedProperties": False}, [{"x": 1, "y": 2}]),
    ("required beside a $ref", {**REF, "required": ["x"]}, [{"x": 1}]),
    ("a $ref in a map beside a bound", {"type": "object", "additionalProperties": {**REF, "maxProperties": 2}},
     [{"p": {"x": 1}}]),
    ("an object without type, given a string", {"properties": {"a": {"type": "integer"}}}, [{"a": 1}, "text", 3]),
    ("array and object keywords without type", {"items": {"type": "string"}, "properties": {"a": {}}},
     [["s"], {"a": 1}, None]),
    ("patternProperties beside properties", {"type": "object", "properties": {"a": {"type": "integer"}},
     "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}, [{"a": 1, "x-b": "s"}]),
    ("patternProperties alone", {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}},
     [{"x-a": 1, "other": "s"}]),
    ("prefixItems and items", {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
     [["s", 1]]),
    ("anyOf beside properties", {"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}, {}]},
     [{"a": 1}]),
    ("an allOf that excludes every value", {"allOf": [{"type": "string"}, False]}, []),
    ("a default the schema refuses", {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"],
     "default": {}}, [{"x": 1}]),
]  # fmt: skip
_modules = itertools.count()


def toolset(schema: Any, defs: dict[str, Any]) -> ToolSet:
    """A tool whose input has the property `v` of `schema`, bundled with `defs`."""
    whole = {"type": "object", "properties": {"v": schema}, "$defs": defs}
    return toolset_of(("pick", whole, None))


@pytest.mark.parametrize(("schema", "accepted"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_models_of_a_schema_build_and_take_every_value_it_accepts(
    tmp_path: Path, schema: Any, accepted: list[Any]
) -> None:
    code = render_models(toolset(schema, {"Point": POINT}), source_note="t")
    module = import_module(code, tmp_path, f"views_{next(_modules)}")
    bundled = toolset(schema, {"Point": POINT}).tools[0].input_schema
    for value in accepted:
        assert jsonschema_rs.validator_for(bundled).is_valid({"v": value}), value
        module.PickInput.model_validate({"v": value})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"type": "object", "maxProperties": 2},
        {"type": "object", "patternProperties": {"^a": {"type": "integer"}}},
        {"type": "object", "enum": [{"a": 1}]},
    ],
    ids=["a map", "bounded", "patternProperties", "an enum"],
)
def test_a_tool_input_is_a_model_class_whatever_object_it_describes(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    toolset = toolset_of(("pick", schema, schema))
    module = import_module(
        render_models(toolset, source_note="t"), tmp_path, f"views_{next(_modules)}"
    )
    for name in ("PickInput", "PickOutput"):
        assert issubclass(getattr(module, name), BaseModel), name


@pytest.mark.parametrize(
    "defs",
    [
        {"Point": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "string"}]}},
        {"Point": {"properties": {"x": {"$ref": "#/$defs/Point"}}}},
        {"Point": {"properties": {"v": {}}, "additionalProperties": {"$ref": "#/$defs/Point", "minProperties": 1}}},
    ],
    ids=["a union of itself", "an alias its class refers back to", "a $ref to itself beside a bound"],
)  # fmt: skip
def test_recursive_defs_build_models_that_import(tmp_path: Path, defs: dict[str, Any]) -> None:
    code = render_models(toolset({"$ref": "#/$defs/Point"}, defs), source_note="t")
    module = import_module(code, tmp_path, f"views_{next(_modules)}")
    module.PickInput.model_validate({"v": {"x": "a"}})
