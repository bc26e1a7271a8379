"""Go for the types of a spec set, printed from its type model.

Every named type of the model (`toolgen.build.typemodel`) becomes a Go type of the same name,
never narrower than its schema (where Go cannot say what the schema says, the value still has
a type, and the generated server checks the rest against the schema):

- scalars: `string`, `bool`, `float64`; an integer is an `int64`, a `uint64` when its bounds
  need one, else a `json.Number` (exact, whatever its size); only null is `Null`; any JSON
  value is a `json.RawMessage` (exact, and null apart from absent).
- records: structs with a field per member (`json:"name"` tags; `Field1st` for `1st`, the
  naming service's rule). A required member is its type; an optional one a pointer, or a
  slice, map or `json.RawMessage` as it is (nil: absent), or `Nullable[T]` when it may also be
  null; all `omitzero`, so absent stays absent and a present zero value is written. A closed
  record refuses members it has no field for; an open one keeps them in
  `AdditionalProperties`; a member name no struct tag can carry (`quote"d`) is read and
  written by name by the runtime.
- enums of one kind: a named type with a constant per value (`OrderStatusPaid`; none past
  `typemodel.LARGE_ENUM` values, which the server checks); other enums and literals of arrays
  or objects are `json.RawMessage`.
- unions: a struct whose `Value` holds one branch, a sealed interface (the branches are named
  types; a scalar or array branch gets one, `ExprNumber`); reading picks the branch by the
  discriminating member, else the first branch the value reads as, narrowest first
  (`TypeModel.reading_order`).
- tuples: a struct with a field per element (`Item1`...) and the rest (`Rest`), read and
  written as an array; arrays `[]T`; maps `map[string]T`; intersections of records one struct.

A value that would hold itself inline (a required member of its own type, through any number
of structs) holds it behind a pointer, so that every type has a finite size.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Final

from toolgen.build.naming import LANGUAGES, Names, numbered
from toolgen.build.typemodel import (
    LARGE_ENUM,
    AnyJson,
    Array,
    Doc,
    Enum,
    Field,
    Intersection,
    Literal,
    Map,
    Named,
    Nullable,
    Record,
    Ref,
    Scalar,
    Tuple,
    Type,
    TypeModel,
    Union,
    held_cycles,
)
from toolgen.schema.jsonequal import json_type

RAW: Final = "json.RawMessage"
NUMBER: Final = "json.Number"
NULL: Final = "Null"
INT64: Final = (-(2**63), 2**63 - 1)
UINT64_MAX: Final = 2**64 - 1
_SCALARS: Final = {"string": "string", "boolean": "bool", "number": "float64", "null": NULL}
_QUOTE_PAIR = re.compile(r"(?<=')(?=')|(?<=`)(?=`)")
_TAG_PUNCTUATION: Final = frozenset("!#$%&()*+-./:;<=>?@[]^_{|}~ ")
_GO = LANGUAGES["go"]

# What a Go type is like, for the choice of an optional member's type: a value, nil-able
# (slices and maps: nil is absent), raw (json.RawMessage: nil absent, null kept), a pointer
# (nil is null), or Null.
VALUE, NILABLE, RAW_SHAPE, POINTER, NULL_SHAPE = "value", "nil", "raw", "pointer", "null"


def go_string(text: str) -> str:
    """A Go interpreted string literal of `text` (a lone surrogate, which UTF-8 cannot hold,
    becomes U+FFFD)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def comment_lines(text: str) -> list[str]:
    """`text` as lines fit for a `//` comment that gofmt leaves as it is: each line trimmed
    (an indented line would be a code block), empty lines dropped (a lone line between blank
    ones would be a heading), two quotes or backquotes in a row kept apart (gofmt makes them
    typographic quotes), characters that are not printable spelled `\\uXXXX`."""
    lines = []
    for line in text.splitlines():
        shown = "".join(
            ch if ch.isprintable() else " " if ch == "\t" else f"\\u{ord(ch):04x}" for ch in line
        )
        shown = _QUOTE_PAIR.sub(" ", shown).strip()
        if shown:
            lines.append(shown)
    return lines


def comment(lines: list[str], indent: str = "") -> str:
    """A `//` comment of `lines` (each a line already fit, or `""` for a paragraph break)."""
    return "".join(f"{indent}//{' ' + line if line else ''}\n" for line in lines)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def taggable(name: str) -> bool:
    """Whether `encoding/json` reads member `name` from a struct tag: letters, digits and
    most punctuation, but no quote, backslash, comma or backtick (and `-` alone means no
    member)."""
    return name not in ("", "-") and all(
        ch in _TAG_PUNCTUATION or unicodedata.category(ch) in _TAG_CATEGORIES for ch in name
    )


_TAG_CATEGORIES: Final = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Nd"))


def int_type(low: int | None, high: int | None) -> str:
    """The Go type of an integer between `low` and `high` (None: unbounded)."""
    if (low is None or low >= INT64[0]) and (high is None or high <= INT64[1]):
        return "int64"
    if low is not None and low >= 0 and high is not None and high <= UINT64_MAX:
        return "uint64"
    return NUMBER


def literal_type(value: Any) -> str:
    """The Go type of a JSON value's kind."""
    kind = json_type(value)
    if kind == "integer":
        number = int(value)
        return int_type(number, number)
    return _SCALARS.get(kind, RAW)


def enum_type(values: tuple[Any, ...]) -> str:
    """The Go type holding every value of an enum: their kind's, else `json.RawMessage`."""
    kinds = {json_type(v) for v in values}
    if kinds == {"integer"}:
        return int_type(min(int(v) for v in values), max(int(v) for v in values))
    if kinds <= {"integer", "number"}:
        return "float64"
    if len(kinds) == 1 and (kind := kinds.pop()) in ("string", "boolean"):
        return _SCALARS[kind]
    return RAW


def go_value(value: Any, go: str) -> str:
    """A Go constant of `value` for a type of underlying type `go`."""
    if isinstance(value, str):
        return go_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if go in ("int64", "uint64"):
        return str(int(value))
    return repr(float(value))


@dataclass
class GoField:
    """A struct field: its identifier, Go type, JSON name, whether it may be absent, doc."""

    name: str
    go: str
    json: str
    optional: bool
    doc: list[str]


@dataclass
class Decl:
    """How one named type is declared: `kind` is record, object (read and written by the
    runtime), tuple, union, enum, defined (`type X T`) or alias (`type X = T`)."""

    kind: str
    go: str = ""
    fields: list[GoField] = field(default_factory=list)
    extra: str | None = None
    """An object's type of the members beyond its fields (None: it refuses them)."""
    required: int = 0
    rest: str | None = None
    """A tuple's count of required elements and the type of the elements past its fields."""
    branches: list[tuple[str, str, str, str]] = field(default_factory=list)
    """A union's branches: (tag, the Go type read, the expression holding it as a branch, the
    branch's type)."""
    discriminator: str | None = None
    constants: list[tuple[str, str]] = field(default_factory=list)


class GoTypes:
    """The Go declarations of one model's types (see the module docstring)."""

    def __init__(self, model: TypeModel) -> None:
        self.model = model
        self.names = Names(set(model.types) | set(_GO.types))
        """Every package-level name: the model's, the package's own, wrappers, constants."""
        self.decls: dict[str, Decl] = {}
        self.wrappers: dict[str, list[tuple[str, str]]] = {}
        """Union name → (wrapper name, its underlying Go type) for branches Go must name."""
        self.members: dict[str, list[str]] = {}
        """Type name → the types it holds a branch of (marker methods)."""
        for name, named in model.types.items():
            self.decls[name] = self._declare(name, named.type)
        self._break_cycles()
        for name in model.types:
            decl = self.decls[name]
            if decl.kind == "union":
                self._union(name, decl)
            elif decl.kind == "enum":
                self._constants(name, decl, model.types[name].type)

    # -- what a type is in Go ------------------------------------------------------------------

    def expr(self, type_: Type) -> str:
        """The Go type expression of `type_` (a named type by its name)."""
        match type_:
            case Ref(name):
                return name
            case Scalar(kind, low, high):
                return int_type(low, high) if kind == "integer" else _SCALARS[kind]
            case Literal(value):
                return literal_type(value)
            case Enum(values):
                return enum_type(values)
            case Array(items):
                return "[]" + self.expr(items)
            case Map(values):
                return "map[string]" + self.expr(values)
            case Nullable(inner):
                go = self.expr(inner)
                return go if self.shape(inner) != VALUE else "*" + go
            case Tuple(items, _, rest) if not items and rest is not None:
                return "[]" + self.expr(rest)
            case Tuple() | Record():
                return "[]json.RawMessage" if isinstance(type_, Tuple) else f"map[string]{RAW}"
        return RAW  # any value, never, and unions or intersections with no name

    def shape(self, type_: Type, seen: frozenset[str] = frozenset()) -> str:
        """What the Go type of `type_` is like (VALUE, NILABLE, RAW_SHAPE...)."""
        match type_:
            case Ref(name) if name not in seen:
                named = self.model.types[name].type
                if isinstance(named, (Record, Tuple, Union)):
                    return VALUE
                return self.shape(named, seen | {name})
            case Nullable(inner):
                shape = self.shape(inner, seen)
                return POINTER if shape == VALUE else shape
            case Intersection(parts):
                return RAW_SHAPE if self._intersection(parts) == RAW else VALUE
            case Array() | Map() | Tuple() | Record():
                return NILABLE
        go = self.expr(type_)
        return RAW_SHAPE if go == RAW else NULL_SHAPE if go == NULL else VALUE

    def member_type(self, type_: Type, required: bool) -> str:
        """The Go type of a member (or tuple element) of `type_`: see the module docstring."""
        if required:
            return self.expr(type_)
        nullable = self.model.resolve(type_)
        if isinstance(nullable, Nullable) and self.shape(nullable.inner) != RAW_SHAPE:
            return f"Nullable[{self.expr(nullable.inner)}]"
        shape = self.shape(type_)
        if shape == NULL_SHAPE:
            return f"Nullable[{NULL}]"
        return self.expr(type_) if shape in (NILABLE, RAW_SHAPE) else "*" + self.expr(type_)

    # -- declarations --------------------------------------------------------------------------

    def _declare(self, name: str, type_: Type) -> Decl:
        match type_:
            case Record(fields, extra):
                return self._record(fields, extra)
            case Intersection(parts):
                go = self._intersection(parts)
                if go != "struct":
                    return Decl("defined" if go != RAW else "alias", go)
                records = [self.model.resolve(part) for part in parts]
                closed = any(isinstance(p, Record) and p.extra is None for p in records)
                return self._record(self.model.members(type_), None if closed else AnyJson())
            case Tuple(items, required, rest):
                elements = [
                    GoField(
                        f"Item{i + 1}", self.member_type(item, i < required), "", i >= required, []
                    )
                    for i, item in enumerate(items)
                ]
                kept = None if rest is None else "[]" + self.expr(rest)
                return Decl("tuple", fields=elements, required=required, rest=kept)
            case Union(_, discriminator):
                return Decl("union", discriminator=discriminator)
            case Enum(values):
                go = enum_type(values)
                return Decl("enum", go) if go not in (RAW, NUMBER) else Decl("alias", go)
            case Array() | Map():
                return Decl("defined", self.expr(type_))
        go = self.expr(type_)
        alias = go in (RAW, NUMBER, NULL) or isinstance(type_, (Ref, Nullable))
        return Decl("alias" if alias else "defined", go)

    def _record(self, fields: tuple[Field, ...], extra: Type | None) -> Decl:
        methods = ["MarshalJSON", "UnmarshalJSON", *(["AdditionalProperties"] if extra else [])]
        idents = _GO.identifiers([f.json for f in fields], "field", taken=methods)
        members = [
            GoField(idents[f.json], self.member_type(f.type, f.required), f.json, not f.required,
                    field_doc(f))
            for f in fields
        ]  # fmt: skip
        tagged = extra is None and all(taggable(f.json) for f in fields)
        kept = None if extra is None else "map[string]" + self.expr(extra)
        return Decl("record" if tagged else "object", fields=members, extra=kept)

    def _intersection(self, parts: tuple[Type, ...]) -> str:
        """What an intersection is in Go: a struct (`struct`) when every part is an object
        type, the scalar every part is, else `json.RawMessage`."""
        resolved = [self.model.resolve(part) for part in parts]
        if all(isinstance(p, (Record, Intersection)) for p in resolved):
            return "struct"
        kinds = {self.expr(part) for part in parts}
        go = kinds.pop() if len(kinds) == 1 else RAW
        return go if go in ("string", "bool", "float64", "int64") else RAW

    def _break_cycles(self) -> None:
        """Hold behind a pointer each member that could hold its own struct inline (the
        model's `held_cycles`: some such members are behind an interface already)."""
        cycles = held_cycles(self.model)
        for name, cycle in cycles.items():
            for member in self.decls[name].fields:
                held = _held(member.go)
                if held in cycle:
                    member.go = member.go.replace(held, "*" + held, 1)

    def _union(self, name: str, decl: Decl) -> None:
        union = self.model.types[name].type
        assert isinstance(union, Union)
        # With tags, the discriminating member picks the branch; without, DecodeUnion takes
        # the first branch a value reads as, so the narrowest go first.
        branches = list(union.branches) if union.tags else self.model.reading_order(union.branches)
        tags = union.tags or ("",) * len(branches)
        unnamed = [branch for branch in branches if self._defined(branch) is None]
        if any(self.shape(branch) == POINTER for branch in unnamed):
            self.decls[name] = Decl("alias", RAW)  # a pointer type takes no methods
            return
        labels = numbered([
            branch.name if isinstance(branch, Ref) else _LABELS.get(self.expr(branch), "Value")
            for branch in unnamed
        ])  # fmt: skip
        marker = "is" + name
        wrappers: list[tuple[str, str]] = []
        seen: set[str] = set()
        for tag, branch in zip(tags, branches, strict=True):
            target = self._defined(branch)
            if target is None:
                go = self.expr(branch)
                label = labels[len(wrappers)]
                wrapper = self.names.claim([name + label], f"{name}:{len(wrappers)}")
                wrappers.append((wrapper, go))
                decl.branches.append((tag, go, f"{wrapper}(b)", wrapper))
            elif target not in seen:
                seen.add(target)
                self.members.setdefault(target, []).append(marker)
                decl.branches.append((tag, target, "b", target))
        self.wrappers[name] = wrappers

    def _defined(self, type_: Type) -> str | None:
        """The type defined in the package that `type_` names, following aliases (None: it
        is not one, so a union's branch of it needs a type of its own)."""
        seen: set[str] = set()
        while isinstance(type_, Ref) and type_.name not in seen:
            seen.add(type_.name)
            decl = self.decls[type_.name]
            if decl.kind != "alias":
                return type_.name
            type_ = self.model.types[type_.name].type
        return None

    def _constants(self, name: str, decl: Decl, type_: Type) -> None:
        assert isinstance(type_, Enum)
        if len(type_.values) > LARGE_ENUM:
            return
        sources = [v if isinstance(v, str) else json.dumps(v) for v in type_.values]
        variants = _GO.identifiers(sources, "variant")
        if any(name + variant in self.names.taken for variant in variants.values()):
            taken = {other[len(name) :] for other in self.names.taken if other.startswith(name)}
            variants = _GO.identifiers(sources, "variant", taken=taken)
        for value, source in zip(type_.values, sources, strict=True):
            constant = name + variants[source]
            self.names.taken.add(constant)
            decl.constants.append((constant, go_value(value, decl.go)))

    # -- text ----------------------------------------------------------------------------------

    def declarations(self) -> str:
        """Every named type, in the model's order, with its methods."""
        return "".join(self.declaration(named) for named in self.model.types.values())

    def declaration(self, named: Named) -> str:
        name, decl = named.name, self.decls[named.name]
        doc = comment(self.type_doc(named))
        match decl.kind:
            case "record" | "object":
                text = doc + self._struct(name, decl)
            case "tuple":
                text = doc + self._tuple(name, decl)
            case "union":
                text = doc + self._union_text(name, decl)
            case "enum":
                text = doc + f"type {name} {decl.go}\n"
                if decl.constants:
                    width = max(len(constant) for constant, _ in decl.constants)
                    values = "".join(
                        f"\t{constant.ljust(width)} {name} = {value}\n"
                        for constant, value in decl.constants
                    )
                    text += f"\n// The values of {name}.\nconst (\n{values})\n"
            case "alias":
                text = doc + f"type {name} = {decl.go}\n"
            case _:
                text = doc + f"type {name} {decl.go}\n"
        for marker in self.members.get(name, []):
            text += "\n" + function(f"func ({name}) {marker}()", "", "") + "\n"
        return text + "\n"

    def type_doc(self, named: Named) -> list[str]:
        """The doc comment of a named type: `Name: ...` and what its schema says."""
        lines = doc_lines(named.doc)
        if not lines:
            return []
        return [f"{named.name}: {lines[0]}", *lines[1:]]

    def _struct(self, name: str, decl: Decl) -> str:
        members = list(decl.fields)
        if decl.extra is not None:
            members.append(
                GoField("AdditionalProperties", decl.extra, "", False,
                        ["AdditionalProperties holds the members beyond the declared ones."])
            )  # fmt: skip
        tags = decl.kind == "record"
        body = struct_body(members, tags)
        text = f"type {name} struct {{{body}}}\n" if body else f"type {name} struct{{}}\n"
        if tags:
            return text + (
                f"\n// UnmarshalJSON refuses members {name} has no field for.\n"
                f"func (v *{name}) UnmarshalJSON(data []byte) error {{\n"
                f"\ttype plain {name}\n\treturn toolgen.DecodeClosed(data, (*plain)(v))\n}}\n"
            )
        extra = "v.AdditionalProperties" if decl.extra is not None else "nil"
        into = "&v.AdditionalProperties" if decl.extra is not None else "nil"
        outs = "".join(
            f"\t\ttoolgen.Out({go_string(m.json)}, v.{m.name}, {'true' if m.optional else 'false'}),\n"
            for m in decl.fields
        )
        ins = "".join(f"\t\ttoolgen.In({go_string(m.json)}, &v.{m.name}),\n" for m in decl.fields)
        writes, reads = (
            ("the declared members, then AdditionalProperties",
             "the declared members, and the others into AdditionalProperties")
            if decl.extra is not None
            else ("the members by their JSON names", "the members by their JSON names, refusing others")
        )  # fmt: skip
        return text + (
            f"\n// MarshalJSON writes {writes}.\n"
            f"func (v {name}) MarshalJSON() ([]byte, error) {{\n"
            f"\treturn toolgen.EncodeObject({extra},\n{outs}\t)\n}}\n"
            f"\n// UnmarshalJSON reads {reads}.\n"
            f"func (v *{name}) UnmarshalJSON(data []byte) error {{\n"
            f"\treturn toolgen.DecodeObject(data, {into},\n{ins}\t)\n}}\n"
        )

    def _tuple(self, name: str, decl: Decl) -> str:
        members = list(decl.fields)
        if decl.rest is not None:
            members.append(
                GoField("Rest", decl.rest, "", True, ["Rest holds the elements past the others."])
            )
        body = struct_body(members, tags=False)
        text = f"type {name} struct {{{body}}}\n" if body else f"type {name} struct{{}}\n"
        rest = ("v.Rest", "&v.Rest") if decl.rest is not None else ("nil", "nil")
        items = "".join(f", v.{m.name}" for m in decl.fields)
        into = "".join(f", &v.{m.name}" for m in decl.fields)
        return text + (
            f"\n// MarshalJSON writes the tuple as an array.\n"
            f"func (v {name}) MarshalJSON() ([]byte, error) {{\n"
            f"\treturn toolgen.EncodeTuple({decl.required}, {rest[0]}{items})\n}}\n"
            f"\n// UnmarshalJSON reads the tuple from an array.\n"
            f"func (v *{name}) UnmarshalJSON(data []byte) error {{\n"
            f"\treturn toolgen.DecodeTuple(data, {decl.required}, {rest[1]}{into})\n}}\n"
        )

    def _union_text(self, name: str, decl: Decl) -> str:
        marker = "is" + name
        branches = [branch for *_, branch in decl.branches]
        how = f", by the member {go_string(decl.discriminator)}" if decl.discriminator else ""
        text = (
            f"type {name} struct {{\n"
            f"\t// Value is one of {_listed(branches)}{how}.\n"
            f"\tValue {marker}\n}}\n"
            f"\n// {marker} is a branch of {name}.\n"
            f"type {marker} interface{{ {marker}() }}\n"
        )
        for wrapper, go in self.wrappers.get(name, []):
            text += f"\n// {wrapper} is a branch of {name}.\ntype {wrapper} {go}\n"
            text += "\n" + function(f"func ({wrapper}) {marker}()", "", "") + "\n"
            if go in (RAW, NUMBER, NULL):  # a defined type loses the methods of these
                text += (
                    f"\n// MarshalJSON writes the value as a {go}.\n"
                    f"func (v {wrapper}) MarshalJSON() ([]byte, error) {{\n"
                    f"\treturn toolgen.Encode({go}(v))\n}}\n"
                )
        reading = (
            f"the branch the member {go_string(decl.discriminator)} names"
            if decl.discriminator
            else "the first branch the value reads as"
        )
        tag = go_string(decl.discriminator or "")
        choices = "".join(
            f"\t\ttoolgen.BranchOf({go_string(branch_tag)}, "
            + function(f"func(b {go}) {marker}", f"return {hold}", "\t\t")
            + "),\n"
            for branch_tag, go, hold, _ in decl.branches
        )
        return text + (
            f"\n// MarshalJSON writes the branch Value holds.\n"
            f"func (v {name}) MarshalJSON() ([]byte, error) {{\n"
            f"\treturn toolgen.EncodeUnion(v.Value)\n}}\n"
            f"\n// UnmarshalJSON reads {reading}.\n"
            f"func (v *{name}) UnmarshalJSON(data []byte) error {{\n"
            f"\treturn toolgen.DecodeUnion(data, &v.Value, {tag},\n{choices}\t)\n}}\n"
        )


_LABELS: Final = {
    "string": "String", "bool": "Boolean", "int64": "Integer", "uint64": "Integer",
    "float64": "Number", NUMBER: "Integer", NULL: "Null", RAW: "Value",
}  # fmt: skip
"""A union's branch without a name of its own → the word its wrapper's name ends with."""


def function(header: str, body: str, indent: str) -> str:
    """A function of one statement (or none) as gofmt writes it: on one line when its header
    and body are at most 100 characters together (a declaration's header counts one more),
    else the body on a line of its own."""
    size = len(header) + len(body) + (0 if header.startswith("func(") else 1)
    if size <= ONE_LINE:
        return f"{header} {{ {body} }}" if body else f"{header} {{}}"
    inside = f"{indent}\t{body}\n" if body else ""
    return f"{header} {{\n{inside}{indent}}}"


ONE_LINE: Final = 100
"""gofmt keeps a function on one line up to this size of its header and body (go/printer)."""


def _held(go: str) -> str:
    """The named type a member of Go type `go` holds inline (`Tree`, `Nullable[Tree]`), or ""."""
    found = re.fullmatch(r"(?:Nullable\[)?([A-Z]\w*)\]?", go)
    return found[1] if found and found[1] != NULL else ""


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)


def doc_lines(doc: Doc) -> list[str]:
    """What a doc comment says of a schema: its description (each line fit for a comment),
    the constraints checked at run time, its default."""
    lines = comment_lines(doc.description or "")
    if doc.checked:
        lines += comment_lines(f"Checked at run time: {', '.join(doc.checked)}.")
    if doc.has_default:
        lines += comment_lines(f"Default: {compact(doc.default)}.")
    return lines


def field_doc(member: Field) -> list[str]:
    """A member's doc comment: its schema's, the value of a literal, and a deprecation."""
    lines = doc_lines(member.doc)
    if isinstance(member.type, Literal):
        lines += comment_lines(f"Always {compact(member.type.value)}.")
    if member.doc.deprecated:
        lines += [*([""] if lines else []), "Deprecated: the spec marks this member deprecated."]
    return lines


def struct_body(members: list[GoField], tags: bool) -> str:
    """The fields of a struct, laid out as gofmt lays them out: names (and types, when tags
    follow) aligned within each run of fields that no comment interrupts."""
    if not members:
        return ""
    runs: list[list[GoField]] = []
    for member in members:
        if member.doc or not runs:
            runs.append([])
        runs[-1].append(member)
    lines = []
    for run in runs:
        names = max(len(m.name) for m in run)
        types = max(len(m.go) for m in run)
        for m in run:
            lines.append(comment(m.doc, "\t"))
            if tags:
                tag = f'`json:"{m.json}{",omitzero" if m.optional else ""}"`'
                lines.append(f"\t{m.name.ljust(names)} {m.go.ljust(types)} {tag}\n")
            else:
                lines.append(f"\t{m.name.ljust(names)} {m.go}\n")
    return "\n" + "".join(lines)
