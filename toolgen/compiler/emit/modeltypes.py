"""JSON Schema → the Python type expression of a generated model field or alias.

Types are what a person writes by hand: `str`, `int`, `list[Tag]`,
`Literal["a", "b"]`, `X | None`; constraints sit on the member they constrain,
`Annotated[str, StringConstraints(max_length=500)]` or
`Annotated[int, Field(ge=1)]`, so unions of constrained members work. Strictness
is the models' shared config, not a per-type wrapper. What pydantic cannot
check is left to the runtime's validator (the README lists it): `format`
(a `uri` stays a `str`, written back exactly as it came), `not`,
`if`/`then`/`else`, `uniqueItems`, `prefixItems`, `oneOf` exclusivity. A
value the schema accepts is always accepted: where a schema says something
these types cannot, the type is wider (`JsonValue`), never narrower.

Every spec string lands in the code as an escaped literal (`py_literal`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFS = "#/$defs/"
JSON = "JsonValue"

# JSON Schema keyword → (pydantic keyword, JSON types it applies to).
_CONSTRAINTS: dict[str, tuple[str, frozenset[str]]] = {
    "minLength": ("min_length", frozenset({"string"})),
    "maxLength": ("max_length", frozenset({"string"})),
    "pattern": ("pattern", frozenset({"string"})),
    "minimum": ("ge", frozenset({"integer", "number"})),
    "maximum": ("le", frozenset({"integer", "number"})),
    "exclusiveMinimum": ("gt", frozenset({"integer", "number"})),
    "exclusiveMaximum": ("lt", frozenset({"integer", "number"})),
    "multipleOf": ("multiple_of", frozenset({"integer", "number"})),
    "minItems": ("min_length", frozenset({"array"})),
    "maxItems": ("max_length", frozenset({"array"})),
    "minProperties": ("min_length", frozenset({"object"})),
    "maxProperties": ("max_length", frozenset({"object"})),
}
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_JSON_TYPES = ("boolean", "integer", "number", "string", "array", "object", "null")


def py_literal(value: Any) -> str:
    """`value` (JSON data) as a Python literal; strings double-quoted, every character
    that is not printable escaped, so spec text can never end the literal or hide in it."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, str):
        return '"' + escape(value, '"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{py_literal(str(k))}: {py_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"not JSON data: {type(value).__name__}")


def escape(text: str, quote: str, keep: str = "") -> str:
    """`text` for inside a Python string literal delimited by `quote` (`keep`: characters
    written as they are, such as newlines in a docstring)."""
    out = []
    for ch in text:
        if ch == "\\" or ch == quote:
            out.append("\\" + ch)
        elif ch in keep or ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)


@dataclass
class TypeWriter:
    """Writes type expressions for the classes of one module, noting the names they import."""

    classes: frozenset[str]
    """The class and alias names of the module (the targets of `#/$defs/` refs)."""
    refs: set[str] = field(default_factory=set)
    """The module's classes and aliases the expressions written so far refer to."""

    def annotation(self, schema: Any) -> str:
        """The type of values `schema` accepts (wider where a type cannot say it all)."""
        if not isinstance(schema, dict):
            return self._json()  # `true`, or `false` (models cannot enforce `not`)
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref[len(DEFS) :] if ref.startswith(DEFS) else ""
            if name not in self.classes:
                return self._json()
            self.refs.add(name)
            return name
        if "const" in schema:
            return self._literal([schema["const"]]) or self._json()
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return self._literal(enum) or self._typed(schema)
        for word in ("anyOf", "oneOf"):
            branches = schema.get(word)
            if isinstance(branches, list) and branches:
                return self.union(self.annotation(_inherit(schema, b)) for b in branches)
        parts = schema.get("allOf")
        if isinstance(parts, list):
            typed = [p for p in parts if isinstance(p, dict) and _says_type(p)]
            if len(typed) == 1 and not _says_type(schema):
                return self.annotation(_inherit(schema, typed[0]))
        return self._typed(schema)

    def union(self, members: Iterable[str]) -> str:
        """`A | B` of distinct members in order (`JsonValue` absorbs every other member)."""
        unique = list(dict.fromkeys(members))
        if JSON in unique:
            return JSON
        return " | ".join(unique)

    def _typed(self, schema: Mapping[str, Any]) -> str:
        kind = schema.get("type")
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
        kinds = [k for k in _JSON_TYPES if k in kinds]
        if not kinds:
            return self._json()
        return self.union(self._constrained(k, schema) for k in kinds)

    def _constrained(self, kind: str, schema: Mapping[str, Any]) -> str:
        base = self._base(kind, schema)
        limits = [
            f"{keyword}={py_literal(schema[word])}"
            for word, (keyword, kinds) in _CONSTRAINTS.items()
            if kind in kinds and _usable(word, schema.get(word))
        ]
        if not limits:
            return base
        marker = "StringConstraints" if kind == "string" else "Field"
        return f"Annotated[{base}, {marker}({', '.join(limits)})]"

    def _base(self, kind: str, schema: Mapping[str, Any]) -> str:
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            items = schema.get("items")
            if "prefixItems" in schema or not isinstance(items, dict | bool):
                return f"list[{self._json()}]"
            return f"list[{self.annotation(items)}]"
        return f"dict[str, {self.values(schema)}]"

    def values(self, schema: Mapping[str, Any]) -> str:
        """The type of the values of an object's other properties (`JsonValue` when the
        schema gives none, or several that may overlap)."""
        extra = schema.get("additionalProperties")
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict) and patterns:
            members = [self.annotation(s) for s in patterns.values()]
            if isinstance(extra, dict):
                members.append(self.annotation(extra))
            elif extra is not False:
                return self._json()
            return self.union(members)
        return self.annotation(extra) if isinstance(extra, dict) else self._json()

    def _literal(self, values: list[Any]) -> str | None:
        """`Literal[...]` (with `| None` for a null member), or None when a value is not one
        a `Literal` can hold (numbers with fractions, arrays, objects)."""
        if not all(v is None or isinstance(v, str | int) for v in values):
            return None
        members = [py_literal(v) for v in dict.fromkeys(values) if v is not None]
        parts = []
        if members:
            parts.append(f"Literal[{', '.join(members)}]")
        if None in values:
            parts.append("None")
        return " | ".join(parts)

    def _json(self) -> str:
        return JSON


def _usable(word: str, value: Any) -> bool:
    if word == "pattern":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False  # draft-04 booleans for exclusive bounds, or nonsense
    return math.isfinite(value)


def _says_type(schema: Mapping[str, Any]) -> bool:
    return not {"$ref", "type", "enum", "const", "anyOf", "oneOf"}.isdisjoint(schema)


def _inherit(owner: Mapping[str, Any], branch: Any) -> Any:
    """A union branch read with what its owner says around it (`type`, constraints), so
    `{type: string, anyOf: [{minLength: 1}, {pattern: x}]}` gives strings, not anything."""
    if not isinstance(branch, dict) or "$ref" in branch:
        return branch
    around = {
        k: v
        for k, v in owner.items()
        if k in _CONSTRAINTS or (k == "type" and "type" not in branch)
    }
    return {**around, **branch} if around else branch
