"""The keywords of JSON Schema 2020-12, and the one a misspelt key was meant to be.

Validators ignore keys they do not know, so a typo (`requried`, `minimun`) silently drops a
constraint. Spec files refuse a key this close to a keyword (`toolgen.spec.resolver`); lint
rule TG315 reports every unknown key, also of published definitions, as a warning.
"""

from __future__ import annotations

from toolgen.schema.walk import LISTED, MAPPED, SINGLE

KEYWORDS = (
    SINGLE
    | MAPPED
    | LISTED  # every keyword that holds subschemas (as `walk` walks them)
    | frozenset(
        {
            # core
            "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor",
            "$vocabulary", "$comment",
            # validation
            "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
            "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
            "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
            "required", "dependentRequired",
            # meta-data, format, content
            "title", "description", "default", "deprecated", "readOnly", "writeOnly",
            "examples", "format", "contentEncoding", "contentMediaType",
            # earlier drafts, still understood by most validators
            "dependencies",
        }
    )
)  # fmt: skip


def distance(a: str, b: str) -> int:
    """Edits that turn `a` into `b`: a letter added, removed or changed, or two neighbours
    swapped (optimal string alignment)."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def misspelt(key: str) -> str | None:
    """The keyword `key` is a typo of: one edit away (two for keys of eight letters or more),
    the nearest first; None for a keyword, an `x-` key, a short key, or one far from all."""
    if key in KEYWORDS or key.startswith("x-") or len(key) < 4:
        return None
    allowed = 2 if len(key) >= 8 else 1
    found = min((distance(key.lower(), k.lower()), k) for k in KEYWORDS)
    return found[1] if found[0] <= allowed else None
