"""`sarif`: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

One run; the driver lists every lint rule (with its docs as help) and the
spec error codes that occur; each result points at `file:line:col` (columns
count Unicode code points, as declared in `columnKind`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from toolgen.lint.model import Finding, Severity
from toolgen.lint.registry import Rule, all_rules
from toolgen.version import __version__

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.default},
        "properties": {"category": rule.category.value, "tags": [rule.category.value]},
    }


def _spec_descriptor(code: str) -> dict[str, Any]:
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": f"Spec error: {code}"},
        "defaultConfiguration": {"level": "error"},
        "properties": {"category": "spec", "tags": ["spec"]},
    }


def artifact_uri(file: str) -> str:
    """A URI reference for a displayed path: relative stays relative, absolute → file:."""
    path = PurePath(file)
    if path.is_absolute():
        return Path(file).as_uri()
    return quote(path.as_posix())


def _result(finding: Finding, index: int) -> dict[str, Any]:
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": _LEVEL[finding.severity],
        "message": {"text": finding.message + tool},
    }
    loc = finding.location
    if loc is not None:
        result["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(loc.file)},
                    "region": {"startLine": loc.line, "startColumn": loc.column},
                }
            }
        ]
    if finding.tool is not None:
        result["properties"] = {"tool": finding.tool}
    return result


def document(findings: Sequence[Finding], *, successful: bool = True) -> dict[str, Any]:
    descriptors = [_rule_descriptor(r) for r in all_rules()]
    known = {d["id"] for d in descriptors}
    for code in sorted({f.code for f in findings} - known):
        descriptors.append(_spec_descriptor(code))
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolgen",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": descriptors,
                    }
                },
                "invocations": [{"executionSuccessful": successful}],
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.code]) for f in findings],
            }
        ],
    }


def render(findings: Sequence[Finding]) -> str:
    successful = not any(f.category == "spec" for f in findings)
    return (
        json.dumps(document(findings, successful=successful), indent=2, ensure_ascii=False) + "\n"
    )
