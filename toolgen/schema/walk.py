"""Schema-aware traversal of JSON Schema 2020-12 documents.

Only keywords whose values are schemas are walked, so a `const` or `default`
that happens to contain `"$ref"` is never mistaken for a reference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from toolgen.schema.pointer import JsonPath

SINGLE = frozenset(
    {
        "additionalProperties",
        "items",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
        "additionalItems",
    }
)
MAPPED = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})
LISTED = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
DEFS_KEYWORDS = frozenset({"$defs", "definitions"})
HOLDING = SINGLE | MAPPED | LISTED
"""Every keyword whose value holds subschemas (a schema with none of them is a leaf)."""


def subschemas(schema: Any) -> Iterator[tuple[JsonPath, Any]]:
    """The direct subschemas of `schema`, with their paths relative to it."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in SINGLE:
            yield (key,), value
        elif key in MAPPED and isinstance(value, dict):
            for name, sub in value.items():
                yield (key, name), sub
        elif key in LISTED and isinstance(value, list):
            for index, sub in enumerate(value):
                yield (key, index), sub


def subschema_list(schema: dict[str, Any], *, defs: bool = True) -> list[Any]:
    """The direct subschemas of `schema` in `subschemas` order, without their paths (and
    without `$defs`/`definitions` unless `defs`): for the walkers that visit every schema of
    every tool, where a generator and a path per schema cost more than the visit itself."""
    out: list[Any] = []
    for key, value in schema.items():
        if key in SINGLE:
            out.append(value)
        elif key in MAPPED and isinstance(value, dict):
            if defs or key not in DEFS_KEYWORDS:
                out.extend(value.values())
        elif key in LISTED and isinstance(value, list):
            out.extend(value)
    return out


def walk_schemas(schema: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, Any]]:
    """Every schema below and including `schema`, depth first, with its path."""
    yield path, schema
    for rel, sub in subschemas(schema):
        yield from walk_schemas(sub, (*path, *rel))


def map_refs(schema: Any, rewrite: Callable[[str, JsonPath], str], path: JsonPath = ()) -> Any:
    """A copy of `schema` with every `$ref` string replaced by `rewrite(ref, path)`."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str):
            out[key] = rewrite(value, (*path, key))
        elif key in SINGLE:
            out[key] = map_refs(value, rewrite, (*path, key))
        elif key in MAPPED and isinstance(value, dict):
            out[key] = {n: map_refs(s, rewrite, (*path, key, n)) for n, s in value.items()}
        elif key in LISTED and isinstance(value, list):
            out[key] = [map_refs(s, rewrite, (*path, key, i)) for i, s in enumerate(value)]
        else:
            out[key] = value
    return out


def share_refs(schema: Any, rewrite: Callable[[str, JsonPath], str], path: JsonPath = ()) -> Any:
    """`map_refs(schema, rewrite)`, copying only what changes: a dict or list is new only
    when a `$ref` below it is rewritten to another string; every other part (most of a
    schema, all of one without refs) is `schema`'s own object, so treat both as read-only.
    The resolver rewrites every schema of a spec set, and copying them all was most of it."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] | None = None
    for key, value in schema.items():
        new: Any
        if key == "$ref" and isinstance(value, str):
            new = rewrite(value, (*path, key))
        elif key in SINGLE:
            new = share_refs(value, rewrite, (*path, key))
        elif (key in MAPPED and isinstance(value, dict)) or (
            key in LISTED and isinstance(value, list)
        ):
            new = _share_each(value, rewrite, (*path, key))
        else:
            continue
        if new is not value:
            if out is None:
                out = dict(schema)
            out[key] = new
    return schema if out is None else out


def _share_each(value: Any, rewrite: Callable[[str, JsonPath], str], path: JsonPath) -> Any:
    """`value`, a dict or a list of schemas, with each one's refs rewritten (`share_refs`):
    copied only when one of them changed."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    out: Any = None
    for name, sub in items:
        new = share_refs(sub, rewrite, (*path, name))
        if new is not sub:
            if out is None:
                out = value.copy()
            out[name] = new
    return value if out is None else out
