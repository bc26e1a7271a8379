"""Published MCP tool definitions (JSON) → `ToolSet`, with real source positions.

People lint (and later import) servers they did not write, from what those
servers publish: a `tools/list` result (`{"tools": [...]}`, also inside a
JSON-RPC response), a JSON list of Tool objects, one Tool object per file, or
a directory of such files. A package toolgen built (`OUT/<package>/`, found by its
manifest) is its latest revision's `tools/list` result. JSON is parsed by
`toolgen.spec.jsonsource` into the same `SourceFile` as YAML, so every value keeps
its `file:line:col` and findings point into the JSON exactly as they point into YAML specs.

Published schemas are already self-contained documents; they are kept as
written (minus `$schema`/`$id`, which the IR leaves to emitters). A declared
toolgen output wrapping (`_meta["dev.toolgen/wrappedOutput"]`) is undone, so
the IR holds the tool's real output schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen.schema.check import metaschema_errors
from toolgen.schema.limits import extent_problem
from toolgen.schema.pointer import MISSING, resolve_pointer
from toolgen.schema.walk import walk_schemas
from toolgen.spec import naming
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import HINTS, Annotations, Origin, Server, Tool, ToolSet
from toolgen.spec.jsonsource import read_json
from toolgen.spec.layout import MANIFEST, tools_file
from toolgen.spec.loader import JSON_SUFFIX
from toolgen.spec.loader import is_published as is_published  # re-exported: its old home
from toolgen.spec.positions import JsonPath, SourceFile, display_path
from toolgen.spec.protocol import WRAP_KEY, WRAPPED_META_KEY


@dataclass(frozen=True, slots=True)
class Published:
    """What a set of published definitions holds: the tools that could be read, and
    every problem found on the way (tools with fatal problems are left out)."""

    toolset: ToolSet
    problems: tuple[Diagnostic, ...]


def load_published(paths: str | Path | Iterable[str | Path]) -> ToolSet:
    """Read published definitions into a `ToolSet`; raise `SpecError` on any problem."""
    published = read_published(paths)
    if published.problems:
        raise SpecError(published.problems)
    return published.toolset


def read_published(paths: str | Path | Iterable[str | Path]) -> Published:
    """Read published definitions leniently: every readable tool, plus the problems.

    Raises `SpecError` only when nothing can be read (a missing path, no JSON
    files, or problems and not one readable tool). A server may have no tools.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    roots = [Path(p) for p in paths]
    reader = _Reader()
    files = definition_files(roots)
    if not files:
        shown = ", ".join(str(p) for p in roots) or "(nothing)"
        raise SpecError(
            [Diagnostic(ErrorCode.NO_SPECS, f"no tool definition files (*.json) found in {shown}")]
        )
    for path in files:
        reader.read_file(path)
    if not reader.tools and reader.problems:
        raise SpecError(reader.problems)
    server = Server(name=server_name(roots), version="0.0.0")
    toolset = ToolSet(server, tuple(reader.tools), (), tuple(reader.sources))
    return Published(toolset, tuple(reader.problems))


def server_name(roots: Sequence[Path]) -> str:
    """A valid server name for published definitions, from the directory or file name."""
    base = roots[0] if len(roots) == 1 else Path("published")
    return derived_name(base, fallback="published")


def derived_name(path: Path, fallback: str = "tools") -> str:
    """The server name a spec set or definitions file without a `server` block gets."""
    stem = path.resolve().name if path.is_dir() else path.stem
    return naming.server_name(stem, fallback)


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def definition_files(roots: Sequence[Path]) -> list[Path]:
    """The JSON files `roots` name: files as given, directories searched (hidden parts skipped).

    `SpecError` when a root does not exist.
    """
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for root in roots:
        if root.is_dir():
            found.extend(_json_files(root))
        elif root.is_file():
            found.append(root)
        else:
            where = Location(display_path(root), 1, 1)
            problems.append(Diagnostic(ErrorCode.IO, "no such file or directory", where))
    if problems:
        raise SpecError(problems)
    return list(dict.fromkeys(found))


def _json_files(root: Path) -> list[Path]:
    """The JSON files under `root`, hidden parts skipped; of a package toolgen built (its
    manifest is one of them), only its latest revision's `tools/list` result (its other
    files are schemas, views and reports)."""
    found = sorted(root.rglob("*" + JSON_SUFFIX))
    built = {p.parent: tools_file(p.parent) for p in found if p.name == MANIFEST}
    files = []
    for path in found:
        if not path.is_file() or _hidden(path, root):
            continue
        owner = next((p for p in built if path.is_relative_to(p)), None)
        if owner is None or path == built[owner]:
            files.append(path)
    return files


class ShapeError(Exception):
    """Published definitions of a shape toolgen does not read; `path` is where."""

    def __init__(self, message: str, path: JsonPath = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def tool_paths(data: Any) -> list[JsonPath]:
    """Where the Tool objects stand in parsed published definitions, by their shape.

    A `tools/list` result (also inside a JSON-RPC response), a list of Tools, or one Tool.
    """
    if isinstance(data, dict):
        prefix: JsonPath = ()
        if isinstance(data.get("result"), dict) and "tools" in data["result"]:
            data, prefix = data["result"], ("result",)
        if "tools" in data:
            tools = data["tools"]
            if isinstance(tools, list):
                return [(*prefix, "tools", i) for i in range(len(tools))]
            raise ShapeError("'tools' must be a list of Tool objects", (*prefix, "tools"))
        if "name" in data or "inputSchema" in data:
            return [()]
        error = data.get("error")
        if isinstance(error, dict):
            raise ShapeError(
                f"a JSON-RPC error response ({error.get('code')}: {error.get('message')}), "
                "not a tools/list result; list the tools again",
                ("error",),
            )
    elif isinstance(data, list):
        return [(i,) for i in range(len(data))]
    raise ShapeError(
        'expected a tools/list result ({"tools": [...]}), a list of Tool objects or one Tool object'
    )


class _Reader:
    """Collects tools and problems across files."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self.sources: list[SourceFile] = []
        self.problems: list[Diagnostic] = []
        self.first_seen: dict[str, Location] = {}

    def error(self, code: ErrorCode, message: str, where: Location) -> None:
        self.problems.append(Diagnostic(code, message, where))

    def read_file(self, path: Path) -> None:
        try:
            source = read_json(path)
        except SpecError as exc:
            self.problems.extend(exc.diagnostics)
            return
        self.sources.append(source)
        for tool_path in self._tool_paths(source):
            tool = self._tool(source, tool_path)
            if tool is not None:
                self.tools.append(tool)

    def _tool_paths(self, source: SourceFile) -> list[JsonPath]:
        try:
            return tool_paths(source.data)
        except ShapeError as exc:
            self.error(ErrorCode.WRONG_TYPE, exc.message, source.locate(exc.path))
            return []

    def _tool(self, source: SourceFile, path: JsonPath) -> Tool | None:
        raw = get_path(source.data, path)
        origin = Origin(source, path)
        if not isinstance(raw, dict):
            self.error(ErrorCode.WRONG_TYPE, "a Tool must be a JSON object", origin.locate())
            return None
        name = raw.get("name")
        if "name" not in raw:
            self.error(ErrorCode.MISSING_KEY, "missing required key 'name'", origin.locate())
            return None
        if not isinstance(name, str):
            self.error(ErrorCode.WRONG_TYPE, "'name' must be a string", origin.locate("name"))
            return None
        where = origin.locate("name")
        if name in self.first_seen:
            self.error(
                ErrorCode.DUPLICATE_TOOL,
                f"tool name {name!r} is already used (at {self.first_seen[name]}); names must be unique in a server",
                where,
            )
            return None
        self.first_seen[name] = where
        ok = all([self._strings(raw, origin), self._annotations(raw, origin)])
        input_schema, input_origin = self._input(raw, origin)
        output_schema, output_origin = self._output(raw, origin)
        if input_schema is None or not ok:
            return None
        return Tool(
            name=name,
            title=raw.get("title"),
            description=raw.get("description"),
            annotations=Annotations.from_mcp(raw.get("annotations") or {}),
            input_schema=input_schema,
            output_schema=output_schema,
            examples=(),
            extensions={k: v for k, v in raw.items() if k.startswith("x-")},
            origin=origin,
            input_origin=input_origin,
            output_origin=output_origin,
            refs="keep",  # a published definition is what it is: lint and views see it so
            **_mcp_fields(raw),
        )

    def _strings(self, raw: Mapping[str, Any], origin: Origin) -> bool:
        ok = True
        for key in ("title", "description"):
            if key in raw and not isinstance(raw[key], str):
                self.error(ErrorCode.WRONG_TYPE, f"{key!r} must be a string", origin.locate(key))
                ok = False
        return ok

    def _annotations(self, raw: Mapping[str, Any], origin: Origin) -> bool:
        annotations = raw.get("annotations")
        if annotations is None:
            return True
        if not isinstance(annotations, dict):
            self.error(
                ErrorCode.WRONG_TYPE,
                "'annotations' must be an object",
                origin.locate("annotations"),
            )
            return False
        ok = True
        for _, key in HINTS:
            if key in annotations and not isinstance(annotations[key], bool):
                self.error(
                    ErrorCode.WRONG_TYPE,
                    f"{key!r} must be a boolean",
                    origin.locate("annotations", key),
                )
                ok = False
        if "title" in annotations and not isinstance(annotations["title"], str):
            self.error(
                ErrorCode.WRONG_TYPE,
                "'title' must be a string",
                origin.locate("annotations", "title"),
            )
            ok = False
        return ok

    def _input(
        self, raw: Mapping[str, Any], origin: Origin
    ) -> tuple[dict[str, Any] | None, Origin | None]:
        if "inputSchema" not in raw:
            self.error(
                ErrorCode.MISSING_KEY, "missing required key 'inputSchema'", origin.locate("name")
            )
            return None, None
        input_origin = origin.child("inputSchema")
        schema = raw["inputSchema"]
        if not isinstance(schema, dict):
            self.error(
                ErrorCode.WRONG_TYPE, "'inputSchema' must be an object", input_origin.locate()
            )
            return None, None
        if schema.get("type") != "object":
            at = ("type",) if "type" in schema else ()
            self.error(
                ErrorCode.INPUT_NOT_OBJECT,
                "the input schema root must be `type: object` (tool arguments are a JSON object)",
                input_origin.locate(*at),
            )
            if "type" not in schema:  # e.g. `{}`: read (and linted) as the object it must be
                schema = {"type": "object", **schema}
        if not self._valid_schema(schema, input_origin):
            return None, None
        return _body(schema), input_origin

    def _output(
        self, raw: Mapping[str, Any], origin: Origin
    ) -> tuple[dict[str, Any] | None, Origin | None]:
        schema = raw.get("outputSchema")
        if schema is None:
            return None, None
        output_origin = origin.child("outputSchema")
        if not isinstance(schema, dict) or not self._valid_schema(schema, output_origin):
            if not isinstance(schema, dict):
                self.error(
                    ErrorCode.WRONG_TYPE, "'outputSchema' must be an object", output_origin.locate()
                )
            return None, None
        meta = raw.get("_meta")
        wrapped = isinstance(meta, dict) and meta.get(WRAPPED_META_KEY) == WRAP_KEY
        inner = (schema.get("properties") or {}).get(WRAP_KEY) if wrapped else None
        if isinstance(inner, dict):
            unwrapped = dict(inner)
            if "$defs" in schema:
                unwrapped["$defs"] = schema["$defs"]
            return _body(unwrapped), output_origin.child("properties", WRAP_KEY)
        return _body(schema), output_origin

    def _valid_schema(self, schema: dict[str, Any], origin: Origin) -> bool:
        for path, message in metaschema_errors(schema, published=True):
            self.error(
                ErrorCode.INVALID_SCHEMA,
                f"invalid JSON Schema at {'/'.join(map(str, path)) or '(root)'}: {message}",
                origin.locate(*path),
            )
            return False
        if problem := extent_problem(schema):
            self.error(ErrorCode.LIMIT, problem, origin.locate())
            return False
        for path, ref in dangling_refs(schema):
            self.error(
                ErrorCode.UNRESOLVED_REF,
                f"cannot resolve {ref!r}: nothing in this schema is at that JSON Pointer",
                origin.locate(*path),
            )
        return True


def _mcp_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    """`icons`, `execution` and `_meta` of a published Tool, as the IR holds them.

    A declared toolgen output wrapping is not the tool's own `_meta`: it is dropped.
    """
    icons, execution, meta = raw.get("icons"), raw.get("execution"), raw.get("_meta")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k != WRAPPED_META_KEY} or None
    return {
        "icons": tuple(icons) if isinstance(icons, list) else None,
        "execution": execution if isinstance(execution, dict) else None,
        "meta": meta if isinstance(meta, dict) else None,
    }


def _body(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema without `$id` (the IR leaves it to emitters); a declared `$schema` stays:
    MCP lets a published schema name its dialect, and rules may need to know it."""
    return {k: v for k, v in schema.items() if k != "$id"}


def dangling_refs(schema: Any) -> Iterator[tuple[JsonPath, str]]:
    """(path of the `$ref`, ref) for every same-document ref that points at nothing.

    Refs to other documents are left to lint (TG311); they are never fetched.
    """
    for path, sub in walk_schemas(schema):
        ref = sub.get("$ref") if isinstance(sub, dict) else None
        if isinstance(ref, str) and ref.startswith("#") and resolve_pointer(schema, ref) is MISSING:
            yield (*path, "$ref"), ref


def get_path(data: Any, path: JsonPath) -> Any:
    """The value at `path` inside `data`."""
    for key in path:
        data = data[key]
    return data
