"""Emit one JSON Schema 2020-12 document per tool input and per tool output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.build.common import header_text, json_text
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import JSON_SCHEMA_DIALECT

SCHEMA_DIR = "schemas"


def schema_id(server: str, tool: str, part: str) -> str:
    """A stable absolute URI naming one schema document (a URN: nothing to fetch)."""
    return f"urn:toolgen:{server}:{tool}:{part}"


def schema_document(toolset: ToolSet, tool: Tool, part: str, source_note: str) -> dict[str, Any]:
    """The standalone document for `tool`'s `part` ("input" or "output")."""
    body: Mapping[str, Any] | None = tool.input_schema if part == "input" else tool.output_schema
    assert body is not None
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": schema_id(toolset.server.name, tool.name, part),
        "$comment": header_text(source_note),
        **body,
    }


def schema_stems(tools: tuple[Tool, ...]) -> dict[str, str]:
    """Tool name → the stem of its schema files: the name, or for a name that differs from
    an earlier one only in case (`Report`, `report`) the name and `~2`, `~3`...: file systems
    that ignore case (macOS, Windows) would make them one file. `~` is in no tool name."""
    taken: set[str] = set()
    stems = {}
    for tool in tools:
        stem, n = tool.name, 1
        while stem.casefold() in taken:
            n += 1
            stem = f"{tool.name}~{n}"
        taken.add(stem.casefold())
        stems[tool.name] = stem
    return stems


def render_schemas(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
    """(relative path, text) of every schema document of the spec set."""
    files = []
    stems = schema_stems(toolset.tools)
    for tool in toolset.tools:
        for part in ("input", "output"):
            if part == "output" and tool.output_schema is None:
                continue
            document = schema_document(toolset, tool, part, source_note)
            path = f"{SCHEMA_DIR}/{stems[tool.name]}.{part}.schema.json"
            files.append((path, json_text(document)))
    return files
