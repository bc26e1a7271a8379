"""The schema a model is made from: what pydantic can check of a JSON Schema, in the few
shapes datamodel-code-generator (DCG) makes predictable classes and type aliases of.

A model accepts every value its schema accepts (the runtime's validator decides what is
valid; the models type and parse what it let through), so where a JSON Schema says what
pydantic cannot, the view says less, never more:

- Only these keywords are kept: `type`, `enum`, `const`; `properties`, `required`,
  `additionalProperties`, `patternProperties`, `min`/`maxProperties`; `items`, `min`/
  `maxItems`, `uniqueItems`; `min`/`maxLength`, `pattern`; `minimum`, `maximum`,
  `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; the annotations. The others
  (`not`, `if`/`then`/`else`, `dependent*`, `contains`, `propertyNames`, `unevaluated*`,
  `content*`, `format`, extensions) no model checks.
- A `$ref` with keywords beside it, and an `allOf`, are one schema of the parts' keywords:
  the types they share, properties and items joined (a property of two parts is the
  `allOf` of both), the tighter of two bounds, any part's `false`. What cannot be joined
  exactly (two patterns, a `multipleOf` each) keeps one part's, so the view accepts more.
- An `anyOf` or `oneOf` beside keywords of the schema's own is left out (the own keywords
  stay); alone, it is a union of its branches' views. A `false` branch is no branch.
- A schema without `type` accepts values of every type: each type's keywords apply to its
  own values, and the view is a union of one branch per type its keywords constrain and
  one of the rest (`{properties: P}` is an object of `P`, or a string, a number, ...).
- `prefixItems` is left out, with the `items` after it (an array of anything), but for
  its length when `items` is `false`; `patternProperties` leaves the extra properties
  open, but for a map whose keys one pattern names (`additionalProperties: false`).

The result (`view`) is `{}` (anything), a `$ref` alone, an enum, one typed schema, or an
`anyOf` (or `oneOf`, as written) of those, annotations beside; `False` when no value is
valid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from toolgen.schema.check import compile_validator
from toolgen.schema.jsonequal import json_type, same

Resolve = Callable[[str], Any]
"""The schema a `$ref` names (`None` when it names none the models know)."""
Accepts = Callable[[Mapping[str, Any], Any], bool]
"""Whether a schema (its `$ref`s those `Resolve` knows) accepts a value."""

ANNOTATIONS: Final = ("title", "description", "default", "examples", "deprecated")
OBJECT: Final = (
    *("properties", "required", "additionalProperties", "patternProperties"),
    *("minProperties", "maxProperties"),
)
ARRAY: Final = ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")
STRING: Final = ("minLength", "maxLength", "pattern")
NUMBER: Final = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
KINDS: Final = {"object": OBJECT, "array": ARRAY, "string": STRING, "number": NUMBER}
"""The keywords of each type of value (`number` stands for `integer` too)."""
ALL_TYPES: Final = ("object", "array", "string", "number", "boolean", "null")
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_SCALARS = frozenset({"string", "number", "integer", "boolean", "null"})
_ORDER: Final = ("object", "array", "string", "number", "integer", "boolean", "null")


def view(schema: Any, resolve: Resolve, accepts: Accepts, own: str | None = None) -> Any:
    """The model's view of `schema` (see the module docstring), the schema of the def `own`
    refers to when it is one; `False`: no value is valid. A `default` the schema it stands
    in refuses (`accepts`) is left out: no model could hold it."""
    return _View(resolve, accepts, own).of(schema)


def is_class(schema: Any) -> bool:
    """Whether a view is an object DCG makes a class of: one with properties, or closed."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and (bool(schema.get("properties")) or schema.get("additionalProperties") is False)
    )


def as_class(schema: Any) -> dict[str, Any]:
    """A view as the object class a tool's input (or object output) must be: a class of its
    properties, accepting any object where the view is not one."""
    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        notes = {k: schema[k] for k in ANNOTATIONS if isinstance(schema, dict) and k in schema}
        return {"type": "object", "properties": {}, "additionalProperties": True, **notes}
    out = {k: v for k, v in schema.items() if k not in ("minProperties", "maxProperties")}
    if "patternProperties" in out:
        del out["patternProperties"]
        out["additionalProperties"] = True
    if not out.get("properties") and isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = True  # DCG makes a map of a class without properties
    out.setdefault("properties", {})
    return out


class _View:
    def __init__(self, resolve: Resolve, accepts: Accepts, own: str | None) -> None:
        self.resolve = resolve
        self.accepts = accepts
        self.around: set[str] = {own} if own else set()
        """The defs whose keywords hold the schema being viewed: a `$ref` to one of them is
        a reference to its class (a recursive type), not expanded again."""
        self.in_place: set[str] = set(self.around)
        """Those of `around` the value itself must match (no property or item between):
        such a `$ref` asks nothing more of the value (validators read it as `true`)."""

    def of(self, schema: Any) -> Any:
        if schema is True or schema is False:
            return {} if schema else False
        if not isinstance(schema, dict):
            return {}
        notes = {k: schema[k] for k in ANNOTATIONS if k in schema}
        if "default" in notes and not self.accepts(schema, notes["default"]):
            del notes["default"]
        ref = schema.get("$ref")
        alone = not any(k in _KEPT or k in ("allOf", "anyOf", "oneOf") for k in schema)
        recursive = ref in self.around and ref not in self.in_place
        if isinstance(ref, str) and (alone or recursive):  # what is beside it: left out
            known = self.resolve(ref) is not None and ref not in self.in_place
            return {"$ref": ref, **notes} if known else notes
        expanded: set[str] = set()
        found = self._conjuncts(schema, expanded)
        if found is False:
            return False
        assert not isinstance(found, bool)
        flats, unions = found
        flat = _conjoin(flats)
        if flat is False:
            return False
        assert not isinstance(flat, bool)
        outer = (set(self.around), set(self.in_place))
        self.around |= expanded
        self.in_place |= expanded
        try:
            if unions and not flat:  # a union beside nothing of its own: the union
                word, union = unions[0]
                branches = [b for b in map(self.of, union) if b is not False]
                if not branches:
                    return False
                if any(not _says_anything(b) for b in branches):
                    return notes
                return {word: branches, **notes}
            return self._typed(flat, notes)
        finally:
            self.around, self.in_place = outer

    def below(self, schema: Any) -> Any:
        """The view of `schema` as a property's, an item's or a map value's: a value inside
        the one being viewed."""
        outer = self.in_place
        self.in_place = set()
        try:
            return self.of(schema)
        finally:
            self.in_place = outer

    def _conjuncts(
        self, schema: Mapping[str, Any], expanded: set[str]
    ) -> tuple[list[dict[str, Any]], list[tuple[str, list[Any]]]] | bool:
        """The flat keywords of `schema` and of every schema it must also match in place
        (`allOf`; a `$ref` to a def not `around` or `expanded` already, which it adds),
        and their unions; False when one of them is `false`."""
        flats = [{k: v for k, v in schema.items() if k in _KEPT}]
        unions = [(k, schema[k]) for k in ("anyOf", "oneOf") if isinstance(schema.get(k), list)]
        parts = list(schema["allOf"]) if isinstance(schema.get("allOf"), list) else []
        ref = schema.get("$ref")
        if (
            isinstance(ref, str)
            and ref not in expanded
            and ref not in self.around
            and (target := self.resolve(ref)) is not None
        ):
            parts.append(target)
            expanded.add(ref)
        for part in parts:
            if part is False:
                return False
            if isinstance(part, dict):
                more = self._conjuncts(part, expanded)
                if isinstance(more, bool):
                    return False
                flats += more[0]
                unions += more[1]
        return flats, unions

    # -- one type, or a union of one branch per type ----------------------------------------

    def _typed(self, flat: dict[str, Any], notes: dict[str, Any]) -> Any:
        types = flat.get("type")
        if "enum" in flat:
            return _enum(flat, types, notes)
        pieces: list[dict[str, Any]] = []
        rest: list[str] = []  # types whose values nothing here constrains
        for kind in ALL_TYPES if types is None else _kinds(types):
            piece = self._piece(kind, flat)
            if types is None and len(piece) == 1:
                rest.append(kind)
            else:
                pieces.append(piece)
        if not pieces:
            return notes  # nothing said of any type: anything
        if rest:
            pieces.append({"type": rest[0] if len(rest) == 1 else rest})
        scalars = [p for p in pieces if _SCALARS.issuperset(_kinds(p["type"]))]
        constrained = [p for p in scalars if len(p) > 1]
        if len(pieces) > 1 and len(scalars) == len(pieces) and len(constrained) <= 1:
            # one schema of scalar types: pydantic applies the constraints to their own type
            kinds = [t for p in pieces for t in _kinds(p["type"])]
            words = {k: v for p in constrained for k, v in p.items() if k != "type"}
            return {"type": kinds, **words, **notes}
        if len(pieces) == 1:
            return {**pieces[0], **notes}
        return {"anyOf": pieces, **notes}

    def _piece(self, kind: str, flat: dict[str, Any]) -> dict[str, Any]:
        """The schema of the `kind` values of `flat`: the type, and its keywords."""
        piece: dict[str, Any] = {"type": kind}
        for word in KINDS.get("number" if kind == "integer" else kind, ()):
            if word in flat:
                piece[word] = flat[word]
        if kind == "object":
            return self._object(piece)
        if kind == "array":
            return self._array(piece)
        return piece

    def _object(self, piece: dict[str, Any]) -> dict[str, Any]:
        if "properties" in piece:
            piece["properties"] = {
                name: ({} if (v := self.below(sub)) is False else v)
                for name, sub in piece["properties"].items()
            }
        extra = piece.get("additionalProperties")
        if isinstance(extra, dict):
            extra = self.below(extra)
            piece["additionalProperties"] = extra if _says_anything(extra) else True
        patterns = piece.pop("patternProperties", None)
        if patterns:
            if len(patterns) == 1 and extra is False and not piece.get("properties"):
                del piece["additionalProperties"]  # a map of one key pattern: exact
                pattern, value = next(iter(patterns.items()))
                value = self.below(value)
                piece["patternProperties"] = {pattern: {} if value is False else value}
            else:
                piece["additionalProperties"] = True
        if is_class(piece):
            for word in ("minProperties", "maxProperties"):
                piece.pop(word, None)
        return piece

    def _array(self, piece: dict[str, Any]) -> dict[str, Any]:
        items = piece.pop("items", None)
        prefix = piece.pop("prefixItems", None)
        if prefix is not None:
            if items is False:
                _tighten(piece, "maxItems", len(prefix))
            return piece
        if items is not None:
            items = self.below(items)
            if items is False:
                _tighten(piece, "maxItems", 0)
            elif _says_anything(items):
                piece["items"] = items
        return piece


def _enum(flat: dict[str, Any], types: Any, notes: dict[str, Any]) -> Any:
    """The values of an enum (or const) that the keywords beside it allow: an enum beside
    other keywords is exactly its values that pass them (`maxLength`, `pattern`, ...), so
    they are checked here, once, and left out."""
    values = flat["enum"]
    if types is not None:
        allowed = set(_kinds(types))
        values = [v for v in values if json_type(v) in allowed or (
            json_type(v) == "integer" and "number" in allowed)]  # fmt: skip
    beside = {k: v for k, v in flat.items() if k not in ("enum", "const", "type", "$ref")}
    if beside:
        try:
            passes = compile_validator(beside)
        except ValueError:  # a keyword the validator cannot compile alone: keep every value
            pass
        else:
            values = [v for v in values if passes.is_valid(v)]
    return {"enum": values, **notes} if values else False


_KEPT: Final = frozenset({"type", "enum", "const", *OBJECT, *ARRAY, *STRING, *NUMBER})
"""The flat keywords the view reads (annotations apart)."""


def _says_anything(schema: Any) -> bool:
    """Whether a view constrains values (`{}` and annotations alone do not)."""
    return not isinstance(schema, dict) or any(k not in ANNOTATIONS for k in schema)


def _kinds(types: Any) -> list[str]:
    """The types a `type` keyword names, in one order, `integer` within `number`."""
    listed = types if isinstance(types, list) else [types]
    out = [t for t in _ORDER if t in listed]
    return [t for t in out if t != "integer"] if "number" in out else out


def _tighten(piece: dict[str, Any], word: str, bound: Any) -> None:
    current = piece.get(word)
    if current is None:
        piece[word] = bound
    elif word in _LOWER:
        piece[word] = max(current, bound)
    else:
        piece[word] = min(current, bound)


def _conjoin(parts: list[dict[str, Any]]) -> dict[str, Any] | bool:
    """One flat schema that every value valid for all `parts` is valid for (exact but for
    two patterns or two `multipleOf`s, where one is kept; a `const` is a one-value enum);
    False when the types exclude each other or the enums share no value."""
    out: dict[str, Any] = {}
    many: dict[str, dict[str, list[Any]]] = {"properties": {}, "patternProperties": {}}
    alike: dict[str, list[Any]] = {"items": [], "additionalProperties": []}
    for part in parts:
        for word, value in part.items():
            if word == "type":
                out[word] = _shared_types(out[word], value) if word in out else value
                if not out[word]:
                    return False
            elif word in many:
                for name, sub in value.items():
                    many[word].setdefault(name, []).append(sub)
            elif word in alike:
                alike[word].append(value)
            elif word == "required":
                out[word] = list(dict.fromkeys([*out.get(word, []), *value]))
            elif word == "uniqueItems":
                out[word] = bool(out.get(word)) or value is True
            elif word in _LOWER or word in _UPPER:
                _tighten(out, word, value)
            elif word in ("enum", "const"):
                values = value if word == "enum" else [value]
                if "enum" in out:
                    values = [v for v in out["enum"] if any(same(v, w) for w in values)]
                if not values:
                    return False
                out["enum"] = values
            else:
                out.setdefault(word, value)  # a pattern, a multipleOf, prefixItems: one kept
    for word, subs in many.items():
        if subs:
            out[word] = {n: s[0] if len(s) == 1 else {"allOf": s} for n, s in subs.items()}
    for word, values in alike.items():
        kept = [v for v in values if v is not True]
        if False in kept:
            out[word] = False
        elif kept:
            out[word] = kept[0] if len(kept) == 1 else {"allOf": kept}
        elif values:
            out[word] = True
    return out


def _shared_types(a: Any, b: Any) -> Any:
    """The types both `type` keywords allow (`integer` where one says `number`); [] if none."""
    left, right = set(_kinds(a)), set(_kinds(b))
    for one, other in ((left, right), (right, left)):
        if "number" in one and "integer" in other:
            one.add("integer")
    shared = _kinds([t for t in _ORDER if t in left and t in right])
    return shared[0] if len(shared) == 1 else shared
