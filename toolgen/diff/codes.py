"""The change codes of `toolgen diff`: stable, documented, never reused.

Each `Code` says what kind of change it reports, in which category, and
whether it breaks clients: `breaking` is "yes", "no", or "maybe" (the change
may narrow what a tool accepts or widen what it returns, and toolgen cannot
prove it harmless, so it is reported as possibly breaking rather than passed
silently). `docs/diff-changes.md` is generated from this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache


class Category(StrEnum):
    """What part of the contract a change touches."""

    TOOLS = "tools"
    INPUT = "input"
    OUTPUT = "output"
    SAFETY = "safety"
    DOCS = "docs"
    WRAPPING = "wrapping"
    SERVER = "server"


@dataclass(frozen=True, slots=True)
class Code:
    """One kind of change."""

    code: str
    name: str
    category: Category
    breaking: str
    """"yes", "no", or "depends" (the doc says when)."""
    summary: str
    why: str
    example: str


def _c(
    code: str, name: str, category: Category, breaking: str, summary: str, why: str, example: str
) -> Code:
    return Code(code, name, category, breaking, summary, why, example)


TOOLS, INPUT, OUTPUT, SAFETY = Category.TOOLS, Category.INPUT, Category.OUTPUT, Category.SAFETY
DOCS, WRAPPING, SERVER = Category.DOCS, Category.WRAPPING, Category.SERVER

CODES: tuple[Code, ...] = (
    _c(
        "TD001",
        "definition-rewritten",
        TOOLS,
        "no",
        "A tool's definition (and so its digest) changed, but not its meaning.",
        "Clients that pinned the tool's digest see a new one; this says why nothing else is reported (key order never changes a digest, but `$ref` vs inline, renamed `$defs` or a new `$comment` do).",
        "an input property moved into `defs` and is now reached by `$ref`.",
    ),
    _c(
        "TD101",
        "tool-removed",
        TOOLS,
        "yes",
        "A tool was removed.",
        "Clients and models that call it get an unknown-tool error.",
        "`delete_note` is no longer in the spec set.",
    ),
    _c(
        "TD102",
        "tool-added",
        TOOLS,
        "no",
        "A tool was added.",
        "Nothing that worked stops working; models see one more tool.",
        "`archive_note` is new.",
    ),
    _c(
        "TD103",
        "tool-renamed",
        TOOLS,
        "yes",
        "A tool was removed and a tool with the same schemas added: a rename.",
        "Callers of the old name break; the changes between the two definitions are reported under the new name.",
        "`get_note` became `fetch_note` with the same input and output.",
    ),
    _c(
        "TD104",
        "server-removed",
        TOOLS,
        "yes",
        "A server (spec set) of a directory of spec sets was removed.",
        "Every tool of it is gone.",
        "`specs/shop/` was deleted.",
    ),
    _c(
        "TD105",
        "server-added",
        TOOLS,
        "no",
        "A server (spec set) was added to a directory of spec sets.",
        "Nothing that worked stops working.",
        "`specs/billing/` is new.",
    ),
    _c(
        "TD201",
        "input-required-property-added",
        INPUT,
        "yes",
        "The input has a new required property.",
        "Every call that worked before lacks it and is now rejected.",
        "`create_note` now requires `folder`.",
    ),
    _c(
        "TD202",
        "input-property-became-required",
        INPUT,
        "yes",
        "An optional input property became required.",
        "Calls that left it out are now rejected.",
        "`tags` moved into `required`.",
    ),
    _c(
        "TD203",
        "input-property-removed",
        INPUT,
        "depends",
        "An input property was removed from `properties`.",
        "Breaking when the object no longer accepts it (closed with `additionalProperties: false`): calls that send it are rejected. Otherwise the tool silently ignores what clients still send (not breaking, but worth a look).",
        "`body` was removed from an input with `additionalProperties: false`.",
    ),
    _c(
        "TD204",
        "input-property-added",
        INPUT,
        "no",
        "The input has a new optional property.",
        "Calls that worked still work (clients send only the properties they know).",
        "`create_note` accepts an optional `pinned`.",
    ),
    _c(
        "TD205",
        "input-property-became-optional",
        INPUT,
        "no",
        "A required input property became optional.",
        "The input accepts more; every call that worked still works.",
        "`title` left `required`.",
    ),
    _c(
        "TD206",
        "input-type-narrowed",
        INPUT,
        "yes",
        "An input value accepts fewer JSON types.",
        "Calls that send a type no longer allowed are rejected.",
        "`limit` went from `[integer, string]` to `integer`, or from `number` to `integer`.",
    ),
    _c(
        "TD207",
        "input-type-widened",
        INPUT,
        "no",
        "An input value accepts more JSON types.",
        "Every call that worked still works.",
        "`limit` went from `integer` to `number`.",
    ),
    _c(
        "TD208",
        "input-enum-value-removed",
        INPUT,
        "yes",
        "An input value lost an allowed value (`enum` or `const`), or gained an `enum` it did not have.",
        "Calls that send the removed value are rejected.",
        "`state` no longer accepts `archived`.",
    ),
    _c(
        "TD209",
        "input-enum-value-added",
        INPUT,
        "no",
        "An input value accepts a new `enum` value, or lost its `enum`.",
        "Every call that worked still works.",
        "`state` accepts `draft`.",
    ),
    _c(
        "TD210",
        "input-constraint-tightened",
        INPUT,
        "depends",
        "An input constraint became stricter: a tighter or new bound (`minimum`, `maxLength`, `maxItems`, ...), `multipleOf`, `uniqueItems`, a new `pattern` or `format`, a new composition branch.",
        "Calls that met the old constraint may fail the new one. Breaking; possibly breaking for a new `format` (validators may not assert formats).",
        "`title` went from `maxLength: 200` to `maxLength: 100`.",
    ),
    _c(
        "TD211",
        "input-constraint-relaxed",
        INPUT,
        "no",
        "An input constraint became looser or was removed.",
        "Every call that worked still works.",
        "`limit` went from `maximum: 50` to `maximum: 100`.",
    ),
    _c(
        "TD212",
        "input-constraint-changed",
        INPUT,
        "maybe",
        "An input constraint changed in a way toolgen cannot order: a different `pattern` or `format`, an incomparable `multipleOf`, changed `patternProperties`.",
        "It may reject calls that worked; review it.",
        "`id` went from `^n_[0-9a-f]{8}$` to `^note-[0-9]+$`.",
    ),
    _c(
        "TD213",
        "input-additional-properties-closed",
        INPUT,
        "yes",
        "The input object no longer accepts undeclared properties.",
        "Calls that send extra properties are rejected.",
        "`additionalProperties: false` was added.",
    ),
    _c(
        "TD214",
        "input-additional-properties-opened",
        INPUT,
        "no",
        "The input object now accepts undeclared properties.",
        "Every call that worked still works.",
        "`additionalProperties: false` was removed.",
    ),
    _c(
        "TD215",
        "input-default-changed",
        INPUT,
        "no",
        "An input property's `default` changed, was added or removed.",
        "Calls that leave the property out now mean something else: not a validation failure, but a change in behaviour.",
        "`limit` defaults to 50 instead of 20.",
    ),
    _c(
        "TD216",
        "input-schema-changed",
        INPUT,
        "maybe",
        "An input schema changed in a way toolgen cannot classify (`anyOf`/`oneOf`/`not`/`if` reshaped, an unknown keyword, a `$ref` it cannot follow).",
        "It may reject calls that worked; toolgen reports it rather than pass it silently.",
        "`anyOf: [{type: string}, {type: integer}]` became `oneOf: [...]`.",
    ),
    _c(
        "TD301",
        "output-property-removed",
        OUTPUT,
        "yes",
        "An output property was removed.",
        "Clients that read it find nothing.",
        "`Note.updated_at` is gone.",
    ),
    _c(
        "TD302",
        "output-property-became-optional",
        OUTPUT,
        "yes",
        "A required output property became optional.",
        "Clients that rely on it being present may now miss it.",
        "`id` left the output's `required`.",
    ),
    _c(
        "TD303",
        "output-property-added",
        OUTPUT,
        "no",
        "The output has a new property.",
        "Clients ignore what they do not know.",
        "`Note.pinned` is new.",
    ),
    _c(
        "TD304",
        "output-property-became-required",
        OUTPUT,
        "no",
        "An optional output property became required.",
        "Clients get it always; what they handled before still comes.",
        "`tags` moved into `required`.",
    ),
    _c(
        "TD305",
        "output-type-widened",
        OUTPUT,
        "yes",
        "An output value may now be of more JSON types.",
        "Clients that handle only the old types meet values they cannot read.",
        "`count` went from `integer` to `[integer, null]`.",
    ),
    _c(
        "TD306",
        "output-type-narrowed",
        OUTPUT,
        "no",
        "An output value may now be of fewer JSON types.",
        "Clients receive a subset of what they handled.",
        "`count` went from `number` to `integer`.",
    ),
    _c(
        "TD307",
        "output-enum-value-added",
        OUTPUT,
        "yes",
        "An output value may take a new `enum` value, or lost its `enum`.",
        "Clients that switch over the old values meet one they do not know.",
        "`state` may now be `draft`.",
    ),
    _c(
        "TD308",
        "output-enum-value-removed",
        OUTPUT,
        "no",
        "An output value no longer takes an `enum` value.",
        "Clients receive a subset of what they handled.",
        "`state` is never `archived` any more.",
    ),
    _c(
        "TD309",
        "output-constraint-relaxed",
        OUTPUT,
        "yes",
        "An output constraint became looser or was removed (a bound, `pattern`, `format`, `uniqueItems`, a composition branch).",
        "Clients that rely on the old guarantee may get values that break it.",
        "`title` went from `maxLength: 100` to no limit.",
    ),
    _c(
        "TD310",
        "output-constraint-tightened",
        OUTPUT,
        "no",
        "An output constraint became stricter.",
        "Clients receive a subset of what they handled.",
        "`limit` went from `maximum: 100` to `maximum: 50`.",
    ),
    _c(
        "TD311",
        "output-constraint-changed",
        OUTPUT,
        "maybe",
        "An output constraint changed in a way toolgen cannot order (`pattern`, `format`, `multipleOf`, `patternProperties`).",
        "It may return values clients do not expect; review it.",
        "`id` changed its `pattern`.",
    ),
    _c(
        "TD312",
        "output-additional-properties-opened",
        OUTPUT,
        "yes",
        "The output object may now carry undeclared properties.",
        "Clients that validate results against the closed schema reject them.",
        "`additionalProperties: false` was removed from the output.",
    ),
    _c(
        "TD313",
        "output-additional-properties-closed",
        OUTPUT,
        "no",
        "The output object no longer carries undeclared properties.",
        "Clients receive a subset of what they handled.",
        "`additionalProperties: false` was added to the output.",
    ),
    _c(
        "TD314",
        "output-default-changed",
        OUTPUT,
        "no",
        "An output property's `default` changed (an annotation for outputs).",
        "Results do not change; documentation does.",
        "`tags` defaults to `[]`.",
    ),
    _c(
        "TD315",
        "output-schema-changed",
        OUTPUT,
        "maybe",
        "An output schema changed in a way toolgen cannot classify.",
        "It may return values clients do not expect; toolgen reports it rather than pass it silently.",
        "`anyOf` branches were reshaped.",
    ),
    _c(
        "TD316",
        "output-schema-removed",
        OUTPUT,
        "yes",
        "A tool no longer declares an output schema.",
        "Clients lose `structuredContent` and its guarantee.",
        "`output:` was deleted from `get_note`.",
    ),
    _c(
        "TD317",
        "output-schema-added",
        OUTPUT,
        "no",
        "A tool now declares an output schema.",
        "Clients gain `structuredContent`; text results stay.",
        "`get_note` got an `output:`.",
    ),
    _c(
        "TD401",
        "read-only-removed",
        SAFETY,
        "yes",
        "A read-only tool may now write (`readOnly` true → false or undeclared).",
        "Clients run read-only tools without asking; a tool that writes needs consent.",
        "`list_notes` now deletes expired notes.",
    ),
    _c(
        "TD402",
        "became-destructive",
        SAFETY,
        "yes",
        "A tool may now destroy data (`destructive` false → true, or → undeclared, whose MCP default is destructive; or a read-only tool that now writes without declaring otherwise).",
        "Clients ask for stronger confirmation of destructive tools, or refuse them.",
        "`archive_note` now declares `destructive: true`.",
    ),
    _c(
        "TD403",
        "idempotent-removed",
        SAFETY,
        "yes",
        "An idempotent tool is no longer (`idempotent` true → false or undeclared).",
        "Clients that retry idempotent calls after a timeout may now repeat a side effect.",
        "`set_tags` now appends instead of replacing.",
    ),
    _c(
        "TD404",
        "open-world-added",
        SAFETY,
        "yes",
        "A closed-world tool may now reach outside systems (`openWorld` false → true or undeclared).",
        "Clients treat tools that reach the internet or third parties with more care.",
        "`summarize_note` now calls a web service.",
    ),
    _c(
        "TD405",
        "safety-improved",
        SAFETY,
        "no",
        "A behaviour hint moved the safe way (read-only, not destructive, idempotent, closed world).",
        "Clients may now trust the tool more; check that the hint is true.",
        "`get_note` is now declared `readOnly: true`.",
    ),
    _c(
        "TD406",
        "hint-declaration-changed",
        SAFETY,
        "no",
        "A behaviour hint was declared or left out, with the same effective value.",
        "Nothing changes for clients (the MCP default equals the old value); the spec got more or less explicit.",
        "`openWorld: true` was written out.",
    ),
    _c(
        "TD501",
        "tool-title-changed",
        DOCS,
        "no",
        "A tool's title (or `annotations.title`) changed.",
        "People choose tools by title.",
        "`Create note` became `New note`.",
    ),
    _c(
        "TD502",
        "tool-description-changed",
        DOCS,
        "no",
        "A tool's description changed.",
        "Models decide when and how to call a tool from its description; a silent description change is how tool poisoning hides.",
        "The description gained a sentence.",
    ),
    _c(
        "TD503",
        "schema-docs-changed",
        DOCS,
        "no",
        "A `title`, `description`, `examples` or `deprecated` inside an input or output schema changed.",
        "Models fill arguments from these texts.",
        "`title`'s description changed.",
    ),
    _c(
        "TD504",
        "server-docs-changed",
        DOCS,
        "no",
        "The server's title, description or instructions changed.",
        "Instructions are sent to every client and shape what models do.",
        "`server.instructions` gained a paragraph.",
    ),
    _c(
        "TD601",
        "version-not-bumped",
        SERVER,
        "no",
        "Breaking changes, but `server.version` has no new major version.",
        "Semantic versioning tells clients that a release breaks them by its major number (the minor one before 1.0.0).",
        "`1.4.0` → `1.5.0` with a removed tool.",
    ),
    _c(
        "TD701",
        "output-wrapping-changed",
        WRAPPING,
        "no",
        'Whether a tool\'s output is wrapped as `{"result": ...}` changed for some protocol revisions.',
        "Before 2026-07-28 a non-object output is wrapped (and declared so in `_meta`); clients of those revisions unwrap it. The type change itself is reported in `output`.",
        "`list_notes` returned an object and now returns an array.",
    ),
)


@cache
def by_code() -> dict[str, Code]:
    """Every code by its code and by its name."""
    table: dict[str, Code] = {}
    for entry in CODES:
        table[entry.code] = entry
        table[entry.name] = entry
    return table


def find(code_or_name: str) -> Code | None:
    """The code named `code_or_name` (a code like TD101, or a name), else None."""
    table = by_code()
    return table.get(code_or_name.upper()) or table.get(code_or_name.lower())
