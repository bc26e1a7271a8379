"""Schema rules (TG3xx) about a tool's schemas as a whole: depth, size, presence,
openness, references. Depth and size are measured on the bundled schema a client
receives; findings point at the tool's `input`/`output` key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.lint.context import Context, count_schemas, has_ref
from toolgen.lint.model import Category, Hit
from toolgen.lint.registry import rule
from toolgen.report.findings import Severity
from toolgen.schema.pointer import unescape
from toolgen.schema.walk import DEFS_KEYWORDS, HOLDING, subschema_list
from toolgen.spec.ir import Origin, Tool
from toolgen.spec.protocol import sent_schema

S = Category.SCHEMAS


def _schemas_of(tool: Tool) -> Iterator[tuple[str, Mapping[str, Any], Origin]]:
    """The bundled input and output schemas, each with where it is written (located only
    when reported: most tools have no finding here)."""
    if tool.input_origin is not None:
        yield "input", tool.input_schema, tool.input_origin
    if tool.output_schema is not None and tool.output_origin is not None:
        yield "output", tool.output_schema, tool.output_origin


def _is_root(schema: Any, root: Mapping[str, Any]) -> bool:
    """Whether `schema` is the def the root was inlined from (a reference back to the root)."""
    return (
        isinstance(schema, dict)
        and len(schema) == len(root) - ("$defs" in root)  # (no copy of the root to compare)
        and schema == {k: v for k, v in root.items() if k != "$defs"}
    )


def _depth(
    schema: Any, root: Mapping[str, Any], stack: frozenset[str], limit: int, memo: dict[str, int]
) -> int:
    """Nesting levels below `schema`, following local `$ref`s (each def once per path).
    Subschemas come as a list (`walk.subschema_list`): this runs for every schema of every
    tool."""
    if not isinstance(schema, dict):
        return 0
    best = _ref_depth(schema, root, stack, limit, memo)
    for sub in subschema_list(schema, defs=False):
        best = max(best, 1 + _depth(sub, root, stack, limit, memo))
        if best > limit:
            break
    return best


def _ref_depth(
    schema: dict[str, Any],
    root: Mapping[str, Any],
    stack: frozenset[str],
    limit: int,
    memo: dict[str, int],
    heights: dict[int, int | None] | None = None,
) -> int:
    """The depth of the def `schema`'s `$ref` names in the root (as `_depth`), else 0. With
    `heights`, a def without `$ref`s is measured once for every root that holds it (the
    bundled schemas of many tools share a def's dict): its height, which is its depth or,
    where `_depth` stops early, more than `limit` as well."""
    best = 0
    ref = schema.get("$ref")
    if isinstance(ref, str):
        for prefix, key in (("#/$defs/", "$defs"), ("#/definitions/", "definitions")):
            defs = root.get(key)
            token = ref[len(prefix) :] if ref.startswith(prefix) else None
            name = unescape(token) if token is not None else None
            if (
                name is not None
                and name not in stack
                and isinstance(defs, dict)
                and name in defs
                and not _is_root(defs[name], root)
            ):
                if name not in memo:
                    body = defs[name]
                    height = None
                    if heights is not None:
                        if id(body) not in heights:
                            heights[id(body)] = _plain_height(body)
                        height = heights[id(body)]
                    memo[name] = (
                        height
                        if height is not None
                        else _depth(body, root, stack | {name}, limit, memo)
                    )
                best = memo[name]
    return best


def _plain_height(schema: Any) -> int | None:
    """The nesting levels below `schema` (as `_depth`: without its defs), None if it or a
    schema below it has a `$ref`."""
    if not isinstance(schema, dict):
        return 0
    if "$ref" in schema:
        return None
    best = 0
    for sub in subschema_list(schema, defs=False):
        height = _plain_height(sub)
        if height is None:
            return None
        best = max(best, 1 + height)
    return best


def _measure(
    schema: Any,
    root: Mapping[str, Any],
    limit: int,
    memo: dict[str, int],
    heights: dict[int, int | None],
) -> tuple[int, int]:
    """`schema`'s depth and its number of schemas in one walk: whether the depth is more
    than `limit` as `_depth(schema, root, frozenset(), limit, memo)` says (which stops
    early, so its value may be smaller when both are), and the count as `count_schemas`.
    The defs are counted where they are written and measured where a `$ref` names them
    (`_ref_depth`, with the `heights` of defs without `$ref`s shared by all tools)."""
    if not isinstance(schema, dict):
        return 0, 1
    best = _ref_depth(schema, root, frozenset(), limit, memo, heights) if "$ref" in schema else 0
    if HOLDING.isdisjoint(schema):
        return best, 1  # (most schemas hold none)
    count = 1
    for sub in subschema_list(schema, defs=False):
        depth, size = _measure(sub, root, limit, memo, heights)
        best = max(best, 1 + depth)
        count += size
    for key in DEFS_KEYWORDS.intersection(schema):
        if isinstance(schema[key], dict):
            count += sum(count_schemas(sub) for sub in schema[key].values())
    return best, count


def _sizes(tool: Tool, ctx: Context) -> list[tuple[str, int, int, Origin]]:
    """The depth and the number of schemas of each of the tool's bundled schemas (one walk
    for TG306 and TG307, made once per tool)."""
    key = ("schema sizes", tool.name)
    found: list[tuple[str, int, int, Origin]] | None = ctx.memo.get(key)
    if found is None:
        limit = ctx.options.max_schema_depth
        heights = ctx.memo.setdefault("plain heights", {})  # by id: the dicts outlive `ctx`
        found = ctx.memo[key] = [
            (part, *_measure(schema, schema, limit, {}, heights), where)
            for part, schema, where in _schemas_of(tool)
        ]
    return found


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
    for part, depth, _, where in _sizes(tool, ctx):
        if depth > limit:
            yield Hit(f"{part} schema nests more than {limit} levels deep", where.locate(key=True))


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
    for part, _, count, where in _sizes(tool, ctx):
        if count > limit:
            yield Hit(
                f"{part} schema has {count} schemas; more than {limit}", where.locate(key=True)
            )


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


@rule("TG314", "ref-in-schema", S, Severity.INFO, default=False)
def ref_in_schema(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool definition clients receive still uses `$ref` (opt-in rule).

    What it does: Flags an input or output schema whose tool definition (as
    `toolgen build` writes it and `toolgen serve` sends it, or as a server
    published it) still contains `$ref`. toolgen inlines every reference that
    is not recursive, so in a spec set this flags a recursive def, or a spec
    set that keeps its references (`server.refs: keep`, `--refs keep`). Not run
    unless selected (`select = ["TG314"]`).

    Why: Some MCP clients and model APIs do not resolve references and see an
    empty or broken schema. Enable this rule when you target such clients.

    Example:

        server: {name: notes, version: 1.0.0, refs: keep}
        ...
        input: {type: object, properties: {note: {$ref: "#/defs/Note"}}}   # TG314

    Drop `refs: keep` (toolgen then inlines the def). A recursive def cannot be
    inlined: where the target clients need it, write out the few levels they
    use instead. A published definition is fixed in its server (FastMCP and
    other SDKs can dereference schemas; `toolgen import` then `toolgen build`
    does it for you).
    """
    for part, schema, where in _schemas_of(tool):
        if has_ref(sent_schema(tool, schema)):
            why = "as written" if tool.refs == "keep" else "recursive: it cannot be inlined"
            yield Hit(
                f"{part} schema sends a $ref ({why}); some clients do not resolve references",
                where.locate(key=True),
            )
