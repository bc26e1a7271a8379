"""The spec model: one spec file, validated and frozen (SPEC-FORMAT.md, version 1).

Structure is checked against the published format schema,
`toolgen/spec-format.schema.json` (unknown keys forbidden, no coercion: `yes`
is not a boolean, `1` is not a string), with jsonschema-rs rather than
pydantic, which would cost the serving process ~10 MiB and ~70 ms to import.
Schema bodies (defs, inputs, outputs) are checked on their own against the
JSON Schema 2020-12 metaschema, one precise message each. Every failure
becomes a `Diagnostic` at the exact key or value, through `SourceFile.locate`.
Cross-file rules (duplicate tools, `$ref`s, examples) belong to the resolver.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from toolgen.schema.check import compile_validator, metaschema_errors
from toolgen.schema.walk import subschema_list, walk_schemas
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError, raise_if_any
from toolgen.spec.ir import HINTS
from toolgen.spec.positions import JsonPath, SourceFile

FORMAT_VERSION = 1
FORMAT_SCHEMA = Path(__file__).with_name("spec-format.schema.json")
TOOL_NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,128}$"
SERVER_NAME_PATTERN = r"^[a-z][a-z0-9_-]{0,63}$"
YAML11_BOOLEANS = frozenset(
    {
        *("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO"),
        *("on", "On", "ON", "off", "Off", "OFF"),
    }
)


@dataclass(frozen=True)
class ServerSpec:
    name: str
    version: str
    package: str | None = None
    title: str | None = None
    description: str | None = None
    instructions: str | None = None
    refs: str = "inline"  # extension: how tool definitions write `$ref`s (`ir.Refs`)


@dataclass(frozen=True)
class AnnotationsSpec:
    readOnly: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    openWorld: bool | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None
    title: str | None = None  # extension: MCP `annotations.title`
    reasons: dict[str, str] | None = None  # extension: a written reason per hint
    given: frozenset[str] = frozenset()  # the keys written in the file (even as null)


@dataclass(frozen=True)
class ExampleSpec:
    input: Any = None
    output: Any = None
    given: frozenset[str] = frozenset()  # the keys written in the file (even as null)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str | None = None
    description: str | None = None
    annotations: AnnotationsSpec = AnnotationsSpec()
    input: dict[str, Any] | None = None
    output: Any = None
    examples: tuple[ExampleSpec, ...] = ()
    icons: tuple[dict[str, Any], ...] | None = None  # extension: MCP `Tool.icons`
    execution: dict[str, Any] | None = None  # extension: MCP `Tool.execution`
    meta: dict[str, Any] | None = None  # extension: the tool's MCP `_meta` (written `_meta`)


@dataclass(frozen=True)
class SpecFileModel:
    toolgen: int
    server: ServerSpec | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)
    tools: tuple[ToolSpec, ...] = ()


class SpecFile:
    """A validated spec file: its model, and the source it came from for positions."""

    def __init__(self, model: SpecFileModel, source: SourceFile) -> None:
        self.model = model
        self.source = source

    @property
    def data(self) -> Any:
        return self.source.data


@cache
def _format_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(FORMAT_SCHEMA.read_text(encoding="utf-8"))
    return schema


@cache
def _structure_validator() -> Any:
    """The format schema compiled once, schema bodies left to `_schema_problems`."""
    schema = _format_schema()
    return compile_validator({**schema, "$defs": {**schema["$defs"], "Schema": True}})


@cache
def _allowed_keys() -> dict[str, tuple[str, ...]]:
    """Each object of the format (named by its parent key) → its keys, in documented order."""
    schema = _format_schema()
    defs = schema["$defs"]
    blocks = {
        "server": "Server",
        "annotations": "Annotations",
        "examples": "Example",
        "reasons": "Reasons",
    }
    keys = {name: tuple(defs[block]["properties"]) for name, block in blocks.items()}
    return {"file": tuple(schema["properties"]), **keys, "tools": tuple(defs["Tool"]["properties"])}


def parse_spec_file(source: SourceFile) -> SpecFile:
    """Validate one parsed file as a spec file, or raise `SpecError` with every problem.

    What the reader stepped over, the structure and the schemas are checked together, so
    one run reports them all; only what needs a well-formed file (hint conflicts) waits.
    """
    data = source.data
    top = _top_problem(source)
    if top is not None:
        raise SpecError([*source.problems, top])
    structure = _structure_problems(data, source)
    problems = [*source.problems, *structure, *_schema_problems(data, source)]
    if structure:
        raise SpecError(problems)
    model = _model(data)
    raise_if_any([*problems, *_hint_conflicts(model, source)])
    return SpecFile(model, source)


def _top_problem(source: SourceFile) -> Diagnostic | None:
    """What makes the file no spec file at all: not a mapping, or no `toolgen: 1`."""
    data = source.data
    if not isinstance(data, dict):
        message = "a spec file must be a mapping with `toolgen: 1` at the top"
        return Diagnostic(ErrorCode.WRONG_TYPE, message, source.locate(()))
    if "toolgen" not in data:
        message = "missing `toolgen: 1`: every spec file must start with the format version"
        return Diagnostic(ErrorCode.VERSION, message, source.locate(()))
    version = data["toolgen"]
    if type(version) is not int or version != FORMAT_VERSION:
        message = f"unsupported format version {version!r}; expected `toolgen: 1`"
        return Diagnostic(ErrorCode.VERSION, message, source.locate(("toolgen",)))
    return None


# -- structure ------------------------------------------------------------------------

_EXPECTED = {
    "string": "a string",
    "boolean": "a boolean (true or false)",
    "integer": "an integer",
    "object": "a mapping",
    "array": "a list",
}


def _structure_problems(data: dict[str, Any], source: SourceFile) -> list[Diagnostic]:
    """Diagnostics for what breaks the format schema, ordered as the keys are documented."""
    found: list[tuple[tuple[tuple[int, int], ...], Diagnostic]] = []
    for err in _structure_validator().iter_errors(data):
        at: JsonPath = tuple(err.instance_path)
        kind = err.kind.as_dict()
        if err.kind.name == "additionalProperties":
            for key in kind["unexpected"]:
                path = (*at, key)
                message = _unknown_key_message(path)
                where = source.locate(path, key=True)
                found.append(
                    (_order(data, path), Diagnostic(ErrorCode.UNKNOWN_KEY, message, where))
                )
        elif err.kind.name == "required":
            path = (*at, kind["property"])
            message = f"missing required key {kind['property']!r}"
            diagnostic = Diagnostic(ErrorCode.MISSING_KEY, message, source.locate(at))
            found.append((_order(data, path), diagnostic))
        else:
            found.append((_order(data, at), _value_problem(err, at, kind, source)))
    found.sort(key=lambda item: item[0])
    return [diagnostic for _, diagnostic in found]


def _value_problem(
    err: Any, path: JsonPath, kind: dict[str, Any], source: SourceFile
) -> Diagnostic:
    value = err.instance
    key = str(path[-1]) if path else ""
    expected = [t for t in kind.get("types", ()) if t != "null"]
    where = source.locate(path)
    if expected == ["boolean"] and isinstance(value, str) and value in YAML11_BOOLEANS:
        return Diagnostic(
            ErrorCode.YAML11_BOOLEAN,
            f"{key!r} must be a boolean; {value!r} is a string in YAML 1.2, write true or false",
            where,
        )
    if err.kind.name == "pattern" and key == "name":
        message = f"invalid name {value!r}; expected a name matching {kind['pattern']}"
        return Diagnostic(ErrorCode.INVALID_NAME, message, where)
    if expected and expected[0] in _EXPECTED:
        message = f"{key!r} must be {_EXPECTED[expected[0]]}, got {_describe(value)}"
        return Diagnostic(ErrorCode.WRONG_TYPE, message, where)
    return Diagnostic(ErrorCode.INVALID_VALUE, f"{key!r}: {err.message}", where)


def _order(data: Any, path: JsonPath) -> tuple[tuple[int, int], ...]:
    """Sort key of a problem at `path`: documented keys first, in order, then others as written."""
    out: list[tuple[int, int]] = []
    for depth, part in enumerate(path):
        if isinstance(part, int):
            out.append((0, part))
            data = data[part] if isinstance(data, list) and part < len(data) else None
            continue
        allowed = _allowed_keys().get(_block(path[: depth + 1]), ())
        written = list(data) if isinstance(data, dict) else []
        if part in allowed:
            out.append((0, allowed.index(part)))
        else:
            out.append((1, written.index(part) if part in written else len(written)))
        data = data.get(part) if isinstance(data, dict) else None
    return tuple(out)


def _block(path: JsonPath) -> str:
    """The object of the format a key at `path` belongs to, named by its parent key."""
    return next((str(p) for p in reversed(path[:-1]) if isinstance(p, str)), "file")


def _describe(value: Any) -> str:
    names = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "list",
        dict: "mapping",
    }
    if value is None:
        return "null"
    kind = names.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if isinstance(value, (bool, int, float, str)) else kind


def _unknown_key_message(path: JsonPath) -> str:
    key = str(path[-1])
    allowed = _allowed_keys().get(_block(path), _allowed_keys()["file"])
    message = (
        f"unknown key {key!r}; expected one of: {', '.join(allowed)} (or an `x-` extension key)"
    )
    close = difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f"{message}; did you mean {close[0]!r}?"
    if _block(path) == "tools" and key in _SCHEMA_KEYWORDS:
        return f"{message}; `{key}` is a JSON Schema keyword: indent it under `input` or `output`"
    return message


_SCHEMA_KEYWORDS = frozenset(
    [
        "type",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "minimum",
        "maximum",
        "pattern",
        "format",
        "default",
    ]
)


# -- the model ------------------------------------------------------------------------


def _model(data: dict[str, Any]) -> SpecFileModel:
    """The frozen model of data that passed the format schema (`x-` keys left out)."""
    server = data.get("server")
    return SpecFileModel(
        toolgen=data["toolgen"],
        server=ServerSpec(**_known(server, "server")) if server is not None else None,
        defs=data.get("defs", {}),
        tools=tuple(_tool(tool) for tool in data.get("tools", ())),
    )


def _tool(raw: dict[str, Any]) -> ToolSpec:
    fields = _known(raw, "tools")
    annotations = _known(fields.pop("annotations", {}), "annotations")
    examples = [_known(example, "examples") for example in fields.pop("examples", ())]
    icons = fields.pop("icons", None)
    execution = fields.pop("execution", None)
    meta = fields.pop("_meta", None)
    return ToolSpec(
        **fields,
        icons=tuple(_mcp_only(icon) for icon in icons) if icons is not None else None,
        execution=_mcp_only(execution) if execution is not None else None,
        meta=meta,
        annotations=AnnotationsSpec(**annotations, given=frozenset(annotations)),
        examples=tuple(ExampleSpec(**e, given=frozenset(e)) for e in examples),
    )


def _mcp_only(raw: dict[str, Any]) -> dict[str, Any]:
    """An MCP object written in a spec, without its `x-` extension keys."""
    return {k: v for k, v in raw.items() if not k.startswith("x-")}


def _known(raw: dict[str, Any], block: str) -> dict[str, Any]:
    allowed = _allowed_keys()[block]
    return {k: v for k, v in raw.items() if k in allowed}


# -- checks beyond structure ----------------------------------------------------------


def _hint_conflicts(model: SpecFileModel, source: SourceFile) -> list[Diagnostic]:
    out = []
    for index, tool in enumerate(model.tools):
        given = tool.annotations.given
        for short, long in HINTS:
            if short in given and long in given:
                out.append(
                    Diagnostic(
                        ErrorCode.DUPLICATE_HINT,
                        f"hint given twice, as {short!r} and {long!r}; keep one spelling",
                        source.locate(("tools", index, "annotations", long), key=True),
                    )
                )
    return out


def _schema_problems(data: dict[str, Any], source: SourceFile) -> list[Diagnostic]:
    """Check every schema in the file against the 2020-12 metaschema."""
    defs = data.get("defs")
    places: list[JsonPath] = [("defs", name) for name in defs] if isinstance(defs, dict) else []
    tools = data.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(tool, dict):
            places += [
                ("tools", index, key)
                for key in ("input", "output")
                if key in tool and tool[key] is not None
            ]
    out = []
    for place in places:
        schema = _get(data, place)
        problems = list(metaschema_errors(schema)) or list(unsatisfiable_required(schema))
        for rel, message in problems:
            where = (*place, *rel)
            out.append(
                Diagnostic(
                    ErrorCode.INVALID_SCHEMA,
                    f"invalid JSON Schema at {'/'.join(map(str, where))}: {message}",
                    source.locate(where),
                )
            )
    return out


def unsatisfiable_required(schema: Any) -> Iterator[tuple[JsonPath, str]]:
    """`required` names that a closed object can never have (`additionalProperties: false`,
    no such property, no `patternProperties`): no value passes, so the tool is unusable."""
    if not _has_closed_object_missing_required(schema):
        return  # the usual case, told by one walk that builds no paths
    for path, sub in walk_schemas(schema):
        if "not" in path or "if" in path:  # a schema that never passes is meaningful there
            continue
        if not isinstance(sub, dict) or sub.get("additionalProperties") is not False:
            continue
        if "patternProperties" in sub or not isinstance(sub.get("required"), list):
            continue
        properties: dict[str, Any] = sub.get("properties") or {}
        for index, name in enumerate(sub["required"]):
            if name not in properties:
                yield (
                    (*path, "required", index),
                    f"{name!r} is required but is not among the properties of this closed object "
                    "(additionalProperties: false): no value can pass; fix the name or add the property",
                )


def _has_closed_object_missing_required(schema: Any) -> bool:
    """Whether some schema in `schema` is what `unsatisfiable_required` reports, wherever
    it stands (`walk.subschemas` order and keywords, iteratively)."""
    stack = [schema]
    while stack:
        sub = stack.pop()
        if not isinstance(sub, dict):
            continue
        required = sub.get("required")
        if (
            sub.get("additionalProperties") is False
            and "patternProperties" not in sub
            and isinstance(required, list)
        ):
            properties = sub.get("properties") or {}
            if any(name not in properties for name in required):
                return True
        stack.extend(subschema_list(sub))
    return False


def _get(data: Any, path: JsonPath) -> Any:
    for part in path:
        data = data[part]
    return data
