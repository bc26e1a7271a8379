"""TypeScript types for the JSON Schemas of a spec set, read from toolgen's IR.

One type expression per schema, exact where TypeScript can say it and never narrower
than the schema where it cannot (a value the schema accepts always type-checks):

- `type` → `string`, `number` (also for `integer`: TypeScript has one number type),
  `boolean`, `null`, arrays, objects; a list of types is their union.
- Objects: required properties are required members, the others optional (`?`), named
  exactly as in the JSON (quoted when not an identifier). An object that allows other
  properties has an index signature (`[key: string]: unknown`, or the union of the types
  extra and declared properties may take); `additionalProperties: false` (or
  `unevaluatedProperties: false`) closes it. A closed object without properties is
  `Record<string, never>`.
- Arrays: `T[]`; `prefixItems` a tuple (`[A, B?, ...T[]]`: elements past `minItems` are
  optional, the rest typed by `items`, none when `items: false`).
- `enum` and `const` are literal types (an enum of more than `LARGE_ENUM` strings is a
  `string`, as in the Python models); `anyOf`/`oneOf` unions, `allOf` intersections.
- `$ref` to a def is the def's named type (recursive defs are recursive types).
- A schema without `type` (nor `enum`, `const`, `$ref` or a combinator) is `JsonValue`,
  unless it is a branch of a combinator under a typed parent, which lends it its type.

What a type cannot carry (bounds, lengths, `pattern`, `format`, `integer`, `uniqueItems`,
`not`, `if`/`then`/`else`, dependencies, `propertyNames`, `contains`) is checked at run time
by the validator and named in the member's doc comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolgen.build.python.modelvalues import LARGE_ENUM
from toolgen.schema.jsonequal import json_type
from toolgen.spec.resolver import def_name

JSON_VALUE: Final = "JsonValue"
"""The runtime's type of any JSON value (`runtime.ts`)."""
NEVER: Final = "never"

UNION, INTERSECTION, PRIMARY = 0, 1, 2
"""Precedence of a type expression: `A | B` binds loosest, `A & B` tighter, `T[]` tightest."""
Typed = tuple[str, int]

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_UNSAFE = re.compile("[\u2028\u2029\ud800-\udfff]")
_SCALARS: Final = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "boolean": "boolean",
    "null": "null",
}
_OBJECT_KEYWORDS: Final = ("properties", "required", "additionalProperties", "patternProperties")
_CHECKED: Final = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "dependentRequired",
)  # fmt: skip
"""Keywords a type cannot carry, named with their values in doc comments."""
_CHECKED_SCHEMAS: Final = (
    "not", "if", "contains", "propertyNames", "dependentSchemas", "unevaluatedItems",
)  # fmt: skip
"""Keywords a type cannot carry, named (without their subschemas) in doc comments."""


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


def schema_doc(schema: Any) -> list[str]:
    """The doc comment lines of a schema: its description, default, and what is checked at run
    time only."""
    if not isinstance(schema, dict):
        return []
    lines = []
    if isinstance(schema.get("description"), str):
        lines.append(schema["description"])
    checked = ["integer"] if _types(schema) == ["integer"] else []
    checked += [f"{k} {_compact(schema[k])}" for k in _CHECKED if k in schema]
    checked += [k for k in _CHECKED_SCHEMAS if k in schema]
    if checked:
        lines.append(f"Checked at run time: {', '.join(checked)}.")
    if "default" in schema:  # a block tag: last
        lines.append(f"@default {_compact(schema['default'])}")
    return lines


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


class TypeWriter:
    """Type expressions for the schemas of one spec set. `names` maps each bundled def name
    to its type name; `root` names the type of the document being written (for `$ref: "#"`)."""

    def __init__(self, names: Mapping[str, str], root: str = JSON_VALUE) -> None:
        self.names = names
        self.root = root

    def write(self, schema: Any, indent: str = "") -> str:
        """The type of the values `schema` accepts, laid out from column `indent`."""
        return self._type(schema, indent, None)[0]

    def _type(self, schema: Any, indent: str, inherited: list[str] | None) -> Typed:
        if schema is False:
            return NEVER, PRIMARY
        if not isinstance(schema, dict):
            return JSON_VALUE, PRIMARY
        parts: list[Typed] = []
        ref = schema.get("$ref")
        if isinstance(ref, str):
            parts.append((self._ref(ref), PRIMARY))
        types = _types(schema)
        own = types is not None
        if types is None and inherited is not None and "$ref" not in schema:
            types = inherited if _shapes(schema, inherited) else None
        values = _values(schema)
        if values is not None:
            parts.append(self._literals(values, types or inherited))
        elif types is not None:
            parts.append(_union(self._typed(schema, kind, indent, own=own) for kind in types))
        types = types or inherited
        for branch in schema.get("allOf") or []:
            parts.append(self._type(branch, indent, types))
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list):
                parts.append(_union(self._type(b, indent, types) for b in branches))
        return _intersection(parts)

    def _ref(self, ref: str) -> str:
        if ref == "#":
            return self.root
        name = def_name(ref)
        return self.names.get(name, JSON_VALUE) if name is not None else JSON_VALUE

    def _literals(self, values: list[Any], types: list[str] | None) -> Typed:
        if types is not None:
            values = [v for v in values if _fits(v, types)]
        strings = [v for v in values if isinstance(v, str)]
        if len(strings) > LARGE_ENUM:
            rest = [literal(v) for v in values if not isinstance(v, str)]
            return _union((t, PRIMARY) for t in ["string", *rest])
        return _union((literal(v), PRIMARY) for v in values)

    def _typed(self, schema: Mapping[str, Any], kind: str, indent: str, *, own: bool) -> Typed:
        if kind == "array":
            return self._array(schema, indent)
        if kind == "object":
            return self._object(schema, indent, own=own), PRIMARY
        return _SCALARS.get(kind, NEVER), PRIMARY

    def _array(self, schema: Mapping[str, Any], indent: str) -> Typed:
        items = schema.get("items", True)
        prefix = schema.get("prefixItems")
        if not isinstance(prefix, list):
            if items is False:
                return "[]", PRIMARY
            return _array_of(self._type(items, indent, None)), PRIMARY
        least = schema.get("minItems", 0)
        least = least if isinstance(least, int) and not isinstance(least, bool) else 0
        elements = [
            self._type(sub, indent, None)[0] + ("" if i < least else "?")
            for i, sub in enumerate(prefix)
        ]
        if items is not False:
            elements.append("..." + _array_of(self._type(items, indent, None)))
        return f"[{', '.join(elements)}]", PRIMARY

    def _object(self, schema: Mapping[str, Any], indent: str, *, own: bool) -> str:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        inner = indent + "  "
        members = []
        types = []
        for name, sub in properties.items():
            typed = self._type(sub, inner, None)[0]
            types.append(typed)
            mark = "" if name in required else "?"
            members.append(
                doc_comment(schema_doc(sub), inner)
                + f"{inner}{member_name(name)}{mark}: {typed};\n"
            )
        extra = self._extra(schema, inner)
        for name in required:
            if name not in properties:
                members.append(f"{inner}{member_name(name)}: {extra or 'unknown'};\n")
        if extra is not None and own:
            if extra != "unknown" and types:  # the declared properties are keys too
                optional = [] if set(properties) <= set(required) else ["undefined"]
                extra = _union((t, UNION) for t in [extra, *types, *optional])[0]
            members.append(f"{inner}[key: string]: {extra};\n")
        if not members:
            return "Record<string, never>" if own else JSON_VALUE
        return "{\n" + "".join(members) + indent + "}"

    def _extra(self, schema: Mapping[str, Any], indent: str) -> str | None:
        """The type of properties beyond `properties` (None: the object allows none)."""
        if schema.get("unevaluatedProperties") is False:
            return None
        patterns = schema.get("patternProperties")
        kinds = [self._type(s, indent, None) for s in (patterns or {}).values()]
        additional = schema.get("additionalProperties", True)
        if additional is not False:
            kinds.append(self._type(additional, indent, None))
        if not kinds:
            return None
        typed = _union(kinds)[0]
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


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return None


def _shapes(schema: Mapping[str, Any], types: list[str]) -> bool:
    """Whether `schema` says something about the shape of a value of one of `types`."""
    return ("object" in types and any(k in schema for k in _OBJECT_KEYWORDS)) or (
        "array" in types and any(k in schema for k in ("items", "prefixItems"))
    )


def _values(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return enum if isinstance(enum, list) else None


def _fits(value: Any, types: list[str]) -> bool:
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


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
