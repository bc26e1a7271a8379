"""The IR: a resolved, self-contained spec set that every later stage reads.

Lint rules, emitters and the runtime all take a `ToolSet`. Schemas here are
bundled: each tool's input and output schema is a self-contained JSON Schema
2020-12 document body (local `$ref`s into its own `$defs`), without `$schema`
and `$id`, which emitters add. Treat the dicts as read-only.

Each object keeps an `Origin` (the file and the path inside it) so that any
stage can report a problem at `file:line:col` with `origin.locate(...)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from toolgen.schema.pointer import walk
from toolgen.spec.errors import Location
from toolgen.spec.positions import JsonPath, SourceFile

HINTS: tuple[tuple[str, str], ...] = (
    ("readOnly", "readOnlyHint"),
    ("destructive", "destructiveHint"),
    ("idempotent", "idempotentHint"),
    ("openWorld", "openWorldHint"),
)
"""The four behaviour hints: (spec spelling, MCP spelling)."""

Refs = Literal["inline", "keep"]
"""How a tool's definition (`tools/list`) writes references to defs: `inline` every one
that is not recursive (the default: many clients do not resolve `$ref`), or `keep` the
schemas as bundled."""

MCP_HINT_DEFAULTS: Mapping[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""What clients assume when a hint is absent (MCP spec)."""


@dataclass(frozen=True, slots=True, eq=False)
class Origin:
    """Where a piece of the IR came from: a file and a path inside its data."""

    source: SourceFile
    path: JsonPath

    def locate(self, *relative: str | int, key: bool = False) -> Location:
        """`file:line:col` of this node, or of a node below it."""
        return self.source.locate((*self.path, *relative), key=key)

    def child(self, *relative: str | int) -> Origin:
        return Origin(self.source, (*self.path, *relative))

    def value(self) -> Any:
        """The value written here in the source file, None when there is none."""
        value, found = walk(self.source.data, self.path)
        return value if len(found) == len(self.path) else None


@dataclass(frozen=True, slots=True)
class Annotations:
    """The behaviour hints as declared; `None` means "not declared"."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None
    reasons: Mapping[str, str] = field(default_factory=dict)
    """Extension: why each hint has its value, by spec spelling (`readOnly`, ...); not MCP."""

    @classmethod
    def from_mcp(cls, raw: Mapping[str, Any]) -> Annotations:
        """The hints of an MCP `ToolAnnotations` object (the inverse of `to_mcp`)."""
        return cls(
            read_only=raw.get("readOnlyHint"),
            destructive=raw.get("destructiveHint"),
            idempotent=raw.get("idempotentHint"),
            open_world=raw.get("openWorldHint"),
            title=raw.get("title"),
        )

    def to_mcp(self) -> dict[str, Any]:
        """The MCP `ToolAnnotations` object with only the declared fields."""
        out: dict[str, Any] = {}
        if self.title is not None:
            out["title"] = self.title
        for (_, mcp_name), value in zip(HINTS, self._values(), strict=True):
            if value is not None:
                out[mcp_name] = value
        return out

    def reasons_mcp(self) -> dict[str, str]:
        """The written reasons by MCP hint name (`readOnlyHint`, ...), in hint order."""
        return {long: self.reasons[short] for short, long in HINTS if short in self.reasons}

    def effective(self) -> dict[str, bool]:
        """Each hint as a client will read it, MCP defaults filled in."""
        return {
            mcp_name: MCP_HINT_DEFAULTS[mcp_name] if value is None else value
            for (_, mcp_name), value in zip(HINTS, self._values(), strict=True)
        }

    def _values(self) -> tuple[bool | None, ...]:
        return (self.read_only, self.destructive, self.idempotent, self.open_world)


@dataclass(frozen=True, slots=True)
class Example:
    """One example call; `has_input`/`has_output` tell absent from `null`."""

    input: Any
    output: Any
    has_input: bool
    has_output: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class Tool:
    """One MCP tool, resolved."""

    name: str
    title: str | None
    description: str | None
    annotations: Annotations
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    examples: tuple[Example, ...]
    extensions: Mapping[str, Any]
    origin: Origin
    input_origin: Origin | None = None
    """Where the raw `input` schema is written (None: the tool takes no arguments)."""
    output_origin: Origin | None = None
    icons: tuple[Mapping[str, Any], ...] | None = None
    """MCP `Tool.icons` (2025-11-25 and later); None: not declared."""
    execution: Mapping[str, Any] | None = None
    """MCP `Tool.execution` (2025-11-25 only; later revisions have no such field)."""
    meta: Mapping[str, Any] | None = None
    """The tool's own `_meta`, passed through to its definitions."""
    refs: Refs = "inline"
    """How its definitions write `$ref`s (`server.refs` of the spec set, `--refs`; `keep`
    for definitions read back as published, which are served as they are)."""

    @property
    def output_is_object(self) -> bool:
        """Whether the output root is an object (else legacy revisions wrap it)."""
        return self.output_schema is not None and self.output_schema.get("type") == "object"


@dataclass(frozen=True, slots=True)
class Server:
    """The `server` block: identity and instructions of the MCP server."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    instructions: str | None = None
    extensions: Mapping[str, Any] = field(default_factory=dict)
    origin: Origin | None = None
    declared: bool = True
    """False when no file has a `server` block: the name is derived (directory, `--name`)."""
    python_package: str | None = None
    """`server.package` as written, when the default package name would not do."""

    @property
    def package(self) -> str:
        """The Python package name of the generated code: `server.package`, else the name."""
        return self.python_package or self.name.replace("-", "_")


@dataclass(frozen=True, slots=True)
class Def:
    """A named schema from a `defs` block, as written (refs not rewritten)."""

    name: str
    schema: Any
    origin: Origin


@dataclass(frozen=True, slots=True)
class ToolSet:
    """A whole spec set: one MCP server's tools, resolved and bundled."""

    server: Server
    tools: tuple[Tool, ...]
    defs: tuple[Def, ...] = ()
    sources: tuple[SourceFile, ...] = ()

    def tool(self, name: str) -> Tool:
        """The tool called `name`; `KeyError` when there is none."""
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)

    def with_refs(self, refs: Refs | None) -> ToolSet:
        """This spec set with every tool's definitions writing `$ref`s as `refs` says
        (itself when `refs` is None: the spec set's own choice stands)."""
        if refs is None or all(t.refs == refs for t in self.tools):
            return self
        return replace(self, tools=tuple(replace(t, refs=refs) for t in self.tools))
