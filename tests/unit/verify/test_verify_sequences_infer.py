"""Seeds and sequences in process: fixture and example values reach the schema every phase
draws from; sequences are inferred from the schemas (same def, or same name and type);
references to earlier steps resolve; values compare as the read-back check needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS

from toolgen.schema.validation import SchemaValidator
from toolgen.spec.pipeline import load_spec_set
from toolgen.verify.fixtures import resolve
from toolgen.verify.inputs import boundary_cases, leaf_values, property_schema, seeded
from toolgen.verify.sequences import _matches, _same_value, infer

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "repo": {"$ref": "#/$defs/Path"},
        "entities": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
        "limit": {"type": "integer", "minimum": 1, "maximum": 9},
    },
    "required": ["repo"],
    "$defs": {"Path": {"type": "string", "minLength": 1}},
}


def test_a_pinned_property_takes_only_the_fixture_values_in_every_phase() -> None:
    pinned = seeded(SCHEMA, {"repo": ["/srv/repo"], "entities.name": ["e1", "e2"]})
    assert pinned["properties"]["repo"] == {"enum": ["/srv/repo"]}
    assert pinned["properties"]["entities"]["items"]["properties"]["name"] == {"enum": ["e1", "e2"]}
    assert pinned["properties"]["entities"]["items"]["required"] == ["name"]  # always given
    assert SCHEMA["properties"]["repo"] == {"$ref": "#/$defs/Path"}  # the original is untouched
    cases = boundary_cases(pinned, {"repo": "/srv/repo"}, SchemaValidator(SCHEMA))
    assert {c.arguments["repo"] for c in cases} == {"/srv/repo"}
    assert {c.arguments.get("limit") for c in cases} >= {1, 9}  # the rest still varies


def test_example_values_are_offered_beside_the_schemas_own() -> None:
    hinted = seeded(SCHEMA, {"repo": ["/srv/repo"]}, {"limit": [4], "repo": ["/elsewhere"]})
    assert hinted["properties"]["limit"] == {
        "anyOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"enum": [4]}]
    }
    assert hinted["properties"]["repo"] == {"enum": ["/srv/repo"]}  # a fixture wins


def test_property_paths_and_their_schemas() -> None:
    example = {"repo": "/r", "options": {"depth": 2, "tags": ["a"]}}
    assert list(leaf_values(example)) == [
        ("repo", "/r"),
        ("options.depth", 2),
        ("options.tags", ["a"]),
    ]
    assert property_schema(SCHEMA, "repo") == {
        "type": "string", "minLength": 1, "$defs": SCHEMA["$defs"],
    }  # fmt: skip
    assert property_schema(SCHEMA, "entities.name") == {"type": "string", "$defs": SCHEMA["$defs"]}
    assert property_schema(SCHEMA, "nope") is None


def test_references_resolve_to_what_earlier_steps_returned() -> None:
    outputs = {1: {"id": "n_1", "items": [{"name": "a"}]}}
    value = {"id": "${1.id}", "names": ["${1.items.0.name}"], "text": "not ${1.id}"}
    assert resolve(value, outputs) == {"id": "n_1", "names": ["a"], "text": "not ${1.id}"}
    with pytest.raises(KeyError):
        resolve("${1.missing}", outputs)


SAME_VALUES = [
    ("x", "x", True),
    (["b", "a", "a"], ["a", "b"], True),  # lists as sets: servers sort and deduplicate
    ({"a": 1, "b": 2}, {"a": 1, "c": 3}, True),  # objects by the fields both have
    ({"a": 1}, {"a": 2}, False),
    (1, True, False),
    (2, 2.0, True),
]


@pytest.mark.parametrize(("written", "read", "same"), SAME_VALUES)
def test_read_values_compare_with_written_ones(written: Any, read: Any, same: bool) -> None:
    assert _same_value(written, read) is same


def test_expected_outputs_match_by_the_keys_they_list() -> None:
    actual = {"entities": [{"name": "e1", "type": "t"}], "relations": []}
    assert _matches(actual, {"entities": [{"name": "e1"}]})
    assert not _matches(actual, {"entities": []})
    assert not _matches(actual, {"missing": 1})
    assert not _matches({"n": 1}, {"n": True})


def test_the_notes_spec_implies_create_read_delete_read() -> None:
    (sequence,) = infer(load_spec_set(SPECS / "notes").tools)
    assert sequence.key == "id"
    assert [(s.tool, s.role, s.link) for s in sequence.steps] == [
        ("create_note", "create", None),
        ("get_note", "read", "id"),
        ("delete_note", "delete", "id"),
        ("get_note", "read", "id"),
    ]


CRUD = """toolgen: 1
defs:
  ItemId: {type: string}
tools:
  - name: make_item
    description: Make.
    annotations: {readOnly: false, destructive: false}
    input: {type: object, properties: {label: {type: string}}, required: [label]}
    output:
      type: object
      properties: {item_id: {$ref: "#/defs/ItemId"}, label: {type: string}}
  - name: show_item
    description: Show.
    annotations: {readOnly: true}
    input: {type: object, properties: {key: {$ref: "#/defs/ItemId"}}, required: [key]}
    output: {type: object, properties: {label: {type: string}}}
  - name: rename_item
    description: Rename.
    annotations: {readOnly: false, destructive: false}
    input:
      type: object
      properties: {item_id: {type: string}, label: {type: string}}
      required: [item_id, label]
  - name: drop_item
    description: Drop.
    annotations: {readOnly: false, destructive: true}
    input: {type: object, properties: {item_id: {$ref: "#/defs/ItemId"}}, required: [item_id]}
  - name: count_items
    description: Count.
    annotations: {readOnly: true}
    input: {type: object, properties: {label: {type: string}}, required: [label]}
"""


def test_links_are_the_same_def_or_the_same_name_and_type(tmp_path: Path) -> None:
    (tmp_path / "crud.yaml").write_text(CRUD, encoding="utf-8")
    (sequence,) = infer(load_spec_set(tmp_path).tools)
    assert [(s.tool, s.role, s.link) for s in sequence.steps] == [
        ("make_item", "create", None),
        ("show_item", "read", "key"),  # another name, the same def
        ("drop_item", "delete", "item_id"),
        ("show_item", "read", "key"),
    ]  # rename_item's item_id is a plain string, not the def: no link


def test_a_create_without_a_read_gives_no_sequence(tmp_path: Path) -> None:
    (tmp_path / "crud.yaml").write_text(CRUD.split("  - name: show_item")[0], encoding="utf-8")
    assert infer(load_spec_set(tmp_path).tools) == []
