"""`json`: one document, `{"findings": [...], "summary": {...}}`.

This is a contract other tools read: each finding has `code`, `severity`
(`error`, `warning` or `info`), `message`, `tool` (name or null), `file`,
`line` and `column` (null when the finding has no place), plus `rule` (the
rule name, null for spec errors) and `category`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolgen.lint.model import Finding, Severity


def as_dict(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    return {
        "code": finding.code,
        "rule": finding.rule,
        "category": finding.category,
        "severity": str(finding.severity),
        "message": finding.message,
        "tool": finding.tool,
        "file": loc.file if loc else None,
        "line": loc.line if loc else None,
        "column": loc.column if loc else None,
    }


def render(findings: Sequence[Finding]) -> str:
    summary = {s.value: sum(1 for f in findings if f.severity is s) for s in Severity}
    document = {"findings": [as_dict(f) for f in findings], "summary": summary}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
