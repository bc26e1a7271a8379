"""The TypeScript types of JSON Schemas: exact where TypeScript can say it, never narrower
than the schema, spec text only inside string literals and comments."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import toolset_of

from toolgen.build.typemodel import Nullable, Ref, build_model
from toolgen.build.typescript.types import TypeWriter, doc_comment, member_name, ts_string

DEFS = {
    "Note": {"type": "object", "properties": {"id": {"type": "string"}}},
    "note_id": {"type": "string"},
    "a/b": {"type": "integer"},
}


def typed(schema: Any) -> str:
    """The TypeScript of `schema` as the type of an input property (`Root` the input's own
    type); a type the model names where it is used is written out, one level deep."""
    body = {"type": "object", "properties": {"x": schema}, "$defs": DEFS}
    model = build_model(toolset_of(("root", body, None)))
    renamed = {"RootInput": "Root", "NoteId": "NoteId", "AB": "AB"}
    [member] = model.members(Ref("RootInput"))
    type_ = member.type
    inner = type_.inner if isinstance(type_, Nullable) else type_
    if isinstance(inner, Ref) and model.types[inner.name].role == "inline":
        inner = model.types[inner.name].type
        type_ = Nullable(inner) if isinstance(type_, Nullable) else inner
    text = TypeWriter(model).write(type_)
    return renamed.get(text, text)


CASES: list[tuple[str, Any, str]] = [
    ("a string", {"type": "string"}, "string"),
    ("an integer is a number", {"type": "integer", "minimum": 0}, "number"),
    ("a list of types is a union", {"type": ["string", "null"]}, "string | null"),
    ("an empty schema is any JSON value", {}, "JsonValue"),
    ("true is any JSON value", True, "JsonValue"),
    ("false accepts nothing", False, "never"),
    ("a description alone says nothing of the value", {"description": "x"}, "JsonValue"),
    ("an enum is a union of literals", {"enum": ["a", 1, None, True]}, '"a" | 1 | true | null'),
    ("an enum keeps the values its type allows", {"type": "string", "enum": ["a", 1]}, '"a"'),
    ("an integer value is a number", {"type": "number", "enum": [1, 1.5]}, "1 | 1.5"),
    ("a const object is its literal type", {"const": {"a": [1, "b"]}}, '{ a: [1, "b"] }'),
    ("a const empty object", {"const": {}}, "Record<string, never>"),
    ("quotes in literals are escaped", {"const": 'a"b'}, '"a\\"b"'),
    ("an array", {"type": "array", "items": {"type": "string"}}, "string[]"),
    ("an array of anything", {"type": "array"}, "JsonValue[]"),
    ("an array of nothing", {"type": "array", "items": False}, "[]"),
    (
        "union elements are parenthesised",
        {"type": "array", "items": {"type": ["string", "null"]}},
        "(string | null)[]",
    ),
    (
        "a tuple: elements past minItems are optional, then the rest",
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 1},
        "[string, number?, ...JsonValue[]]",
    ),
    (
        "a closed tuple",
        {"type": "array", "prefixItems": [{"type": "string"}], "minItems": 1, "items": False},
        "[string]",
    ),
    (
        "a closed empty object",
        {"type": "object", "additionalProperties": False},
        "Record<string, never>",
    ),
    ("an open empty object", {"type": "object"}, "{\n  [key: string]: unknown;\n}"),
    (
        "required and optional members, names as in the JSON",
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "my-b": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        '{\n  a: string;\n  /** Checked at run time: integer. */\n  "my-b"?: number;\n}',
    ),
    (
        "extra properties of a type: the index admits the members' types too",
        {
            "type": "object",
            "properties": {"a": {"type": "boolean"}},
            "additionalProperties": {"type": "number"},
        },
        "{\n  a?: boolean;\n  [key: string]: number | boolean | undefined;\n}",
    ),
    (
        "pattern properties type the index",
        {
            "type": "object",
            "patternProperties": {"^x": {"type": "string"}},
            "additionalProperties": False,
        },
        "{\n  [key: string]: string;\n}",
    ),
    (
        "unevaluatedProperties false closes the object",
        {"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False},
        "{\n  a?: string;\n}",
    ),
    (
        "a required name without a property takes the extra properties' type",
        {"type": "object", "required": ["x"], "additionalProperties": {"type": "string"}},
        "{\n  x: string;\n  [key: string]: string;\n}",
    ),
    ("a ref to a def is its type", {"$ref": "#/$defs/Note"}, "Note"),
    ("an escaped ref", {"$ref": "#/$defs/a~1b"}, "AB"),
    ("a ref to the document is the input's own type", {"$ref": "#"}, "Root"),
    ("a ref elsewhere is any JSON value", {"$ref": "#/properties/a"}, "JsonValue"),
    ("a ref with siblings", {"$ref": "#/$defs/note_id", "maxLength": 3}, "NoteId"),
    (
        "anyOf is a union",
        {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Note"}]},
        "string | Note",
    ),
    ("oneOf is a union", {"oneOf": [{"type": "integer"}, {"type": "null"}]}, "number | null"),
    (
        "a branch that accepts anything makes anything",
        {"anyOf": [{"type": "string"}, {}]},
        "JsonValue",
    ),
    (
        "allOf is an intersection",
        {"allOf": [{"$ref": "#/$defs/Note"}, {"$ref": "#/$defs/note_id"}]},
        "Note & NoteId",
    ),
    (
        "a branch that only constrains adds nothing (the union accepts anything)",
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": False,
            "anyOf": [{"required": ["a"]}, {"properties": {"b": {"const": 1}}}],
        },
        "{\n  a?: string;\n}",
    ),
    (
        "branches that say nothing of the shape add nothing",
        {"type": "string", "anyOf": [{"minLength": 1}, {"pattern": "x"}]},
        "string",
    ),
    (
        "not, if/then/else are checked at run time only",
        {"type": "string", "not": {"const": ""}},
        "string",
    ),
]


@pytest.mark.parametrize(
    ("schema", "expected"), [(s, e) for _, s, e in CASES], ids=[c[0] for c in CASES]
)
def test_a_schema_has_the_type_of_the_values_it_accepts(schema: Any, expected: str) -> None:
    assert typed(schema) == expected


def test_an_enum_of_more_than_a_thousand_strings_is_a_string() -> None:
    values = [f"v{i}" for i in range(1001)]
    assert typed({"enum": [*values, None]}) == "string | null"
    assert typed({"enum": values[:1000]}).count(" | ") == 999


def test_members_are_documented_with_what_types_cannot_check() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "description": "How many.", "minimum": 1, "default": 2},
        },
    }
    assert typed(schema) == (
        "{\n  /**\n   * How many.\n   * Checked at run time: integer, minimum 1.\n"
        "   * @default 2\n   */\n  n?: number;\n  [key: string]: unknown;\n}"
    )


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("new\nline", '"new\\nline"'),
        ("line\u2028separator", '"line\\u2028separator"'),
        ("lone \ud800 surrogate", '"lone \\ud800 surrogate"'),
        ("${injection}`", '"${injection}`"'),
        ("名前", '"名前"'),
    ],
)
def test_spec_text_is_a_string_literal_nothing_can_end(text: str, literal: str) -> None:
    assert ts_string(text) == literal
    literal.encode("utf-8")  # a lone surrogate would not encode


@pytest.mark.parametrize(
    ("name", "member"),
    [
        ("plain", "plain"),
        ("$ok_1", "$ok_1"),
        ("my-prop", '"my-prop"'),
        ("1st", '"1st"'),
        ("a b", '"a b"'),
    ],
)
def test_a_property_name_is_bare_only_when_it_is_an_identifier(name: str, member: str) -> None:
    assert member_name(name) == member


def test_a_doc_comment_cannot_be_closed_by_spec_text() -> None:
    text = doc_comment(["Evil */ console.log(1); /*", "first\n\nsecond"], "  ")
    assert (
        text == "  /**\n   * Evil *\\/ console.log(1); /*\n   * first\n   *\n   * second\n   */\n"
    )
    assert text.count("*/") == 1
    assert doc_comment(["", "  "], "") == ""
