"""Emitted tool definitions and schema documents are valid for every protocol revision."""

from __future__ import annotations

import copy
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

from toolgen import ToolSet, load_toolset
from toolgen.build.schemas import render_schemas
from toolgen.build.tooldefs import render_tooldefs
from toolgen.cli import cli
from toolgen.schema.walk import walk_schemas
from toolgen.serve.definitions import load_definitions
from toolgen.serve.toolset import RuntimeToolSet
from toolgen.spec.protocol import (
    EMITTED_REVISIONS,
    LATEST_REVISION,
    WRAP_KEY,
    WRAPPED_META_KEY,
    list_tools_result,
    official_schema,
)

SPEC_SETS = sorted(p for p in SPECS.iterdir() if p.is_dir())


@cache
def official_validator(revision: str, definition: str) -> jsonschema.protocols.Validator:
    """A validator for one definition of the official MCP schema of `revision`."""
    document = official_schema(revision)
    document = copy.deepcopy(document)
    defs_key = "definitions" if "definitions" in document else "$defs"
    document["$ref"] = f"#/{defs_key}/{definition}"
    cls = jsonschema.validators.validator_for(document)
    return cls(document)


@cache
def toolset(path: Path) -> ToolSet:
    return load_toolset(path)


@pytest.mark.parametrize("revision", EMITTED_REVISIONS)
@pytest.mark.parametrize("spec_set", SPEC_SETS, ids=lambda p: p.name)
def test_tools_list_result_is_valid_against_the_official_schema(
    spec_set: Path, revision: str
) -> None:
    result = list_tools_result(toolset(spec_set), revision)
    validator = official_validator(revision, "ListToolsResult")
    errors = [e.message for e in validator.iter_errors(result)]
    assert errors == []
    tool_validator = official_validator(revision, "Tool")
    for tool in result["tools"]:
        assert list(tool_validator.iter_errors(tool)) == [], tool["name"]


@pytest.mark.parametrize("spec_set", SPEC_SETS, ids=lambda p: p.name)
def test_emitted_tool_files_are_valid_list_results(spec_set: Path) -> None:
    files = dict(render_tooldefs(toolset(spec_set), source_note="specs/x"))
    for revision in EMITTED_REVISIONS:
        body = json.loads(files[f"tools/{revision}.json"])
        assert list(official_validator(revision, "ListToolsResult").iter_errors(body)) == []


def test_non_object_output_is_wrapped_and_declared_before_2026_07_28() -> None:
    tool = toolset(SPECS / "notes").tool("count_notes")
    for revision in ("2025-06-18", "2025-11-25"):
        definition = _definition(revision, "count_notes")
        assert definition["outputSchema"]["type"] == "object"
        assert definition["outputSchema"]["properties"][WRAP_KEY]["type"] == "integer"
        assert definition["outputSchema"]["required"] == [WRAP_KEY]
        assert definition["_meta"] == {WRAPPED_META_KEY: WRAP_KEY}
    modern = _definition("2026-07-28", "count_notes")
    assert modern["outputSchema"] == dict(tool.output_schema or {})
    assert "_meta" not in modern


def test_object_output_is_never_wrapped() -> None:
    for revision in EMITTED_REVISIONS:
        definition = _definition(revision, "get_note")
        assert "_meta" not in definition
        assert definition["outputSchema"]["type"] == "object"
        assert "id" in definition["outputSchema"]["properties"]


def test_only_declared_hints_are_emitted() -> None:
    definition = _definition("2025-11-25", "get_note")
    assert definition["annotations"] == {"readOnlyHint": True, "openWorldHint": False}


def _definition(revision: str, name: str) -> dict[str, Any]:
    result = list_tools_result(toolset(SPECS / "notes"), revision)
    return next(t for t in result["tools"] if t["name"] == name)


@pytest.mark.parametrize("spec_set", SPEC_SETS, ids=lambda p: p.name)
def test_every_schema_document_passes_the_2020_12_metaschema_and_is_self_contained(
    spec_set: Path,
) -> None:
    for path, text in render_schemas(toolset(spec_set), source_note="specs/x"):
        document = json.loads(text)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert document["$id"].startswith("urn:toolgen:")
        jsonschema.Draft202012Validator.check_schema(document)
        defs = document.get("$defs", {})
        for _, schema in walk_schemas(document):
            ref = schema.get("$ref") if isinstance(schema, dict) else None
            if ref is not None:
                assert ref.startswith("#/$defs/"), (path, ref)
                assert ref.removeprefix("#/$defs/") in defs, (path, ref)


def test_recursive_def_is_bundled_once_and_refers_to_itself() -> None:
    output = toolset(SPECS / "notes").tool("tag_tree").output_schema
    assert output is not None
    assert output["type"] == "object"  # the root reference is inlined for clients
    tree = output["$defs"]["TagTree"]
    assert tree["properties"]["children"]["items"] == {"$ref": "#/$defs/TagTree"}
    jsonschema.Draft202012Validator(dict(output)).validate(
        {"tag": "a", "children": [{"tag": "b", "children": []}]}
    )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(dict(output)).validate(
            {"tag": "a", "children": [{"tag": "B"}]}
        )


def test_cross_file_reference_is_bundled_into_each_document() -> None:
    schema = toolset(SPECS / "notes").tool("create_note").input_schema
    assert schema["properties"]["tags"]["items"] == {"$ref": "#/$defs/Tag"}
    assert schema["$defs"]["Tag"]["pattern"] == "^[a-z][a-z0-9-]{0,31}$"


def test_2025_03_26_definitions_have_no_fields_that_revision_lacks() -> None:
    result = list_tools_result(toolset(SPECS / "notes"), "2025-03-26")
    for tool in result["tools"]:
        assert "outputSchema" not in tool
        assert "title" not in tool
        assert tool["annotations"]["title"]  # the title moves to annotations.title


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return own + [r for v in value.values() for r in _refs(v)]
    return [r for v in value for r in _refs(v)] if isinstance(value, list) else []


def _recursive(schema: dict[str, Any], ref: str) -> bool:
    """Whether the def `ref` names reaches itself."""
    seen, todo = set(), [ref]
    while todo:
        name = todo.pop().removeprefix("#/$defs/")
        for inner in _refs(schema["$defs"][name]):
            if inner == ref:
                return True
            if inner not in seen:
                seen.add(inner)
                todo.append(inner)
    return False


@pytest.mark.parametrize("spec_set", SPEC_SETS, ids=lambda p: p.name)
def test_built_and_served_definitions_keep_only_recursive_refs(spec_set: Path) -> None:
    """Every `tools/<revision>.json` of the example spec sets, and what the runtime lists,
    inlines defs: a `$ref` that stays points at a recursive def (or the spec set keeps its
    refs on purpose, as the conformance fixtures do)."""
    ts = toolset(spec_set)
    keeps = {t.refs for t in ts.tools} == {"keep"}
    served = RuntimeToolSet(ts)
    for revision in EMITTED_REVISIONS:
        built = json.loads(
            (ROOT / "generated" / ts.server.package / "tools" / f"{revision}.json").read_text()
        )
        assert built["tools"] == served.list_tools_result(revision)["tools"]
        for definition in built["tools"]:
            for part in ("inputSchema", "outputSchema"):
                schema = definition.get(part, {})
                for ref in _refs(schema):
                    assert keeps or _recursive(schema, ref), (definition["name"], part, ref)


def test_refs_stay_as_bundled_when_the_spec_set_or_the_command_says_keep(tmp_path: Path) -> None:
    notes = toolset(SPECS / "notes")
    kept = list_tools_result(notes.with_refs("keep"), LATEST_REVISION)["tools"]
    assert sum(len(_refs(t)) for t in kept) == 16
    source = (SPECS / "notes" / "notes.yaml").read_text()
    (tmp_path / "notes.yaml").write_text(source.replace("server:\n", "server:\n  refs: keep\n", 1))
    shutil.copy(SPECS / "notes" / "tags.yaml", tmp_path / "tags.yaml")
    assert list_tools_result(load_toolset(tmp_path), LATEST_REVISION)["tools"] == kept
    printed = CliRunner().invoke(cli, ["tools", str(SPECS / "notes"), "--refs", "keep"])
    assert json.loads(printed.output)["tools"] == kept


def test_definitions_read_back_from_a_build_are_served_as_written() -> None:
    built = ROOT / "generated" / "notes" / "tools" / f"{LATEST_REVISION}.json"
    served = load_definitions({"name": "notes", "version": "1"}, built)
    assert (
        served.list_tools_result(LATEST_REVISION)["tools"] == json.loads(built.read_text())["tools"]
    )
    assert {t.refs for t in served.tools} == {"keep"}


POINT = {"type": "object", "properties": {"x": {"type": "number"}}}
ROOT_REFS: list[tuple[str, dict[str, Any], Any]] = [
    # (case, the keywords beside an output's root `$ref` to POINT, a value)
    ("additionalProperties beside the def's properties", {"additionalProperties": False}, {"x": 1}),
    ("a union that refers to the def again", {"anyOf": [{"$ref": "#/defs/Point"}, {"type": "null"}]},
     {"x": 1}),
    ("a required list", {"required": ["x"]}, {}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("beside", "value"), [c[1:] for c in ROOT_REFS], ids=[c[0] for c in ROOT_REFS]
)
def test_a_root_ref_inlined_with_keywords_beside_it_keeps_their_meaning_and_its_defs(
    write_specs: Any, beside: dict[str, Any], value: Any
) -> None:
    output = {"$ref": "#/defs/Point", **beside}
    text = f"defs:\n  Point: {json.dumps(POINT)}\ntools:\n  - {{name: t, output: {json.dumps(output)}}}\n"
    schema = load_toolset(write_specs({"main.yaml": text})).tool("t").output_schema
    assert schema is not None
    as_written = json.loads(json.dumps(output).replace("#/defs/", "#/$defs/"))
    expected = jsonschema.Draft202012Validator({**as_written, "$defs": {"Point": POINT}})
    assert jsonschema.Draft202012Validator(dict(schema)).is_valid(value) == expected.is_valid(value)
