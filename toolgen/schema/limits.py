"""What a schema must satisfy before a validator is compiled from it.

jsonschema-rs compiles a schema eagerly and fails on some inputs that pass the
metaschema: a `pattern` its regex engine refuses (too large, unsupported
syntax), a `$dynamicRef` to an anchor that does not exist, and a chain of
`$ref`s too long for its stack (a chain of 2,000 defs crashes the process).
These checks find each of them first, with the path to the offending
keyword, so the frontend reports them as located spec errors.

`extent_problem` bounds what every recursive walker of a bundled schema meets
(provider views, lint, models, the diff): nesting inside one file is bounded
by the reader, but `$ref`s chain defs into any depth.
"""

from __future__ import annotations

import contextlib
import functools
import marshal
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from toolgen.schema.pointer import MISSING, JsonPath, resolve_pointer, unescape
from toolgen.schema.walk import subschema_list, subschemas, walk_schemas

MAX_SCHEMA_DEPTH: Final = 128
"""Deepest nesting of subschemas in one schema, counted through its local `$ref`s (each
reference one more level): what toolgen's recursive walkers are tested to handle."""
MAX_INLINED_SCHEMAS: Final = 10_000
"""Most subschemas one schema may expand to with its `$refs` inlined (provider views inline
them; the largest of 422 real tool schemas has 84)."""


def schema_problems(schema: Any) -> Iterator[tuple[JsonPath, str]]:
    """(path inside `schema`, message) for each keyword a validator could not compile."""
    anchors: set[str] = set()
    dynamic: list[tuple[JsonPath, Any]] = []
    for path, sub in walk_schemas(schema):
        if not isinstance(sub, Mapping):
            continue
        for key in ("$anchor", "$dynamicAnchor"):
            if isinstance(sub.get(key), str):
                anchors.add(sub[key])
        if "$dynamicRef" in sub:
            dynamic.append(((*path, "$dynamicRef"), sub["$dynamicRef"]))
        pattern = sub.get("pattern")
        if isinstance(pattern, str) and (problem := regex_problem(pattern)):
            yield (*path, "pattern"), problem
        keys = sub.get("patternProperties")
        for key in keys if isinstance(keys, Mapping) else ():
            if problem := regex_problem(key):
                yield (*path, "patternProperties", key), problem
    for path, ref in dynamic:
        if not isinstance(ref, str) or not ref.startswith("#") or ref[1:] not in anchors:
            yield (
                path,
                (
                    f"$dynamicRef {ref!r} names no anchor of this schema; expected #NAME where "
                    "a subschema declares `$dynamicAnchor: NAME`"
                ),
            )


def has_schema_problem(schema: Any) -> bool:
    """Whether `schema_problems(schema)` could yield anything: a pattern the regex engine
    refuses, or a `$dynamicRef` (checked against the anchors by `schema_problems`). A quick
    pre-check (one iterative walk, no paths built): False means `schema_problems` yields
    nothing, and most schemas are fine. Most schemas hold neither word at all: their
    `marshal` form (plain data, every string written out once) tells that without a walk."""
    blob = plain_bytes(schema)
    if blob is not None and not may_have_schema_problem(blob):
        return False
    stack = [schema]
    while stack:
        sub = stack.pop()
        if isinstance(sub, dict):
            if "$dynamicRef" in sub:
                return True
            pattern = sub.get("pattern")
            if isinstance(pattern, str) and regex_problem(pattern):
                return True
            keys = sub.get("patternProperties")
            if isinstance(keys, Mapping) and any(regex_problem(key) for key in keys):
                return True
            stack.extend(subschema_list(sub))
        elif isinstance(sub, Mapping):  # only the root can be another mapping
            return any(True for _ in schema_problems(sub))
    return False


def plain_bytes(schema: Any) -> bytes | None:
    """`schema`'s `marshal` form, where every string (key or value) is written out whole
    (None: not plain data). A word missing from it is in no key and no value of `schema`:
    one call in C tells what a walk would, for the quick checks on every schema."""
    with contextlib.suppress(ValueError):
        return marshal.dumps(schema)
    return None


def may_have_schema_problem(blob: bytes) -> bool:
    """False when the schema whose `plain_bytes` are `blob` certainly has no schema problem
    (`has_schema_problem`): it holds neither a `pattern` nor a `$dynamicRef`."""
    return b"pattern" in blob or b"$dynamicRef" in blob


@functools.lru_cache(maxsize=4096)
def regex_problem(pattern: str) -> str | None:
    """Why the validator's regex engine refuses `pattern` (None: it compiles). The engine is
    imported here, on the first pattern: a spec set without one never loads it."""
    import jsonschema_rs  # the first pattern loads it: a spec set without one never does

    try:
        jsonschema_rs.Draft202012Validator({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        if len(pattern) > 100:
            return f"the validator's regex engine refuses this {len(pattern)}-character pattern"
        return f"the validator's regex engine refuses it: {str(exc).splitlines()[0][:200]}"
    return None


_Child = tuple[Any, str | None]  # (a subschema, or the target of a local ref; that ref)


@dataclass(slots=True)
class _Frame:
    children: Iterator[_Child]
    ref: str | None  # the ref this schema was reached through (memoized under it)
    height: int = 0  # of the deepest child so far
    size: int = 1  # this schema and its children so far, refs inlined


def _children(schema: Any, root: Any) -> Iterator[_Child]:
    """The subschemas of `schema` (its `$defs` only through refs), then its ref's target."""
    for rel, sub in subschemas(schema):
        if rel[0] not in ("$defs", "definitions"):
            yield sub, None
    ref = schema.get("$ref") if isinstance(schema, Mapping) else None
    if isinstance(ref, str) and ref.startswith("#"):
        target = resolve_pointer(root, ref)
        if target is not MISSING:
            yield target, ref


def extent_problem(
    root: Any, depth: int = MAX_SCHEMA_DEPTH, size: int = MAX_INLINED_SCHEMAS
) -> str | None:
    """Why the self-contained schema `root` is too deep or too large once its same-document
    `$ref`s are followed (None: it is not). A schema is one level (a leaf is 1) and counts
    once per place it is reached from; a ref back to a schema on the path counts nothing.
    Iterative, and each ref's target is measured once: a chain of defs may be any length,
    and one that refers twice to the next doubles at every step."""
    memo: dict[str, tuple[int, int]] = {}  # ref -> (height, inlined size) of its target
    stack = [_Frame(_children(root, root), "#")]
    active = {"#"}
    while stack:
        frame = stack[-1]
        if len(stack) + frame.height > depth:  # the frames above it, and its deepest child
            return too_deep(depth)
        if frame.size > size:
            return too_large(size)
        child = next(frame.children, None)
        if child is None:
            stack.pop()
            measured = (frame.height + 1, frame.size)
            if frame.ref is not None:
                memo[frame.ref] = measured
                active.discard(frame.ref)
            if stack:
                _add(stack[-1], measured)
            continue
        sub, ref = child
        if ref is not None and ref in memo:  # measured where it was first reached
            _add(frame, memo[ref])
        elif ref is None or ref not in active:
            if ref is not None:
                active.add(ref)
            stack.append(_Frame(_children(sub, root), ref))
    return None


class _Unsure(Exception):
    """`DefExtents` cannot tell cheaply (a loop of defs, a ref of another form, a deep chain)."""


@dataclass(slots=True)
class DefExtents:
    """Heights and inlined sizes of shared defs, measured once for the many schemas that
    bundle them: `within_limits(root)` tells, without walking each def again, that
    `extent_problem(root)` is None. The defs are `defs` (name -> schema); a schema may use
    them as `#/$defs/NAME` when its own `$defs` holds that very object under that name."""

    defs: Mapping[str, Any]
    memo: dict[str, _Extent] = field(default_factory=dict)

    def within_limits(
        self, root: Any, depth: int = MAX_SCHEMA_DEPTH, size: int = MAX_INLINED_SCHEMAS
    ) -> bool:
        """True when `extent_problem(root, depth, size)` is certainly None. Where the defs
        `root` reaches form no loop, `extent_problem` walks the tree of `root` with its refs
        inlined, and every depth and size it compares is at most the height and size of that
        tree: measured here bottom-up. False: unsure (ask `extent_problem`)."""
        try:
            height, total, _ = self._measure(root, root, (), 1, depth)
        except _Unsure:
            return False
        return height <= depth and total <= size

    def _measure(
        self, schema: Any, root: Any, active: tuple[str, ...], level: int, depth: int
    ) -> _Extent:
        if not isinstance(schema, dict):
            if isinstance(schema, Mapping):
                raise _Unsure
            return 1, 1, frozenset()
        if level > depth:
            raise _Unsure
        height, total, reach = 0, 1, _NO_NAMES
        for sub in subschema_list(schema, defs=False):
            sub_height, sub_total, sub_reach = self._measure(sub, root, active, level + 1, depth)
            height = max(height, sub_height)
            total += sub_total
            reach = reach | sub_reach if sub_reach else reach
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            sub_height, sub_total, sub_reach = self._target(ref, root, active, level + 1, depth)
            height = max(height, sub_height)
            total += sub_total
            reach = reach | sub_reach
        return height + 1, total, reach

    def _target(
        self, ref: str, root: Any, active: tuple[str, ...], level: int, depth: int
    ) -> _Extent:
        """The extent of the def `ref` names (memoized with the names of the defs it reaches,
        each checked to be the very def `root` bundles when the memo is used)."""
        token = ref[len(_DEFS_REF) :] if ref.startswith(_DEFS_REF) else "/"
        name = unescape(token)
        if "/" in token or name in active:
            raise _Unsure
        known = self.memo.get(name)
        if known is None:
            self._check_bundled(root, (name,))
            height, total, reach = self._measure(
                self.defs[name], root, (*active, name), level, depth
            )
            known = self.memo[name] = (height, total, reach | {name})
        else:
            self._check_bundled(root, known[2])
        return known

    def _check_bundled(self, root: Any, names: Iterable[str]) -> None:
        bundled = root.get("$defs") if isinstance(root, dict) else None
        if not isinstance(bundled, dict):
            raise _Unsure
        for name in names:
            if name not in self.defs or bundled.get(name) is not self.defs[name]:
                raise _Unsure


_Extent = tuple[int, int, frozenset[str]]
_NO_NAMES: frozenset[str] = frozenset()
"""No def names (`frozenset[str]()` would go through the generic alias, which costs an
AttributeError at every call)."""
_DEFS_REF = "#/$defs/"


def _add(parent: _Frame, child: tuple[int, int]) -> None:
    parent.height = max(parent.height, child[0])
    parent.size += child[1]


def too_deep(limit: int) -> str:
    return (
        f"this schema nests more than {limit} levels deep, counting through its $refs (each def "
        "it reaches adds its own depth); no client or validator handles that: flatten it or "
        "shorten the chain of defs"
    )


def too_large(limit: int) -> str:
    return (
        f"this schema expands to more than {limit:,} subschemas once its $refs are inlined "
        "(as model APIs and many clients inline them): defs that each refer to the next more "
        "than once double at every step; refer to shared defs less often"
    )
