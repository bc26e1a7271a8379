"""Merging an `allOf` branch into the schema object that holds it: the one place toolgen
does it, exactly or by force.

`merge_branch` is exact: the merged schema accepts exactly what `allOf: [base, branch]`
accepts, or there is no merge (None) when the two cannot be written as one schema object.
`toolgen diff` compares schemas so, and a wrapped `$ref` or a `$ref` with keywords beside
it compares as the schema written out.

`force_branch` always merges, for the model APIs that take no `allOf` (the provider
views): properties are joined (a property `base` defines keeps its schema), `required`
lists united, and any other keyword `base` gives is kept from it; the branch's values it
overrides are returned, for the caller to describe. Where an exact merge exists, both give
the same schema; where not (say `additionalProperties: false` beside `allOf` branches that
add properties, as people write an object built from parts), the forced merge reads the
schema as its author meant it rather than as a validator does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from toolgen.schema.jsonequal import same
from toolgen.schema.pointer import resolve_pointer

ANNOTATIONS = frozenset(
    {"title", "description", "examples", "deprecated", "$comment", "readOnly", "writeOnly"}
)
"""Keywords that document a schema and never change which values are valid."""

_INTERACTING = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset(
        {"prefixItems", "items", "additionalItems", "unevaluatedItems", "contains"}
        | {"minContains", "maxContains"}
    ),
    frozenset({"if", "then", "else"}),
    frozenset({"minimum", "exclusiveMinimum"}),  # draft-04: a boolean exclusiveMinimum
    frozenset({"maximum", "exclusiveMaximum"}),
    frozenset({"contentMediaType", "contentEncoding", "contentSchema"}),
)
"""Keywords that read their siblings: moved into another schema object they mean otherwise."""
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
_EVALUATING = frozenset(
    {"properties", "patternProperties", "additionalProperties", "prefixItems", "items"}
    | {"additionalItems", "contains", "allOf", "anyOf", "oneOf", "if", "then", "else"}
    | {"dependentSchemas", "$ref", "$dynamicRef", "$recursiveRef"}
    | _UNEVALUATED
)
"""Keywords whose evaluations an `unevaluated*` keyword of the same schema object reads:
moved beside one, they narrow what it sees."""


def merge_branch(base: Mapping[str, Any], branch: Mapping[str, Any]) -> dict[str, Any] | None:
    """`base` and its `allOf` branch `branch` as one schema, when that is exactly what
    `allOf: [base, branch]` means; None when their keywords interact or disagree.

    Keywords of one schema object are independent but for the families in
    `_INTERACTING` (`additionalProperties` sees only its own `properties`, ...);
    a family written on both sides merges only when written alike. An `unevaluated*` of
    `branch` sees only what `branch` evaluates: `base` may bring nothing it would see
    (`base`'s own sees `branch`'s either way). A keyword on both sides must have one
    value; annotations (and `default`) of `base` win.
    """
    if "$ref" in branch:
        return None
    if not _UNEVALUATED.isdisjoint(branch) and not _EVALUATING.isdisjoint(base):
        return None
    for key, value in branch.items():
        if (
            key in base
            and key not in ANNOTATIONS
            and key != "default"
            and not same(base[key], value)
        ):
            return None
    for family in _INTERACTING:
        mine = {k: base[k] for k in family if k in base}
        theirs = {k: branch[k] for k in family if k in branch}
        if mine and theirs and not same(mine, theirs):
            return None
    return {**branch, **base}


def force_branch(
    base: Mapping[str, Any], branch: Mapping[str, Any], quiet: Collection[str] = ANNOTATIONS
) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """`base` with its `allOf` branch `branch` merged in however they disagree, and the
    (keyword, value) pairs of `branch` that `base` overrides (but for `quiet` keywords)."""
    out = dict(base)
    overridden: list[tuple[str, Any]] = []
    for key, value in branch.items():
        if key == "properties" and isinstance(value, dict):
            properties = dict(out.get("properties") or {})
            for name, sub in value.items():
                properties.setdefault(name, sub)
            out["properties"] = properties
        elif key == "required" and isinstance(value, list):
            current = list(out.get("required") or [])
            out["required"] = current + [r for r in value if r not in current]
        elif key not in out:
            out[key] = value
        elif out[key] != value and key not in quiet and key != "description":
            overridden.append((key, value))
    return out, overridden


def folded(schema: Mapping[str, Any], root: Any, max_depth: int = 16) -> Mapping[str, Any]:
    """`schema` with its local `$ref` target (in `root`) and its `allOf` branches merged in by
    force (`force_branch`), theirs folded first; `schema` itself when it has neither. For
    readers that want one object's properties and keywords (sample data, verify's inputs),
    not an exact schema."""
    return _folded(schema, root, 0, max_depth)


def _folded(schema: Mapping[str, Any], root: Any, depth: int, max_depth: int) -> Mapping[str, Any]:
    parts: list[Any] = []
    ref = schema.get("$ref")
    if isinstance(ref, str):
        parts.append(resolve_pointer(root, ref))
    if isinstance(schema.get("allOf"), list):
        parts.extend(schema["allOf"])
    if not parts or depth > max_depth:
        return schema
    out: dict[str, Any] = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
    for part in parts:
        if isinstance(part, Mapping):
            out, _ = force_branch(out, _folded(part, root, depth + 1, max_depth), ())
    return out


def in_place_refs(schema: Any) -> list[str]:
    """The `$ref`s a value must match as it is (not below a property or an item): the
    schema's own and those of its `allOf` branches, at any depth of `allOf`."""
    refs = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("$ref"), str):
            refs.append(node["$ref"])
        if isinstance(node.get("allOf"), list):
            stack.extend(reversed(node["allOf"]))
    return refs


def in_place_cycles(
    defs: Mapping[str, Any], target: Callable[[str], str | None]
) -> dict[str, list[str]]:
    """Each def that reaches itself through in-place refs alone (`A: {allOf: [{$ref: A}]}`,
    or `A: {$ref: B}, B: {$ref: A}`) → such a loop, from it; `target`: the def a ref names.

    Such a def gives no schema of its own to the loop, and following it never ends.
    Linear in the defs and refs (strongly connected components, without recursion)."""
    edges = {
        name: [t for t in map(target, in_place_refs(schema)) if t is not None and t in defs]
        for name, schema in defs.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: dict[str, list[str]] = {}
    for start in edges:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    members = set(component)
                    loop = _loop(node, edges, members)
                    for at, member in enumerate(loop):
                        cycles[member] = loop[at:] + loop[:at]
                    for member in members - set(loop):
                        cycles[member] = _loop(member, edges, members)
    return cycles


def _loop(start: str, edges: Mapping[str, list[str]], members: set[str]) -> list[str]:
    """The shortest way from `start` back to it within `members`: its defs, from `start`."""
    came_from: dict[str, str] = {}
    queue = [start]
    for node in queue:
        for nxt in edges[node]:
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return path[::-1]
            if nxt in members and nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return [start]
