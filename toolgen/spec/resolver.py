"""Spec files → `ToolSet`: cross-file rules, `$ref` resolution and bundling.

Each def is rewritten once (its refs pointed at `#/$defs/<bundled name>`, the
name escaped as a JSON Pointer token: `def_ref` / `def_name`), then every
tool schema gets exactly the defs it reaches, so each emitted document is
self-contained. Network references are rejected, never fetched.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.schema.allof import in_place_cycles
from toolgen.schema.check import compile_validator
from toolgen.schema.inline import merge_ref
from toolgen.schema.jsonequal import same
from toolgen.schema.keywords import KEYWORDS, misspelt
from toolgen.schema.limits import (
    DefExtents,
    extent_problem,
    has_schema_problem,
    may_have_schema_problem,
    plain_bytes,
    schema_problems,
)
from toolgen.schema.pointer import escape, unescape
from toolgen.schema.walk import share_refs, walk_schemas
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import HINTS, Annotations, Def, Example, Origin, Server, Tool, ToolSet
from toolgen.spec.model import SpecFile, ToolSpec
from toolgen.spec.positions import JsonPath, SourceFile

_ABSOLUTE_URI = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_NO_INPUT: Mapping[str, Any] = {"type": "object", "additionalProperties": False}

DefKey = tuple[Path, str]  # (resolved file path, def name)
DEFS_PREFIX = "#/$defs/"


def def_ref(name: str) -> str:
    """The `$ref` to bundled def `name` (`~` and `/` escaped as `~0`, `~1`: RFC 6901)."""
    return DEFS_PREFIX + escape(name)


def def_name(ref: str) -> str | None:
    """The bundled def name a `#/$defs/<name>` ref points at (unescaped), else None."""
    if not ref.startswith(DEFS_PREFIX) or "/" in ref[len(DEFS_PREFIX) :]:
        return None
    return unescape(ref[len(DEFS_PREFIX) :])


@dataclass
class _Defs:
    """Every def of the spec set, rewritten once, with the defs each one refers to."""

    origins: dict[DefKey, Origin] = field(default_factory=dict)
    bundled_names: dict[DefKey, str] = field(default_factory=dict)
    schemas: dict[str, Any] = field(default_factory=dict)  # bundled name -> rewritten schema
    deps: dict[str, set[str]] = field(default_factory=dict)


class Resolver:
    """Resolves one spec set; collects every problem before raising."""

    def __init__(
        self, specs: list[SpecFile], default_name: str = "tools", *, typos: bool = True
    ) -> None:
        self.specs = specs
        self.default_name = default_name
        self.typos = typos  # a misspelt keyword is an error (not when reading back an import)
        self.by_path = {spec.source.path.resolve(): spec for spec in specs}
        self.problems: list[Diagnostic] = []
        self.defs = _Defs()
        self._files: dict[tuple[Path, str], Path] = {}
        self._reported: set[tuple[str, Location]] = set()
        self._def_problem: dict[str, bool] = {}  # bundled def -> has_schema_problem
        self._broken: set[str] = set()  # bundled defs with a `$ref` that points nowhere
        self._dangling: set[int] = set()  # bundled schemas (by id) that use such a def
        self._own: dict[str, tuple[Any, Origin]] = {}  # schemas' own `$defs`, first seen
        self._extents = DefExtents(self.defs.schemas)  # each def measured once

    def error(self, code: ErrorCode, message: str, where: Location) -> None:
        if (message, where) in self._reported:
            return  # a def's problem, found again through another tool
        self._reported.add((message, where))
        self.problems.append(Diagnostic(code, message, where))

    def resolve(self) -> ToolSet:
        server = self._server()
        self._collect_defs()
        tools = self._tools()
        if self.problems:
            raise SpecError(self.problems)
        defs = tuple(
            Def(self.defs.bundled_names[key], spec_def, self.defs.origins[key])
            for key, spec_def in self._raw_defs()
        )
        toolset = ToolSet(server, tuple(tools), defs, tuple(spec.source for spec in self.specs))
        blocks = [s.model.server for s in self.specs if s.model.server]
        return toolset.with_refs("keep" if blocks and blocks[0].refs == "keep" else None)

    # -- server ---------------------------------------------------------------

    def _server(self) -> Server:
        found: list[tuple[SpecFile, Any]] = [
            (s, s.model.server) for s in self.specs if s.model.server
        ]
        for spec, _ in found[1:]:
            first = found[0][0].source.locate(("server",), key=True)
            self.error(
                ErrorCode.DUPLICATE_SERVER,
                f"second `server` block; a spec set has one (first at {first})",
                spec.source.locate(("server",), key=True),
            )
        if not found:
            # A set of tool files alone (the format allows it): named by the caller.
            return Server(name=self.default_name, version="0.0.0", declared=False)
        spec, block = found[0]
        raw = spec.data["server"]
        return Server(
            name=block.name,
            version=block.version,
            python_package=block.package,
            title=block.title,
            description=block.description,
            instructions=block.instructions,
            extensions=_extensions(raw),
            origin=Origin(spec.source, ("server",)),
        )

    # -- defs -----------------------------------------------------------------

    def _raw_defs(self) -> Iterable[tuple[DefKey, Any]]:
        for spec in self.specs:
            for name, schema in spec.model.defs.items():
                yield (spec.source.path.resolve(), name), schema

    def _collect_defs(self) -> None:
        keys = [key for key, _ in self._raw_defs()]
        counts: dict[str, int] = {}
        for _, name in keys:
            counts[name] = counts.get(name, 0) + 1
        for path, name in keys:
            spec = self.by_path[path]
            self.defs.origins[(path, name)] = Origin(spec.source, ("defs", name))
            unique = counts[name] == 1
            self.defs.bundled_names[(path, name)] = name if unique else _camel(path.stem) + name
        for (path, name), schema in self._raw_defs():
            bundled = self.defs.bundled_names[(path, name)]
            deps: set[str] = set()
            origin = self.defs.origins[(path, name)]
            body = _as_schema(schema)
            self._keywords(schema, origin)
            known = len(self.problems)
            self.defs.schemas[bundled] = self._rewrite(body, origin, deps, plain_bytes(body))
            self.defs.deps[bundled] = deps
            if len(self.problems) > known:
                self._broken.add(bundled)
        self._self_references()

    def _keywords(self, schema: Any, origin: Origin) -> None:
        """Report each key of `schema` and its subschemas that is one typo from a JSON Schema
        keyword (`requried`): validators would ignore it, and the constraint with it."""
        if not self.typos:
            return
        for path, sub in walk_schemas(schema):
            if not isinstance(sub, dict) or KEYWORDS.issuperset(sub):
                continue
            for key in sub:
                meant = misspelt(key) if isinstance(key, str) else None
                if meant is not None:
                    self.error(
                        ErrorCode.MISSPELT_KEYWORD,
                        f"unknown JSON Schema keyword {key!r}; did you mean {meant!r}? "
                        "Validators ignore unknown keywords (prefix your own with `x-`)",
                        origin.locate(*path, key, key=True),
                    )

    def _self_references(self) -> None:
        """Report defs that reach themselves through `$ref`s and `allOf`s alone, with no
        property or item between (`A: {allOf: [{$ref: A}]}`): no value fits them as written,
        no model can be generated for them and a walker following them would never end."""
        origin_of = {
            bundled: self.defs.origins[key] for key, bundled in self.defs.bundled_names.items()
        }
        looping = in_place_cycles(self.defs.schemas, def_name)
        for name in self.defs.schemas:
            if name in looping:
                self.error(
                    ErrorCode.INVALID_SCHEMA,
                    f"def {name!r} is only a reference to itself "
                    f"({' -> '.join([*looping[name], name])}, through $ref and allOf): it "
                    "describes no value; give it a schema of its own or remove it",
                    origin_of[name].locate(),
                )

    def _rewrite(
        self,
        schema: Any,
        origin: Origin,
        deps: set[str],
        blob: bytes | None,
        own: Any = None,
        own_used: set[str] | None = None,
    ) -> Any:
        """`schema` with refs pointed into `$defs` (`schema` itself when it has none: what is
        not rewritten is shared, not copied); names of the defs it uses go into `deps`.
        `blob`: `schema`'s `plain_bytes`, where a `$ref` would show. `own`: the root schema's
        own `$defs`, which its refs `#/$defs/NAME` keep pointing at (names into `own_used`)."""
        if blob is not None and b"$ref" not in blob:
            return schema

        def rewrite(ref: str, rel: JsonPath) -> str:
            if isinstance(own, dict) and (name := def_name(ref)) is not None and name in own:
                if own_used is not None:
                    own_used.add(name)
                return ref
            target = self._target(ref, origin.source, origin.path + rel)
            if target is None:
                return ref
            deps.add(target)
            return def_ref(target)

        return share_refs(schema, rewrite)

    def _target(self, ref: str, source: SourceFile, where: JsonPath) -> str | None:
        """The bundled def name `ref` points at, or None after reporting why it cannot."""
        if _ABSOLUTE_URI.match(ref):
            self.error(
                ErrorCode.NETWORK_REF,
                f"reference {ref!r} is an absolute URI; toolgen never fetches schemas. Expected #/defs/NAME or FILE.yaml#/defs/NAME",
                source.locate(where),
            )
            return None
        file_part, _, fragment = ref.partition("#")
        if not fragment.startswith("/defs/") or "/" in fragment[len("/defs/") :]:
            own = (
                " (a `$defs` entry of a tool's input or output schema is reached from that schema)"
                if not file_part and def_name(ref) is not None
                else ""
            )
            self.error(
                ErrorCode.UNRESOLVED_REF,
                f"cannot resolve {ref!r}: expected #/defs/NAME or FILE.yaml#/defs/NAME{own}",
                source.locate(where),
            )
            return None
        name = unescape(fragment[len("/defs/") :])
        path = self._file(source.path, file_part)
        if path not in self.by_path:
            self.error(
                ErrorCode.UNRESOLVED_REF,
                f"cannot resolve {ref!r}: {file_part!r} is not a file of this spec set",
                source.locate(where),
            )
            return None
        bundled = self.defs.bundled_names.get((path, name))
        if bundled is None:
            there = sorted(n for p, n in self.defs.bundled_names if p == path)
            self.error(
                ErrorCode.UNRESOLVED_REF,
                f"cannot resolve {ref!r}: no def named {name!r} in "
                f"{self.by_path[path].source.display}{_nearest(name, there)}",
                source.locate(where),
            )
        return bundled

    def _file(self, base: Path, file_part: str) -> Path:
        """The resolved path of a ref's file part, relative to the referencing file (memoized:
        a spec set of 1,000 tools resolves the same few paths hundreds of times)."""
        key = (base, file_part)
        found = self._files.get(key)
        if found is None:
            found = (base.parent / file_part).resolve() if file_part else base.resolve()
            self._files[key] = found
        return found

    def _bundle(self, schema: Any, origin: Origin) -> tuple[dict[str, Any], bool]:
        """A self-contained copy of `schema`: refs rewritten, reachable defs under `$defs`;
        and whether the schema without the defs it bundles certainly compiles (it holds no
        `pattern` and no `$dynamicRef`: `has_schema_problem`), told by the same `marshal`
        form that tells whether it has refs to rewrite."""
        deps: set[str] = set()
        blob = plain_bytes(schema)
        own = schema.get("$defs") if isinstance(schema, dict) else None
        own_used: set[str] = set()
        root = _as_schema(self._rewrite(schema, origin, deps, blob, own, own_used))
        own_fine = blob is not None and not may_have_schema_problem(blob)
        ref = root.get("$ref")
        target = def_name(ref) if isinstance(ref, str) and "type" not in root else None
        if target is not None:
            # Inline a root reference so clients see the object at the top.
            inlined = self.defs.schemas.get(target)
            if isinstance(inlined, dict):
                own_fine = False  # the def's keywords are the root's now: checked in full
                beside = {k: v for k, v in root.items() if k != "$ref"}
                root = dict(merge_ref(inlined, beside))  # where they act on each other: allOf
                if "type" in inlined and "type" not in root:
                    root = {"type": inlined["type"], **root}  # what allOf says anyway
                if not any(  # the def stays in `$defs` while a keyword beside refers to it
                    isinstance(sub, dict)
                    and isinstance(ref := sub.get("$ref"), str)
                    and def_name(ref) == target
                    for _, sub in walk_schemas(beside)
                ):
                    deps = deps - {target}
                deps |= self.defs.deps.get(target, set())
        needed = self._closure(deps)
        local = root.get("$defs")
        if isinstance(local, dict):
            checked = own_used | (set(local) & needed)  # (a bundled def would replace it)
            self._own_defs({name: local[name] for name in checked}, origin)
        if target in self._broken or self._broken & needed:
            self._dangling.add(id(root))
        if needed:
            bundled = {name: self.defs.schemas[name] for name in sorted(needed)}
            root["$defs"] = {**local, **bundled} if isinstance(local, dict) else bundled
            # Without refs, the reader's nesting limit bounds the depth already.
            if not self._extents.within_limits(root) and (problem := extent_problem(root)):
                self.error(ErrorCode.LIMIT, problem, origin.locate())
                root.pop("$defs")  # nothing downstream walks it
        return root, own_fine

    def _own_defs(self, local: dict[str, Any], origin: Origin) -> None:
        """A schema's own `$defs` that its refs `#/$defs/NAME` reach share one namespace with
        the spec set's defs and the others reached so: each target names a type by it, so a
        name must hold the same schema wherever it is used."""
        for name in sorted(local):
            if name in self.defs.schemas:
                other, where = self.defs.schemas[name], f"def {name!r}"
            elif name in self._own:
                other, first = self._own[name]
                where = f"`$defs/{name}` at {first.locate('$defs', name, key=True)}"
            else:
                self._own[name] = (local[name], origin)
                continue
            if not same(local[name], other):
                self.error(
                    ErrorCode.DUPLICATE_DEF,
                    f"`$defs/{name}` of this schema differs from {where}: every language names "
                    "a type by it; rename one",
                    origin.locate("$defs", name, key=True),
                )

    def _closure(self, start: set[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(start)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.defs.deps.get(name, ()))
        return seen

    # -- tools ----------------------------------------------------------------

    def _tools(self) -> list[Tool]:
        tools: list[Tool] = []
        first_seen: dict[str, Origin] = {}  # located only for an error: positions load lazily
        for spec in self.specs:
            for index, tool_spec in enumerate(spec.model.tools):
                origin = Origin(spec.source, ("tools", index))
                if tool_spec.name in first_seen:
                    self.error(
                        ErrorCode.DUPLICATE_TOOL,
                        f"tool name {tool_spec.name!r} is already used (at {first_seen[tool_spec.name].locate('name')}); names must be unique in a spec set",
                        origin.locate("name"),
                    )
                    continue
                first_seen[tool_spec.name] = origin
                tools.append(self._tool(tool_spec, spec.data["tools"][index], origin))
        return tools

    def _tool(self, spec: ToolSpec, raw: dict[str, Any], origin: Origin) -> Tool:
        known = len(self.problems)
        input_origin = origin.child("input") if spec.input is not None else None
        output_origin = origin.child("output") if spec.output is not None else None
        for part, part_origin in ((spec.input, input_origin), (spec.output, output_origin)):
            if part_origin is not None:
                self._keywords(part, part_origin)
        if input_origin is not None:
            input_schema, input_fine = self._bundle(spec.input, input_origin)
            if input_schema.get("type") != "object":
                at = ("type",) if "type" in input_schema and "type" in raw["input"] else ()
                self.error(
                    ErrorCode.INPUT_NOT_OBJECT,
                    "the input schema root must be `type: object` (tool arguments are a JSON object)",
                    input_origin.locate(*at),
                )
        else:
            input_schema, input_fine = dict(_NO_INPUT), True
        output_schema, output_fine = (
            self._bundle(spec.output, output_origin) if output_origin else (None, True)
        )
        broken = any(id(s) in self._dangling for s in (input_schema, output_schema))
        for schema, own_fine, part_origin in (
            (input_schema, input_fine, input_origin),
            (output_schema, output_fine, output_origin),
        ):
            if part_origin is not None and not broken:
                self._compilable(schema, part_origin, own_fine)
        examples = tuple(
            self._examples(spec, origin, input_schema, output_schema)
            if len(self.problems) == known and not broken
            else ()  # examples are checked against schemas that compile; one error per cause
        )
        return Tool(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=_annotations(spec),
            input_schema=input_schema,
            output_schema=output_schema,
            examples=examples,
            extensions=_extensions(raw),
            origin=origin,
            input_origin=input_origin,
            output_origin=output_origin,
            icons=spec.icons,
            execution=spec.execution,
            meta=spec.meta,
        )

    def _compilable(self, schema: Any, origin: Origin, own_fine: bool) -> None:
        """Report what would keep a validator from compiling `schema` (bundled), each at its
        place in the spec: the tool's own schema, or the def it comes from. `own_fine`: the
        schema apart from the defs it bundles certainly compiles (`_bundle`)."""
        if not self._may_not_compile(schema, own_fine):
            return
        for path, message in schema_problems(schema):
            is_key = len(path) > 1 and path[-2] == "patternProperties"
            where = origin.locate(*path, key=is_key)
            if len(path) > 1 and path[0] == "$defs":
                key = next((k for k, v in self.defs.bundled_names.items() if v == path[1]), None)
                if key is not None:
                    where = self.defs.origins[key].locate(*path[2:], key=is_key)
            self.error(ErrorCode.INVALID_SCHEMA, f"invalid JSON Schema: {message}", where)

    def _may_not_compile(self, schema: Any, own_fine: bool) -> bool:
        """Whether `schema_problems` could find anything in the bundled `schema`: the schema
        without its `$defs` (unless `own_fine`), then each def, a bundled def checked once per
        spec set (1,000 tools bundle the same few defs)."""
        if not isinstance(schema, dict):
            return True
        defs = schema.get("$defs")
        for name, sub in defs.items() if isinstance(defs, dict) else ():
            if self.defs.schemas.get(name) is not sub:
                if not own_fine and has_schema_problem(sub):  # the schema's own def
                    return True
                continue
            known = self._def_problem.get(name)
            if known is None:
                known = self._def_problem[name] = has_schema_problem(sub)
            if known:
                return True
        return not own_fine and has_schema_problem(
            {k: v for k, v in schema.items() if k != "$defs"}
        )

    def _examples(
        self,
        spec: ToolSpec,
        origin: Origin,
        input_schema: Mapping[str, Any],
        output_schema: Mapping[str, Any] | None,
    ) -> Iterable[Example]:
        validators: dict[str, Any] = {}
        for index, example in enumerate(spec.examples):
            given = example.given
            example_origin = origin.child("examples", index)
            for part, schema in (("input", input_schema), ("output", output_schema)):
                if part not in given or schema is None:
                    continue
                if part not in validators:
                    try:
                        validators[part] = _validator(schema)
                    except ValueError as exc:  # what `_compilable` does not foresee
                        self.error(
                            ErrorCode.INVALID_SCHEMA,
                            f"the {part} schema cannot be compiled into a validator: "
                            f"{str(exc).splitlines()[0][:300]}",
                            origin.locate(part),
                        )
                        return
                for err in validators[part].iter_errors(getattr(example, part)):
                    at = (part, *err.instance_path)
                    self.error(
                        ErrorCode.INVALID_EXAMPLE,
                        f"example {part} does not match the {part} schema at {'/'.join(map(str, at))}: {err.message}",
                        example_origin.locate(*at),
                    )
            yield Example(
                example.input, example.output, "input" in given, "output" in given, example_origin
            )


def closest(name: str, names: list[str]) -> str | None:
    """The name of `names` that `name` most likely meant: the same but for case, else the
    nearest by spelling (None when none is near)."""
    folded = {n.lower(): n for n in names}
    return folded.get(name.lower()) or next(iter(difflib.get_close_matches(name, names, n=1)), None)


def _nearest(name: str, names: list[str]) -> str:
    """What to say after "no def named NAME": the nearest def, and the defs there are."""
    if not names:
        return "; the file has no defs"
    near = closest(name, names)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"{hint} (its defs: {', '.join(names[:20])}{', ...' if len(names) > 20 else ''})"


def _validator(schema: Mapping[str, Any]) -> Any:
    return compile_validator(schema)


def _as_schema(schema: Any) -> dict[str, Any]:
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return dict(schema)


def _annotations(spec: ToolSpec) -> Annotations:
    given = spec.annotations

    def hint(short: str, long: str) -> bool | None:
        value: bool | None = getattr(given, short)
        return value if value is not None else getattr(given, long)

    return Annotations(
        read_only=hint(*HINTS[0]),
        destructive=hint(*HINTS[1]),
        idempotent=hint(*HINTS[2]),
        open_world=hint(*HINTS[3]),
        title=given.title,
        reasons={
            short: text
            for short, long in HINTS
            for text in [(given.reasons or {}).get(short, (given.reasons or {}).get(long))]
            if text is not None
        },
    )


def _extensions(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if k.startswith("x-")}


def _camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def resolve(specs: list[SpecFile], default_name: str = "tools", *, typos: bool = True) -> ToolSet:
    """Resolve validated spec files into a `ToolSet`, or raise `SpecError`.

    Without a `server` block the server is named `default_name`, version 0.0.0
    (`Server.declared` is False). `typos=False` lets a misspelt keyword pass (`toolgen import`
    reads back what a server published, and warns of it instead).
    """
    return Resolver(specs, default_name, typos=typos).resolve()
