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

from toolgen.core.ir import Origin
from toolgen.core.positions import JsonPath

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
