"""Rule documentation generated from the registry: `--explain`, `toolgen rules`,
the README table, `docs/lint-rules.md` (tests fail when those drift) and the rules of
the SARIF report."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolgen.lint.registry import DOC_SECTIONS, Rule, all_rules
from toolgen.report.formats import sarif_level

_SECTION = re.compile(r"^(What it does|Why|Example):", re.MULTILINE)


def _flags(rule: Rule) -> str:
    return "" if rule.default else ", opt-in"


def explain(rule: Rule) -> str:
    """The full text for `toolgen lint --explain CODE`."""
    head = f"{rule.code} {rule.name} ({rule.category}, {rule.severity}{_flags(rule)})"
    return f"{head}\n\n{rule.doc}\n"


def rules_text(rules: Sequence[Rule] | None = None) -> str:
    rows = rules if rules is not None else all_rules()
    return "".join(
        f"{r.code}  {r.name:<34} {r.category:<13} {r.severity:<8}{'opt-in ' if not r.default else ''}{r.summary}\n"
        for r in rows
    )


def rules_json(rules: Sequence[Rule] | None = None) -> str:
    rows = rules if rules is not None else all_rules()
    data = [
        {
            "code": r.code,
            "name": r.name,
            "category": r.category.value,
            "severity": r.severity.value,
            "default": r.default,
            "summary": r.summary,
            "doc": r.doc,
        }
        for r in rows
    ]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def rules_table() -> str:
    """The Markdown table of every rule (docs/lint.md, between the rules markers)."""
    lines = [
        "| code | name | category | severity | what it flags |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in all_rules():
        anchor = f"lint-rules.md#{r.code.lower()}-{r.name}"  # beside it in docs/
        severity = f"{r.severity} (opt-in)" if not r.default else str(r.severity)
        lines.append(
            f"| [{r.code}]({anchor}) | `{r.name}` | {r.category} | {severity} | {_cell(r.summary)} |"
        )
    return "\n".join(lines) + "\n"


def rules_markdown() -> str:
    """`docs/lint-rules.md`: every rule with its full documentation."""
    out = [
        "# toolgen lint rules\n",
        "Generated from the rule registry (`toolgen rules --format markdown`); do not edit.",
        "`toolgen lint --explain CODE` prints the same text.\n",
    ]
    for r in all_rules():
        out.append(f"## {r.code} {r.name}\n")
        out.append(
            f"Category: {r.category}. Default severity: {r.severity}."
            + (" Opt-in: runs only when selected by code or name." if not r.default else "")
            + "\n"
        )
        summary, _, body = r.doc.partition("\n")
        out.append(summary.strip() + "\n")
        out.append(_SECTION.sub(r"**\1:**", body.strip()) + "\n")
    return "\n".join(out)


def missing_sections(rule: Rule) -> list[str]:
    """The documentation sections a rule's docstring lacks."""
    return [s for s in DOC_SECTIONS if s not in rule.doc]


def sarif_rules() -> list[dict[str, Any]]:
    """Every rule as a SARIF reporting descriptor, its documentation as help."""
    return [
        {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.doc},
            "help": {"text": r.doc, "markdown": r.doc},
            "defaultConfiguration": {"level": sarif_level(r.severity), "enabled": r.default},
            "properties": {"category": r.category.value, "tags": [r.category.value]},
        }
        for r in all_rules()
    ]
