"""The schemas tools mostly have, as plain Python predicates: JSON Schema 2020-12's verdict
without loading a validator.

`compile_predicate(schema)` turns a schema made of the common keywords (types, `enum`,
`const`, properties, `required`, `additionalProperties`, `items`, numeric, length, size and
count bounds, `allOf`/`anyOf`/`oneOf`/`not`, annotations such as `description` and
`format`, `x-` keys) into a function that says whether a value is valid as jsonschema-rs
says (tests compare them on generated schemas and values). A server whose tools all have
such schemas loads jsonschema-rs (about 6 MiB of its memory) only to describe an invalid
value; a check costs about 1 µs more than jsonschema-rs's. A schema with any other keyword
(`pattern`, `$ref`, ...) gives None: the caller validates with jsonschema-rs.

Only a predicate's True is taken on its own. A value JSON cannot hold as such (a NaN, an
integer beyond 2**53, a datetime, a dict subclass, a key that is not a string) fails a
check or raises `Unsure`, and the caller then asks jsonschema-rs, as for every refusal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from toolgen.schema.jsonequal import same

Check = Callable[[Any], bool]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
     "$comment", "format"}
)  # fmt: skip
"""Keywords that never change a verdict (`format` only annotates in 2020-12 by default)."""
TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
BOUNDS: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {
    "minimum": ("number", lambda value, bound: value >= bound),
    "maximum": ("number", lambda value, bound: value <= bound),
    "exclusiveMinimum": ("number", lambda value, bound: value > bound),
    "exclusiveMaximum": ("number", lambda value, bound: value < bound),
    "minLength": ("string", lambda value, bound: len(value) >= bound),
    "maxLength": ("string", lambda value, bound: len(value) <= bound),
    "minItems": ("array", lambda value, bound: len(value) >= bound),
    "maxItems": ("array", lambda value, bound: len(value) <= bound),
    "minProperties": ("object", lambda value, bound: len(value) >= bound),
    "maxProperties": ("object", lambda value, bound: len(value) <= bound),
}
"""Each bound keyword: the kind of value it applies to, and the test."""
SAFE_INTEGER = 2**53


class Unsure(Exception):
    """The value is of a kind this module does not vouch for: ask jsonschema-rs."""


class Unsupported(Exception):
    """The schema uses a keyword this module does not compile."""


def compile_predicate(schema: Any) -> Check | None:
    """`schema` as a function of a value (True: valid; `Unsure` for a value of a kind JSON
    does not have); None when the schema uses a keyword this module does not compile."""
    if isinstance(schema, dict):
        if schema.get("$schema", DIALECT) != DIALECT:
            return None
        schema = {key: value for key, value in schema.items() if key != "$schema"}
    try:
        return _compile(schema, 0)
    except (Unsupported, TypeError):  # TypeError: an unhashable type name, say
        return None


def kind_of(value: Any) -> str:
    """The JSON Schema type of a value (`integer` for a whole float, as JSON Schema says)."""
    kind = type(value)
    if kind is str:
        return "string"
    if kind is dict:
        return "object"
    if kind is bool:
        return "boolean"
    if kind is int:
        if -SAFE_INTEGER <= value <= SAFE_INTEGER:
            return "integer"
    elif kind is float:
        if math.isfinite(value):
            return "integer" if value.is_integer() else "number"
    elif kind is list or kind is tuple:
        return "array"
    elif value is None:
        return "null"
    raise Unsure


def _compile(schema: Any, depth: int) -> Check:
    if schema is True or schema is False:
        verdict = bool(schema)
        return lambda value: verdict
    if not isinstance(schema, dict) or depth > 64:
        raise Unsupported
    declared = schema.get("type")
    kind = declared if isinstance(declared, str) else None  # the one kind a value can be
    leaf = _leaf(schema, kind)
    if leaf is not None:
        return leaf
    keys = sorted(schema, key=lambda key: key != "type")  # the type check first
    return _all([c for key in keys if (c := _keyword(schema, key, kind, depth)) is not None])


def _leaf(schema: dict[str, Any], kind: str | None) -> Check | None:
    """One check for the commonest leaves: a string with length bounds, an integer or number
    with inclusive bounds (None for anything else)."""
    rest = {k for k in schema if k != "type" and not _ignored(k)}
    if kind == "string" and rest <= {"minLength", "maxLength"}:
        shortest, longest = schema.get("minLength", 0), schema.get("maxLength")
        if type(shortest) is not int or not (longest is None or type(longest) is int):
            return None
        if longest is None:
            return lambda value: type(value) is str and len(value) >= shortest
        return lambda value: type(value) is str and shortest <= len(value) <= longest
    if kind in ("integer", "number") and rest <= {"minimum", "maximum"}:
        low, high = schema.get("minimum"), schema.get("maximum")
        if not all(type(b) in (int, float, type(None)) for b in (low, high)):
            return None
        is_kind = _IS[kind]
        low = -math.inf if low is None else low
        high = math.inf if high is None else high
        return lambda value: is_kind(value) and low <= value <= high
    return None


def _all(checks: list[Check]) -> Check:
    """True when every check is (in order: a type check first makes the others cheaper)."""
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)

    def check_all(value: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop: no generator on every value checked
            if not check(value):
                return False
        return True

    return check_all


def _keyword(schema: dict[str, Any], key: str, kind: str | None, depth: int) -> Check | None:
    """The check of one keyword (None: it changes no verdict, or another keyword checks it).
    With `kind`, a value reaches the check only when the `type` check passed."""
    value = schema[key]
    if _ignored(key):
        return None
    if key == "type":
        return _type(value)
    if key == "enum":
        return _enum(value)
    if key == "const":
        return lambda instance: _plain(instance) and same(instance, value)
    if key in BOUNDS:
        return _bound(key, value, kind)
    if key in ("required", "properties", "additionalProperties"):
        return _object(schema, key, kind, depth)
    if key == "items":
        return _items(_compile(value, depth + 1), kind)
    if key in ("allOf", "anyOf", "oneOf", "not"):
        return _combined(key, value, depth)
    raise Unsupported


def _ignored(key: str) -> bool:
    """Whether a keyword changes no verdict: an annotation or an `x-` extension."""
    return key in ANNOTATIONS or key.startswith("x-")


def _type(names: Any) -> Check:
    listed = [names] if isinstance(names, str) else names
    if not isinstance(listed, list) or not listed or not set(listed) <= TYPES:
        raise Unsupported
    if len(listed) == 1 and listed[0] in _IS:
        return _IS[listed[0]]
    allowed = frozenset(listed) | ({"integer"} if "number" in listed else set())
    return lambda value: kind_of(value) in allowed


def _is_integer(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return bool(-SAFE_INTEGER <= value <= SAFE_INTEGER)
    return kind is float and bool(value.is_integer())  # False for a NaN or an infinity


def _is_number(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return bool(-SAFE_INTEGER <= value <= SAFE_INTEGER)
    return kind is float and math.isfinite(value)


_IS: dict[str, Check] = {
    "string": lambda value: type(value) is str,
    "object": lambda value: type(value) is dict,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "array": lambda value: type(value) is list or type(value) is tuple,
    "integer": _is_integer,
    "number": _is_number,
}
"""The check of each single type. A value of a kind JSON does not have fails it (the caller
then asks jsonschema-rs), so these need not raise `Unsure`."""


def _enum(values: Any) -> Check:
    if not isinstance(values, list) or not values:
        raise Unsupported
    if all(type(v) is str for v in values):
        strings = frozenset(values)
        return lambda value: type(value) is str and value in strings
    return lambda value: _plain(value) and any(same(value, option) for option in values)


def _plain(value: Any) -> bool:
    """True for a value whose every part is JSON (`same` compares those as JSON does)."""
    kind = kind_of(value)
    if kind == "array":
        return all(_plain(item) for item in value)
    if kind == "object":
        if not all(type(key) is str for key in value):
            raise Unsure
        return all(_plain(item) for item in value.values())
    return True


def _bound(key: str, bound: Any, kind: str | None) -> Check | None:
    applies_to, test = BOUNDS[key]
    if type(bound) not in (int, float) or (applies_to != "number" and type(bound) is not int):
        raise Unsupported
    kinds = ("integer", "number") if applies_to == "number" else (applies_to,)
    return _for_kinds(kinds, kind, lambda value: test(value, bound))


def _for_kinds(kinds: tuple[str, ...], kind: str | None, check: Check) -> Check | None:
    """`check` for values of `kinds` (other values pass); with the schema's `kind` known,
    the check alone, or None when it can never apply."""
    if kind in kinds:
        return check
    if kind is not None:
        return None
    return lambda value: kind_of(value) not in kinds or check(value)


def _object(schema: dict[str, Any], key: str, kind: str | None, depth: int) -> Check | None:
    """`required`, `properties` and `additionalProperties` as one check of an object (made
    for the first of them: `additionalProperties` applies to keys `properties` does not name)."""
    if kind not in (None, "object"):
        return None
    first = next(k for k in schema if k in ("required", "properties", "additionalProperties"))
    if key != first:
        return None
    names = schema.get("required", [])
    if not isinstance(names, list) or not all(type(name) is str for name in names):
        raise Unsupported
    named = schema.get("properties", {})
    if not isinstance(named, dict):
        raise Unsupported
    required = frozenset(names)
    subs = {name: _compile(sub, depth + 1) for name, sub in named.items()}
    extra = schema.get("additionalProperties", True)
    others = None if extra is True else _compile(extra, depth + 1)

    def check(value: Any) -> bool:
        if type(value) is not dict:  # with `kind`, the type check refused it already
            return kind is None and kind_of(value) != "object"
        if not required <= value.keys():
            return False
        for name, item in value.items():
            if type(name) is not str:
                raise Unsure
            sub = subs.get(name, others)
            if sub is not None and not sub(item):
                return False
        return True

    return check


def _items(sub: Check, kind: str | None) -> Check | None:
    return _for_kinds(("array",), kind, lambda value: all(sub(item) for item in value))


def _combined(key: str, value: Any, depth: int) -> Check:
    """`not` and `oneOf` turn a subschema's False into True: a False that only says "not a
    kind JSON has" (an integer beyond 2**53, a dict subclass) must not count there, so they
    take plain JSON values only (`_plain` raises `Unsure` for others)."""
    if key == "not":
        sub = _compile(value, depth + 1)
        return lambda instance: _plain(instance) and not sub(instance)
    if not isinstance(value, list) or not value:
        raise Unsupported
    subs = [_compile(item, depth + 1) for item in value]
    if key == "allOf":
        return lambda instance: all(sub(instance) for sub in subs)
    if key == "anyOf":
        return lambda instance: any(sub(instance) for sub in subs)
    return lambda instance: _plain(instance) and sum(1 for sub in subs if sub(instance)) == 1
