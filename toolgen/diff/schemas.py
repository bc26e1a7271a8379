"""Compare two JSON Schemas by meaning, and say how each difference moves them.

The walk follows `$ref`s on both sides (so `$ref` vs inline and renamed
`$defs` are not changes, and a change inside a shared def is found from
every schema that reaches it), compares dicts as mappings (key order never
matters), and judges every keyword family (`keywords.py`) and every
subschema. It is sound: a difference it cannot classify is reported with
MAYBE in both directions, never dropped. Two documented assumptions:
clients send only the properties a schema declares (so a new optional
property does not break them), and formats may or may not be asserted.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgen.diff.deltas import MAYBE, NO, YES, Certainty, Delta, Kind
from toolgen.diff.documents import Document, Resolved, deref, flatten_all_of
from toolgen.diff.keywords import VALUE_COMPARISONS, VALUE_KEYWORDS, Finding, show
from toolgen.schema.allof import ANNOTATIONS
from toolgen.schema.jsonequal import same
from toolgen.spec.ir import Origin
from toolgen.spec.positions import JsonPath

_IGNORED = frozenset(
    {"$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions", "$ref"}
)
_OBJECT = frozenset(
    {
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
    }
)
_ARRAY = frozenset({"items", "prefixItems", "contains", "unevaluatedItems", "additionalItems"})
_COMBINED = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else"})
_OPAQUE = frozenset({"dependencies", "$dynamicRef", "$recursiveRef", "$recursiveAnchor"})
"""Validation keywords the comparison does not look into: any change is possibly breaking."""
_KNOWN = (VALUE_KEYWORDS | _OBJECT | _ARRAY | _COMBINED | ANNOTATIONS | _IGNORED | _OPAQUE) | {
    "default",
    "contentSchema",
}
_POSITIVE = ("propertyNames", "unevaluatedItems", "contentSchema")
"""Keywords whose subschema every (relevant) value must match: narrowing it narrows the node."""


class Comparison:
    """Compares one old schema document with one new one; collects `Delta`s."""

    def __init__(
        self, old: Document, new: Document, equivalences: _Equivalences | None = None
    ) -> None:
        self.old = old
        self.new = new
        self.deltas: list[Delta] = []
        self._pairs: set[tuple[int, int]] = set()
        self._uncertain = 0
        self._defs_equal = same(_defs(old.root), _defs(new.root))
        self._equivalences = equivalences if equivalences is not None else _Equivalences()

    def run(self) -> list[Delta]:
        self.node(self.old.root, self.old.origin, self.new.root, self.new.origin, ())
        return self.deltas

    # -- recording -------------------------------------------------------------

    def add(
        self,
        kind: Kind,
        narrows: Certainty,
        widens: Certainty,
        path: JsonPath,
        message: str,
        origin: Origin | None,
        at: JsonPath = (),
    ) -> None:
        delta = Delta(kind, narrows, widens, path, message, origin, at)
        self.deltas.append(delta.uncertain() if self._uncertain else delta)

    def _found(self, found: Finding, path: JsonPath, origin: Origin | None) -> None:
        at = (found.keyword,) if found.keyword else ()
        self.add(found.kind, found.narrows, found.widens, path, found.message, origin, at)

    # -- nodes -----------------------------------------------------------------

    def _descend(
        self,
        old: Any,
        new: Any,
        old_origin: Origin | None,
        new_origin: Origin | None,
        path: JsonPath,
        steps: tuple[str | int, ...],
        new_steps: tuple[str | int, ...] | None = None,
    ) -> None:
        """Compare the subschemas `steps` below both sides (`new_steps` on the new side when
        they differ, as for matched `anyOf` branches); deltas are placed at the new path."""
        after = steps if new_steps is None else new_steps
        self.node(old, _child(old_origin, *steps), new, _child(new_origin, *after), (*path, *after))

    def node(
        self,
        old: Any,
        old_origin: Origin | None,
        new: Any,
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        a = deref(self.old, old, old_origin)
        b = deref(self.new, new, new_origin)
        if a.target is not None or b.target is not None:
            pair = (a.target or id(a.schema), b.target or id(b.schema))
            if pair in self._pairs:
                return  # compared already (or being compared: a recursive def)
            self._pairs.add(pair)
        if a.schema is b.schema or (self._defs_equal and same(a.schema, b.schema)):
            return
        if a.unresolved is not None or b.unresolved is not None:
            self._unresolved(a, b, path)
            return
        x, y = _as_dict(a.schema), _as_dict(b.schema)
        if x is None or y is None:
            self._boolean(a.schema, b.schema, a.origin, b.origin, path)
            return
        x_origin, y_origin = a.origin, b.origin
        if len(_list(x.get("allOf"))) != len(_list(y.get("allOf"))):
            x, x_origin = flatten_all_of(self.old, dict(x), x_origin)
            y, y_origin = flatten_all_of(self.new, dict(y), y_origin)
        self.keywords(x, x_origin, y, y_origin, path)

    def _unresolved(self, a: Resolved, b: Resolved, path: JsonPath) -> None:
        if a.unresolved == b.unresolved and same(a.schema, b.schema):
            return
        ref = b.unresolved or a.unresolved
        self.add(
            Kind.SCHEMA, MAYBE, MAYBE, path, f"cannot follow `$ref` {ref!r}", b.origin, ("$ref",)
        )

    def _boolean(
        self,
        old: Any,
        new: Any,
        old_origin: Origin | None,
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        if old is False and new is not False:
            self.add(
                Kind.RELAXED, NO, YES, path, "accepted nothing; now accepts values", new_origin
            )
        elif new is False and old is not False:
            self.add(Kind.TIGHTENED, YES, NO, path, "now accepts nothing", new_origin)
        elif old != new:
            self.add(Kind.SCHEMA, MAYBE, MAYBE, path, "not a schema; changed", new_origin)

    def keywords(
        self,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        old, new = _lift_any_of(old, new), _lift_any_of(new, old)
        self._annotations(old, new, new_origin, path)
        for compare in VALUE_COMPARISONS:
            for found in compare(old, new):
                self._found(found, path, new_origin)
        self._objects(old, old_origin, new, new_origin, path)
        self._arrays(old, old_origin, new, new_origin, path)
        self._combined(old, old_origin, new, new_origin, path)
        self._unknown(old, new, new_origin, path)

    def _annotations(
        self, old: Mapping[str, Any], new: Mapping[str, Any], origin: Origin | None, path: JsonPath
    ) -> None:
        for keyword in sorted(ANNOTATIONS):
            if old.get(keyword) != new.get(keyword):
                message = f"{keyword} {_shown(old, keyword)} → {_shown(new, keyword)}"
                self.add(Kind.DOCS, NO, NO, path, message, origin, (keyword,))
        if old.get("default") != new.get("default") or ("default" in old) != ("default" in new):
            message = f"default {_shown(old, 'default')} → {_shown(new, 'default')}"
            self.add(
                Kind.DEFAULT,
                NO,
                NO,
                path,
                message,
                origin,
                ("default",),
            )

    def _unknown(
        self, old: Mapping[str, Any], new: Mapping[str, Any], origin: Origin | None, path: JsonPath
    ) -> None:
        for keyword in sorted(_OPAQUE & (set(old) | set(new))):
            if old.get(keyword) != new.get(keyword) or (keyword in old) != (keyword in new):
                self.add(
                    Kind.SCHEMA,
                    MAYBE,
                    MAYBE,
                    path,
                    f"`{keyword}` changed",
                    origin,
                    (keyword,),
                )
        for keyword in sorted((set(old) | set(new)) - _KNOWN):
            if old.get(keyword) != new.get(keyword) or (keyword in old) != (keyword in new):
                message = f"keyword `{keyword}` changed (JSON Schema does not define it; it does not change validation)"
                self.add(Kind.DOCS, NO, NO, path, message, origin, (keyword,))

    # -- objects ---------------------------------------------------------------

    def _objects(
        self,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        props_a = _mapping(old.get("properties"))
        props_b = _mapping(new.get("properties"))
        req_a, req_b = _names(old.get("required")), _names(new.get("required"))
        for name in _union(props_a, props_b):
            if name in props_a and name in props_b:
                self._descend(
                    props_a[name], props_b[name], old_origin, new_origin, path, ("properties", name)
                )
            elif name in props_a:
                self._property_removed(name, new, name in req_a, old_origin, path)
            else:
                self._property_added(name, old, name in req_b, new_origin, path)
        for name in sorted(req_b - req_a):
            if name not in props_b or name in props_a:
                self.add(
                    Kind.BECAME_REQUIRED,
                    YES,
                    NO,
                    path,
                    f"property {name!r} is now required",
                    new_origin,
                    ("required",),
                )
        for name in sorted(req_a - req_b):
            if name in props_b or name not in props_a:
                self.add(
                    Kind.BECAME_OPTIONAL,
                    NO,
                    YES,
                    path,
                    f"property {name!r} is no longer required",
                    new_origin,
                    ("required",),
                )
        self._additional(old, old_origin, new, new_origin, path)
        self._keyed("patternProperties", old, old_origin, new, new_origin, path)
        self._keyed("dependentSchemas", old, old_origin, new, new_origin, path)
        self._dependent_required(old, new, new_origin, path)

    def _property_removed(
        self,
        name: str,
        new: Mapping[str, Any],
        required: bool,
        origin: Origin | None,
        path: JsonPath,
    ) -> None:
        rule = _rule_for(new, name)
        if rule is False:
            narrows, widens, what = YES, NO, "removed; the object now rejects it"
        elif rule is True:
            narrows, widens, what = NO, YES, "removed; any value is now accepted and ignored"
        else:
            narrows, widens, what = MAYBE, MAYBE, "removed; now governed by other keywords"
        note = " (it was required)" if required else ""
        self.add(
            Kind.PROPERTY_REMOVED,
            narrows,
            widens,
            path,
            f"property {name!r} {what}{note}",
            origin,
            ("properties", name),
        )

    def _property_added(
        self,
        name: str,
        old: Mapping[str, Any],
        required: bool,
        origin: Origin | None,
        path: JsonPath,
    ) -> None:
        rule = _rule_for(old, name)
        widens = YES if rule is False else NO if rule is True else MAYBE
        at = ("properties", name)
        if required:
            message = f"new required property {name!r}"
            self.add(Kind.REQUIRED_PROPERTY_ADDED, YES, widens, path, message, origin, at)
        else:
            message = f"new optional property {name!r}"
            self.add(Kind.PROPERTY_ADDED, NO, widens, path, message, origin, at)

    def _additional(
        self,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            a, b = _open(old.get(keyword, True)), _open(new.get(keyword, True))
            if a is True and b is True:
                continue
            if b is False and a is not False:
                self.add(
                    Kind.CLOSED,
                    YES,
                    NO,
                    path,
                    f"`{keyword}: false`: undeclared properties now rejected",
                    new_origin,
                    (keyword,),
                )
            elif a is False and b is not False:
                self.add(
                    Kind.OPENED,
                    NO,
                    YES,
                    path,
                    f"`{keyword}` no longer false: undeclared properties now accepted",
                    new_origin,
                    (keyword,),
                )
            elif a is not False:
                self._descend(
                    old.get(keyword, True),
                    new.get(keyword, True),
                    old_origin,
                    new_origin,
                    path,
                    (keyword,),
                )

    def _keyed(
        self,
        keyword: str,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        a, b = _mapping(old.get(keyword)), _mapping(new.get(keyword))
        for key in _union(a, b):
            at = (keyword, key)
            if key in a and key in b:
                self._descend(a[key], b[key], old_origin, new_origin, path, at)
            elif keyword == "dependentSchemas":
                if key in b:
                    message = f"new {keyword} entry {key!r}"
                    self.add(Kind.TIGHTENED, YES, NO, path, message, new_origin, at)
                else:
                    message = f"{keyword} entry {key!r} removed"
                    self.add(Kind.RELAXED, NO, YES, path, message, new_origin, at)
            else:
                what = "added" if key in b else "removed"
                message = f"{keyword} {key!r} {what}"
                self.add(Kind.CONSTRAINT_CHANGED, MAYBE, MAYBE, path, message, new_origin, at)

    def _dependent_required(
        self, old: Mapping[str, Any], new: Mapping[str, Any], origin: Origin | None, path: JsonPath
    ) -> None:
        a, b = _mapping(old.get("dependentRequired")), _mapping(new.get("dependentRequired"))
        for key in _union(a, b):
            before, after = _names(a.get(key)), _names(b.get(key))
            if after - before:
                self.add(
                    Kind.TIGHTENED,
                    YES,
                    NO,
                    path,
                    f"when {key!r} is present, {sorted(after - before)} now required",
                    origin,
                    ("dependentRequired",),
                )
            if before - after:
                self.add(
                    Kind.RELAXED,
                    NO,
                    YES,
                    path,
                    f"when {key!r} is present, {sorted(before - after)} no longer required",
                    origin,
                    ("dependentRequired",),
                )

    # -- arrays ----------------------------------------------------------------

    def _arrays(
        self,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        prefix_a, prefix_b = _prefix(old), _prefix(new)
        for index in range(max(len(prefix_a), len(prefix_b))):
            here = (*path, "prefixItems", index)
            if index < len(prefix_a) and index < len(prefix_b):
                key_a, key_b = _prefix_key(old), _prefix_key(new)
                self.node(
                    prefix_a[index],
                    _child(old_origin, key_a, index),
                    prefix_b[index],
                    _child(new_origin, key_b, index),
                    here,
                )
            else:
                self.add(
                    Kind.CONSTRAINT_CHANGED,
                    MAYBE,
                    MAYBE,
                    here,
                    f"tuple position {index} {'added' if index < len(prefix_b) else 'removed'}",
                    new_origin,
                )
        items_a, items_b = _items(old), _items(new)
        if items_a is not None or items_b is not None:
            self.node(
                True if items_a is None else items_a[0],
                _child(old_origin, *(items_a or (None, ()))[1]),
                True if items_b is None else items_b[0],
                _child(new_origin, *(items_b or (None, ()))[1]),
                (*path, "items"),
            )
        a, b = old.get("contains"), new.get("contains")
        if a is None and b is not None:
            self.add(
                Kind.TIGHTENED,
                YES,
                NO,
                path,
                "now must contain a matching item",
                new_origin,
                ("contains",),
            )
        elif b is None and a is not None:
            self.add(Kind.RELAXED, NO, YES, path, "`contains` removed", new_origin, ("contains",))
        elif a is not None:
            self._descend(a, b, old_origin, new_origin, path, ("contains",))
        for keyword in _POSITIVE:
            if keyword in old or keyword in new:
                self._descend(
                    old.get(keyword, True),
                    new.get(keyword, True),
                    old_origin,
                    new_origin,
                    path,
                    (keyword,),
                )

    # -- composition -----------------------------------------------------------

    def _combined(
        self,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        for keyword in ("allOf", "anyOf", "oneOf"):
            self._branches(keyword, old, old_origin, new, new_origin, path)
        for keyword in ("then", "else"):
            if keyword in old or keyword in new:
                self._descend(
                    old.get(keyword, True),
                    new.get(keyword, True),
                    old_origin,
                    new_origin,
                    path,
                    (keyword,),
                )
        for keyword in ("not", "if"):
            if keyword in old or keyword in new:
                self._uncertain += 1
                try:
                    if keyword not in old or keyword not in new:
                        what = "added" if keyword in new else "removed"
                        self.add(
                            Kind.SCHEMA,
                            MAYBE,
                            MAYBE,
                            path,
                            f"`{keyword}` {what}",
                            new_origin,
                            (keyword,),
                        )
                    else:
                        self._descend(
                            old[keyword], new[keyword], old_origin, new_origin, path, (keyword,)
                        )
                finally:
                    self._uncertain -= 1

    def _branches(
        self,
        keyword: str,
        old: Mapping[str, Any],
        old_origin: Origin | None,
        new: Mapping[str, Any],
        new_origin: Origin | None,
        path: JsonPath,
    ) -> None:
        a, b = _list(old.get(keyword)), _list(new.get(keyword))
        if not a and not b:
            return
        if not a or not b:
            self._whole(keyword, a, b, new_origin, path)
            return
        pairs, gone, added = self._match(a, b)
        uncertain = keyword == "oneOf"
        self._uncertain += uncertain
        try:
            for i, j in pairs:
                self._descend(a[i], b[j], old_origin, new_origin, path, (keyword, i), (keyword, j))
            if len(gone) == len(added):
                for i, j in zip(gone, added, strict=True):
                    self._descend(
                        a[i], b[j], old_origin, new_origin, path, (keyword, i), (keyword, j)
                    )
                return
            for j in added:  # allOf: one more conjunct; anyOf/oneOf: one more alternative
                kind, narrows, widens = (
                    (Kind.TIGHTENED, YES, NO) if keyword == "allOf" else (Kind.RELAXED, NO, YES)
                )
                self.add(
                    kind, narrows, widens, path, f"new {keyword} branch", new_origin, (keyword, j)
                )
            for i in gone:
                kind, narrows, widens = (
                    (Kind.RELAXED, NO, YES) if keyword == "allOf" else (Kind.TIGHTENED, YES, NO)
                )
                self.add(
                    kind,
                    narrows,
                    widens,
                    path,
                    f"{keyword} branch {i} removed",
                    new_origin,
                    (keyword,),
                )
        finally:
            self._uncertain -= uncertain

    def _whole(
        self, keyword: str, a: list[Any], b: list[Any], origin: Origin | None, path: JsonPath
    ) -> None:
        """A composition keyword added (one more constraint) or removed (one less)."""
        if b:
            self.add(
                Kind.TIGHTENED,
                YES,
                NO,
                path,
                f"new `{keyword}` of {len(b)} schemas",
                origin,
                (keyword,),
            )
        else:
            self.add(Kind.RELAXED, NO, YES, path, f"`{keyword}` removed", origin, (keyword,))

    def _match(
        self, a: list[Any], b: list[Any]
    ) -> tuple[list[tuple[int, int]], list[int], list[int]]:
        """Pair branches that mean the same; the rest are (removed, added)."""
        pairs: list[tuple[int, int]] = []
        free = list(range(len(b)))
        gone: list[int] = []
        for i, branch in enumerate(a):
            match = next((j for j in free if self.equivalent(branch, b[j])), None)
            if match is None:
                gone.append(i)
            else:
                free.remove(match)
                pairs.append((i, match))
        return pairs, gone, free

    def equivalent(self, old: Any, new: Any) -> bool:
        """Whether two subschemas accept the same values (as far as the comparison can tell).

        Each answer is computed once per pair (a chain of `anyOf` defs made this exponential),
        and a pair met again while it is being compared (a recursive def) is assumed
        equivalent, as a recursive type is: its differences show elsewhere.
        """
        known = self._equivalences
        key = (id(old), id(new))
        if key in known.answers:
            return known.answers[key]
        if key in known.pending:
            known.lowest = min(known.lowest, known.pending[key])
            return True
        level = known.pending[key] = len(known.pending)
        outer, known.lowest = known.lowest, level
        probe = Comparison(Document(self.old.root, None), Document(self.new.root, None), known)
        probe.node(old, None, new, None, ())
        answer = not any(d.validates for d in probe.deltas)
        del known.pending[key]
        if known.lowest >= level:  # rests on no assumption about a pair still being compared
            known.answers[key] = answer
        known.lowest = min(outer, known.lowest)
        return answer


@dataclass
class _Equivalences:
    """`Comparison.equivalent`'s answers, shared by a comparison and all its probes."""

    answers: dict[tuple[int, int], bool] = field(default_factory=dict)
    pending: dict[tuple[int, int], int] = field(default_factory=dict)
    """Pairs being compared, with their nesting level."""
    lowest: int = sys.maxsize
    """The outermost pending level an answer under way has assumed equivalent."""


def compare_schemas(old: Document, new: Document) -> list[Delta]:
    """Every difference between two schema documents, with its direction.

    A difference inside a def reached along several paths (or again through a
    recursive def) is reported once, at the first path that reaches it.
    """
    seen: set[tuple[Kind, str, object]] = set()
    unique = []
    for delta in Comparison(old, new).run():
        key = (delta.kind, delta.message, delta.location())
        if key not in seen:
            seen.add(key)
            unique.append(delta)
    return unique


# -- helpers -------------------------------------------------------------------


def _defs(root: Any) -> Any:
    return root.get("$defs", root.get("definitions")) if isinstance(root, dict) else None


def _as_dict(schema: Any) -> Mapping[str, Any] | None:
    if schema is True:
        return {}
    return schema if isinstance(schema, dict) else None


def _open(value: Any) -> Any:
    """`true` and `{}` alike mean "anything"."""
    return True if value == {} else value


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _union(a: Iterable[str], b: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*a, *b]))


def _child(origin: Origin | None, *path: Any) -> Origin | None:
    return origin.child(*path) if origin is not None and None not in path else None


def _shown(schema: Mapping[str, Any], keyword: str) -> str:
    return show(schema[keyword]) if keyword in schema else "none"


def _rule_for(schema: Mapping[str, Any], name: str) -> Any:
    """What a schema says about a property it does not declare: True, False, or a schema.

    None when a `patternProperties` entry applies (too complex to judge here).
    """
    for pattern in _mapping(schema.get("patternProperties")):
        try:
            if re.search(pattern, name):
                return None
        except re.error:
            return None
    return _open(schema.get("additionalProperties", True))


def _prefix(schema: Mapping[str, Any]) -> list[Any]:
    if "prefixItems" in schema:
        return _list(schema["prefixItems"])
    return _list(schema.get("items"))  # draft-07 tuple form


def _prefix_key(schema: Mapping[str, Any]) -> str:
    return "prefixItems" if "prefixItems" in schema else "items"


def _items(schema: Mapping[str, Any]) -> tuple[Any, tuple[str, ...]] | None:
    """The schema of the items after the tuple positions, and its key."""
    items = schema.get("items")
    if isinstance(items, list):
        extra = schema.get("additionalItems")
        return (extra, ("additionalItems",)) if extra is not None else None
    return (items, ("items",)) if items is not None else None


def _lift_any_of(schema: Mapping[str, Any], other: Mapping[str, Any]) -> Mapping[str, Any]:
    """`S` compared with `anyOf: [...]` is `anyOf: [S]` (a nullable `T` vs `anyOf: [T, null]`)."""
    if "anyOf" in schema or "anyOf" not in other or "oneOf" in schema:
        return schema
    if any(k not in ANNOTATIONS and k not in ("anyOf", "$defs", "default") for k in other):
        return schema
    body = {
        k: v for k, v in schema.items() if k not in ANNOTATIONS and k not in ("$defs", "default")
    }
    if not body:
        return schema
    kept = {k: v for k, v in schema.items() if k in ANNOTATIONS or k in ("$defs", "default")}
    return {**kept, "anyOf": [body]}
