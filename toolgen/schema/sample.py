"""Generate a small, deterministic value that a JSON Schema accepts (for the mock server).

Best effort over the common keywords: `const`, `enum`, `examples`,
`default`, `type` (lists too), `$ref` (local), `allOf`/`anyOf`/`oneOf`,
object `properties`/`required`, array `items`/`prefixItems`/`minItems`,
string `pattern` (a string generated from the regex), `format`,
`minLength`/`maxLength`, and numeric bounds with `multipleOf`. Callers
validate the result: `sample` never promises success for exotic schemas.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from re import _constants as c  # type: ignore[attr-defined]  # the regex parser's own names
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from toolgen.schema.allof import folded

_FORMATS: dict[str, str] = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "12:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": ".*",
}
_MAX_DEPTH = 24


def sample(schema: Any, root: Mapping[str, Any] | None = None, *, seed: int = 0) -> Any:
    """A value `schema` should accept; `root` holds the `$defs` that `$ref`s point into."""
    if root is None:
        root = schema if isinstance(schema, Mapping) else {}
    return _sample(schema, root, seed, 0)


def _sample(schema: Any, root: Mapping[str, Any], seed: int, depth: int) -> Any:
    if schema is True or not isinstance(schema, Mapping):
        return "example"
    if depth > _MAX_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][seed % len(schema["enum"])]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if "default" in schema and seed == 0:
        return schema["default"]
    merged = folded(schema, root, _MAX_DEPTH - depth)
    if merged is not schema:
        return _sample(merged, root, seed, depth + 1)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            usable = [o for o in options if not _is_null(o, root)] or options
            return _sample(usable[0], root, seed, depth + 1)
    kind = _pick_type(schema)
    if kind == "object":
        return _object(schema, root, seed, depth)
    if kind == "array":
        return _array(schema, root, seed, depth)
    if kind == "string":
        return _string(schema, seed)
    if kind in ("integer", "number"):
        return _number(schema, kind, seed)
    if kind == "boolean":
        return seed % 2 == 0
    return None


def _is_null(schema: Any, root: Mapping[str, Any]) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def _pick_type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        return real[0] if real else "null"
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema or "minItems" in schema:
        return "array"
    if any(k in schema for k in ("pattern", "minLength", "maxLength", "format")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "multipleOf", "exclusiveMinimum")):
        return "number"
    return None


def _object(schema: Mapping[str, Any], root: Mapping[str, Any], seed: int, depth: int) -> Any:
    found = schema.get("properties")
    properties: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    wanted = list(dict.fromkeys(required))
    minimum = schema.get("minProperties", 0)
    for name in properties:
        if len(wanted) >= minimum:
            break
        if name not in wanted:
            wanted.append(name)
    value: dict[str, Any] = {}
    for name in wanted:
        sub = properties.get(name, schema.get("additionalProperties", True))
        value[name] = _sample(sub if sub is not False else True, root, seed, depth + 1)
    return value


def _array(schema: Mapping[str, Any], root: Mapping[str, Any], seed: int, depth: int) -> Any:
    found = schema.get("prefixItems")
    prefix: list[Any] = found if isinstance(found, list) else []
    items = schema.get("items", True)
    low = int(schema.get("minItems", 0))
    high = schema.get("maxItems")
    count = max(low, len(prefix), 1)
    if isinstance(high, int):
        count = min(count, high)
    if items is False:
        count = min(count, len(prefix))
    out = []
    for index in range(count):
        sub = prefix[index] if index < len(prefix) else items
        out.append(_sample(sub, root, seed + index, depth + 1))
    return out


def _string(schema: Mapping[str, Any], seed: int) -> str:
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        for extra in range(4):
            text = from_pattern(pattern, extra)
            if text is not None and len(text) >= low and (high is None or len(text) <= high):
                return text
    fmt = schema.get("format")
    text = _FORMATS.get(fmt, "example") if isinstance(fmt, str) else "example"
    if seed:
        text = f"{text}{seed}" if fmt is None else text
    if len(text) < low:
        text += "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return text


def _number(schema: Mapping[str, Any], kind: str, seed: int) -> int | float:
    low = schema.get("minimum")
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        bound = schema["exclusiveMinimum"]
        low = max(low, bound + 1) if low is not None else bound + 1
    high = schema.get("maximum")
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        bound = schema["exclusiveMaximum"]
        high = min(high, bound - 1) if high is not None else bound - 1
    value: float = float(seed)
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and step > 0:
        value = math.ceil(value / step) * step
    if kind == "integer" or float(value).is_integer():
        return math.ceil(value) if kind == "integer" else int(value)
    return value


def from_pattern(pattern: str, extra: int = 0) -> str | None:
    """A string the regex `pattern` matches (repeats at their minimum plus `extra`)."""
    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return None
    try:
        return _emit(parsed, extra, {})
    except (ValueError, KeyError, IndexError, RecursionError):
        return None


def _emit(items: Any, extra: int, groups: dict[int, str]) -> str:
    out = ""
    for op, arg in items:
        if op is c.LITERAL:
            out += chr(arg)
        elif op is c.NOT_LITERAL:
            out += "a" if arg != ord("a") else "b"
        elif op is c.ANY:
            out += "a"
        elif op is c.IN:
            out += _in(arg)
        elif op is c.BRANCH:
            out += _emit(arg[1][0], extra, groups)
        elif op is c.SUBPATTERN:
            text = _emit(arg[-1], extra, groups)
            if arg[0] is not None:
                groups[arg[0]] = text
            out += text
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg
            count = low + extra
            if high is not c.MAXREPEAT:
                count = min(count, high)
            out += "".join(_emit(body, extra, groups) for _ in range(count))
        elif op is c.GROUPREF:
            out += groups.get(arg, "")
        elif op is c.CATEGORY:
            out += _category(arg)
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        else:
            raise ValueError(f"unsupported regex construct {op}")
    return out


def _in(arg: Any) -> str:
    if arg and arg[0][0] is c.NEGATE:
        excluded = set()
        for op, value in arg[1:]:
            if op is c.LITERAL:
                excluded.add(chr(value))
            elif op is c.RANGE:
                excluded.update(chr(i) for i in range(value[0], value[1] + 1))
        for candidate in "axyz0_ ":
            if candidate not in excluded:
                return candidate
        raise ValueError("negated class excludes every candidate")
    op, value = arg[0]
    if op is c.LITERAL:
        return chr(value)
    if op is c.RANGE:
        return chr(value[0])
    if op is c.CATEGORY:
        return _category(value)
    raise ValueError(f"unsupported class item {op}")


def _category(category: Any) -> str:
    name = str(category)
    if "NOT_DIGIT" in name or "NOT_SPACE" in name:
        return "a"
    if "NOT_WORD" in name:
        return " "
    if "DIGIT" in name:
        return "0"
    if "SPACE" in name:
        return " "
    return "a"
