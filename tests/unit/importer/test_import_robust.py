"""`toolgen import` never fails on a published tool: real tools, damaged at random (seeded).

Each round replaces a few values of real tools (GitHub corpus, tests/data/servers)
with values that break schemas, refs, names and fields; the import must still
give a spec that the frontend loads (the import reads its own output back, so a
spec it cannot load fails the test), with every tool kept.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, DATA

from toolgen.importer import Published, import_published, write_import

ROUNDS = 80
DAMAGE: list[Any] = [
    None, True, 0, -1, "", "#", "#/properties", "#/$defs/A", "#/definitions/Nope",
    [], [1, "a"], {}, {"type": "nope"}, {"$ref": "#"}, {"$ref": "#/$defs/A"},
    {"items": [{}]}, {"required": True}, {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
    "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#",
    "(?<=a)b[", {"$dynamicRef": "#nope"}, {"patternProperties": {"(": {}}}, ["nope"],
    {"a": {"$ref": "#/properties/b"}, "b": {"$ref": "#/properties/a"}}, "#/properties/a",
    "x\ud800y", "name\n", "\x1b]0;t\x07", {"A": {"allOf": [{"$ref": "#/$defs/A"}]}},
    {"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"allOf": [{"$ref": "#/$defs/A"}, {}]}},
    {"allOf": [{"$ref": "#"}]},
]  # fmt: skip
KEYS = [
    "$ref", "type", "items", "properties", "required", "$defs", "definitions", "additionalItems",
    "dependencies", "$schema", "anyOf", "name", "annotations", "inputSchema", "outputSchema",
    "icons", "execution", "_meta", "title", "description", "exclusiveMaximum",
    "pattern", "patternProperties", "$dynamicRef", "additionalProperties",
]  # fmt: skip


def real_tools() -> list[dict[str, Any]]:
    tools = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    for path in sorted((DATA / "servers").glob("*.json")):
        tools.extend(json.loads(path.read_text(encoding="utf-8"))["tools"])
    return tools


def objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from objects(item)


def damaged(tool: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    tool = copy.deepcopy(tool)
    for _ in range(rng.randint(1, 6)):
        target = rng.choice(list(objects(tool)))
        target[rng.choice(KEYS)] = copy.deepcopy(rng.choice(DAMAGE))
    return tool


@pytest.mark.parametrize("seed", range(ROUNDS))
def test_damaged_real_tools_are_imported_and_load(seed: int) -> None:
    rng = random.Random(seed)
    tools = real_tools()
    batch = [damaged(rng.choice(tools), rng) for _ in range(rng.randint(1, 4))]
    result = import_published(Published(tuple(batch)))
    assert result.tools == len(batch)


def test_a_tool_the_repairs_miss_is_imported_accepting_any_object_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("toolgen.importer.repair.SCHEMA_CHECKS", ())  # as if no repair knew it
    bad = {"name": "grep", "inputSchema": {"type": "object", "properties": {"q": {"pattern": "["}}}}
    good = {"name": "echo", "inputSchema": {"type": "object", "properties": {"q": {}}}}
    result = import_published(Published((good, bad)))
    assert result.tools == 2
    assert result.identical == 1
    (warning,) = result.warnings
    assert warning.tool == "grep"
    assert "regex" in warning.message and "any object" in warning.message
    assert "name: echo\n  input:\n    type: object\n    properties:\n      q: {}" in result.text


@pytest.mark.parametrize("where", ["description", "title", "key"])
def test_a_lone_surrogate_is_replaced_and_said_not_an_internal_error(
    where: str, tmp_path: Path
) -> None:
    lone = "x\ud800y"
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if where == "key":
        tool["inputSchema"]["properties"] = {lone: {"type": "string"}}
    else:
        tool[where] = lone
    result = import_published(Published((tool,)))
    write_import(result, tmp_path / "spec")
    assert [w.tool for w in result.warnings] == ["t"]
    assert "U+FFFD" in str(result.warnings[0])
    assert "x\ufffdy" in (tmp_path / "spec" / result.file_name).read_text(encoding="utf-8")
