"""Schema rules (TG3xx): mistakes, and what strict clients and models cannot use.

Most checks run on every schema as written (node scope: tools' raw input
and output schemas and the spec set's defs), so findings point at the line
where the problem is written. Size and depth are measured on the bundled
schema a client receives.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.errors import Location
from toolgen.ir import Tool
from toolgen.lint.context import ABSOLUTE_URI, Context, SchemaNode, count_schemas
from toolgen.lint.model import Category, Hit, Severity
from toolgen.lint.registry import ARRAY, BOOLEAN, TYPE_LIST, rule
from toolgen.schemawalk import subschemas, walk_schemas

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


def _schemas_of(tool: Tool) -> Iterator[tuple[str, Mapping[str, Any], Location]]:
    """The bundled input and output schemas, each with where it is written."""
    if tool.input_origin is not None:
        yield "input", tool.input_schema, tool.input_origin.locate(key=True)
    if tool.output_schema is not None and tool.output_origin is not None:
        yield "output", tool.output_schema, tool.output_origin.locate(key=True)


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
    if not isinstance(schema, dict) or _ELSEWHERE & schema.keys():
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
    `{type: "null"}` branch.

    Why: Strict clients and model APIs reject type lists and null branches (the
    MCP inspector's `--strict` mode fails on them). For an input, leaving the
    property out of `required` says "optional" in a way every client reads.

    Example:

        note: {type: [string, "null"]}                      # TG304

    Write `note: {type: string}` and leave it out of `required`.
    """
    schema = node.schema
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) > 1:
        yield Hit(
            f"nullable type list {kind!r}: strict clients reject it; make the value optional instead",
            node.origin.locate("type"),
            node.tool,
        )
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if (
            isinstance(branches, list)
            and len(branches) > 1
            and any(isinstance(b, dict) and b.get("type") == "null" for b in branches)
        ):
            yield Hit(
                f"`{keyword}` with a null branch: strict clients reject it; make the value optional instead",
                node.origin.locate(keyword, key=True),
                node.tool,
            )


@rule("TG305", "type-list", S, Severity.WARNING, scope="node", keys=(TYPE_LIST,))
def type_list(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A schema gives `type` as a list of types.

    What it does: Flags `type` written as a list, unless it is only a nullable
    pair (`[T, "null"]`, reported by TG304).

    Why: Several clients and model APIs accept only one type per schema (the MCP
    inspector's `--strict` mode fails on type arrays).

    Example:

        value: {type: [string, integer]}                    # TG305

    Write one type, or `anyOf: [{type: string}, {type: integer}]`.
    """
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


def _depth(
    schema: Any, root: Mapping[str, Any], stack: frozenset[str], limit: int, memo: dict[str, int]
) -> int:
    """Nesting levels below `schema`, following local `$ref`s (each def once per path)."""
    if not isinstance(schema, dict):
        return 0
    best = 0
    ref = schema.get("$ref")
    if isinstance(ref, str):
        for prefix in ("#/$defs/", "#/definitions/"):
            defs = root.get(prefix[3:-1])
            name = ref[len(prefix) :] if ref.startswith(prefix) else None
            if name is not None and name not in stack and isinstance(defs, dict) and name in defs:
                if name not in memo:
                    memo[name] = _depth(defs[name], root, stack | {name}, limit, memo)
                best = memo[name]
    for rel, sub in subschemas(schema):
        if rel[0] in ("$defs", "definitions"):
            continue
        best = max(best, 1 + _depth(sub, root, stack, limit, memo))
        if best > limit:
            break
    return best


@rule("TG306", "schema-too-deep", S, Severity.WARNING)
def schema_too_deep(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool schema nests deeper than clients handle.

    What it does: Flags an input or output schema (as bundled, following local
    `$ref`s once per path) with more than `max-schema-depth` (default 10) levels
    of nested schemas.

    Why: Model APIs limit nesting (OpenAI structured outputs: 10 levels) and
    reject deeper schemas; models fill deep structures badly.

    Example:

        input: {type: object, properties: {a: {type: object, properties: {b: ...}}}}   # TG306

    Flatten the structure, or split the tool.
    """
    limit = ctx.options.max_schema_depth
    for part, schema, where in _schemas_of(tool):
        depth = _depth(schema, schema, frozenset(), limit, {})
        if depth > limit:
            yield Hit(f"{part} schema nests more than {limit} levels deep", where)


@rule("TG307", "schema-too-large", S, Severity.WARNING)
def schema_too_large(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool schema is very large.

    What it does: Flags an input or output schema (as bundled) with more than
    `max-schema-nodes` (default 200) schemas in it.

    Why: Every tool definition is sent to the model with every request; a huge
    schema costs context and money on each call, and model APIs cap the number
    of properties they accept.

    Example:

        input: {type: object, properties: {... 250 properties ...}}   # TG307

    Split the tool, or accept a smaller, more general argument.
    """
    limit = ctx.options.max_schema_nodes
    for part, schema, where in _schemas_of(tool):
        count = count_schemas(schema)
        if count > limit:
            yield Hit(f"{part} schema has {count} schemas; more than {limit}", where)


@rule("TG308", "output-schema-missing", S, Severity.WARNING)
def output_schema_missing(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool declares no output schema.

    What it does: Flags a tool without `output` (`outputSchema`).

    Why: Without an output schema, results are unstructured text: clients cannot
    validate them, the model has to parse prose, and toolgen generates no
    output model. With one, servers send `structuredContent` that clients check.

    Example:

        - name: get_note
          input: {...}                                      # TG308 (no output)

    Add `output:` with the schema of what the tool returns.
    """
    if tool.output_schema is None:
        yield Hit(
            "no output schema: results cannot be validated or used as structured data",
            ctx.name_location(tool),
        )


@rule("TG309", "open-input-object", S, Severity.INFO)
def open_input_object(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool input accepts properties it does not declare.

    What it does: Flags an input schema whose root does not set
    `additionalProperties: false` (or a schema for the extra properties).

    Why: A misspelt argument (`titel`) is then silently accepted and ignored
    instead of being rejected with a message the model can act on; strict model
    APIs (OpenAI strict mode) require closed objects.

    Example:

        input: {type: object, properties: {title: {type: string}}}   # TG309

    Add `additionalProperties: false`.
    """
    if tool.input_origin is None:
        return
    schema = tool.input_schema
    extra = schema.get("additionalProperties", True)
    if extra is True and schema.get("unevaluatedProperties", True) is True:
        yield Hit(
            "input accepts undeclared properties; add `additionalProperties: false`",
            tool.input_origin.locate(key=True),
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


def _has_ref(schema: Any) -> bool:
    return any(
        isinstance(sub, dict) and ("$ref" in sub or "$dynamicRef" in sub)
        for _, sub in walk_schemas(schema)
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
    if not isinstance(schema, dict) or "default" not in schema or _has_ref(schema):
        return
    import jsonschema_rs

    try:
        validator = jsonschema_rs.Draft202012Validator(schema)
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
        if isinstance(prop, dict) and not _TYPED & prop.keys():
            yield Hit(
                f"property {name!r} has no type",
                node.origin.locate("properties", name, key=True),
                node.tool,
            )


@rule("TG314", "ref-in-schema", S, Severity.INFO, default=False)
def ref_in_schema(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool schema uses `$ref` (opt-in rule).

    What it does: Flags an input or output schema that, as bundled, still
    contains `$ref`/`$defs`. Not run unless selected (`select = ["TG314"]`).

    Why: Some MCP clients and model APIs do not resolve references and see an
    empty or broken schema. Enable this rule when you target such clients; keep
    shared shapes in `defs` only for recursive types then.

    Example:

        input: {type: object, properties: {note: {$ref: "#/defs/Note"}}}   # TG314

    Inline the def where the target clients need it.
    """
    for part, schema, where in _schemas_of(tool):
        if "$defs" in schema or _has_ref(schema):
            yield Hit(f"{part} schema uses $ref; some clients do not resolve references", where)
