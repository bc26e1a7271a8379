"""Published MCP Tool objects → one spec document (the data of a spec file), with warnings.

Each tool goes through the same steps: repair what MCP does not allow
(`repair`), convert its schemas' dialect to 2020-12 (`dialects`), move their
local definitions and JSON-Pointer refs into the spec's `defs` (`refs`), then
write the spec keys in the documented order. Nothing here touches the disk
or the network; the same tools always give the same document.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgen.importer import repair
from toolgen.importer.refs import DefRegistry, hoist
from toolgen.schema.dialects import DRAFT_2020_12, dialect_of, to_2020_12
from toolgen.schema.keywords import misspelt
from toolgen.schema.walk import walk_schemas
from toolgen.spec.ir import HINTS
from toolgen.spec.naming import server_name
from toolgen.spec.protocol import JSON_SCHEMA_DIALECT, WRAP_KEY, WRAPPED_META_KEY

SHORT_HINTS = {mcp: short for short, mcp in HINTS}
ANY_OBJECT: dict[str, Any] = {"type": "object"}


@dataclass(frozen=True)
class ImportWarning:
    """Something the import changed or could not keep; `tool` None: about the whole set."""

    tool: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.message}" if self.tool else self.message


@dataclass(frozen=True)
class ServerInfo:
    """What a live server says about itself (`serverInfo`, `instructions`)."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    instructions: str | None = None


@dataclass
class Conversion:
    """The spec document being built, and what the import had to say about it."""

    document: dict[str, Any]
    warnings: list[ImportWarning] = field(default_factory=list)
    converted_dialects: dict[str, int] = field(default_factory=dict)
    """Dialect → how many schemas were converted from it to 2020-12."""


def spec_document(
    tools: Sequence[Any],
    server: ServerInfo | None = None,
    unreadable: Mapping[int, str] | None = None,
) -> Conversion:
    """The spec document for published `tools` (Tool objects as parsed JSON).

    `unreadable`: index → why the frontend refused that tool's imported schemas (a case
    the repairs do not know); such a tool is imported accepting any object, said so."""
    result = Conversion({"toolgen": 1})
    if server is not None:
        result.document["server"] = _server_block(server, result.warnings)
    registry = DefRegistry()
    seen: set[str] = set()
    entries = []
    for index, raw in enumerate(tools):
        if not isinstance(raw, dict):
            result.warnings.append(
                ImportWarning(None, f"entry #{index + 1} is not a Tool object: skipped")
            )
            continue
        entry = _ToolImport(raw, index, seen, registry, result)
        reason = (unreadable or {}).get(index)
        entries.append(entry.entry() if reason is None else entry.plain_entry(reason))
    if registry.schemas:
        result.document["defs"] = registry.schemas
    result.document["tools"] = entries
    return result


def _server_block(server: ServerInfo, warnings: list[ImportWarning]) -> dict[str, Any]:
    fields, surrogates = repair.without_surrogates(dataclasses.asdict(server))
    server = ServerInfo(**fields)
    if surrogates:
        warnings.append(ImportWarning(None, "server: lone surrogates replaced by U+FFFD"))
    name = server_name(server.name, "server")
    if name != server.name:
        warnings.append(
            ImportWarning(
                None, f"server name {server.name!r} is not a spec server name: named {name!r}"
            )
        )
    block: dict[str, Any] = {"name": name, "version": server.version}
    title = server.title or (server.name if name != server.name else None)
    for key, value in (
        ("title", title),
        ("description", server.description),
        ("instructions", server.instructions),
    ):
        if value is not None:
            block[key] = value
    return block


class _ToolImport:
    """One published tool → one spec tool entry."""

    def __init__(
        self,
        raw: dict[str, Any],
        index: int,
        seen: set[str],
        registry: DefRegistry,
        result: Conversion,
    ) -> None:
        self.raw, surrogates = repair.without_surrogates(raw)
        self.registry = registry
        self.result = result
        renames: list[str] = []
        self.name = repair.tool_name(self.raw.get("name"), index, seen, renames.append)
        for message in renames:  # said of the name the tool has now
            self.warn(message)
        if surrogates:
            self.warn("lone surrogates (not Unicode text) replaced by U+FFFD")

    def warn(self, message: str) -> None:
        self.result.warnings.append(ImportWarning(self.name, message))

    def entry(self) -> dict[str, Any]:
        entry = self._fields()
        meta, output = self._output(repair.meta(self.raw.get("_meta"), self.warn))
        if meta:
            entry["_meta"] = meta
        entry["input"] = self._input()
        if output is not None:
            entry["output"] = output
        self._extensions(entry)
        return entry

    def plain_entry(self, reason: str) -> dict[str, Any]:
        """The entry without the published schemas, which the frontend refused."""
        entry = self._fields()
        meta = repair.meta(self.raw.get("_meta"), self.warn)
        if meta:
            entry["_meta"] = {k: v for k, v in meta.items() if k != WRAPPED_META_KEY}
        entry["input"] = dict(ANY_OBJECT)
        self.warn(
            f"its imported schemas do not load ({reason}): imported as accepting any object, "
            "without an output schema"
        )
        self._extensions(entry)
        return entry

    def _fields(self) -> dict[str, Any]:
        """Name, texts, annotations, icons and execution: the keys before the schemas."""
        raw, warn = self.raw, self.warn
        entry: dict[str, Any] = {"name": self.name}
        for key in ("title", "description"):
            value = repair.text_field(raw, key, warn)
            if value is not None:
                entry[key] = value
        hints = repair.hints(raw.get("annotations"), warn)
        if hints:
            entry["annotations"] = {SHORT_HINTS.get(k, k): v for k, v in hints.items()}
        icons = repair.icons(raw.get("icons"), warn)
        if icons is not None:
            entry["icons"] = icons
        execution = repair.execution(raw.get("execution"), warn)
        if execution is not None:
            entry["execution"] = execution
        return entry

    def _extensions(self, entry: dict[str, Any]) -> None:
        for key in self.raw:
            if key not in repair.MCP_TOOL_KEYS:
                self._extension(entry, key)

    def _extension(self, entry: dict[str, Any], key: str) -> None:
        spec_key = key if key.startswith("x-") else f"x-{key}"
        entry[spec_key] = self.raw[key]
        self.warn(f"`{key}` is not an MCP Tool field: kept as `{spec_key}` (not emitted)")

    # -- schemas ------------------------------------------------------------------

    def _input(self) -> dict[str, Any]:
        raw = self.raw.get("inputSchema")
        if raw is None:
            self.warn("no `inputSchema`: imported as accepting any object")
            return dict(ANY_OBJECT)
        if not isinstance(raw, dict):
            self.warn("`inputSchema` is not an object: imported as accepting any object")
            return dict(ANY_OBJECT)
        schema = self._schema(raw, "inputSchema", "Input")
        if not isinstance(schema, dict):
            return dict(ANY_OBJECT)
        kind = schema.get("type")
        if kind == "object":
            return schema
        if kind is None:
            described = "`inputSchema: {}`" if not raw else "`inputSchema` without `type`"
            self.warn(f"{described}: MCP requires `type: object`, added")
            return {"type": "object", **schema}
        self.warn(
            f"`inputSchema` has `type: {kind}`; MCP requires an object: imported as accepting any object"
        )
        return dict(ANY_OBJECT)

    def _output(self, meta: dict[str, Any] | None) -> tuple[dict[str, Any] | None, Any]:
        """(the tool's own `_meta`, its output schema), a declared toolgen wrapping undone."""
        raw = self.raw.get("outputSchema")
        wrapped = isinstance(meta, dict) and meta.get(WRAPPED_META_KEY) == WRAP_KEY
        if wrapped:
            meta = {k: v for k, v in (meta or {}).items() if k != WRAPPED_META_KEY}
            if isinstance(raw, dict) and isinstance(
                inner := raw.get("properties", {}).get(WRAP_KEY), dict
            ):
                raw = {**inner, **({"$defs": raw["$defs"]} if "$defs" in raw else {})}
        if raw is None:
            return meta, None
        if not isinstance(raw, dict):
            self.warn("`outputSchema` is not an object: dropped")
            return meta, None
        schema = self._schema(raw, "outputSchema", "Output")
        if isinstance(schema, dict) and schema.get("type") != "object" and not wrapped:
            self.warn(
                '`outputSchema` root is not an object: revisions before 2026-07-28 get it wrapped as {"result": ...}'
            )
        return meta, schema

    def _schema(self, raw: dict[str, Any], part: str, suffix: str) -> Any:
        dialect = dialect_of(raw)
        if dialect is None:
            self.warn(f"{part} declares an unknown dialect {raw['$schema']!r}: read as 2020-12")
            raw = {k: v for k, v in raw.items() if k != "$schema"}
            dialect = DRAFT_2020_12
        elif dialect != DRAFT_2020_12:
            counts = self.result.converted_dialects
            counts[dialect] = counts.get(dialect, 0) + 1
        elif raw.get("$schema") not in (None, JSON_SCHEMA_DIALECT):
            raw = {**raw, "$schema": JSON_SCHEMA_DIALECT}  # `http://` or a trailing `#`
            self.warn(f"{part}: `$schema` written as {JSON_SCHEMA_DIALECT}")
        converted = to_2020_12(raw, dialect)
        for path, note in converted.notes:
            self.warn(_at(part, path, note))
        for path, sub in walk_schemas(converted.schema):
            for key in sub if isinstance(sub, dict) else ():
                meant = misspelt(key) if isinstance(key, str) else None
                if meant is not None:
                    self.warn(
                        _at(
                            part,
                            (*path, key),
                            f"{key!r} is not a JSON Schema keyword (did you "
                            f"mean {meant!r}?): validators ignore it, and a spec file refuses it "
                            "until you fix it",
                        )
                    )
        schema = repair.valid_schema(converted.schema, part, self.warn)
        hoisted = hoist(schema, self.registry, _camel(self.name) + suffix)
        for path, note in hoisted.notes:
            self.warn(_at(part, path, note))
        return _inline_root_ref(hoisted.schema, self.registry, part, self.warn)


def _inline_root_ref(schema: Any, registry: DefRegistry, part: str, warn: repair.Warn) -> Any:
    """A root that is only a `$ref` to a def reads as that def (as a build emits it)."""
    if not isinstance(schema, dict) or "type" in schema or not isinstance(schema.get("$ref"), str):
        return schema
    name = schema["$ref"].removeprefix("#/defs/")
    target = registry.schemas.get(name)
    if not isinstance(target, dict):
        return schema
    warn(f"{part}: the root `$ref` to {name!r} is emitted inline")
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def _at(part: str, path: tuple[Any, ...], note: str) -> str:
    where = "/".join(str(p) for p in path)
    return f"{part}{'/' + where if where else ''}: {note}"


def _camel(name: str) -> str:
    parts = [p for p in name.replace("-", "_").replace(".", "_").split("_") if p]
    return "".join(p[:1].upper() + p[1:] for p in parts) or "Tool"
