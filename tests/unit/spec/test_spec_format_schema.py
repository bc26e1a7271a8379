"""The published JSON Schema of the spec format agrees with the loader."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import ROOT, SPECS

from toolgen.spec.model import FORMAT_SCHEMA

SCHEMA = json.loads(FORMAT_SCHEMA.read_text())


def validator() -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


@pytest.mark.parametrize("path", sorted(SPECS.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_example_spec_file_is_valid_against_the_format_schema(path: Path) -> None:
    errors = [e.message for e in validator().iter_errors(yaml.safe_load(path.read_text()))]
    assert errors == []


def test_the_format_schema_rejects_an_unknown_key_and_accepts_x_keys() -> None:
    tool = {"name": "a", "x-owner": "me"}
    assert validator().is_valid({"toolgen": 1, "tools": [tool]})
    assert not validator().is_valid({"toolgen": 1, "tools": [{**tool, "anotations": {}}]})


def test_the_published_copy_in_docs_is_the_schema_the_loader_uses() -> None:
    published = json.loads((ROOT / "docs" / "spec-format.schema.json").read_text())
    assert published == SCHEMA


def test_the_format_schema_accepts_null_where_the_loader_reads_it_as_absent() -> None:
    tool = {"name": "a", "title": None, "input": None, "output": None}
    assert validator().is_valid({"toolgen": 1, "server": None, "tools": [tool]})
    assert not validator().is_valid({"toolgen": 1, "tools": [{**tool, "annotations": None}]})


def test_the_name_patterns_of_the_schema_are_the_loaders() -> None:
    from toolgen.spec.model import SERVER_NAME_PATTERN, TOOL_NAME_PATTERN

    assert SCHEMA["$defs"]["Tool"]["properties"]["name"]["pattern"] == TOOL_NAME_PATTERN
    assert SCHEMA["$defs"]["Server"]["properties"]["name"]["pattern"] == SERVER_NAME_PATTERN
