"""MCP protocol facts toolgen must get right, in one place.

Both the build (tool definition files) and the runtime (`tools/list`,
`structuredContent`) use these functions, so what we emit and what we serve
cannot disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from toolgen.schema.check import JSON_SCHEMA_DIALECT as JSON_SCHEMA_DIALECT  # re-exported
from toolgen.schema.inline import inline_refs
from toolgen.spec.ir import Tool, ToolSet

LEGACY_REVISIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions with the `initialize` handshake (served by the runtime)."""
MODERN_REVISIONS: Final = ("2026-07-28",)
"""Stateless revisions: every request carries its protocol version."""
SUPPORTED_REVISIONS: Final = LEGACY_REVISIONS + MODERN_REVISIONS
EMITTED_REVISIONS: Final = ("2025-06-18", "2025-11-25", "2026-07-28")
"""Revisions a build writes tool definitions for (those with an official schema here)."""
SCHEMA_REVISIONS: Final = ("2024-11-05", *EMITTED_REVISIONS)
"""Revisions whose official schema is vendored (2024-11-05 for the runtime's tests only)."""
BATCH_REVISION: Final = "2025-03-26"
"""The only revision whose sessions MUST accept JSON-RPC batches (earlier and later: none)."""
LATEST_REVISION: Final = MODERN_REVISIONS[-1]
LATEST_LEGACY_REVISION: Final = LEGACY_REVISIONS[-1]

WRAP_KEY: Final = "result"
WRAPPED_META_KEY: Final = "dev.toolgen/wrappedOutput"
"""`Tool._meta` key declaring that structured results are `{WRAP_KEY: value}`."""


X_MCP_HEADER: Final = "x-mcp-header"
"""The annotation of an input property whose value 2026-07-28 mirrors in an HTTP header."""


def header_params(schema: Any, path: tuple[str, ...] = ()) -> list[tuple[str, tuple[str, ...]]]:
    """(header name, argument path) of every `x-mcp-header` annotation on a property that
    `properties` chains reach from `schema` (the `Mcp-Param-{name}` headers of a call)."""
    found: list[tuple[str, tuple[str, ...]]] = []
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return found
    for key, sub in properties.items():
        if not isinstance(sub, Mapping):
            continue
        name = sub.get(X_MCP_HEADER)
        if isinstance(name, str) and name:
            found.append((name, (*path, key)))
        found.extend(header_params(sub, (*path, key)))
    return found


def may_destroy(*annotations: Any) -> bool:
    """Whether a tool may destroy data by any of these MCP `annotations` objects (the spec's,
    and every listing entry of its name): the one rule of `verify`, `toolgen call` and
    the clients for "may this tool be called without consent".

    An object makes the tool safe only by `readOnlyHint: true` or `destructiveHint: false`,
    written as JSON booleans; anything else reads as the MCP default (not read-only,
    destructive): an absent or null hint, a string `"false"`, an object that is not one.
    One dangerous reading among several (a name listed twice) is enough.
    """
    return not annotations or any(
        not isinstance(hints, Mapping)
        or (hints.get("readOnlyHint") is not True and hints.get("destructiveHint") is not False)
        for hints in annotations
    )


OFFICIAL_SCHEMAS: Final = Path(__file__).with_name("mcp-schema")
"""The official MCP JSON Schemas, vendored unchanged (source and blob ids in its README.md)."""


def official_schema(revision: str) -> dict[str, Any]:
    """The official JSON Schema of a protocol revision (`SCHEMA_REVISIONS`)."""
    if revision not in SCHEMA_REVISIONS:
        raise ValueError(f"no official schema is vendored for {revision!r}")
    document: dict[str, Any] = json.loads(
        (OFFICIAL_SCHEMAS / revision / "schema.json").read_bytes()
    )
    return document


TOOLS_TTL_MS: Final = 300_000
"""How long (ms) modern clients may cache `tools/list`: a spec set's tools only change on deploy."""
TOOLS_CACHE_SCOPE: Final = "public"
"""The tool list holds no user-specific data, so shared caches may keep it."""


def is_modern(revision: str) -> bool:
    """Whether `revision` is the stateless era (no handshake, any output root)."""
    return revision >= MODERN_REVISIONS[0]


def has_annotations(revision: str) -> bool:
    """Whether `revision` knows `Tool.annotations` (2025-03-26+; 2024-11-05 has none)."""
    return revision >= "2025-03-26"


def accepts_batches(revision: str | None) -> bool:
    """Whether a session at `revision` must accept JSON-RPC batches (2025-03-26 only)."""
    return revision == BATCH_REVISION


def has_structured_output(revision: str) -> bool:
    """Whether `revision` knows `outputSchema`, `structuredContent` and `Tool.title` (2025-06-18+)."""
    return revision >= "2025-06-18"


def has_icons(revision: str) -> bool:
    """Whether `revision` knows `Tool.icons` (2025-11-25+)."""
    return revision >= "2025-11-25"


def has_execution(revision: str) -> bool:
    """Whether `revision` knows `Tool.execution` (2025-11-25 only: later, tasks are an extension)."""
    return revision == "2025-11-25"


def wraps_output(tool: Tool, revision: str) -> bool:
    """Whether results of `tool` are wrapped as `{"result": ...}` for `revision`."""
    return tool.output_schema is not None and not tool.output_is_object and not is_modern(revision)


def wrap_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The object schema a legacy client sees for a non-object output."""
    inner = {k: v for k, v in schema.items() if k != "$defs"}
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {WRAP_KEY: inner},
        "required": [WRAP_KEY],
        "additionalProperties": False,
    }
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def structured_value(tool: Tool, value: Any, revision: str) -> Any:
    """The `structuredContent` to send for a handler's (already valid) return value."""
    return {WRAP_KEY: value} if wraps_output(tool, revision) else value


def sent_schema(tool: Tool, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """One of `tool`'s schemas as its definitions send it: with every `$ref` that is not
    recursive inlined, unless the tool keeps its references (`tool.refs`)."""
    return schema if tool.refs == "keep" else inline_refs(schema)


def tool_definition(tool: Tool, revision: str) -> dict[str, Any]:
    """The MCP `Tool` object for one protocol revision.

    Self-contained: unless the tool keeps its references (`tool.refs == "keep"`), every
    `$ref` of its schemas that is not recursive is inlined and `$defs` keep only what a
    recursive one needs, because many clients do not resolve references. The values
    each schema accepts are the same either way."""
    definition: dict[str, Any] = {"name": tool.name}
    structured = has_structured_output(revision)
    if tool.title is not None and structured:
        definition["title"] = tool.title
    if tool.description is not None:
        definition["description"] = tool.description
    if tool.icons is not None and has_icons(revision):
        definition["icons"] = [dict(icon) for icon in tool.icons]
    definition["inputSchema"] = dict(sent_schema(tool, tool.input_schema))
    meta = dict(tool.meta) if tool.meta is not None and structured else None
    if tool.output_schema is not None and structured:
        if wraps_output(tool, revision):
            definition["outputSchema"] = wrap_schema(sent_schema(tool, tool.output_schema))
            meta = {**(meta or {}), WRAPPED_META_KEY: WRAP_KEY}
        else:
            definition["outputSchema"] = dict(sent_schema(tool, tool.output_schema))
    if tool.execution is not None and has_execution(revision):
        definition["execution"] = dict(tool.execution)
    if meta is not None:
        definition["_meta"] = meta
    annotations = tool.annotations.to_mcp() if has_annotations(revision) else {}
    if not structured and tool.title is not None and has_annotations(revision):
        annotations.setdefault("title", tool.title)  # 2025-03-26 has only annotations.title
    if annotations:
        definition["annotations"] = annotations
    return definition


def list_tools_result(toolset: ToolSet, revision: str) -> dict[str, Any]:
    """The body of a complete (unpaginated) `tools/list` result.

    From 2026-07-28 a result also carries `resultType`, `ttlMs` and `cacheScope`.
    """
    result: dict[str, Any] = {"tools": [tool_definition(tool, revision) for tool in toolset.tools]}
    if is_modern(revision):
        result.update(resultType="complete", ttlMs=TOOLS_TTL_MS, cacheScope=TOOLS_CACHE_SCOPE)
    return result
