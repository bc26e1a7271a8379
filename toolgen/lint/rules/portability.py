"""Portability rules (TG5xx): tools that are valid MCP but that a model API rejects or
silently weakens.

Opt-in: `--target openai-strict|anthropic|gemini` (or `target = [...]` in the
configuration) selects the rules of each API. They convert the tool the way
`toolgen tools --format PROVIDER` does (`toolgen.providers`) and
report what that conversion could not carry over, at the place it is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from toolgen.lint.context import Context
from toolgen.lint.model import Category, Hit
from toolgen.lint.registry import rule
from toolgen.report.findings import Severity
from toolgen.schema.pointer import unescape, walk
from toolgen.spec.errors import Location
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import LATEST_REVISION, tool_definition

if TYPE_CHECKING:  # the providers (and jsonschema-rs) load only when a portability rule runs
    from toolgen.providers import Provider, ToolView

P = Category.PORTABILITY
_PROVIDER_OF_TARGET: dict[str, Provider] = {
    "openai-strict": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
}


_VIEWS = "_provider_views"


def _converted(tool: Tool, provider: Provider, ctx: Context) -> ToolView:
    """The tool as `provider` sees it, converted once per lint run."""
    cache: dict[tuple[str, str], ToolView] | None = getattr(ctx, _VIEWS, None)
    if cache is None:
        cache = {}
        setattr(ctx, _VIEWS, cache)
    key = (tool.name, provider)
    if key not in cache:
        from toolgen.providers import convert  # the providers load only when a rule needs them

        (cache[key],) = convert(provider, [tool_definition(tool, LATEST_REVISION)]).tools
    return cache[key]


def _place(tool: Tool, ctx: Context, pointer: str) -> Location:
    """Where a JSON pointer into the tool's input schema is written, as near as the raw
    input allows (a pointer through an inlined `$ref` stops at the reference)."""
    if tool.input_origin is None:
        return ctx.name_location(tool)
    _, path = walk(tool.input_origin.value(), [unescape(t) for t in pointer.split("/")[1:]])
    return tool.input_origin.locate(*path)


@rule("TG501", "provider-tool-name", P, Severity.ERROR, default=False)
def provider_tool_name(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool name a model API rejects (opt-in: `--target`).

    What it does: Flags a name outside `^[a-zA-Z0-9_-]{1,64}$` (OpenAI,
    Anthropic) or not starting with a letter or `_` (Gemini), for the selected
    targets (all three when TG501 is selected alone).

    Why: MCP allows dots and 128 characters; the model APIs refuse such a tool,
    and a client that passes the list on unchanged loses every tool of the
    request (openai/codex #8174). `toolgen tools --format` maps the names (and
    back), but clients that build their own requests do not.

    Example:

        name: github.get_issue                              # TG501

    Write `github_get_issue`.
    """
    from toolgen.providers import NAME_RULES  # the providers load only when a rule needs them

    targets = ctx.options.targets or frozenset(_PROVIDER_OF_TARGET)
    refused = [
        t for t in sorted(targets) if not NAME_RULES[_PROVIDER_OF_TARGET[t]].accepts(tool.name)
    ]
    if refused:
        rules = [NAME_RULES[_PROVIDER_OF_TARGET[t]] for t in refused]
        rule_text = max(rules, key=lambda r: r.letter_first).describe()  # the strictest
        verb = "rejects" if len(refused) == 1 else "reject"
        yield Hit(
            f"{', '.join(refused)} {verb} the name {tool.name!r}: it takes {rule_text}",
            ctx.name_location(tool),
        )


@rule("TG502", "root-combinator", P, Severity.ERROR, default=False)
def root_combinator(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """An input schema with `oneOf`/`anyOf`/`allOf` at its root (opt-in: `--target anthropic`).

    What it does: Flags a tool whose input schema combines alternatives or parts
    at the root.

    Why: Anthropic's API rejects the tool (claude-code #5319), and several
    clients drop it. `toolgen tools --format anthropic` folds the alternatives
    into one object; a published schema should do the same.

    Example:

        input:
          type: object
          oneOf: [{required: [id]}, {required: [slug]}]     # TG502

    Declare both properties and say in the description that one is needed.
    """
    schema = tool.input_schema
    for keyword in ("oneOf", "anyOf", "allOf"):
        if keyword in schema:
            yield Hit(
                f"root `{keyword}`: Anthropic rejects input schemas that combine schemas at the root",
                _place(tool, ctx, f"/{keyword}"),
            )


@rule("TG503", "openai-not-strict", P, Severity.WARNING, default=False)
def openai_not_strict(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool that OpenAI strict mode cannot express (opt-in: `--target openai-strict`).

    What it does: Converts the input schema to strict mode and flags each part
    that keeps the tool `strict: false`: a map (`additionalProperties` with a
    schema), a free-form object, a value of any type, an array without `items`,
    a schema past strict mode's limits.

    Why: Without strict mode the model may send arguments that do not match the
    schema (27.6% of real servers' schemas fail strict mode); with it, it
    cannot. A map can usually be a list of `{key, value}` objects.

    Example:

        labels: {type: object, additionalProperties: {type: string}}   # TG503

    Write `labels: {type: array, items: {type: object, properties: {name: ..., value: ...}}}`.
    """
    converted = _converted(tool, "openai", ctx)
    for blocker in dict.fromkeys(converted.blockers):
        pointer, _, reason = blocker.partition(": ")
        yield Hit(
            f"OpenAI strict mode: {reason}", _place(tool, ctx, "" if pointer == "/" else pointer)
        )


@rule("TG504", "openai-strict-loss", P, Severity.INFO, default=False)
def openai_strict_loss(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A constraint OpenAI strict mode drops (opt-in: `--target openai-strict`).

    What it does: Flags each keyword the strict-mode conversion removes and
    writes into the description instead (`minLength`, `maxLength`, `default`,
    `not`, formats strict mode lacks, ...).

    Why: The model no longer enforces it, so calls that break it reach the
    server and fail there; a constraint that matters is better expressed as an
    `enum` or a `pattern`, which strict mode keeps.

    Example:

        code: {type: string, minLength: 3, maxLength: 3}    # TG504

    Write `code: {type: string, pattern: "^.{3}$"}`.
    """
    converted = _converted(tool, "openai", ctx)
    if not converted.strict:
        return
    yield from _unique(
        Hit(
            f"OpenAI strict mode drops `{loss.keyword}`: {loss.detail}",
            _place(tool, ctx, loss.path),
        )
        for loss in converted.losses
        if loss.action in ("described", "narrowed", "dropped")
    )


@rule("TG505", "gemini-loss", P, Severity.WARNING, default=False)
def gemini_loss(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A schema part Gemini's function declarations cannot express (opt-in: `--target gemini`).

    What it does: Converts the input schema to Gemini's OpenAPI subset and flags
    what does not survive: keywords moved into descriptions (`const` other than
    a string, `exclusiveMinimum`, `multipleOf`, `not`, ...), `additionalProperties`,
    values of any type, recursion cut after two levels, arrays without `items`.

    Why: Gemini rejects function declarations with these keywords (gemini-cli
    #13326), and clients that strip them silently send a weaker schema.

    Example:

        mode: {const: 1}                                    # TG505

    Write `mode: {type: string, enum: ["1"]}`, or describe the value.
    """
    converted = _converted(tool, "gemini", ctx)
    yield from _unique(
        Hit(f"Gemini: `{loss.keyword}` {loss.action}: {loss.detail}", _place(tool, ctx, loss.path))
        for loss in converted.losses
        if loss.action in ("described", "narrowed", "dropped")
        and not (loss.keyword == "additionalProperties" and loss.action == "dropped")
    )


def _unique(hits: Iterable[Hit]) -> Iterator[Hit]:
    """Each hit once: a def used twice is converted twice but written once."""
    seen: set[tuple[str, str]] = set()
    for hit in hits:
        key = (hit.message, str(hit.location))
        if key not in seen:
            seen.add(key)
            yield hit
