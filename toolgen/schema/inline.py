"""A schema with its same-document `$ref`s inlined, but the recursive ones.

Many MCP clients and model APIs do not resolve `$ref` and show an empty form or
refuse the tool. `inline_refs` replaces every reference whose target does not
reach that reference again by a copy of the target, with the keywords beside the
reference merged in where that means the same, else beside it under `allOf` (see
`merge_ref`); a recursive reference cannot be inlined
and stays, with the `$defs` entries it points into. The result accepts exactly
the values the schema accepts.

A schema this cannot inline faithfully is returned as it is: one with a
reference of another form (another document, an anchor, `$dynamicRef`), an
`$id` below its root, a kept reference that points into a nested `$defs`, or
one that would grow past `MAX_INLINED_SCHEMAS` subschemas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.schema.allof import merge_branch
from toolgen.schema.limits import MAX_INLINED_SCHEMAS, plain_bytes
from toolgen.schema.pointer import MISSING, pointer_tokens, resolve_pointer
from toolgen.schema.walk import DEFS_KEYWORDS, LISTED, MAPPED, SINGLE, walk_schemas

_BASE_CHANGING = frozenset({"$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"})


class _CannotInline(Exception):
    """The schema is left as written (see the module docstring)."""


def inline_refs(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """`schema` with every non-recursive `$ref` replaced by its target; `$defs` keep only
    what a recursive reference points into. `schema` itself when it has no reference or
    cannot be inlined faithfully. Treat the result as read-only: parts are shared."""
    blob = plain_bytes(schema)
    if blob is not None and b"$ref" not in blob:
        return schema  # most schemas: one call in C instead of a walk
    refs = refs_below(schema, skip_defs=False)
    if not refs:
        return schema
    try:
        return _Inliner(schema, refs).run()
    except _CannotInline:
        return schema


def merge_ref(target: Any, siblings: dict[str, Any]) -> Any:
    """A reference's `target` and the keywords beside the reference as one schema that
    means both (JSON Schema 2020-12 applies both): merged where that is exactly the same
    (`merge_branch`: no keywords that act on each other, an annotation beside the reference
    wins), else the siblings with the target under `allOf`, which is always the same."""
    if not siblings:
        return target
    if isinstance(target, bool):
        return siblings if target else False
    if not target:
        return siblings
    merged = merge_branch(siblings, target)
    if merged is not None:
        return merged
    return {**siblings, "allOf": [*siblings.get("allOf", []), target]}


def refs_below(schema: Any, *, skip_defs: bool) -> set[str]:
    """Every `$ref` string in `schema` (not inside `$defs`/`definitions` with `skip_defs`)."""
    found: set[str] = set()
    for path, sub in walk_schemas(schema):
        if skip_defs and any(isinstance(t, str) and t in DEFS_KEYWORDS for t in path):
            continue
        if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
            found.add(sub["$ref"])
    return found


class _Inliner:
    def __init__(self, root: Mapping[str, Any], refs: set[str]) -> None:
        self.root = root
        self.targets: dict[str, Any] = {}
        for path, sub in walk_schemas(root):
            if path and isinstance(sub, dict) and _BASE_CHANGING.intersection(sub):
                raise _CannotInline
        for ref in refs:
            target = resolve_pointer(root, ref)
            if target is MISSING or not isinstance(target, (dict, bool)):
                raise _CannotInline
            self.targets[ref] = target
        uses = {ref: refs_below(t, skip_defs=True) for ref, t in self.targets.items()}
        self.recursive = {ref for ref in refs if _reaches(ref, ref, uses)}
        self.size = 0

    def run(self) -> dict[str, Any]:
        out = self.expand(self.root)
        if not isinstance(out, dict):
            raise _CannotInline
        kept: dict[str, dict[str, Any]] = {}
        todo = [out]
        while todo:
            for ref in refs_below(todo.pop(), skip_defs=False):
                tokens = pointer_tokens(ref) or []
                if any(t in DEFS_KEYWORDS for t in tokens[2:]):
                    raise _CannotInline  # would point into a nested `$defs` dropped here
                if len(tokens) < 2 or tokens[0] not in DEFS_KEYWORDS:
                    continue
                block, name = tokens[0], tokens[1]
                if name not in kept.setdefault(block, {}):
                    kept[block][name] = self.expand(self.root[block][name])
                    todo.append(kept[block][name])
        for block in DEFS_KEYWORDS:
            if kept.get(block):
                out[block] = {n: kept[block][n] for n in self.root[block] if n in kept[block]}
        return out

    def expand(self, node: Any) -> Any:
        """A copy of `node` with non-recursive references inlined and no `$defs`."""
        self.size += 1
        if self.size > MAX_INLINED_SCHEMAS:
            raise _CannotInline
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in DEFS_KEYWORDS:
                continue
            if key in SINGLE:
                out[key] = self.expand(value)
            elif key in MAPPED and isinstance(value, dict):
                out[key] = {name: self.expand(sub) for name, sub in value.items()}
            elif key in LISTED and isinstance(value, list):
                out[key] = [self.expand(sub) for sub in value]
            else:
                out[key] = value
        ref = out.get("$ref")
        if not isinstance(ref, str) or ref in self.recursive:
            return out
        del out["$ref"]
        return merge_ref(self.expand(self.targets[ref]), out)


def _reaches(start: str, goal: str, uses: Mapping[str, set[str]]) -> bool:
    """Whether following references from `start`'s target leads back to `goal`."""
    seen: set[str] = set()
    todo = list(uses.get(start, ()))
    while todo:
        ref = todo.pop()
        if ref == goal:
            return True
        if ref not in seen:
            seen.add(ref)
            todo.extend(uses.get(ref, ()))
    return False
