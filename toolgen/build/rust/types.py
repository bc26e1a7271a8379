"""Rust for the types of a spec set, printed from its type model.

Every named type of the model (`toolgen.build.typemodel`) becomes a Rust item deriving
`Debug, Clone, PartialEq, Serialize, Deserialize`, exact where Rust can say it and never
narrower than the schema where it cannot:

- scalars: `String`, `bool`, `f64`, `()` for null; an integer is `i64`, or the narrowest of
  `u64`, `i128`, `u128` its bounds need (`serde_json::Number` past those); any JSON value is
  `Value`; a `const` is the type of its value (the value is checked at run time).
- records are structs: members in snake case with the JSON name kept by `rename`; optional
  members `Option<T>` skipped when absent; an optional nullable member `Option<Option<T>>`
  (`Some(None)` is an explicit null); a closed record denies unknown members, an open one
  keeps them in a flattened map; a map is a `BTreeMap<String, T>`.
- string enums are enums with `rename`d variants (other enums are `Value`); a union whose
  records each pin one member to their own string is an internally tagged enum (`tag`),
  others are `untagged` with the branches in `TypeModel.reading_order`, narrowest first,
  since serde takes the first that reads a value (exact values before integers before
  numbers before strings, closed records before open ones); a `prefixItems` tuple is a
  tuple struct (optional trailing elements and the rest read by the runtime's `Elements`);
  an intersection of records is one struct.
- a reference that closes a cycle of types holding one another in place is boxed.

What a type cannot carry (bounds, lengths, `pattern`, `not`, `if`...) is checked at run time
against the schema and named in the doc comment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolgen.build.naming import LANGUAGES, numbered
from toolgen.build.rust.layout import (
    INDENT,
    TypeText,
    attribute,
    doc_comment,
    flat,
    generic,
    listed,
    member,
    opening,
    rust_string,
)
from toolgen.build.typemodel import (
    AnyJson,
    Array,
    Doc,
    Enum,
    Field,
    Intersection,
    Literal,
    Map,
    Named,
    Never,
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

RUST: Final = LANGUAGES["rust"]
DERIVE: Final = "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n"
VALUE: Final = "Value"
"""`serde_json::Value`, imported by the crate when a type uses it."""
MAP: Final = "BTreeMap"
"""`std::collections::BTreeMap`, imported likewise."""
SERDE: Final = "serde"
"""`serde::{Deserialize, Serialize}`, imported likewise."""
SKIP: Final = 'serde(default, skip_serializing_if = "Option::is_none")'
PRESENT: Final = 'serde(deserialize_with = "runtime::present")'
_I64: Final = (-(2**63), 2**63 - 1)
_U64: Final = (0, 2**64 - 1)
_I128: Final = (-(2**127), 2**127 - 1)
_U128: Final = (0, 2**128 - 1)
_SCALARS: Final = {"string": "String", "number": "f64", "boolean": "bool", "null": "()"}
_LABELS: Final = {"string": "String", "number": "Number", "integer": "Integer", "boolean": "Bool"}


def integer(low: int | None, high: int | None) -> str:
    """The Rust integer holding every value in `[low, high]` (unbounded: `i64`, which refuses
    a value past 64 bits rather than truncating it)."""
    if (low is None or low >= _I64[0]) and (high is None or high <= _I64[1]):
        return "i64"
    if low is None or high is None:
        return "serde_json::Number"
    for name, (least, most) in (("u64", _U64), ("i128", _I128), ("u128", _U128)):
        if least <= low and high <= most:
            return name
    return "serde_json::Number"


@dataclass(frozen=True)
class Printed:
    """The Rust of a model's types and what it needs imported."""

    text: str
    uses: frozenset[str]
    """`Value`, `BTreeMap`, `serde`: the imports the text needs."""


def only_null(model: TypeModel, type_: Type) -> bool:
    """Whether `null` is the one value of `type_`: Rust's `()`."""
    return model.resolve(type_) in (Scalar("null"), Literal(None))


def declarations(model: TypeModel) -> Printed:
    """Every named type of `model`, in the model's order."""
    writer = TypeWriter(model)
    text = "".join(writer.declaration(named) for named in model.types.values())
    return Printed(text, frozenset(writer.uses))


def doc_lines(doc: Doc, type_: Type) -> list[str]:
    """The doc comment of a type or member: its description, what only the run-time check
    enforces, and its default."""
    lines = [doc.description] if doc.description else []
    checked = list(doc.checked)
    plain = type_.inner if isinstance(type_, Nullable) else type_
    if isinstance(plain, Literal):
        checked.insert(0, f"always {_compact(plain.value)}")
    elif isinstance(plain, Enum) and not plain.strings:
        checked.insert(0, "one of " + ", ".join(_compact(v) for v in plain.values))
    notes = []
    if checked:
        notes.append(f"Checked at run time: {', '.join(checked)}.")
    if doc.has_default:
        notes.append(f"Default when absent: `{_compact(doc.default)}`.")
    if doc.deprecated:
        notes.append("Deprecated.")
    if notes:
        lines += ([""] if lines else []) + [" ".join(notes)]
    return lines


class TypeWriter:
    """Rust items and type expressions for the types of one model."""

    def __init__(self, model: TypeModel) -> None:
        self.model = model
        self.cycles = held_cycles(model)
        self.uses: set[str] = set()

    # -- items -------------------------------------------------------------------------------

    def declaration(self, named: Named) -> str:
        type_ = named.type
        doc = doc_comment(doc_lines(named.doc, type_), "")
        match type_:
            case Record(fields, extra):
                item = self._struct(named.name, fields, extra)
            case Enum(values) if type_.strings:
                item = self._enum(named.name, values)
            case Union() if type_.discriminator is not None:
                item = self._tagged(named.name, type_)
            case Union(branches):
                item = self._untagged(named.name, branches)
            case Tuple():
                item = self._tuple(named.name, type_)
            case Intersection() if self._records(type_):
                item = self._intersection(named.name, type_)
            case _:
                text = self.expression(type_, named.name)
                return doc + member(f"pub type {named.name} =", text, "", ";") + "\n"
        self.uses.add(SERDE)  # every item but an alias derives or implements serde's traits
        return doc + item

    def _struct(self, name: str, fields: Sequence[Field], extra: Type | None) -> str:
        head = DERIVE + ("#[serde(deny_unknown_fields)]\n" if extra is None else "")
        body = self._fields(name, fields, extra, INDENT, public=True)
        if not body:
            return f"{head}pub struct {name} {{}}\n\n"
        return f"{head}{opening(f'pub struct {name}')}{body}}}\n\n"

    def _fields(
        self,
        owner: str,
        fields: Sequence[Field],
        extra: Type | None,
        indent: str,
        *,
        public: bool,
        skip: str = "",
    ) -> str:
        """The members of a struct (or struct variant) `owner`, without the one named `skip`."""
        fields = [f for f in fields if f.json != skip]
        names = RUST.identifiers([f.json for f in fields], "field")
        visibility = "pub " if public else ""
        out = []
        for field_ in fields:
            ident = names[field_.json]
            type_ = self.expression(field_.type, owner)
            text = doc_comment(doc_lines(field_.doc, field_.type), indent)
            if ident != field_.json:
                text += attribute("serde", [f"rename = {rust_string(field_.json)}"], indent)
            if not field_.required:
                text += indent + f"#[{SKIP}]\n"
                if self._holds_null(field_.type):
                    text += indent + f"#[{PRESENT}]\n"
                type_ = generic("Option", type_)
            out.append(text + member(f"{visibility}{ident}:", type_, indent, ","))
        if extra is not None:
            [ident] = RUST.identifiers(["extra"], "field", taken=names.values()).values()
            self.uses.add(MAP)
            values = generic(MAP, "String", self.expression(extra, owner))
            text = doc_comment(["The members beyond those declared."], indent)
            text += indent + "#[serde(flatten)]\n"
            out.append(text + member(f"{visibility}{ident}:", values, indent, ","))
        return "".join(out)

    def _holds_null(self, type_: Type) -> bool:
        """Whether `null` is a value of `type_` (an optional member of it then tells an
        explicit `null` from an absent member)."""
        type_ = self.model.resolve(type_)
        return isinstance(type_, (Nullable, AnyJson)) or only_null(self.model, type_)

    def _enum(self, name: str, values: Sequence[Any]) -> str:
        variants = RUST.identifiers([str(v) for v in values], "variant")
        out = [DERIVE, opening(f"pub enum {name}")]
        for value in values:
            out.append(attribute("serde", [f"rename = {rust_string(value)}"], INDENT))
            out.append(f"{INDENT}{variants[value]},\n")
        return "".join(out) + "}\n\n"

    def _tagged(self, name: str, union: Union) -> str:
        """Records each pinning the discriminator to their own string: an internally tagged
        enum of struct variants (the tag is not a member of the variants)."""
        assert union.discriminator is not None
        records = [self._record(branch) for branch in union.branches]
        closed = all(record.extra is None for _, record in records)
        variants = RUST.identifiers(union.tags, "variant")
        tag = [f"tag = {rust_string(union.discriminator)}"]
        out = [DERIVE, attribute("serde", [*tag, "deny_unknown_fields"] if closed else tag, "")]
        out.append(opening(f"pub enum {name}"))
        for tag_value, (owner, record) in zip(union.tags, records, strict=True):
            out.append(attribute("serde", [f"rename = {rust_string(tag_value)}"], INDENT))
            extra = None if closed else record.extra
            body = self._fields(
                owner, record.fields, extra, INDENT * 2, public=False, skip=union.discriminator
            )
            variant = variants[tag_value]
            out.append(
                f"{INDENT}{variant} {{\n{body}{INDENT}}},\n"
                if body
                else f"{INDENT}{variant} {{}},\n"
            )
        return "".join(out) + "}\n\n"

    def _record(self, type_: Type) -> tuple[str, Record]:
        """The record a branch is and the name of the type holding its members."""
        assert isinstance(type_, Ref)
        resolved = self.model.resolve(type_)
        assert isinstance(resolved, Record)
        return type_.name, resolved

    def _untagged(self, name: str, branches: Sequence[Type]) -> str:
        ordered = self.model.reading_order(branches)  # serde takes the first that reads
        labels = numbered([self._label(branch, name) for branch in ordered])
        variants = RUST.identifiers(labels, "variant")
        out = [DERIVE, "#[serde(untagged)]\n", opening(f"pub enum {name}")]
        for label, branch in zip(labels, ordered, strict=True):
            type_ = flat(self.expression(branch, name))
            out.append(listed(variants[label], [type_], ",", INDENT))
        return "".join(out) + "}\n\n"

    def _label(self, branch: Type, owner: str) -> str:
        match branch:
            case Ref(name):
                return name.removeprefix(owner) or name
            case Scalar(kind):
                return _LABELS.get(kind, kind)
            case Nullable(inner):
                return "Nullable" + self._label(inner, owner)
        return type(branch).__name__

    def _tuple(self, name: str, tuple_: Tuple) -> str:
        elements = [flat(self.expression(item, name)) for item in tuple_.items]
        optional = [f"Option<{e}>" for e in elements[tuple_.required :]]
        fields = elements[: tuple_.required] + optional
        if tuple_.rest is not None:
            fields.append(f"Vec<{flat(self.expression(tuple_.rest, name))}>")
        exact = tuple_.required == len(tuple_.items) and tuple_.rest is None
        head = DERIVE if exact else "#[derive(Debug, Clone, PartialEq)]\n"
        fields = [f"pub {f}" for f in fields]
        text = head + listed(f"pub struct {name}", fields, ";", "", call=True) + "\n"
        if exact:
            return text
        reads = ["items.next()?"] * tuple_.required + ["items.optional()?"] * len(optional)
        writes = [f"items.push(&self.{i});" for i in range(tuple_.required)]
        writes += [
            f"items.push_some(self.{i}.as_ref());" for i in range(tuple_.required, len(elements))
        ]
        if tuple_.rest is not None:
            reads.append("items.rest()?")
            writes.append(f"items.extend(&self.{len(elements)});")
        return text + _TUPLE_IMPLS.format(
            serialize=opening(f"impl Serialize for {name}"),
            deserialize=opening(f"impl<'de> Deserialize<'de> for {name}"),
            read=listed("let value = Self", reads, ";", INDENT * 2, call=True),
            writes="".join(f"{INDENT * 2}{w}\n" for w in writes),
        )

    def _records(self, intersection: Intersection) -> list[Record]:
        found = [self.model.resolve(part) for part in intersection.parts]
        return [r for r in found if isinstance(r, Record)]

    def _intersection(self, name: str, intersection: Intersection) -> str:
        records = self._records(intersection)
        fields = self.model.members(intersection)
        closed = any(record.extra is None for record in records)
        extra = None if closed else next(r.extra for r in records if r.extra is not None)
        return self._struct(name, fields, extra)

    # -- type expressions -------------------------------------------------------------------

    def expression(self, type_: Type, owner: str) -> TypeText:
        """The Rust of `type_` used in the named type `owner` (a reference back into the cycle
        `owner` is on is boxed)."""
        match type_:
            case AnyJson():
                self.uses.add(VALUE)
                return VALUE
            case Never():
                return "runtime::Never"
            case Scalar("integer", low, high):
                return integer(low, high)
            case Scalar(kind):
                return _SCALARS[kind]
            case Literal(value):
                return self._literal(value)
            case Enum():
                self.uses.add(VALUE)
                return VALUE  # a named string enum is a Ref; other enums are any value
            case Ref(name):
                return generic("Box", name) if name in self.cycles.get(owner, ()) else name
            case Nullable(inner):
                return generic("Option", self.expression(inner, owner))
            case Array(items):
                return generic("Vec", self.expression(items, owner))
            case Map(values):
                self.uses.add(MAP)
                return generic(MAP, "String", self.expression(values, owner))
            case Tuple(items, required, rest) if required == len(items) and rest is None:
                return (
                    "[(); 0]"
                    if not items
                    else generic("", *(self.expression(i, owner) for i in items))
                )
            case Union(branches) | Intersection(branches):
                # named where they are used (`typemodel` hoists them): only parts of another
                # intersection reach here; the first part is a type every value has
                return self.expression(branches[0], owner)
        self.uses.add(VALUE)
        return VALUE

    def _literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int):
            return integer(value, value)
        if isinstance(value, float):
            return "f64"
        if isinstance(value, str):
            return "String"
        if value is None:
            return "()"
        self.uses.add(VALUE)
        return VALUE


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


_TUPLE_IMPLS: Final = """\
{serialize}    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{
        let mut items = runtime::Sequence::default();
{writes}        items.serialize(serializer)
    }}
}}

{deserialize}    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{
        let mut items = runtime::Elements::read(deserializer)?;
{read}        items.end()?;
        Ok(value)
    }}
}}

"""
