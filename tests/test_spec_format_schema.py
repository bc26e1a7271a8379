"""The published JSON Schema of the spec format agrees with the loader."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import ROOT, SPECS

SCHEMA = json.loads((ROOT / "docs" / "spec-format.schema.json").read_text())


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
