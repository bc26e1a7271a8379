"""Schema pieces every provider view needs: refs, types, `allOf` merging, and
constraints written into descriptions.

Views work on MCP tool definitions (`inputSchema` as JSON), so they convert a
spec set's tools and anyone's published tools alike. Every function returns new
dicts; the input is never changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolgen.providers.model import Losses
from toolgen.schema.allof import force_branch
from toolgen.schema.jsonequal import json_type
from toolgen.schema.pointer import join, resolve_pointer

ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$vocabulary",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    }
)
"""Keywords that say something about a value but do not constrain it."""

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")

_PHRASES: dict[str, str] = {
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "pattern": "matches the regular expression {}",
    "format": "format {}",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "exclusiveMinimum": "greater than {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
    "default": "default {}",
    "const": "always {}",
    "not": "must not match {}",
}


def compact(value: Any, limit: int = 200) -> str:
    """`value` as short JSON text for a description."""
    text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def phrase(keyword: str, value: Any) -> str:
    """A constraint in words, for a description: `minLength: 2` → `at least 2 characters`."""
    if keyword == "uniqueItems":
        return "items are unique" if value else ""
    if keyword == "enum" and isinstance(value, list):
        return "one of " + ", ".join(compact(v, 60) for v in value)
    template = _PHRASES.get(keyword)
    shown = value if keyword in ("pattern", "format") and isinstance(value, str) else compact(value)
    if template is not None:
        return template.format(shown)
    return f"{keyword} {shown}"


def with_notes(schema: dict[str, Any], notes: Iterable[str]) -> dict[str, Any]:
    """`schema` with `notes` appended to its description (one sentence, `; `-separated)."""
    kept = [n for n in notes if n]
    if not kept:
        return schema
    text = "; ".join(kept)
    text = text[0].upper() + text[1:] + "."
    current = schema.get("description")
    out = dict(schema)
    out["description"] = (
        f"{current.rstrip()}\n{text}" if isinstance(current, str) and current.strip() else text
    )
    return out


def types_of(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a schema names (`type`, else what `enum`/`const` values are)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    values: list[Any] = []
    if "const" in schema:
        values = [schema["const"]]
    elif isinstance(schema.get("enum"), list):
        values = schema["enum"]
    found: list[str] = []
    for value in values:
        name = json_type(value)
        if name not in found:
            found.append(name)
    return found


def implied_types(schema: Mapping[str, Any]) -> list[str]:
    """`types_of`, or the type its keywords imply (`properties` → object, `items` → array)."""
    found = types_of(schema)
    if found:
        return found
    if {"properties", "additionalProperties", "required", "patternProperties"} & schema.keys():
        return ["object"]
    if {"items", "prefixItems", "minItems", "maxItems"} & schema.keys():
        return ["array"]
    if {"minLength", "maxLength", "pattern"} & schema.keys():
        return ["string"]
    return []


def merge_all_of(
    schema: Mapping[str, Any],
    root: Mapping[str, Any],
    path: str,
    losses: Losses,
    expanding: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """`schema` with its `allOf` branches merged in by force (`schema.allof.force_branch`),
    their refs resolved and their own `allOf`s merged first: a keyword two branches give
    differently is kept from the first and described from the others. A branch whose refs
    lead back to a def being merged (`A: {allOf: [{$ref: A}]}`) adds nothing and is dropped:
    `expanding` holds the refs followed on the way here."""
    out = {k: v for k, v in schema.items() if k != "allOf"}
    notes: list[str] = []
    branches = schema.get("allOf")
    for index, branch in enumerate(branches if isinstance(branches, list) else []):
        seen = set(expanding)
        cyclic = False
        while isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            ref = branch["$ref"]
            target = resolve_pointer(root, ref)
            cyclic = ref in seen
            if cyclic or not isinstance(target, dict):
                break
            seen.add(ref)
            branch = {**target, **{k: v for k, v in branch.items() if k != "$ref"}}
        if cyclic:
            losses.add(join(path, "allOf", index), "$ref", "dropped", "a cycle back to itself")
            continue
        if isinstance(branch, dict) and "allOf" in branch:
            here = join(path, "allOf", index)
            branch = merge_all_of(branch, root, here, losses, frozenset(seen))
        if isinstance(branch, dict):
            out, overridden = force_branch(out, branch, ANNOTATIONS)
            notes += [phrase(key, value) for key, value in overridden]
    losses.add(path, "allOf", "rewritten", "merged into one schema")
    return with_notes(out, notes)


def schema_size(schema: Any) -> tuple[int, int, int]:
    """(object properties, deepest object nesting, enum values) of a schema."""
    props = enums = deepest = 0
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list):
            stack.extend((n, depth) for n in node)
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("enum"), list):
            enums += len(node["enum"])
        here = depth
        if isinstance(node.get("properties"), dict):
            props += len(node["properties"])
            here = depth + 1
            deepest = max(deepest, here)
            stack.extend((v, here) for v in node["properties"].values())
        for key in ("items", "anyOf", "$defs", "prefixItems"):
            value = node.get(key)
            if key == "$defs" and isinstance(value, dict):
                stack.extend((v, 0) for v in value.values())
            elif value is not None:
                stack.append((value, here))
    return props, deepest, enums


def tuple_as_list(
    prefix: list[Any],
    path: str,
    convert: Callable[[Any, str], dict[str, Any]],
    notes: list[str],
    losses: Losses,
) -> dict[str, Any]:
    """The `items` schema of a tuple (`prefixItems`) that a provider only knows as a list:
    one converted member, or `anyOf` of them, with the order moved into the description."""
    converted = [convert(p, join(path, "prefixItems", i)) for i, p in enumerate(prefix)]
    notes.append(
        "items in this order: " + ", ".join(str(c.get("type", "value")) for c in converted)
    )
    losses.add(join(path, "prefixItems"), "prefixItems", "described", "a tuple became a list")
    return converted[0] if len(converted) == 1 else {"anyOf": converted}
