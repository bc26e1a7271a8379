"""TypeScript for the types of a spec set, printed from its type model.

Every named type of the model (`toolgen.build.typemodel`) becomes `export type Name = ...;`,
exact where TypeScript can say it and never narrower than the schema where it cannot:

- scalars: `string`, `number` (also for integers: TypeScript has one number type, so
  "integer" is named among the run-time checks), `boolean`, `null`; any JSON value is
  `JsonValue`; literals and enums are literal types (an enum of more than `typemodel.LARGE_ENUM`
  strings is a `string`, which keeps the compiler fast).
- records: required members are required, the others optional (`?`), named exactly as in
  the JSON (quoted when not an identifier); an open record has an index signature
  (`[key: string]: unknown`, or the union of what extra and declared members may hold); a
  closed one without members is `Record<string, never>`; a map is `{ [key: string]: T }`.
- arrays `T[]`; tuples `[A, B?, ...T[]]` (elements past the required count optional);
  unions `A | B`; intersections `A & B`; nullable types `T | null`.

What a type cannot carry (bounds, lengths, `pattern`, `not`, `if`/`then`/`else`...) is
checked at run time by the validator and named in the doc comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Final

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
)

JSON_VALUE: Final = "JsonValue"
"""The runtime's type of any JSON value (`runtime.ts`)."""
NEVER: Final = "never"

UNION, INTERSECTION, PRIMARY = 0, 1, 2
"""Precedence of a type expression: `A | B` binds loosest, `A & B` tighter, `T[]` tightest."""
Typed = tuple[str, int]

INHERITED: Final = frozenset(
    {
        "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
        "toLocaleString", "toString", "valueOf",
    }
)  # fmt: skip
"""The members every object has (`Object.prototype`'s, as TypeScript's `Object` declares them)."""
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_UNSAFE = re.compile("[\u2028\u2029\ud800-\udfff]")
_SCALARS: Final = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "boolean": "boolean",
    "null": "null",
}


def ts_string(text: str) -> str:
    """A TypeScript string literal for `text`: JSON's escapes, plus `\\u` escapes for line
    separators and lone surrogates (no spec text can end the literal or the file's UTF-8)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


def member_name(name: str) -> str:
    """A property name as a TypeScript member name: bare when an identifier, else quoted."""
    return name if _IDENTIFIER.match(name) else ts_string(name)


def doc_comment(lines: list[str], indent: str) -> str:
    """A `/** ... */` block (empty when there are no lines); `*/` in the text is broken up."""
    text = [line.replace("*/", "*\\/") for part in lines for line in part.splitlines()]
    text = [line.rstrip() for line in text]
    while text and not text[-1]:
        text.pop()
    if not text:
        return ""
    if len(text) == 1:
        return f"{indent}/** {text[0]} */\n"
    body = "".join(f"{indent} *{' ' + line if line else ''}\n" for line in text)
    return f"{indent}/**\n{body}{indent} */\n"


def doc_lines(doc: Doc, type_: Type) -> list[str]:
    """A doc comment's lines: the description, the run-time checks (with "integer", which a
    TypeScript `number` does not say), and the default as a block tag, last."""
    checked = (["integer"] if _is_integer(type_) else []) + list(doc.checked)
    lines = [doc.description] if doc.description else []
    if checked:
        lines.append(f"Checked at run time: {', '.join(checked)}.")
    if doc.has_default:
        lines.append(f"@default {_compact(doc.default)}")
    return lines


def declarations(model: TypeModel) -> str:
    """`export type ...;` for every named type of `model`, in the model's order."""
    return "".join(declaration(model, named) for named in model.types.values())


def declaration(model: TypeModel, named: Named) -> str:
    """One named type as an exported alias, documented."""
    text = TypeWriter(model).write(named.type)
    return (
        doc_comment(doc_lines(named.doc, named.type), "")
        + f"export type {named.name} = {text};\n\n"
    )


def uses_json_value(model: TypeModel) -> bool:
    """Whether the declarations of `model` name `JsonValue`."""
    return JSON_VALUE in declarations(model)


class TypeWriter:
    """Type expressions for the types of one model."""

    def __init__(self, model: TypeModel) -> None:
        self.model = model

    def write(self, type_: Type, indent: str = "") -> str:
        """The TypeScript of `type_`, laid out from column `indent`."""
        return self._type(type_, indent)[0]

    def _type(self, type_: Type, indent: str) -> Typed:
        match type_:
            case AnyJson():
                return JSON_VALUE, PRIMARY
            case Never():
                return NEVER, PRIMARY
            case Scalar(kind):
                return _SCALARS[kind], PRIMARY
            case Literal(value):
                return literal(value), PRIMARY
            case Enum(values):
                return _enum(values)
            case Ref(name):
                return name, PRIMARY
            case Nullable(inner):
                return _union([self._type(inner, indent), ("null", PRIMARY)])
            case Array(items):
                return _array_of(self._type(items, indent)), PRIMARY
            case Tuple(items, required, rest):
                elements = [
                    self._type(item, indent)[0] + ("" if i < required else "?")
                    for i, item in enumerate(items)
                ]
                if rest is not None:
                    elements.append("..." + _array_of(self._type(rest, indent)))
                return f"[{', '.join(elements)}]", PRIMARY
            case Map(value):
                pad = indent + "  "
                return (
                    f"{{\n{pad}[key: string]: {self._extra(value, pad)};\n{indent}}}",
                    PRIMARY,
                )
            case Record(fields, extra):
                return self._record(fields, extra, indent), PRIMARY
            case Union(branches):
                return _union(self._type(branch, indent) for branch in branches)
            case Intersection(parts):
                return _intersection([self._type(part, indent) for part in parts])
        raise TypeError(f"not a type: {type_!r}")

    def _record(self, fields: tuple[Field, ...], extra: Type | None, indent: str) -> str:
        inner = indent + "  "
        members = []
        types = []
        for member in fields:
            typed = self._type(member.type, inner)[0]
            types.append(typed)
            mark = "" if member.required else "?"
            if not member.required and member.json in INHERITED:
                # `{}` has this member already (every object inherits it): the type admits
                # the inherited one too, or an object without the property would not fit
                typed = _union([(typed, UNION), (f'Object["{member.json}"]', PRIMARY)])[0]
            members.append(
                doc_comment(doc_lines(member.doc, member.type), inner)
                + f"{inner}{member_name(member.json)}{mark}: {typed};\n"
            )
        if extra is not None:
            index = self._extra(extra, inner)
            if index != "unknown" and types:  # the declared members are keys too
                optional = [] if all(m.required for m in fields) else ["undefined"]
                index = _union((t, UNION) for t in [index, *types, *optional])[0]
            members.append(f"{inner}[key: string]: {index};\n")
        if not members:
            return "Record<string, never>"
        return "{\n" + "".join(members) + indent + "}"

    def _extra(self, type_: Type, indent: str) -> str:
        """The type of an index signature: `unknown` for any JSON value (an optional member's
        `undefined` must fit it too)."""
        typed = self._type(type_, indent)[0]
        return "unknown" if typed == JSON_VALUE else typed


def literal(value: Any) -> str:
    """The TypeScript literal type of a JSON value."""
    if isinstance(value, str):
        return ts_string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        members = "; ".join(f"{member_name(str(k))}: {literal(v)}" for k, v in value.items())
        return "{ " + members + " }" if members else "Record<string, never>"
    return JSON_VALUE


def _enum(values: tuple[Any, ...]) -> Typed:
    if Enum(values).large:
        rest = [literal(v) for v in values if not isinstance(v, str)]
        return _union((t, PRIMARY) for t in ["string", *rest])
    return _union((literal(v), PRIMARY) for v in values)


def _is_integer(type_: Type) -> bool:
    while isinstance(type_, Nullable):
        type_ = type_.inner
    return isinstance(type_, Scalar) and type_.kind == "integer"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _array_of(element: Typed) -> str:
    text, precedence = element
    return f"{text}[]" if precedence == PRIMARY else f"({text})[]"


def _union(parts: Iterable[Typed]) -> Typed:
    """`A | B`: `JsonValue` absorbs everything, `never` nothing; duplicates go."""
    unique: dict[str, int] = {}
    for text, precedence in parts:
        unique.setdefault(text, precedence)
    if JSON_VALUE in unique:
        return JSON_VALUE, PRIMARY
    unique.pop(NEVER, None)
    if not unique:
        return NEVER, PRIMARY
    if len(unique) == 1:
        return next(iter(unique.items()))
    return " | ".join(unique), UNION


def _intersection(parts: list[Typed]) -> Typed:
    """`A & B`: `JsonValue` (anything) adds nothing, `never` wins; duplicates go."""
    kept: dict[str, int] = {}
    for text, precedence in parts:
        if text == NEVER:
            return NEVER, PRIMARY
        if text != JSON_VALUE:
            kept.setdefault(text, precedence)
    if not kept:
        return JSON_VALUE, PRIMARY
    if len(kept) == 1:
        return next(iter(kept.items()))
    return " & ".join(t if p >= INTERSECTION else f"({t})" for t, p in kept.items()), INTERSECTION
