"""The Anthropic view: Messages API tools `{"name", "description", "input_schema"}`.

Anthropic takes JSON Schema as it is, with one exception that breaks real
servers: the root of `input_schema` must be an object schema without
`oneOf`/`anyOf`/`allOf`. Those are folded into the root here: `allOf` is
merged; the alternatives of `anyOf`/`oneOf` become one object with every
branch's properties, required where every branch requires them, and the
choice written into the description. Everything below the root stays as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.providers.model import Losses, ToolView
from toolgen.providers.schemaops import compact, merge_all_of, with_notes
from toolgen.schema.pointer import resolve_pointer

_DROPPED = ("$schema", "$id")


def anthropic_tool(tool: Mapping[str, Any], name: str) -> ToolView:
    """One MCP tool definition as an Anthropic tool."""
    losses = Losses()
    schema = {
        k: v
        for k, v in (tool.get("inputSchema") or {"type": "object"}).items()
        if k not in _DROPPED
    }
    if "allOf" in schema:
        schema = merge_all_of(schema, schema, "", losses)
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            schema = _fold(schema, keyword, losses)
    schema.setdefault("type", "object")
    if name != tool["name"]:
        losses.add("", "name", "renamed", f"{tool['name']!r} → {name!r}")
    definition: dict[str, Any] = {"name": name}
    if isinstance(tool.get("description"), str):
        definition["description"] = tool["description"]
    definition["input_schema"] = schema
    return ToolView(
        mcp_name=tool["name"],
        name=name,
        definition=definition,
        losses=tuple(losses.items),
        input_schema=tool.get("inputSchema") or {},
    )


def _fold(schema: dict[str, Any], keyword: str, losses: Losses) -> dict[str, Any]:
    """The root's `anyOf`/`oneOf` alternatives folded into its own properties."""
    out = {k: v for k, v in schema.items() if k != keyword}
    props = dict(out.get("properties") or {})
    required = list(out.get("required") or [])
    sets: list[list[str]] = []
    common: set[str] | None = None
    for branch in schema[keyword]:
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            target = resolve_pointer(schema, branch["$ref"])
            branch = {**target, **branch} if isinstance(target, dict) else branch
        if not isinstance(branch, dict):
            continue
        for prop, sub in (branch.get("properties") or {}).items():
            props.setdefault(prop, sub)
        needs = [r for r in branch.get("required", []) if isinstance(r, str)]
        sets.append(needs or sorted(branch.get("properties") or {}))
        common = set(needs) if common is None else common & set(needs)
    out["properties"] = props
    out["required"] = required + sorted((common or set()) - set(required))
    word = "exactly one" if keyword == "oneOf" else "at least one"
    choices = " | ".join(
        ", ".join(s) if s else compact(b) for s, b in zip(sets, schema[keyword], strict=False)
    )
    losses.add(
        f"/{keyword}",
        keyword,
        "described",
        f"root alternatives folded into one object ({word} of: {choices})",
    )
    return with_notes(out, [f"give {word} of these sets of arguments: {choices}"])
