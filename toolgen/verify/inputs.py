"""Test inputs: seeds (fixtures, examples), boundary values, invalid inputs.

Generated data rarely reaches a bound (50 generated inputs of `integer 1..100`
held neither 1 nor 100), so boundary values are asked for explicitly, as
Schemathesis's coverage phase does. Both kinds start from one valid `base`
input (the first valid spec example, else a sample from the schema) and change
one property at a time; every candidate is checked with the real validator:
a boundary case is kept only when valid, an invalid case only when it breaks
exactly the keyword it aims at (so an `isError` answer is about that keyword).

Seeds reach every phase through the schema: `seeded` replaces the schema of a
property (a dotted path through objects and array items: `entities.name`) with
the fixture values (`enum`: only those are used, and the property is always
given) or adds the spec examples' values beside it (`anyOf`: they are drawn
among the others). Boundary cases are
built from the fixture-seeded schema, generated inputs from the fully seeded one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolgen.schema.allof import folded
from toolgen.schema.pointer import resolve_pointer
from toolgen.schema.sample import from_pattern, sample
from toolgen.schema.validation import SchemaValidator, format_path
from toolgen.verify.transport import dumps

MISSING: Final[Any] = object()
MAX_DEPTH: Final = 3
"""How deep into nested objects properties are varied."""
MAX_ITEMS: Final = 64
"""Arrays longer than this are not built for `minItems`/`maxItems` cases."""
MAX_LENGTH: Final = 4096
NOT_ALLOWED: Final = "toolgen-verify-not-allowed"
EXTRA_PROPERTY: Final = "toolgen_verify_unexpected"
_WRONG_TYPE: Final[dict[str, Any]] = {
    "string": 12345,
    "integer": "12345",
    "number": "1.5",
    "boolean": "true",
    "array": {"item": 1},
    "object": ["item"],
    "null": "null",
}
_PATTERN_MISSES: Final = ("", " ", "!", "\u00e9\u00e9\u00e9", "0", "a" * 3, "toolgen verify")


@dataclass(frozen=True, slots=True)
class Case:
    """One input to send, and where it comes from (for messages)."""

    arguments: Any
    source: str


Path = tuple[str | int, ...]


def base_input(schema: Mapping[str, Any], examples: list[Any], validator: SchemaValidator) -> Any:
    """A valid input to vary: the first valid example, else a sample (None if neither is valid)."""
    for candidate in examples:
        if validator.is_valid(candidate):
            return candidate
    candidate = sample(schema, schema)
    return candidate if validator.is_valid(candidate) else None


def leaf_values(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every property of an input that is not itself an object."""
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        path = f"{prefix}{key}"
        if isinstance(item, dict):
            yield from leaf_values(item, path + ".")
        else:
            yield path, item


def property_schema(schema: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """The schema of the property at a dotted `path` (through objects and array items), as a
    document of its own (the root's `$defs` beside it); None when the schema has no such
    property."""
    root = copy.deepcopy(dict(schema))
    found = _editable(root, root, path)
    if found is None:
        return None
    defs: dict[str, Any] = {k: root[k] for k in ("$defs", "definitions") if k in root}
    return {**found[1], **defs}


def seeded(
    schema: Mapping[str, Any],
    pins: Mapping[str, list[Any]],
    hints: Mapping[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """A copy of `schema` whose property at each path of `pins` is required and takes only
    those values, and at each path of `hints` takes those values besides its own (paths it
    lacks are left alone)."""
    root = copy.deepcopy(dict(schema))
    for path, values in pins.items():
        found = _editable(root, root, path)
        if found is not None:
            holder, node = found
            node.clear()
            node["enum"] = list(values)
            required = holder.get("required")
            name = path.rsplit(".", 1)[-1]
            if not isinstance(required, list) or name not in required:
                holder["required"] = [*(required if isinstance(required, list) else []), name]
    for path, values in (hints or {}).items():
        found = _editable(root, root, path)
        if found is not None and path not in pins:
            own = dict(found[1])
            found[1].clear()
            found[1]["anyOf"] = [own, {"enum": list(values)}]
    return root


def _editable(
    node: dict[str, Any], root: Mapping[str, Any], path: str
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the object schema holding it, the schema) of the property at `path` inside `node`,
    made editable in place: `$ref`s on the way are inlined, array `items` stepped through."""
    holder = node
    for name in path.split("."):
        holder = _inline(node, root)
        while isinstance(holder.get("items"), dict) and "properties" not in holder:
            holder["items"] = dict(holder["items"])
            holder = _inline(holder["items"], root)
        properties = holder.get("properties")
        if not isinstance(properties, dict) or not isinstance(properties.get(name), dict):
            return None
        holder["properties"] = properties = dict(properties)
        node = properties[name] = dict(properties[name])
    return holder, _inline(node, root)


def _inline(node: dict[str, Any], root: Mapping[str, Any]) -> dict[str, Any]:
    """`node` with its `$ref` replaced by (a copy of) the target's keywords, in place."""
    for _ in range(16):
        ref = node.get("$ref")
        target = resolve_pointer(root, ref) if isinstance(ref, str) else None
        if not isinstance(target, Mapping):
            return node
        del node["$ref"]
        for key, value in copy.deepcopy(dict(target)).items():
            node.setdefault(key, value)
    return node


def boundary_cases(schema: Mapping[str, Any], base: Any, validator: SchemaValidator) -> list[Case]:
    """Valid inputs at the edges: bounds, lengths, enum values, optional properties left out."""
    found = _Collector(validator)
    for path, sub, required in _slots(schema, schema, base, (), 0):
        where = format_path(path)
        if not required and value_at(base, path) is not MISSING:
            found.valid(replaced(base, path, MISSING), f"boundary: {where} left out")
        for value, what in _edge_values(sub, schema):
            found.valid(replaced(base, path, value), f"boundary: {where} = {what}")
    full = _with_all_properties(schema, base)
    if full is not None:
        found.valid(full, "boundary: every property given")
    return found.cases


def invalid_cases(schema: Mapping[str, Any], base: Any, validator: SchemaValidator) -> list[Case]:
    """Inputs that break exactly one keyword each."""
    found = _Collector(validator)
    for path, sub, required in _slots(schema, schema, base, (), 0):
        where = format_path(path)
        if required:
            found.invalid(replaced(base, path, MISSING), "required", f"required {where} left out")
        for value, keyword in _breaking_values(sub, schema):
            found.invalid(replaced(base, path, value), keyword, f"{keyword} broken at {where}")
    for path, sub in _objects(schema, schema, base, (), 0):
        if flat(sub, schema).get("additionalProperties") is False:
            target = value_at(base, path)
            if isinstance(target, dict):
                value = {**target, EXTRA_PROPERTY: 1}
                where = format_path(path)
                found.invalid(
                    replaced(base, path, value) if path else value,
                    "additionalProperties",
                    f"undeclared property {EXTRA_PROPERTY!r} added at {where}",
                )
    return found.cases


class _Collector:
    """Keeps candidate inputs that are (in)valid the way they were meant to be, once each."""

    def __init__(self, validator: SchemaValidator) -> None:
        self.validator = validator
        self.cases: list[Case] = []
        self._seen: set[bytes] = set()

    def _new(self, value: Any) -> bool:
        key = dumps(value, sort_keys=True)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def valid(self, value: Any, source: str) -> None:
        if self.validator.is_valid(value) and self._new(value):
            self.cases.append(Case(value, source))

    def invalid(self, value: Any, keyword: str, source: str) -> None:
        issues = self.validator.issues(value)
        if issues and all(i.keyword == keyword for i in issues) and self._new(value):
            self.cases.append(Case(value, f"invalid: {source}"))


def flat(schema: Any, root: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with its `$ref` target and `allOf` branches folded in (properties merged)."""
    return dict(folded(schema, root)) if isinstance(schema, Mapping) else {}


def _slots(
    schema: Any, root: Mapping[str, Any], base: Any, path: Path, depth: int
) -> Iterator[tuple[Path, dict[str, Any], bool]]:
    """(path, flattened schema, required) of every property of every object in `base`."""
    flattened = flat(schema, root)
    value = value_at(base, path)
    properties = flattened.get("properties")
    if not isinstance(value, dict) or not isinstance(properties, Mapping) or depth > MAX_DEPTH:
        return
    listed = flattened.get("required")
    required = set(listed if isinstance(listed, list) else [])
    for name, sub in properties.items():
        sub_flat = flat(sub, root)
        yield (*path, name), sub_flat, name in required
        if name in value:
            yield from _slots(sub, root, base, (*path, name), depth + 1)


def _objects(
    schema: Any, root: Mapping[str, Any], base: Any, path: Path, depth: int
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(path, schema) of every object of `base` (the root included)."""
    flattened = flat(schema, root)
    if not isinstance(value_at(base, path), dict) or depth > MAX_DEPTH:
        return
    yield path, flattened
    properties = flattened.get("properties")
    for name, sub in properties.items() if isinstance(properties, Mapping) else []:
        yield from _objects(sub, root, base, (*path, name), depth + 1)


def _edge_values(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Iterator[tuple[Any, str]]:
    for value in sub.get("enum", []) if isinstance(sub.get("enum"), list) else []:
        yield value, f"{_short(value)} (enum)"
    if "const" in sub:
        yield sub["const"], "the const"
    integer = sub.get("type") == "integer"
    for key in ("minimum", "maximum"):
        if _number(sub.get(key)):
            yield sub[key], f"{sub[key]} ({key})"
    for key, step in (("exclusiveMinimum", 1), ("exclusiveMaximum", -1)):
        if _number(sub.get(key)) and integer:
            yield sub[key] + step, f"{sub[key] + step} (next to {key})"
    for key in ("minLength", "maxLength"):
        size = sub.get(key)
        if isinstance(size, int) and 0 <= size <= MAX_LENGTH:
            text = _string_of(sub, size)
            if text is not None:
                yield text, f"a string of {size} characters ({key})"
    for key in ("minItems", "maxItems"):
        size = sub.get(key)
        if isinstance(size, int) and 0 <= size <= MAX_ITEMS:
            item = sample(sub.get("items", True), root) if size else None
            yield [copy.deepcopy(item) for _ in range(size)], f"{size} items ({key})"
    if sub.get("type") == "boolean":
        yield True, "true"
        yield False, "false"


def _breaking_values(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Iterator[tuple[Any, str]]:
    kind = sub.get("type")
    if isinstance(kind, str) and kind in _WRONG_TYPE:
        yield _WRONG_TYPE[kind], "type"
    for key, step in (("minimum", -1), ("maximum", 1)):
        if _number(sub.get(key)):
            yield sub[key] + step, key
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if _number(sub.get(key)):
            yield sub[key], key
    factor: Any = sub.get("multipleOf")
    if _number(factor) and factor > 0:
        yield factor * 1.5 if kind != "integer" or factor < 2 else factor + 1, "multipleOf"
    size = sub.get("minLength")
    if isinstance(size, int) and 0 < size <= MAX_LENGTH:
        yield "a" * (size - 1), "minLength"
    size = sub.get("maxLength")
    if isinstance(size, int) and 0 <= size < MAX_LENGTH:
        yield "a" * (size + 1), "maxLength"
    if isinstance(sub.get("pattern"), str):
        for text in _PATTERN_MISSES:
            yield text, "pattern"
    if isinstance(sub.get("enum"), list):
        yield NOT_ALLOWED, "enum"
        yield 987654321, "enum"
    if "const" in sub:
        yield NOT_ALLOWED, "const"
    for key, extra in (("minItems", -1), ("maxItems", 1)):
        size = sub.get(key)
        if (
            isinstance(size, int)
            and 0 <= size + extra <= MAX_ITEMS
            and (key != "minItems" or size > 0)
        ):
            item = sample(sub.get("items", True), root)
            yield [copy.deepcopy(item) for _ in range(size + extra)], key
    if sub.get("uniqueItems") is True:
        item = sample(sub.get("items", True), root)
        yield [item, copy.deepcopy(item)], "uniqueItems"


def _string_of(sub: Mapping[str, Any], size: int) -> str | None:
    pattern = sub.get("pattern")
    if not isinstance(pattern, str):
        return "a" * size
    for extra in range(0, min(size, 64) + 1):
        text = from_pattern(pattern, extra)
        if text is not None and len(text) == size:
            return text
    return None


def _with_all_properties(schema: Mapping[str, Any], base: Any) -> Any:
    properties = flat(schema, schema).get("properties")
    if not isinstance(base, dict) or not isinstance(properties, Mapping):
        return None
    full = dict(base)
    for name, sub in properties.items():
        if name not in full:
            full[name] = sample(sub, schema)
    return full if full != base else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _short(value: Any) -> str:
    text = dumps(value).decode()
    return text if len(text) <= 40 else text[:39] + "…"


def value_at(value: Any, path: Path) -> Any:
    """The node of `value` at `path` (`MISSING` when there is none)."""
    for key in path:
        if isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return MISSING
    return value


def replaced(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the node at `path` replaced (`MISSING`: removed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    out = dict(value) if isinstance(value, dict) else {}
    if rest:
        out[head] = replaced(out.get(head), rest, new)
    elif new is MISSING:
        out.pop(head, None)
    else:
        out[head] = new
    return out
