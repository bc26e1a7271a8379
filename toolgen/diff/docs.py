"""`docs/diff-changes.md`, generated from the change codes (a test fails when it drifts)."""

from __future__ import annotations

from toolgen.diff.codes import CODES, Category

_BREAKING = {
    "yes": "breaking",
    "no": "not breaking",
    "maybe": "possibly breaking",
    "depends": "breaking or not, see below",
}


def changes_markdown() -> str:
    """Every change code with what it reports, why it matters and an example."""
    out = [
        "# toolgen diff change codes\n",
        "Generated from `toolgen/diff/codes.py`; do not edit. Codes are stable and never reused.",
        "`breaking` in the JSON output is true for breaking and possibly breaking changes;",
        "`severity` is `error` (breaking, or a version that does not say so: TD601), `warning`",
        "(possibly breaking, or not breaking but worth a look) or `info`. Exit code 1 follows",
        "`--fail-on`: by default any change whose `breaking` is true.\n",
        "| code | name | category | breaking |",
        "| --- | --- | --- | --- |",
    ]
    for c in CODES:
        anchor = f"{c.code.lower()}-{c.name}"
        out.append(
            f"| [{c.code}](#{anchor}) | `{c.name}` | {c.category} | {_BREAKING[c.breaking]} |"
        )
    out.append("")
    for category in Category:
        out.append(f"## {category.value}\n")
        for c in (c for c in CODES if c.category is category):
            out.append(f"### {c.code} {c.name}\n")
            out.append(f"{c.summary} ({_BREAKING[c.breaking]})\n")
            out.append(f"**Why:** {c.why}\n")
            out.append(f"**Example:** {c.example}\n")
    return "\n".join(out)
