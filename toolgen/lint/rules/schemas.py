"""Schema rules (TG3xx) on every schema as written: mistakes, and what strict
clients and models cannot use.

These checks run on each schema of the tools' raw input and output and of the
spec set's defs (node scope), so findings point at the line where the problem
is written. Rules about a tool's schema as a whole are in `tool_schemas`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.lint.context import ABSOLUTE_URI, Context, SchemaNode, has_ref
from toolgen.lint.model import Category, Hit
from toolgen.lint.registry import ARRAY, BOOLEAN, TYPE_LIST, rule
from toolgen.report.findings import Severity
from toolgen.schema.check import compile_validator
from toolgen.spec.errors import Location

S = Category.SCHEMAS

_ELSEWHERE = frozenset(
    {
        "$ref",
        "$dynamicRef",
        "allOf",
        "anyOf",
        "oneOf",
        "if",
        "patternProperties",
        "dependentSchemas",
    }
)
"""Keywords through which an object's properties may be declared elsewhere."""
_TYPED = frozenset(
    {"type", "$ref", "$dynamicRef", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if"}
)
_BOOLEAN_OK = frozenset(
    {"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
)


def _types(schema: Mapping[str, Any]) -> list[Any]:
    kind = schema.get("type")
    return kind if isinstance(kind, list) else [kind] if kind is not None else []


def _properties(node: SchemaNode) -> Mapping[str, Any]:
    props = node.schema.get("properties") if isinstance(node.schema, dict) else None
    return props if isinstance(props, dict) else {}


@rule("TG301", "required-not-in-properties", S, Severity.ERROR, scope="node", keys=("required",))
def required_not_in_properties(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A `required` name is not among the object's `properties`.

    What it does: Flags each name in `required` that `properties` does not
    declare, in an object schema that does not take properties from elsewhere
    (`$ref`, `allOf`/`anyOf`/`oneOf`, `if`, `patternProperties`). A branch of
    `allOf`/`anyOf`/`oneOf`/`if`/`then`/`else` without its own `properties`
    (`anyOf: [{required: [phone]}, {required: [email]}]`) refers to its
    parent's properties and is not checked.

    Why: It is almost always a typo or a renamed property. The schema then
    demands a value nobody describes, so every call the model makes fails
    validation, or the required value can never be given when
    `additionalProperties` is false.

    Example:

        properties: {title: {type: string}}
        required: [titel]                                   # TG301

    Fix the name in `required`.
    """
    schema = node.schema
    if not isinstance(schema, dict) or not _ELSEWHERE.isdisjoint(schema):
        return
    if node.in_place and "properties" not in schema:
        return  # e.g. `anyOf: [{required: [phone]}, {required: [email]}]`
    required = schema.get("required")
    if not isinstance(required, list):
        return
    props = _properties(node)
    for index, name in enumerate(required):
        if isinstance(name, str) and name not in props:
            yield Hit(
                f"required property {name!r} is not declared in `properties`",
                node.origin.locate("required", index),
                node.tool,
            )


@rule("TG302", "array-without-items", S, Severity.WARNING, scope="node", keys=(ARRAY,))
def array_without_items(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """An array schema does not say what its items are.

    What it does: Flags a schema of `type: array` with neither `items` nor
    `prefixItems`.

    Why: The model has to guess what to put in the list, and strict clients and
    model APIs (OpenAI strict mode, Gemini) reject array schemas without `items`.

    Example:

        tags: {type: array}                                 # TG302

    Write `tags: {type: array, items: {type: string}}`.
    """
    schema = node.schema
    if (
        isinstance(schema, dict)
        and "array" in _types(schema)
        and not {"items", "prefixItems", "$ref", "allOf"} & schema.keys()
    ):
        yield Hit(
            "array schema without `items`: say what the list holds",
            node.origin.locate("type"),
            node.tool,
        )


def _described(schema: Any, node: SchemaNode, ctx: Context, depth: int = 0) -> bool:
    if not isinstance(schema, dict):
        return True
    text = schema.get("description")
    if isinstance(text, str) and text.strip():
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and depth < 8:
        target = ctx.resolve(ref, node)
        return target is None or _described(target[0], node, ctx, depth + 1)
    return False


@rule(
    "TG303", "property-without-description", S, Severity.WARNING, scope="node", keys=("properties",)
)
def property_without_description(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """An input property has no description.

    What it does: Flags a property of a tool input (or of a def an input uses)
    without a `description`; a property that is a `$ref` to a described def
    counts as described.

    Why: The description is all the model knows about what to pass. Without it,
    `id` or `mode` is a guess, and wrong guesses become failed calls.

    Example:

        properties:
          limit: {type: integer}                            # TG303

    Write `limit: {type: integer, description: Most notes to return.}`.
    """
    if not ctx.in_input(node) or not node.describes_object:
        return
    for name, prop in _properties(node).items():
        if isinstance(prop, dict) and not _described(prop, node, ctx):
            yield Hit(
                f"property {name!r} has no description",
                node.origin.locate("properties", name, key=True),
                node.tool,
            )


@rule(
    "TG304", "nullable-union", S, Severity.WARNING, scope="node", keys=(TYPE_LIST, "anyOf", "oneOf")
)
def nullable_union(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A schema is made nullable with a type list or an `anyOf`/`oneOf` null branch.

    What it does: Flags `type: [T, "null"]` and `anyOf`/`oneOf` lists with a
    `{type: "null"}` branch in tool inputs (and defs that inputs use), with advice
    that depends on where the null stands:

    - a required property: make it optional instead, or say in its description
      what `null` does;
    - an optional property: it is optional already, so `null` is a second way
      to leave it out: drop it, or say what it does;
    - an optional property whose description says what `null` does ("null clears
      the due date"): OpenAI strict mode sends `null` for every optional property
      it leaves out, so there `null` reads as "left out" and a model can never
      clear the field. Make the property required (and nullable), or give
      clearing a value of its own.

    A required property whose description says what `null` does is not flagged:
    every client and view keeps that `null`.

    Why: Strict clients reject type lists and null branches (the MCP inspector's
    `--strict` mode fails on them), and a `null` nobody explains leaves the model
    guessing whether it means "no value" or "clear it".

    Example:

        note: {type: [string, "null"]}                      # TG304

    Write `note: {type: string}` and leave it out of `required`. Output schemas
    are not checked: in a result, `null` is data.
    """
    schema = node.schema
    if not isinstance(schema, dict) or not ctx.in_input(node):
        return
    where: list[tuple[str, Location]] = []
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) > 1:
        where.append((f"nullable type list {kind!r}", node.origin.locate("type")))
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if (
            isinstance(branches, list)
            and len(branches) > 1
            and any(isinstance(b, dict) and b.get("type") == "null" for b in branches)
        ):
            where.append((f"`{keyword}` with a null branch", node.origin.locate(keyword, key=True)))
    if not where:
        return
    required = node.required_property()
    explained = bool(_SAYS_NULL.search(str(schema.get("description") or "")))
    if required is True and explained:
        return  # "null clears it", and every view keeps a required property's null
    if required is True:
        advice = "make the value optional instead, or say in its description what null does"
    elif required is False and explained:
        advice = (
            "OpenAI strict mode sends null for every optional property it leaves out, so "
            "there null reads as 'left out' and never clears: make the property required "
            "(and nullable), or give clearing a value of its own"
        )
    elif required is False:
        advice = (
            "the property is optional already, so null is a second way to leave it out: "
            "drop it, or say in its description what null does"
        )
    else:
        advice = "drop the null, or say in the description what it means"
    for what, location in where:
        yield Hit(f"{what}: strict clients reject it; {advice}", location, node.tool)


_SAYS_NULL = re.compile(r"\bnull\b", re.I)
"""A description that says what `null` does ("null clears the due date")."""


@rule("TG305", "type-list", S, Severity.WARNING, scope="node", keys=(TYPE_LIST,))
def type_list(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A schema gives `type` as a list of types.

    What it does: Flags `type` written as a list in tool inputs (and defs that
    inputs use), unless it is only a nullable pair (`[T, "null"]`, reported by TG304).

    Why: Several clients and model APIs accept only one type per schema (the MCP
    inspector's `--strict` mode fails on type arrays).

    Example:

        value: {type: [string, integer]}                    # TG305

    Write one type, or `anyOf: [{type: string}, {type: integer}]`. Output
    schemas are not checked: strict clients constrain what they send, not what
    they read.
    """
    if not ctx.in_input(node):
        return
    schema = node.schema
    kind = schema.get("type") if isinstance(schema, dict) else None
    if not isinstance(kind, list):
        return
    if len(kind) == 1 or len([t for t in kind if t != "null"]) > 1:
        yield Hit(
            f"`type` is a list {kind!r}; some clients accept one type per schema",
            node.origin.locate("type"),
            node.tool,
        )


@rule("TG310", "boolean-subschema", S, Severity.WARNING, scope="node", keys=(BOOLEAN,))
def boolean_subschema(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A subschema is a bare `true` or `false`.

    What it does: Flags `true`/`false` written where a schema goes (a property,
    `items`, an `anyOf` branch, ...), except `additionalProperties` and the other
    keywords where a boolean is the usual spelling (and `items: false` after
    `prefixItems`).

    Why: The TypeScript MCP SDK rejects a whole `tools/list` that contains a bare
    `true` sub-schema, and the MCP inspector's `--strict` mode fails on it; a
    `false` property can never be given, which is rarely meant.

    Example:

        properties:
          payload: true                                     # TG310

    Write `payload: {}` (any value), with a description.
    """
    value = node.schema
    if not isinstance(value, bool) or node.is_root or node.keyword in _BOOLEAN_OK:
        return
    if value is False and node.keyword == "items":
        return
    text = (
        "bare `true` schema; some clients reject it, write {}"
        if value
        else "`false` schema: no value is valid here"
    )
    yield Hit(text, node.origin.locate(), node.tool)


@rule("TG311", "remote-ref", S, Severity.ERROR, scope="node", keys=("$ref",))
def remote_ref(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A `$ref` points at another document by URI.

    What it does: Flags a `$ref` that is an absolute URI (`https://...`,
    `file:...`, `//host/...`).

    Why: Clients would have to fetch the schema, and most do not (or must not:
    fetching from a tool definition is a way to leak requests). toolgen never
    fetches schemas. Spec files cannot contain such references; published
    definitions can.

    Example:

        {"$ref": "https://example.com/schemas/user.json"}   # TG311

    Bundle the schema under `$defs` and refer to `#/$defs/...`.
    """
    schema = node.schema
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ABSOLUTE_URI.match(ref):
        yield Hit(
            f"$ref {ref!r} points at another document; clients cannot resolve it offline",
            node.origin.locate("$ref"),
            node.tool,
        )


@rule("TG312", "invalid-default", S, Severity.WARNING, scope="node", keys=("default",))
def invalid_default(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A `default` does not match its own schema.

    What it does: Validates each `default` against the schema it is written in
    (schemas with `$ref`s below them are skipped).

    Why: Clients and models use the default as an example of a valid value; a
    default that fails validation teaches them to send invalid arguments, and
    generated models with it fail at import.

    Example:

        limit: {type: integer, minimum: 1, default: 0}      # TG312

    Fix the default, or the constraint.
    """
    schema = node.schema
    if not isinstance(schema, dict) or "default" not in schema or has_ref(schema):
        return
    try:
        validator = compile_validator(schema)
    except Exception:  # an invalid pattern, say: the metaschema check reports it
        return
    error = next(iter(validator.iter_errors(schema["default"])), None)
    if error is not None:
        yield Hit(
            f"default {schema['default']!r} does not match its schema: {error.message}",
            node.origin.locate("default"),
            node.tool,
        )


@rule("TG313", "untyped-property", S, Severity.INFO, scope="node", keys=("properties",))
def untyped_property(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """An input property does not constrain its type.

    What it does: Flags a property of a tool input (or of a def an input uses)
    with none of `type`, `$ref`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`,
    `not`, `if`.

    Why: Any JSON value is accepted, so the model guesses between a string, a
    number and an object; strict model APIs require a type on every schema.

    Example:

        properties:
          value: {description: The value.}                  # TG313

    Add a `type` (or an `enum`).
    """
    if not ctx.in_input(node) or not node.describes_object:
        return
    for name, prop in _properties(node).items():
        if isinstance(prop, dict) and _TYPED.isdisjoint(prop):
            yield Hit(
                f"property {name!r} has no type",
                node.origin.locate("properties", name, key=True),
                node.tool,
            )


@rule("TG317", "never-valid-branch", S, Severity.WARNING, scope="node", keys=("anyOf", "oneOf"))
def never_valid_branch(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """An `anyOf`/`oneOf` branch can never match.

    What it does: Flags a branch that no value matches: `{not: {}}` or `{not:
    true}` (zod writes `{not: {}}` for `undefined` in a union). A bare `false`
    branch is TG310's.

    Why: The branch adds nothing a value could match, only text a model reads
    and a client must render; clients that turn schemas into forms or into a
    model API's subset choke on a schema that accepts nothing. A value left out
    is said by leaving the property out of `required`, not by a branch.

    Example:

        value:
          anyOf: [{type: string}, {not: {}}]                # TG317

    Remove the branch (`value: {type: string}`).
    """
    for keyword in ("anyOf", "oneOf"):
        branches = node.schema.get(keyword) if isinstance(node.schema, dict) else None
        if not isinstance(branches, list) or len(branches) < 2:
            continue
        for index, branch in enumerate(branches):
            if isinstance(branch, dict) and branch.get("not") in ({}, True):
                yield Hit(
                    f"branch {index} of `{keyword}` can never match (`not` of a schema that "
                    "matches everything); remove it",
                    node.origin.locate(keyword, index),
                    node.tool,
                )
