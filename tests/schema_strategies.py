"""Hypothesis strategies for what a spec set may hold: JSON Schemas built from every keyword
of 2020-12 (the dialect spec files are written in), spec sets of such schemas, and the
values they judge.

- `schemas` draws one schema: keyword groups (types, enums and consts, string, number,
  object and array keywords, combinators, conditionals, dependencies, content, annotations,
  anchors and dynamic references) put together
  at random, nested to `depth`, nullable types and unions included, with `$ref`s to named
  defs beside any other keywords.
- `spec_sets` draws a whole spec set: defs that refer to each other (and to themselves:
  recursion), in one file or two, tools whose inputs (object roots) and outputs use them,
  with `$defs` of their own.
- `ref_with_siblings` draws a bundled schema whose root is a `$ref` with keywords beside it
  from one family of keywords that read each other (`properties`/`patternProperties`/
  `additionalProperties`, `prefixItems`/`items`, `contains`/`minContains`/`maxContains`,
  `if`/`then`/`else`, `unevaluated*`, `dependent*`), target and siblings alike.
- `instances` draws values for a set of schemas that land on both sides of each: generated
  from the schemas (hypothesis-jsonschema), mutated, or any small JSON value.

Every schema drawn passes the 2020-12 metaschema; whether it is satisfiable is left to chance.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis_jsonschema import _canonicalise, from_schema

from toolgen.schema.inline import inline_refs
from toolgen.schema.jsonequal import same
from toolgen.spec.ir import ToolSet
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.text import visible

NAMES = ["a", "b", "id", "x", "value", "type", "items", "class", "x-y", "Point"]
"""Property names: plain ones, and some that are keywords, builtins or class names in Python."""
DEF_NAMES = ["Point", "Tag", "Node", "Item", "note_id"]
"""Def names: some are also the suffixes and names the model plan gives classes."""
PATTERNS = ["^a", "^[a-z]+$", "\\d", "^x-", "b$", "^.{0,3}$"]
FORMATS = ["date-time", "email", "uri", "uuid", "date", "ipv4"]
SCALAR_TYPES = ["string", "integer", "number", "boolean", "null"]
TYPES = [*SCALAR_TYPES, "object", "array"]

small_ints = st.integers(0, 4)
numbers = st.one_of(
    st.integers(-5, 300), st.sampled_from([0.5, 2.5, -1.5, 255, 1e3]), st.integers(-(2**40), 2**40)
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(["", "a", "ab", "x-y", "1"]))


def _json(names: tuple[str, ...]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(names), inner, max_size=3),
        ),
        max_leaves=8,
    )


json_values = _json(tuple(NAMES))
"""Any small JSON value, its object keys from `NAMES`: values that schemas drawn here judge."""


def _unique(values: list[Any]) -> list[Any]:
    """`values` without JSON duplicates (an enum's items must be unique)."""
    out: list[Any] = []
    for value in values:
        if not any(same(value, seen) for seen in out):
            out.append(value)
    return out


@st.composite
def schemas(
    draw: st.DrawFn,
    depth: int = 2,
    refs: Sequence[str] = (),
    root_object: bool = False,
    itself: str | None = None,
) -> Any:
    """A schema of up to `depth` levels of subschemas; `refs`: what a `$ref` may point at;
    `root_object`: an object root (`type: object`), as a tool's input must be; `itself`:
    the ref of the def this is, which its root does not refer to (the format refuses a def
    that is only itself)."""
    if not root_object and draw(st.integers(0, 19)) == 0:
        return draw(st.booleans())
    groups = set(
        draw(
            st.lists(
                st.sampled_from(_GROUPS if depth > 0 else _LEAF_GROUPS),
                max_size=3,
            )
        )
    )
    if [r for r in refs if r != itself] and draw(st.integers(0, 3)) == 0:
        groups.add("ref")
    if root_object:
        groups.add("object")
    out: dict[str, Any] = {}
    for group in sorted(groups):
        out.update(draw(_group(group, depth, tuple(refs), itself)))
    if root_object:
        out["type"] = "object"
    return out


def _sub(depth: int, refs: tuple[str, ...]) -> st.SearchStrategy[Any]:
    return schemas(depth - 1, refs)


def _group(
    name: str, depth: int, refs: tuple[str, ...], itself: str | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    sub = _sub(depth, refs)
    some = st.lists(sub, min_size=1, max_size=3)
    names = st.lists(st.sampled_from(NAMES), unique=True, max_size=3)
    if name == "type":
        one = st.sampled_from(TYPES)
        nullable = st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)
        return st.fixed_dictionaries({"type": st.one_of(one, nullable)})
    if name == "enum":
        values = st.lists(json_values, min_size=1, max_size=5).map(_unique)
        return st.one_of(
            st.fixed_dictionaries({"enum": values}),
            st.fixed_dictionaries({"const": json_values}),
            st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True), "type": st.just("string")}),
        )  # fmt: skip
    if name == "string":
        return st.fixed_dictionaries(
            {},
            optional={
                "type": st.just("string"),
                "minLength": small_ints,
                "maxLength": small_ints.map(lambda n: n + 2),
                "pattern": st.sampled_from(PATTERNS),
                "format": st.sampled_from(FORMATS),
            },
        )
    if name == "number":
        return st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["number", "integer"]),
                "minimum": numbers,
                "maximum": numbers,
                "exclusiveMinimum": numbers,
                "exclusiveMaximum": numbers,
                "multipleOf": st.sampled_from([1, 2, 0.5, 3]),
            },
        )
    if name == "object":
        return _object_keywords(depth, refs)
    if name == "array":
        return _array_keywords(depth, refs)
    if name == "combinator":
        return st.one_of(
            st.fixed_dictionaries({"anyOf": some}),
            st.fixed_dictionaries({"oneOf": some}),
            st.fixed_dictionaries({"allOf": some}),
            st.fixed_dictionaries({"not": sub}),
            # a nullable union, as people write an optional value
            st.builds(lambda s: {"anyOf": [s, {"type": "null"}]}, sub),
        )
    if name == "conditional":
        return st.fixed_dictionaries({}, optional={"if": sub, "then": sub, "else": sub})
    if name == "dependent":
        return st.fixed_dictionaries(
            {},
            optional={
                "dependentRequired": st.dictionaries(st.sampled_from(NAMES), names, max_size=2),
                "dependentSchemas": st.dictionaries(st.sampled_from(NAMES), sub, max_size=2),
            },
        )
    if name == "content":
        return st.fixed_dictionaries(
            {},
            optional={
                "contentEncoding": st.just("base64"),
                "contentMediaType": st.just("application/json"),
                "contentSchema": sub,
            },
        )
    if name == "annotation":
        return st.fixed_dictionaries(
            {},
            optional={
                "title": st.sampled_from(["A title", "Point", "x"]),
                "description": st.sampled_from(["Some text.", 'quote " and \\ backslash']),
                "$comment": st.just("a comment"),
                "deprecated": st.booleans(),
                "readOnly": st.booleans(),
                "writeOnly": st.booleans(),
                "default": json_values,
                "examples": st.lists(json_values, max_size=2),
            },
        )
    if name == "ref":
        return st.fixed_dictionaries({"$ref": st.sampled_from([r for r in refs if r != itself])})
    if name == "core":
        anchored = st.fixed_dictionaries({"$dynamicAnchor": st.just("node")}, optional={
            "$dynamicRef": st.just("#node")})  # fmt: skip
        return st.one_of(
            st.fixed_dictionaries(
                {}, optional={"$anchor": st.sampled_from(["node", "a1"]), "$comment": st.just("c")}
            ),
            anchored,
        )
    raise AssertionError(name)  # pragma: no cover


def _object_keywords(depth: int, refs: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    sub = _sub(depth, refs)
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", ["object", "null"]]),
            "properties": st.dictionaries(st.sampled_from(NAMES), sub, max_size=3),
            "required": st.lists(st.sampled_from(NAMES), unique=True, max_size=3),
            "additionalProperties": st.one_of(st.booleans(), sub),
            "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), sub, max_size=2),
            "propertyNames": st.one_of(
                st.just({"maxLength": 3}), st.just({"pattern": "^[a-z]+$"}), sub
            ),
            "minProperties": small_ints,
            "maxProperties": small_ints.map(lambda n: n + 1),
            "unevaluatedProperties": st.one_of(st.booleans(), sub),
        },
    )


def _array_keywords(depth: int, refs: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    sub = _sub(depth, refs)
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["array", ["array", "null"]]),
            "items": st.one_of(st.booleans(), sub),
            "prefixItems": st.lists(sub, min_size=1, max_size=3),
            "contains": sub,
            "minContains": small_ints,
            "maxContains": small_ints.map(lambda n: n + 1),
            "minItems": small_ints,
            "maxItems": small_ints.map(lambda n: n + 2),
            "uniqueItems": st.booleans(),
            "unevaluatedItems": st.one_of(st.booleans(), sub),
        },
    )


_LEAF_GROUPS = ["type", "enum", "string", "number", "annotation"]
_GROUPS = [
    *_LEAF_GROUPS,
    *["object", "object", "array", "array", "combinator"],
    *["conditional", "dependent", "content", "core"],
]


# -- spec sets ------------------------------------------------------------------------------


SHARED = "shared.yaml"
"""The second file of a drawn spec set, of defs only."""


@st.composite
def spec_sets(draw: st.DrawFn, max_tools: int = 2) -> dict[str, dict[str, Any]]:
    """The files of a spec set, by name: `drawn.yaml` (a server, defs, tools) and at times
    `shared.yaml` (defs). Defs refer to each other, across the files too, and to themselves
    (recursion); a tool's schema refers to them, and holds `$defs` of its own."""
    names = draw(st.lists(st.sampled_from(DEF_NAMES), unique=True, max_size=3))
    shared = draw(st.lists(st.sampled_from(DEF_NAMES), unique=True, max_size=2))
    refs = tuple(f"#/defs/{name}" for name in names)
    elsewhere = tuple(f"{SHARED}#/defs/{name}" for name in shared)
    back = tuple(f"drawn.yaml#/defs/{name}" for name in names)
    files: dict[str, dict[str, Any]] = {"drawn.yaml": {"toolgen": 1}}
    if shared:
        mine = ("#/defs/" + shared[0], *back)
        defs = {name: draw(schemas(2, mine, itself=f"#/defs/{name}")) for name in shared}
        files[SHARED] = {"toolgen": 1, "defs": defs}
    main = files["drawn.yaml"]
    main["server"] = {"name": "drawn", "version": "1.0.0"}
    if names:
        main["defs"] = {
            name: draw(schemas(2, refs + elsewhere, itself=f"#/defs/{name}")) for name in names
        }
    main["tools"] = [
        draw(_tool(index, refs + elsewhere)) for index in range(draw(st.integers(1, max_tools)))
    ]
    return files


@st.composite
def _tool(draw: st.DrawFn, index: int, refs: tuple[str, ...]) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": ["pick", "make_note", "get.x"][index], "description": "d"}
    for part in ("input", "output"):
        if part == "output" and draw(st.booleans()):
            continue
        # `$defs` of its own, which the format bundles (a `$ref` into them it refuses)
        own = draw(st.dictionaries(st.sampled_from(["L", "M"]), schemas(1, refs), max_size=1))
        schema = draw(schemas(3, refs, root_object=part == "input"))
        tool[part] = {**schema, "$defs": own} if own and isinstance(schema, dict) else schema
    return tool


# -- $ref beside keywords that read each other ---------------------------------------------

FAMILY_NAMES = ["a", "b", "x-y"]
"""The property names of the family schemas (and of the values that meet them)."""
FAMILIES: dict[str, list[str]] = {
    "properties": ["properties", "patternProperties", "additionalProperties", "required"],
    "items": ["prefixItems", "items", "minItems"],
    "contains": ["contains", "minContains", "maxContains", "items"],
    "conditional": ["if", "then", "else"],
    "unevaluated": [
        *["unevaluatedProperties", "unevaluatedItems", "properties", "patternProperties"],
        *["prefixItems", "items", "allOf", "anyOf", "oneOf", "if", "then", "dependentSchemas"],
    ],
    "dependent": ["dependentRequired", "dependentSchemas", "properties", "required"],
}
"""Keyword families whose members act on each other, with the keywords that meet them."""


def _small_values() -> list[Any]:
    """Every small value the family schemas tell apart: scalars, arrays of up to three of
    them, objects of `FAMILY_NAMES`, each also under the property `a`."""
    scalars: list[Any] = [None, 1, 2, "x", "", True, {}]
    arrays: list[Any] = [[]]
    for _ in range(3):
        arrays += [[*a, s] for a in arrays if len(a) == len(arrays[-1]) for s in scalars]
    objects: list[Any] = [{}]
    for name in FAMILY_NAMES:
        objects += [{**o, name: s} for o in objects for s in scalars[:5]]
    values = [*scalars, *arrays, *objects]
    return values + [{"a": v} for v in values]


SMALL_VALUES = _small_values()
"""Values every family schema is checked on, beside the drawn ones."""

_SMALL = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"minimum": 2},
        {"maxLength": 1},
        {"const": 1},
        {"properties": {"a": {"type": "string"}}},
        {"required": ["b"]},
        {"prefixItems": [{"type": "string"}]},
        {},
        True,
        False,
    ]
)
"""Subschemas for the family keywords: small, so both sides of each are often met."""


def _family_keyword(key: str) -> st.SearchStrategy[Any]:
    names = st.sampled_from(FAMILY_NAMES)
    # what an in-place applicator evaluates, for an `unevaluated*` beside it to see
    evaluating = st.one_of(
        st.sampled_from([{"properties": {"a": {}}}, {"prefixItems": [{}]}, {"items": True}]),
        _SMALL,
    )
    if key == "properties":
        return st.dictionaries(names, _SMALL, min_size=1, max_size=2)
    if key == "dependentSchemas":
        return st.dictionaries(names, evaluating, min_size=1, max_size=2)
    if key == "patternProperties":
        return st.dictionaries(st.sampled_from(["^x-", "^a", "b"]), _SMALL, min_size=1, max_size=2)
    if key in ("additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items"):
        return st.one_of(st.just(False), _SMALL)  # closed most often: what people write
    if key in ("contains", "not"):
        return _SMALL
    if key in ("if", "then", "else"):
        return evaluating
    if key == "prefixItems":
        return st.lists(_SMALL, min_size=1, max_size=2)
    if key in ("allOf", "anyOf", "oneOf"):
        return st.lists(evaluating, min_size=1, max_size=2)
    if key == "required":
        return st.lists(names, unique=True, min_size=1, max_size=2)
    if key == "dependentRequired":
        return st.dictionaries(names, st.lists(names, unique=True, max_size=2), min_size=1)
    if key in ("minItems", "minContains", "maxContains"):
        return small_ints
    raise AssertionError(key)  # pragma: no cover


@st.composite
def family_schema(draw: st.DrawFn, keys: Sequence[str]) -> dict[str, Any]:
    """A schema of `keys` (family keywords), with a type now and then and an annotation."""
    out = {key: draw(_family_keyword(key)) for key in keys}
    if draw(st.integers(0, 3)) == 0:
        out["type"] = draw(st.sampled_from(["object", "array", ["object", "array"]]))
    if draw(st.integers(0, 3)) == 0:
        out["description"] = draw(st.sampled_from(["target", "beside"]))
    return out


@st.composite
def ref_with_siblings(draw: st.DrawFn, family: str) -> tuple[dict[str, Any], list[Any]]:
    """A bundled schema `{$ref: T, <siblings>, $defs: {T: <target>}}`, the target and the
    siblings drawn from `family` (sometimes under a property, sometimes with a target that
    refers on), and the schemas of its parts alone: values valid for one part and not the
    other are those that tell a faithful inlining from a wrong one."""
    # the family's keywords shared out between the target and the siblings, mostly apart
    keys = draw(st.permutations(FAMILIES[family]))
    cut = draw(st.integers(1, len(keys) - 1))
    mine, theirs = keys[:cut], keys[cut:]
    if draw(st.integers(0, 3)) == 0:  # a keyword on both sides
        theirs = [*theirs, draw(st.sampled_from(mine))]
    target = draw(family_schema(draw(st.lists(st.sampled_from(mine), unique=True, min_size=1))))
    siblings = draw(family_schema(draw(st.lists(st.sampled_from(theirs), unique=True, min_size=1))))
    if draw(st.integers(0, 4)) == 0:  # the target is itself a $ref with siblings
        target = {"$ref": "#/$defs/U", **target}
    defs = {"T": target, "U": draw(family_schema(draw(st.lists(st.sampled_from(keys)))))}
    parts: list[Any] = [{"$ref": "#/$defs/T", **siblings}, target, siblings, defs["U"]]
    if draw(st.booleans()):
        parts = [{"type": "object", "properties": {"a": part}} for part in parts]
    return {**parts[0], "$defs": defs}, [{**part, "$defs": defs} for part in parts[1:]]


# -- values ---------------------------------------------------------------------------------


def mutations(value: Any) -> st.SearchStrategy[Any]:
    """Values near `value`: a member added, removed or replaced (at any depth, once)."""
    options: list[st.SearchStrategy[Any]] = [json_values]
    if isinstance(value, dict):
        options.append(st.builds(lambda k, v: {**value, k: v}, st.sampled_from(NAMES), json_values))
        if value:
            options.append(
                st.sampled_from(sorted(value)).map(
                    lambda k: {n: v for n, v in value.items() if n != k}
                )
            )
            options.append(
                st.sampled_from(sorted(value)).flatmap(
                    lambda k: mutations(value[k]).map(lambda v: {**value, k: v})
                )
            )
    if isinstance(value, list):
        options.append(st.builds(lambda v: [*value, v], json_values))
        if value:
            options.append(st.just(value[:-1]))
            options.append(
                st.integers(0, len(value) - 1).flatmap(
                    lambda i: mutations(value[i]).map(lambda v: [*value[:i], v, *value[i + 1 :]])
                )
            )
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        options.append(st.sampled_from([value + 1, value - 1, -value, value / 2]))
    if isinstance(value, str):
        options.append(st.sampled_from([value + "a", value[1:], value.upper(), "1" + value]))
    return st.one_of(options)


def generated(schema: Any) -> st.SearchStrategy[Any] | None:
    """Values of `schema` from hypothesis-jsonschema; None where it cannot generate them (a
    recursive `$ref`, a schema it does not support)."""
    # hypothesis-jsonschema 0.23.1 turns its own `false` schema into `{}` (it pops "not"
    # from a schema that is that object): after that it generates garbage, so restore it
    _canonicalise.FALSEY.clear()
    _canonicalise.FALSEY["not"] = {}
    inlined = inline_refs(schema)  # it resolves no recursive $ref
    if "$ref" in json.dumps(inlined):
        return None
    try:  # it edits the schema it is given
        strategy = from_schema(copy.deepcopy(inlined))
        strategy.validate()
    except Exception:  # unsupported, unsatisfiable
        return None
    return strategy


@st.composite
def instances(draw: st.DrawFn, schemas: Sequence[Any], names: Sequence[str] = NAMES) -> Any:
    """A value for `schemas`: from one of them (hypothesis-jsonschema, where it can), then
    mutated or not; or any small JSON value (its object keys from `names`)."""
    anything = _json(tuple(names))
    chosen = draw(st.sampled_from([None, *schemas]))
    source = generated(chosen) if chosen is not None else None
    if source is None:
        source = anything
    try:
        value = draw(source)
    except Exception:  # hypothesis-jsonschema fails on some schemas only while drawing
        reject()
    return draw(st.one_of(st.just(value), mutations(value))) if draw(st.booleans()) else value


def load_spec_files(directory: Path, files: dict[str, dict[str, Any]]) -> ToolSet:
    """Write a drawn spec set's `files` into `directory` and load it (raises `SpecError`)."""
    for name, data in files.items():
        # JSON is YAML 1.2; escaped: the characters YAML refuses raw (DEL, C1) and those the
        # reader (PyYAML) takes for line breaks, which no key may hold
        text = visible(json.dumps(data, ensure_ascii=False), keep="")
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        (directory / name).write_text(text, encoding="utf-8")
    return load_spec_set([directory / name for name in files])
