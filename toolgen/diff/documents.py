"""One side of a schema comparison: a schema document, its `$ref`s and its positions.

Schemas in the IR are bundled documents (local refs into their own `$defs`).
The comparison follows refs instead of comparing their text, so `$ref` vs
inline and renamed defs are not changes. Positions: a node reached through
`#/$defs/NAME` is located in the spec's `defs` block when the spec set has
that def, else inside the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgen.schema.jsonequal import same
from toolgen.spec.ir import Origin
from toolgen.spec.positions import JsonPath

ANNOTATIONS = frozenset(
    {"title", "description", "examples", "deprecated", "$comment", "readOnly", "writeOnly"}
)
"""Keywords that document a schema and never change which values are valid."""
_DEFS_KEYS = ("$defs", "definitions")


@dataclass(frozen=True)
class Document:
    """A schema document with what is needed to follow its refs and locate its nodes."""

    root: Any
    origin: Origin | None
    def_origins: Mapping[str, Origin] = field(default_factory=dict)

    def resolve(self, ref: str) -> tuple[Any, Origin | None] | None:
        """The schema a local `$ref` points at, and its origin; None when it cannot be followed."""
        if not ref.startswith("#"):
            return None  # a remote reference: never fetched
        tokens = [_unescape(t) for t in ref[1:].split("/")[1:]] if ref != "#" else []
        node = self.root
        for token in tokens:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node, self._origin(tuple(tokens))

    def _origin(self, tokens: JsonPath) -> Origin | None:
        if len(tokens) >= 2 and tokens[0] in _DEFS_KEYS:
            found = self.def_origins.get(str(tokens[1]))
            if found is not None:
                return found.child(*tokens[2:])
        return self.origin.child(*tokens) if self.origin is not None else None


def value_at(origin: Origin) -> Any:
    """The raw value an origin points at, in its source file (None when it is not there)."""
    data: Any = origin.source.data
    for key in origin.path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def root_origin(origin: Origin | None, defs: Mapping[str, Origin]) -> Origin | None:
    """Where a schema's root is written: a root `$ref` in a spec is inlined by the resolver,
    so a node of it is found in the def it names (`#/defs/Note`, `other.yaml#/defs/Note`)."""
    raw = value_at(origin) if origin is not None else None
    if origin is None or not isinstance(raw, dict) or not isinstance(raw.get("$ref"), str):
        return origin
    where, _, pointer = raw["$ref"].partition("#")
    tokens = tuple(_unescape(t) for t in pointer.split("/")[1:3])
    file = (origin.source.path.parent / where) if where else origin.source.path
    for def_origin in defs.values():
        if def_origin.path == tokens and def_origin.source.path.resolve() == file.resolve():
            return def_origin
    return origin


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


@dataclass(frozen=True, slots=True)
class Resolved:
    """A schema node after following its refs."""

    schema: Any
    origin: Origin | None
    unresolved: str | None = None
    """The `$ref` that could not be followed (remote, or pointing at nothing)."""
    target: int | None = None
    """Identity of the last ref target followed: what a cycle check remembers."""


def deref(document: Document, schema: Any, origin: Origin | None) -> Resolved:
    """Follow `$ref` chains.

    A `$ref` with validation keywords beside it (allowed in 2020-12) is read as
    `allOf: [target, siblings]`; annotations beside it are kept.
    """
    seen: set[int] = set()
    target_id: int | None = None
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        target = document.resolve(ref)
        if target is None:
            return Resolved(schema, origin, unresolved=ref)
        target_id = id(target[0])
        if target_id in seen:
            return Resolved({}, origin)  # a ref cycle with no schema in it accepts anything
        seen.add(target_id)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if any(k not in ANNOTATIONS for k in siblings):
            kept = {k: v for k, v in siblings.items() if k in ANNOTATIONS}
            rest = {k: v for k, v in siblings.items() if k not in ANNOTATIONS}
            return Resolved({**kept, "allOf": [target[0], rest]}, origin, None, target_id)
        if siblings and isinstance(target[0], dict):
            schema, origin = {**target[0], **siblings}, target[1]
        else:
            schema, origin = target
    return Resolved(schema, origin, None, target_id)


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
_MERGE_LIMIT = 64


def merge_conjunct(base: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any] | None:
    """`base` and the `allOf` branch `branch` as one schema, when that is exactly what
    `allOf: [base, branch]` means; None when their keywords interact or disagree.

    Keywords of one schema object are independent but for the families in
    `_INTERACTING` (`additionalProperties` sees only its own `properties`, ...);
    a family written on both sides merges only when written alike. A keyword on
    both sides must have one value; annotations of `base` win.
    """
    if any(k == "$ref" for k in branch):
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


def flatten_all_of(
    document: Document, schema: dict[str, Any], origin: Origin | None
) -> tuple[dict[str, Any], Origin | None]:
    """`schema` with the `allOf` branches that merge exactly (`merge_conjunct`) merged in.

    `allOf: [{$ref: X}]` (how pydantic writes a described ref) and a `$ref`
    with keywords beside it then compare as the schema written out. The origin
    stays the schema's, unless it was a lone wrapper around one branch.
    """
    branches = schema.get("allOf")
    if not isinstance(branches, list):
        return schema, origin
    base = {k: v for k, v in schema.items() if k != "allOf"}
    wrapper = all(k in ANNOTATIONS for k in base)
    kept: list[Any] = []
    queue = [(b, origin.child("allOf", i) if origin else None) for i, b in enumerate(branches)]
    merged_origins: list[Origin | None] = []
    while queue and len(merged_origins) < _MERGE_LIMIT:
        branch, where = queue.pop(0)
        found = deref(document, branch, where)
        if found.schema is True or found.schema == {}:
            continue
        merged = (
            merge_conjunct(base, found.schema)
            if isinstance(found.schema, dict) and found.unresolved is None
            else None
        )
        if merged is None:
            kept.append(branch)
            continue
        inner = merged.pop("allOf", None)  # base has none: it came with the branch
        if isinstance(inner, list):
            at = found.origin
            queue += [(b, at.child("allOf", i) if at else None) for i, b in enumerate(inner)]
        base = merged
        merged_origins.append(found.origin)
    kept += [branch for branch, _ in queue]
    if kept:
        return {**base, "allOf": kept}, origin
    if wrapper and len(merged_origins) == 1:
        return base, merged_origins[0]
    return base, origin
