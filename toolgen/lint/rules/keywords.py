"""Schema keyword rules (TG315): keys JSON Schema 2020-12 does not know."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from toolgen.lint.context import Context, SchemaNode
from toolgen.lint.model import Category, Hit
from toolgen.lint.registry import SCHEMA, rule
from toolgen.report.findings import Severity
from toolgen.schema.keywords import KEYWORDS


def _has_other_keys(keys: tuple[object, ...]) -> bool:
    return not KEYWORDS.issuperset(keys)


@rule(
    "TG315",
    "unknown-keyword",
    Category.SCHEMAS,
    Severity.WARNING,
    scope="node",
    keys=(SCHEMA,),
    when=_has_other_keys,
)
def unknown_keyword(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A schema uses a keyword JSON Schema 2020-12 does not define.

    What it does: Flags each key of a schema object that is not a 2020-12
    keyword (or one of `definitions`, `dependencies`, `additionalItems` from
    earlier drafts) and does not start with `x-`, suggesting the keyword it
    most resembles.

    Why: Validators ignore unknown keywords, so a typo (`minimun`,
    `requried`) silently drops a constraint. (A description split at an
    unquoted comma in a `{...}` mapping is a spec error, not this finding.)

    Example:

        count: {type: integer, minimun: 1}                  # TG315

    Fix the spelling, or prefix your own keywords with `x-`.
    """
    schema = node.schema
    if not isinstance(schema, dict):
        return
    for key in schema:
        if key in KEYWORDS or key.startswith("x-"):
            continue
        close = difflib.get_close_matches(key, KEYWORDS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else "; prefix your own keywords with `x-`"
        yield Hit(
            f"unknown JSON Schema keyword {key!r}: validators ignore it{hint}",
            node.origin.locate(key, key=True),
            node.tool,
        )


FORMATS = frozenset(
    {
        "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
        "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid",
        "uri-template", "json-pointer", "relative-json-pointer", "regex",
    }
)  # fmt: skip
"""The formats JSON Schema 2020-12 defines."""
FORMAT_ADVICE: dict[str, str] = {
    "int32": "use `type: integer` with `minimum: -2147483648, maximum: 2147483647`",
    "int64": "use `type: integer` (with bounds if they matter)",
    "float": "use `type: number`",
    "double": "use `type: number`",
    "byte": "use `contentEncoding: base64`",
    "binary": "use `contentMediaType`",
    "json": "use `contentMediaType: application/json`",
    "password": "use `writeOnly: true`",
    "url": "use `format: uri`",
}
"""OpenAPI and other formats, and what says the same in JSON Schema."""


@rule("TG316", "unknown-format", Category.SCHEMAS, Severity.WARNING, scope="node", keys=("format",))
def unknown_format(node: SchemaNode, ctx: Context) -> Iterator[Hit]:
    """A `format` is not one JSON Schema 2020-12 defines.

    What it does: Flags a `format` value outside the 2020-12 list (`date-time`,
    `email`, `uri`, `uuid`, ...), naming the JSON Schema way to say the same for
    OpenAPI formats (`int32`, `int64`, `float`, `double`, `byte`, `binary`,
    `json`, `password`).

    Why: Validators ignore formats they do not know, so `format: int32` limits
    nothing, and model APIs with a fixed format list (OpenAI strict mode) drop
    or reject it. Schemas converted from OpenAPI carry these often.

    Example:

        count: {type: integer, format: int32}               # TG316

    Write the constraint itself: `{type: integer, minimum: -2147483648, maximum: 2147483647}`.
    """
    schema = node.schema
    value = schema.get("format") if isinstance(schema, dict) else None
    if not isinstance(value, str) or value in FORMATS:
        return
    advice = FORMAT_ADVICE.get(value.lower(), "validators ignore it; describe the value instead")
    yield Hit(
        f"format {value!r} is not a JSON Schema format: {advice}",
        node.origin.locate("format"),
        node.tool,
    )
