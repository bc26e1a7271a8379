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

from toolgen.schema.allof import ANNOTATIONS, merge_branch
from toolgen.schema.pointer import pointer_tokens, unescape, walk
from toolgen.spec.ir import Origin
from toolgen.spec.positions import JsonPath

_DEFS_KEYS = ("$defs", "definitions")


@dataclass(frozen=True)
class Document:
    """A schema document with what is needed to follow its refs and locate its nodes."""

    root: Any
    origin: Origin | None
    def_origins: Mapping[str, Origin] = field(default_factory=dict)

    def resolve(self, ref: str) -> tuple[Any, Origin | None] | None:
        """The schema a local `$ref` points at, and its origin; None when it cannot be followed."""
        tokens = pointer_tokens(ref)  # None: a remote reference (never fetched) or an anchor
        if tokens is None:
            return None
        node, path = walk(self.root, tokens)
        if len(path) != len(tokens):
            return None
        return node, self._origin(path)

    def _origin(self, tokens: JsonPath) -> Origin | None:
        if len(tokens) >= 2 and tokens[0] in _DEFS_KEYS:
            found = self.def_origins.get(str(tokens[1]))
            if found is not None:
                return found.child(*tokens[2:])
        return self.origin.child(*tokens) if self.origin is not None else None


def root_origin(origin: Origin | None, defs: Mapping[str, Origin]) -> Origin | None:
    """Where a schema's root is written: a root `$ref` in a spec is inlined by the resolver,
    so a node of it is found in the def it names (`#/defs/Note`, `other.yaml#/defs/Note`)."""
    raw = origin.value() if origin is not None else None
    if origin is None or not isinstance(raw, dict) or not isinstance(raw.get("$ref"), str):
        return origin
    where, _, pointer = raw["$ref"].partition("#")
    tokens = tuple(unescape(t) for t in pointer.split("/")[1:3])
    file = (origin.source.path.parent / where) if where else origin.source.path
    for def_origin in defs.values():
        if def_origin.path == tokens and def_origin.source.path.resolve() == file.resolve():
            return def_origin
    return origin


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


_MERGE_LIMIT = 64


def flatten_all_of(
    document: Document, schema: dict[str, Any], origin: Origin | None
) -> tuple[dict[str, Any], Origin | None]:
    """`schema` with the `allOf` branches that merge exactly (`merge_branch`) merged in.

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
            merge_branch(base, found.schema)
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
