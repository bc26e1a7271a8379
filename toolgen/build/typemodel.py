"""The types of a spec set, once, for every language: the model each target prints from.

JSON Schema says which values are valid; a programming language wants named types. This
module reads a spec set's bundled schemas (the IR) into a small language-neutral model:

- **named types**: every def, each tool's `<Tool>Input` and `<Tool>Output`, and every inline
  schema that a language without anonymous types needs a name for (a record, an enum, a
  union, a tuple, an intersection), named after the place it is used (`CreateNoteInput` +
  `address` → `CreateNoteInputAddress`; array items `Item`, map values `Value`, tuple
  elements `Item1`..., union branches by label). Names come from `toolgen.build.naming` and
  are the same in every target; the Python models take theirs from `sites`.
- **type expressions**: scalars (with an integer's bounds, so a printer can pick a machine
  type that holds every valid value), any JSON value, `never`, literals, enums, arrays,
  tuples (`prefixItems` with the count that is required and the type of the rest), maps,
  records (members with their JSON names, required or not, and the type of extra members, or
  none when the object is closed), unions (with the discriminating member when every branch
  is a record pinning one member to a distinct string), intersections, nullable types and
  references to named types (recursion goes through them).
- **documentation**: each named type's and member's description, default, and the
  constraints no static type carries (bounds, lengths, patterns, `not`, `if`...), which the
  generated servers check at run time and the printers name in doc comments.

A type is never narrower than its schema: where a language cannot say what the schema says,
a value the schema accepts still has a type (any JSON, or a wider one), and the generated
code checks the rest against the schema itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from toolgen.build.naming import Names, branch_labels, camel, def_classes, tool_bases
from toolgen.schema.inline import refs_below
from toolgen.schema.jsonequal import canonical, json_type
from toolgen.schema.pointer import unescape
from toolgen.schema.walk import map_refs
from toolgen.spec.ir import Def, ToolSet
from toolgen.spec.resolver import def_name, def_ref

# -- the model ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnyJson:
    """Any JSON value."""


@dataclass(frozen=True, slots=True)
class Never:
    """No value (`false`, or keywords no value can satisfy)."""


@dataclass(frozen=True, slots=True)
class Scalar:
    """A string, integer, number, boolean or null. An integer has the bounds its schema
    gives (inclusive, None when unbounded) so a printer can choose a type holding every value."""

    kind: str
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True, slots=True)
class Literal:
    """Exactly one JSON value (`const`, or an `enum` of one)."""

    value: Any


LARGE_ENUM: Final = 1_000
"""Past this many strings, every target types an enum as a string checked at run time: a
union of thousands of literals makes compilers and type checkers crawl."""


@dataclass(frozen=True, slots=True)
class Enum:
    """One of several JSON values, in the order written (often all strings)."""

    values: tuple[Any, ...]

    @property
    def strings(self) -> bool:
        return all(isinstance(v, str) for v in self.values)

    @property
    def large(self) -> bool:
        """Whether it holds more than `LARGE_ENUM` strings."""
        return sum(isinstance(v, str) for v in self.values) > LARGE_ENUM


@dataclass(frozen=True, slots=True)
class Array:
    items: Type


@dataclass(frozen=True, slots=True)
class Tuple:
    """`prefixItems`: the first `required` elements must be there; `rest` types the elements
    past the prefix (None: there are none)."""

    items: tuple[Type, ...]
    required: int
    rest: Type | None


@dataclass(frozen=True, slots=True)
class Map:
    """An object whose member names are free, every value of type `values`."""

    values: Type


@dataclass(frozen=True, slots=True)
class Doc:
    """What a printer writes in a doc comment."""

    description: str | None = None
    checked: tuple[str, ...] = ()
    """The constraints only the run-time check enforces (`maxLength 10`, `not`)."""
    default: Any = None
    has_default: bool = False
    deprecated: bool = False

    def lines(self) -> list[str]:
        """The doc comment's lines, in a form every language's comments can take."""
        out = [self.description] if self.description else []
        if self.checked:
            out.append(f"Checked at run time: {', '.join(self.checked)}.")
        return out


@dataclass(frozen=True, slots=True)
class Field:
    """A record's member: `json` is its name in JSON, as written in the spec."""

    json: str
    type: Type
    required: bool
    doc: Doc = Doc()


@dataclass(frozen=True, slots=True)
class Record:
    """An object with declared members. `extra` types the members beyond them (None: the
    object is closed, `additionalProperties: false` or `unevaluatedProperties: false`)."""

    fields: tuple[Field, ...]
    extra: Type | None


@dataclass(frozen=True, slots=True)
class Union:
    """One of `branches`. `discriminator` is the member every branch (a record) pins to a
    string of its own, `tags` those strings by branch; None when there is no such member."""

    branches: tuple[Type, ...]
    discriminator: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Intersection:
    """All of `parts` at once (`allOf`, or a `$ref` with keywords beside it)."""

    parts: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class Nullable:
    """`inner` or null."""

    inner: Type


@dataclass(frozen=True, slots=True)
class Ref:
    """The named type `name` (see `TypeModel.types`)."""

    name: str


Type = (
    AnyJson
    | Never
    | Scalar
    | Literal
    | Enum
    | Array
    | Tuple
    | Map
    | Record
    | Union
    | Intersection
    | Nullable
    | Ref
)
ANY: Final = AnyJson()
NEVER: Final = Never()


@dataclass(frozen=True, slots=True)
class Named:
    """A type with a name. `role` is `def`, `input`, `output` or `inline`; `owner` is the
    named type whose schema holds an inline one (printers write it after its owner)."""

    name: str
    type: Type
    doc: Doc
    role: str
    owner: str | None = None
    recursive: bool = False
    """Whether the type refers to itself, through other named types or not."""


@dataclass(frozen=True, slots=True)
class ToolTypes:
    """A tool's type names: `stem` (`CreateNote`), its input's and its output's (None: the
    tool has no output schema)."""

    stem: str
    input: str
    output: str | None


@dataclass(frozen=True)
class TypeModel:
    """The types of one spec set (see the module docstring)."""

    types: Mapping[str, Named]
    """Every named type: defs, then each tool's input and output, each followed by the
    inline types it holds."""
    tools: Mapping[str, ToolTypes]
    """Tool name → its type names, in spec-set order."""
    defs: Mapping[str, str]
    """Bundled def name → its type name."""
    sites: Mapping[str, str] = field(default_factory=dict)
    """Where each inline named type is used (`<tool>:input/properties/address`,
    `def:<name>/items`) → its name: the Python models name their classes by it."""

    def resolve(self, type_: Type) -> Type:
        """`type_` with references followed to what they name (stopping at a cycle)."""
        seen: set[str] = set()
        while isinstance(type_, Ref) and type_.name not in seen:
            seen.add(type_.name)
            type_ = self.types[type_.name].type
        return type_

    def members(self, type_: Type) -> tuple[Field, ...]:
        """The declared members of an object type: a record's fields, or those of every record
        an intersection holds (the first declaration of a name wins)."""
        type_ = self.resolve(type_)
        if isinstance(type_, Record):
            return type_.fields
        if not isinstance(type_, Intersection):
            return ()
        found: dict[str, Field] = {}
        for part in type_.parts:
            for member in self.members(part):
                found.setdefault(member.json, member)
        return tuple(found.values())

    def reading_order(self, branches: Sequence[Type]) -> list[Type]:
        """A union's branches in the order a reader that takes the first branch a value reads
        as must try them: a branch whose values a later branch could read too comes first
        (an integer before a number, a closed record before an open one); branches alike keep
        the schema's order."""
        return sorted(branches, key=self._reading_rank)

    def _reading_rank(self, branch: Type) -> int:
        match self.resolve(branch):
            case Literal() | Enum() | Never():
                return 0
            case Scalar(kind):
                return {"null": 0, "boolean": 0, "integer": 1, "number": 2}.get(kind, 3)
            case Tuple():
                return 4
            case Record(_, extra):
                return 5 if extra is None else 6
            case Union() | Intersection() | Nullable():
                return 7
            case Array() | Map():
                return 8
        return 9


# -- reading schemas ----------------------------------------------------------------------

_CHECKED: Final = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "dependentRequired", "minContains", "maxContains",
)  # fmt: skip
"""Keywords a type cannot carry, documented with their values."""
_CHECKED_SCHEMAS: Final = (
    "not", "if", "contains", "propertyNames", "dependentSchemas", "unevaluatedItems",
)  # fmt: skip
"""Keywords a type cannot carry, documented by name (their subschemas are too long)."""
_OBJECT_KEYWORDS: Final = frozenset({"properties", "additionalProperties", "patternProperties"})
_ARRAY_KEYWORDS: Final = frozenset({"items", "prefixItems"})
_SHAPES: Final = _OBJECT_KEYWORDS | _ARRAY_KEYWORDS | {"type", "enum", "const", "$ref"}
_COMBINATORS: Final = ("allOf", "anyOf", "oneOf")
_ANNOTATIONS: Final = frozenset(
    {"title", "description", "examples", "default", "deprecated", "$comment"}
)
_NULL: Final = Scalar("null")


def build_model(toolset: ToolSet) -> TypeModel:
    """The type model of `toolset` (deterministic for the same IR)."""
    return _Reader(toolset).read()


class _Reader:
    def __init__(self, toolset: ToolSet) -> None:
        self.toolset = toolset
        self.names = Names()
        self.types: dict[str, Named | None] = {}
        self.sites: dict[str, str] = {}
        self.def_names: dict[str, str] = {}
        self.top = ""  # the named type being read (a tool part or a def)

    def read(self) -> TypeModel:
        tools = self.toolset.tools
        stems = tool_bases([tool.name for tool in tools], self.names)
        tool_types = {
            tool.name: ToolTypes(
                stems[tool.name],
                stems[tool.name] + "Input",
                None if tool.output_schema is None else stems[tool.name] + "Output",
            )
            for tool in tools
        }
        defs = all_defs(self.toolset)
        records: dict[bytes, str] = {}  # a record def's canonical JSON → the first such def
        for bundled, schema in defs.items():
            if isinstance(schema, dict) and _is_record(schema):
                records.setdefault(canonical(schema), bundled)
        self.def_names = def_classes(defs, self.names)
        # Tools are read before defs: inline types are named in the order the Python models
        # have always named their classes.
        parts: dict[str, Named] = {}
        for tool in tools:
            names = tool_types[tool.name]
            schemas = [("input", names.input, tool.input_schema)]
            if names.output is not None and tool.output_schema is not None:
                schemas.append(("output", names.output, tool.output_schema))
            for role, name, schema in schemas:
                body = {k: v for k, v in schema.items() if k != "$defs"}
                parts[name] = self._top(name, body, f"{tool.name}:{role}", role, records, tool.name)
        for bundled, schema in defs.items():
            name = self.def_names[bundled]
            self.top = name
            type_ = self._type(schema, name, f"def:{bundled}", root=True)
            self.types[name] = Named(name, type_, _doc(schema), "def")
        self.types.update(parts)
        for name, named in self.types.items():  # every type is known now: refs can be followed
            assert named is not None, name
            bare = _without_self(named.type, name)
            self.types[name] = replace(named, type=map_type(bare, self._discriminated))
        ordered: dict[str, Named] = {}
        for top in [*self.def_names.values(), *parts]:
            for named in [self._named(top), *self._inline(top)]:
                ordered[named.name] = named
        return TypeModel(_mark_recursion(ordered), tool_types, dict(self.def_names), self.sites)

    def _named(self, name: str) -> Named:
        named = self.types[name]
        assert named is not None, name
        return named

    def _inline(self, owner: str) -> Iterator[Named]:
        for named in list(self.types.values()):
            if named is not None and named.owner == owner:
                yield named
                yield from self._inline(named.name)

    def _top(
        self,
        name: str,
        body: Mapping[str, Any],
        key: str,
        role: str,
        records: Mapping[bytes, str],
        tool: str,
    ) -> Named:
        """A tool's input or output: the record def it is exactly (an alias), else its own
        type (`records`: each record def by its canonical JSON)."""
        doc = _doc(body)
        said = f"The {role} of tool {tool}."
        doc = replace(doc, description=f"{said}\n{doc.description}" if doc.description else said)
        alias = records.get(canonical(body))
        if alias is not None:
            return Named(name, Ref(self.def_names[alias]), doc, role)
        self.top = name
        self.types[name] = None  # claimed: `$ref: "#"` inside refers to it
        return Named(name, self._type(body, name, key, root=True, this=name), doc, role)

    # -- one schema --------------------------------------------------------------------------

    def _type(
        self, schema: Any, name: str, key: str, *, root: bool = False, this: str | None = None
    ) -> Type:
        """The type of the values `schema` accepts. A record, enum, union, tuple or
        intersection inside another type is named `name` (claimed now, before what it
        holds, as the Python models claim class names), at site `key`."""
        if schema is False:
            return NEVER
        if not isinstance(schema, dict):
            return ANY
        inner, nullable, merged = _without_null(schema)
        if not root and _needs_name(inner):
            name = self.names.claim([name], key)
            self.types[name] = None
            self.sites[key] = name
            if merged:  # the Python models name the branch where it is written
                self.sites[f"{key}/{merged}"] = name
            type_: Type = self._shape(inner, name, key, this)
            self.types[name] = Named(name, type_, Doc(), "inline", owner=self.top)
            type_ = Ref(name)
        else:
            type_ = self._shape(inner, name, key, this)
        if nullable and not isinstance(type_, (AnyJson, Nullable)) and type_ != _NULL:
            return Nullable(type_)
        return type_

    def _shape(self, schema: Mapping[str, Any], owner: str, key: str, this: str | None) -> Type:
        parts: list[Type] = []
        ref = schema.get("$ref")
        if isinstance(ref, str):
            parts.append(self._ref(ref, this))
        if not _SHAPES.isdisjoint(schema.keys() - {"$ref", *(["type"] if ref else [])}):
            parts.append(self._typed(schema, owner, key, this))
        for index, branch in enumerate(_list(schema.get("allOf"))):
            parts.append(self._type(branch, owner, f"{key}/allOf/{index}", root=True, this=this))
        for word in ("anyOf", "oneOf"):
            branches = _list(schema.get(word))
            if branches:
                parts.append(self._union(branches, owner, f"{key}/{word}", this))
        return _intersection(parts)

    def _ref(self, ref: str, this: str | None) -> Type:
        if ref == "#":
            return Ref(this) if this else ANY
        name = def_name(ref)
        target = self.def_names.get(name) if name is not None else None
        return Ref(target) if target else ANY

    def _typed(self, schema: Mapping[str, Any], owner: str, key: str, this: str | None) -> Type:
        kinds = _types(schema)
        if "const" in schema or isinstance(schema.get("enum"), list):
            values = [schema["const"]] if "const" in schema else list(schema["enum"])
            if kinds is not None:
                values = [v for v in values if _fits(v, kinds)]
            if not values:
                return NEVER
            return Literal(values[0]) if len(values) == 1 else Enum(tuple(values))
        if kinds is None:
            return ANY
        options: list[Type] = []
        for kind in kinds:
            if kind == "object":
                options.append(self._object(schema, owner, key, this))
            elif kind == "array":
                options.append(self._array(schema, owner, key, this))
            elif kind == "integer":
                options.append(Scalar("integer", *_bounds(schema)))
            elif kind in ("string", "number", "boolean", "null"):
                options.append(Scalar(kind))
        return _union(options)

    def _object(self, schema: Mapping[str, Any], owner: str, key: str, this: str | None) -> Type:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = [r for r in _list(schema.get("required")) if isinstance(r, str)]
        extra = self._extra(schema, owner, key, this)
        fields = [
            Field(
                prop,
                self._type(
                    sub, owner + (camel(prop) or "Property"), f"{key}/properties/{prop}", this=this
                ),
                prop in required,
                _doc(sub),
            )
            for prop, sub in properties.items()
        ]
        fields += [Field(r, extra or ANY, True) for r in required if r not in properties]
        if not fields and extra is not None:
            return Map(extra)
        return Record(tuple(fields), extra)

    def _extra(
        self, schema: Mapping[str, Any], owner: str, key: str, this: str | None
    ) -> Type | None:
        """The type of members beyond `properties` (None: the object allows none)."""
        if schema.get("unevaluatedProperties") is False:
            return None
        options = [
            self._type(sub, owner + "Value", f"{key}/patternProperties/{pattern}", this=this)
            for pattern, sub in (schema.get("patternProperties") or {}).items()
        ]
        additional = schema.get("additionalProperties", True)
        if additional is not False:
            options.append(
                self._type(additional, owner + "Value", f"{key}/additionalProperties", this=this)
            )
        return _union(options) if options else None

    def _array(self, schema: Mapping[str, Any], owner: str, key: str, this: str | None) -> Type:
        items = schema.get("items", True)
        rest = (
            None if items is False else self._type(items, owner + "Item", f"{key}/items", this=this)
        )
        prefix = schema.get("prefixItems")
        if not isinstance(prefix, list):
            return Array(rest) if rest is not None else Tuple((), 0, None)
        elements = tuple(
            self._type(sub, f"{owner}Item{i + 1}", f"{key}/prefixItems/{i}", this=this)
            for i, sub in enumerate(prefix)
        )
        least = schema.get("minItems", 0)
        least = least if isinstance(least, int) and not isinstance(least, bool) else 0
        return Tuple(elements, min(least, len(elements)), rest)

    def _union(self, branches: list[Any], owner: str, key: str, this: str | None) -> Type:
        named = [i for i, b in enumerate(branches) if isinstance(b, dict) and _needs_name(b)]
        if len(named) == 1:  # one branch to name beside scalars: by its title, else its kind
            labels = {named[0]: _lone_label(branches[named[0]])}
        else:
            labels = dict(zip(named, branch_labels([branches[i] for i in named]), strict=True))
        types = [
            self._type(b, owner + labels.get(i, ""), f"{key}/{i}", this=this)
            for i, b in enumerate(branches)
        ]
        return _union(types)

    def _discriminated(self, type_: Type) -> Type:
        """`type_` with the discriminating member of each union in it, where there is one."""
        if not isinstance(type_, Union):
            return type_
        union = type_
        records = [self._record(branch) for branch in union.branches]
        if any(record is None for record in records):
            return union
        first = records[0]
        assert first is not None
        for candidate in first.fields:
            tags = [_tag(record, candidate.json) for record in records if record is not None]
            if all(tags) and len(set(tags)) == len(tags):
                return replace(union, discriminator=candidate.json, tags=tuple(map(str, tags)))
        return union

    def _record(self, type_: Type) -> Record | None:
        seen: set[str] = set()
        while isinstance(type_, Ref) and type_.name not in seen:
            seen.add(type_.name)
            named = self.types.get(type_.name)
            if named is None:
                return None
            type_ = named.type
        return type_ if isinstance(type_, Record) else None


# -- helpers ------------------------------------------------------------------------------


def all_defs(toolset: ToolSet) -> dict[str, Any]:
    """Bundled def name → schema with bundled refs, for every def (used or not), sorted."""
    found = _spec_defs(toolset.defs)
    # Tools may carry defs of their own (e.g. imported ones): first those a schema's own refs
    # reach (the loader made each such name mean one schema), then the others.
    schemas = [s for tool in toolset.tools for s in (tool.input_schema, tool.output_schema) if s]
    for schema in schemas:
        reached = {def_name(ref) for ref in refs_below(schema, skip_defs=False)}
        for name, body in (schema.get("$defs") or {}).items():
            if name in reached:
                found.setdefault(name, body)
    for schema in schemas:
        for name, body in (schema.get("$defs") or {}).items():
            found.setdefault(name, body)
    return dict(sorted(found.items()))


def _spec_defs(defs: tuple[Def, ...]) -> dict[str, Any]:
    """The spec set's defs with their refs (`#/defs/N`, `F.yaml#/defs/N`) bundled like tools'."""
    bundled = {
        (d.origin.source.path.resolve(), d.origin.path[-1]): d.name
        for d in defs
        if d.origin.path and isinstance(d.origin.path[-1], str)
    }
    out: dict[str, Any] = {}
    for d in defs:
        here = d.origin.source.path.resolve()

        def rewrite(ref: str, _path: object, here: Path = here) -> str:
            file_part, _, fragment = ref.partition("#")
            name = unescape(fragment.removeprefix("/defs/"))
            path = (here.parent / file_part).resolve() if file_part else here
            target = bundled.get((path, name))
            return def_ref(target) if target and fragment.startswith("/defs/") else ref

        schema = {} if d.schema is True else {"not": {}} if d.schema is False else d.schema
        out[d.name] = map_refs(schema, rewrite)
    return out


def _fits(value: Any, kinds: Sequence[str]) -> bool:
    kind = json_type(value)
    return kind in kinds or (kind == "integer" and "number" in kinds)


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    """The types `schema` allows: its `type`, else the one its keywords imply, else None."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    if not _OBJECT_KEYWORDS.isdisjoint(schema):
        return ["object"]
    if not _ARRAY_KEYWORDS.isdisjoint(schema):
        return ["array"]
    return None


def _without_null(schema: Mapping[str, Any]) -> tuple[dict[str, Any], bool, str | None]:
    """`schema` without its null alternative, whether it had one (`type: [T, null]`, an
    `enum` of several values holding null, or an `anyOf`/`oneOf` branch `{type: null}`), and
    where the one other branch was, when it is now `schema` itself (`anyOf/0`)."""
    out = dict(schema)
    kind = out.get("type")
    typed_null = isinstance(kind, list) and "null" in kind and len(kind) > 1
    nullable = typed_null
    if typed_null and isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        out["type"] = rest[0] if len(rest) == 1 else rest
    values = [out["const"]] if "const" in out else _list(out.get("enum")) or None
    if values is not None:  # the values decide: null is valid only if it is one of them
        nullable = None in values and len(values) > 1 and (kind is None or typed_null)
        if nullable:
            out["enum"] = [v for v in values if v is not None]
    merged = None
    for word in ("anyOf", "oneOf"):
        branches = out.get(word)
        if not isinstance(branches, list) or len(branches) < 2:
            continue
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) == len(branches) or not rest:
            continue
        nullable = True
        if len(rest) > 1:
            out[word] = rest
            continue
        del out[word]
        only = rest[0]
        plain = _SHAPES.isdisjoint(out) and not any(c in out for c in _COMBINATORS)
        if isinstance(only, dict) and plain:
            out = {**only, **{k: v for k, v in out.items() if k not in only}}
            merged = f"{word}/{branches.index(only)}"
        else:
            out["allOf"] = [*_list(out.get("allOf")), only]
    return out, nullable, merged


def _needs_name(schema: Mapping[str, Any]) -> bool:
    """Whether a schema read inline is a type some language can only write by name: a
    record, an enum of several values, a union, a tuple or an intersection."""
    if "allOf" in schema or (
        "$ref" in schema and not _SHAPES.isdisjoint(schema.keys() - {"$ref", "type"})
    ):
        return True
    enum = schema.get("enum")
    kinds = _types(schema)
    if isinstance(enum, list) and len([v for v in enum if kinds is None or _fits(v, kinds)]) > 1:
        return True
    if "const" in schema or "enum" in schema or "$ref" in schema:
        return False
    if any(len(_list(schema.get(word))) > 1 for word in ("anyOf", "oneOf")):
        return True
    kinds = kinds or []
    if len([k for k in kinds if k != "null"]) > 1:
        return True
    if "array" in kinds and isinstance(schema.get("prefixItems"), list):
        return True
    return "object" in kinds and _is_record(schema)


def _lone_label(schema: Mapping[str, Any]) -> str:
    """The label of the one branch of a union that needs a name: its title, else its kind."""
    title = schema.get("title")
    if isinstance(title, str) and camel(title):
        return camel(title)
    kinds = _types(schema) or []
    if "array" in kinds:
        return "Tuple"
    if "object" in kinds or "allOf" in schema or "$ref" in schema:
        return "Object"
    return "Enum" if "enum" in schema else "Union"


def _is_record(schema: Mapping[str, Any]) -> bool:
    """Whether an object schema declares members (or none at all: closed and empty)."""
    if "properties" in schema or ("required" in schema and schema.get("type") == "object"):
        return True
    return schema.get("additionalProperties") is False and "patternProperties" not in schema


def _bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The least and greatest integer `schema` allows (None: unbounded)."""
    lows = [_number(schema.get("minimum"), math.ceil)]
    highs = [_number(schema.get("maximum"), math.floor)]
    if (low := _number(schema.get("exclusiveMinimum"), math.floor)) is not None:
        lows.append(low + 1)
    if (high := _number(schema.get("exclusiveMaximum"), math.ceil)) is not None:
        highs.append(high - 1)
    found_lows = [n for n in lows if n is not None]
    found_highs = [n for n in highs if n is not None]
    return (max(found_lows) if found_lows else None, min(found_highs) if found_highs else None)


def _number(value: Any, rounding: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return int(rounding(value))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _doc(schema: Any) -> Doc:
    """A schema's documentation."""
    if not isinstance(schema, dict):
        return Doc()
    own = schema.get("description")
    checked = [f"{k} {_compact(schema[k])}" for k in _CHECKED if k in schema]
    checked += [k for k in _CHECKED_SCHEMAS if k in schema]
    checked += [k for k in ("anyOf", "oneOf") if any(map(_constraint, _list(schema.get(k))))]
    return Doc(
        own if isinstance(own, str) else None,
        tuple(checked),
        schema.get("default"),
        "default" in schema,
        schema.get("deprecated") is True,
    )


def _constraint(schema: Any) -> bool:
    """Whether `schema` constrains values without saying anything of their shape
    (`{required: [a]}` as a branch of an `anyOf`): a type cannot carry it."""
    return (
        isinstance(schema, dict)
        and bool(schema.keys() - _ANNOTATIONS)
        and _SHAPES.isdisjoint(schema)
        and not any(c in schema for c in _COMBINATORS)
    )


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _tag(record: Record, member: str) -> str | None:
    for field_ in record.fields:
        if field_.json == member and field_.required and isinstance(field_.type, Literal):
            value = field_.type.value
            return value if isinstance(value, str) else None
    return None


def _union(options: Sequence[Type]) -> Type:
    """One of `options`: any JSON absorbs all, `never` adds nothing, repeats go, and null
    makes the rest nullable."""
    unique: list[Type] = []
    for option in options:
        if isinstance(option, AnyJson):
            return ANY
        if not isinstance(option, Never) and option not in unique:
            unique.append(option)
    nullable = _NULL in unique and len(unique) > 1
    rest = [o for o in unique if o != _NULL] if nullable else unique
    if not rest:
        return NEVER
    inner = rest[0] if len(rest) == 1 else Union(tuple(rest))
    return Nullable(inner) if nullable else inner


def _intersection(parts: Sequence[Type]) -> Type:
    """All of `parts`: any JSON adds nothing, `never` wins, repeats go; inline records are
    merged into one (their members joined; closed when any part is)."""
    kept: list[Type] = []
    for part in parts:
        if isinstance(part, Never):
            return NEVER
        if not isinstance(part, AnyJson) and part not in kept:
            kept.append(part)
    records = [p for p in kept if isinstance(p, Record)]
    if len(records) > 1:
        kept = [p for p in kept if not isinstance(p, Record)]
        kept.insert(0, _merge_records(records))
    if not kept:
        return ANY
    return kept[0] if len(kept) == 1 else Intersection(tuple(kept))


def _merge_records(records: list[Record]) -> Record:
    fields: dict[str, Field] = {}
    for record in records:
        for field_ in record.fields:
            known = fields.get(field_.json)
            if known is None:
                fields[field_.json] = field_
                continue
            type_ = (
                known.type
                if known.type == field_.type
                else _intersection([known.type, field_.type])
            )
            fields[field_.json] = replace(
                known, type=type_, required=known.required or field_.required
            )
    closed = any(record.extra is None for record in records)
    extra = None if closed else _intersection([r.extra for r in records if r.extra is not None])
    return Record(tuple(fields.values()), extra)


def map_type(type_: Type, change: Callable[[Type], Type]) -> Type:
    """`type_` rebuilt bottom-up, `change` applied to each type expression in it."""
    match type_:
        case Array(items):
            type_ = Array(map_type(items, change))
        case Map(values):
            type_ = Map(map_type(values, change))
        case Nullable(inner):
            type_ = Nullable(map_type(inner, change))
        case Tuple(items, required, rest):
            rest = None if rest is None else map_type(rest, change)
            type_ = Tuple(tuple(map_type(i, change) for i in items), required, rest)
        case Record(fields, extra):
            fields = tuple(replace(f, type=map_type(f.type, change)) for f in fields)
            type_ = Record(fields, None if extra is None else map_type(extra, change))
        case Union(branches, discriminator, tags):
            type_ = Union(tuple(map_type(b, change) for b in branches), discriminator, tags)
        case Intersection(parts):
            type_ = Intersection(tuple(map_type(p, change) for p in parts))
    return change(type_)


def _without_self(type_: Type, name: str) -> Type:
    """The type `name` is, without the parts of its own unions and intersections that are
    `name` itself (`Node = T & (Node | null)` is `T`, `Node = T | Node` is `T`): such a
    part adds nothing a type can say, and a printer following it would never come back."""
    bare = _bare(type_, name)
    return ANY if bare is None else bare


def _bare(type_: Type, name: str) -> Type | None:
    """`_without_self`, None where `type_` is `name` itself (or null or it)."""
    if isinstance(type_, Ref):
        return None if type_.name == name else type_
    if isinstance(type_, Nullable):
        inner = _bare(type_.inner, name)
        return None if inner is None else Nullable(inner)
    if isinstance(type_, Union):
        kept = [b for b in (_bare(b, name) for b in type_.branches) if b is not None]
        return _union(kept) if kept else None
    if isinstance(type_, Intersection):
        parts = [p for p in (_bare(p, name) for p in type_.parts) if p is not None]
        return _intersection(parts) if parts else None
    return type_


def _refs(type_: Type) -> Iterator[str]:
    """The names `type_` refers to directly."""
    if isinstance(type_, Ref):
        yield type_.name
    elif isinstance(type_, (Array, Map)):
        yield from _refs(type_.items if isinstance(type_, Array) else type_.values)
    elif isinstance(type_, Nullable):
        yield from _refs(type_.inner)
    elif isinstance(type_, Tuple):
        for item in (*type_.items, *([type_.rest] if type_.rest is not None else [])):
            yield from _refs(item)
    elif isinstance(type_, Record):
        for field_ in type_.fields:
            yield from _refs(field_.type)
        if type_.extra is not None:
            yield from _refs(type_.extra)
    elif isinstance(type_, (Union, Intersection)):
        for part in type_.branches if isinstance(type_, Union) else type_.parts:
            yield from _refs(part)


def _mark_recursion(types: dict[str, Named]) -> dict[str, Named]:
    """`types` with `recursive` set on each type that reaches itself."""
    edges = {name: set(_refs(named.type)) for name, named in types.items()}

    def reaches_itself(start: str) -> bool:
        stack, seen = list(edges[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                return True
            if name not in seen and name in edges:
                seen.add(name)
                stack.extend(edges[name])
        return False

    return {
        name: replace(named, recursive=True) if reaches_itself(name) else named
        for name, named in types.items()
    }


def _held(type_: Type) -> Iterator[str]:
    """The names `type_` holds in place: references not inside an array, a map or the rest of a
    tuple (those are behind an indirection in every language)."""
    if isinstance(type_, Ref):
        yield type_.name
    elif isinstance(type_, Nullable):
        yield from _held(type_.inner)
    elif isinstance(type_, Tuple):
        for item in type_.items:
            yield from _held(item)
    elif isinstance(type_, Record):
        for field_ in type_.fields:
            yield from _held(field_.type)
    elif isinstance(type_, (Union, Intersection)):
        for part in type_.branches if isinstance(type_, Union) else type_.parts:
            yield from _held(part)


def held_cycles(model: TypeModel) -> dict[str, frozenset[str]]:
    """Named type → the named types on a cycle with it where each holds the next in place (see
    `_held`), for the types on such a cycle. A value of such a type would contain itself in a
    language that lays values out inline (Rust, Go): a reference from one of them to another
    of its set needs an indirection there (a `Box`, a pointer). Through an array or a map
    (`Tree.children`) no type needs one."""
    edges = {
        name: [n for n in _held(named.type) if n in model.types]
        for name, named in model.types.items()
    }
    # Tarjan's strongly connected components, iteratively (a long chain of defs is no recursion).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: dict[str, frozenset[str]] = {}
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            name, position = work.pop()
            if position == 0:
                index[name] = low[name] = len(index)
                stack.append(name)
                on_stack.add(name)
            targets = edges[name]
            if position < len(targets):
                work.append((name, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[name] = min(low[name], index[target])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[name])
            if low[name] == index[name]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == name:
                        break
                if len(component) > 1 or name in edges[name]:
                    members = frozenset(component)
                    out.update(dict.fromkeys(component, members))
    return out
