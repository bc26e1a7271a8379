"""Output formats of findings: text, json, sarif (2.1.0) and github (workflow commands).

`render` writes a list of findings in one of them, as `toolgen lint` prints it; the pieces
(`line`, `as_dict`, `sarif_result`, `sarif_document`, `github_command`) are what a command
with more to say about each finding (`toolgen diff`: breaking or not, a JSON pointer)
builds its own documents from, so every command's output reads alike.

- text: `path:line:col: CODE severity message [tool]`, one line per finding;
- json: `{"findings": [...], "summary": {...}}`, a contract other tools read: each finding
  has `code`, `rule` (null for spec errors), `category`, `severity` (`error`, `warning` or
  `info`), `message`, `tool` (null for the server), `file`, `line` and `column` (null when
  the finding has no place);
- sarif: one run whose driver lists the rules given and the spec error codes that occur;
  each result points at `file:line:col` (columns count Unicode code points);
- github: `::error file=F,line=L,col=C,title=CODE rule::message [tool]`, info as `notice`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from toolgen.report.findings import SPEC_CATEGORY, Finding, Severity
from toolgen.version import __version__

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def render(findings: Sequence[Finding], name: str, rules: Sequence[dict[str, Any]] = ()) -> str:
    """`findings` in format `name`; `rules`: the SARIF descriptors of every rule that can
    report (a finding's code without one is described as a spec error)."""
    if name == "text":
        return "".join(line(f) + "\n" for f in findings)
    if name == "json":
        summary = {s.value: sum(1 for f in findings if f.severity is s) for s in Severity}
        return dumps({"findings": [as_dict(f) for f in findings], "summary": summary})
    if name == "sarif":
        descriptors = list(rules)
        known = {d["id"] for d in descriptors}
        descriptors += [_spec_descriptor(c) for c in sorted({f.code for f in findings} - known)]
        index = {d["id"]: i for i, d in enumerate(descriptors)}
        results = [
            sarif_result(f, index[f.code], {"tool": f.tool} if f.tool is not None else None)
            for f in findings
        ]
        successful = not any(f.category == SPEC_CATEGORY for f in findings)
        return dumps(sarif_document("toolgen", descriptors, results, successful=successful))
    if name == "github":
        return "".join(github_command(f) + "\n" for f in findings)
    raise ValueError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}")


def dumps(document: Any) -> str:
    """A JSON document as every format writes it: indented, UTF-8 text kept as it is."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# -- text -------------------------------------------------------------------------


def line(finding: Finding, label: str | None = None) -> str:
    """`path:line:col: CODE label message [tool]`; the label is the severity by default."""
    where = f"{finding.location}: " if finding.location else ""
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    shown = str(finding.severity) if label is None else label
    return f"{where}{finding.code} {shown} {finding.message}{tool}"


def summary(findings: Sequence[Finding]) -> str:
    """`N findings (a errors, b warnings, c info)`."""
    counts = Counter(str(f.severity) for f in findings)
    total = len(findings)
    if not total:
        return "no findings"
    parts = ", ".join(
        f"{counts[s]} {s if s == 'info' or counts[s] == 1 else s + 's'}"
        for s in ("error", "warning", "info")
        if counts[s]
    )
    return f"{total} finding{'s' if total != 1 else ''} ({parts})"


def statistics(findings: Sequence[Finding]) -> str:
    """Counts per code, most frequent first: `count  CODE  name  severity`."""
    counts = Counter(f.code for f in findings)
    first = {f.code: f for f in reversed(findings)}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(n)) for n in counts.values()), default=1)
    return "".join(
        f"{n:>{width}}  {code:<7} {first[code].rule or '(spec error)':<34} {first[code].severity}\n"
        for code, n in rows
    )


# -- json -------------------------------------------------------------------------


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


# -- sarif ------------------------------------------------------------------------


def sarif_level(severity: Severity) -> str:
    return _SARIF_LEVEL[severity]


def sarif_result(
    finding: Finding, index: int, properties: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The SARIF result of `finding`, whose rule is the driver's `index`th."""
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": _SARIF_LEVEL[finding.severity],
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
    if properties is not None:
        result["properties"] = properties
    return result


def sarif_document(
    driver: str, rules: list[dict[str, Any]], results: list[dict[str, Any]], *, successful: bool
) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run of `driver`."""
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": driver,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [{"executionSuccessful": successful}],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def artifact_uri(file: str) -> str:
    """A URI reference for a displayed path: relative stays relative, absolute → file:."""
    path = PurePath(file)
    if path.is_absolute():
        return Path(file).as_uri()
    return quote(path.as_posix())


def _spec_descriptor(code: str) -> dict[str, Any]:
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": f"Spec error: {code}"},
        "defaultConfiguration": {"level": "error"},
        "properties": {"category": SPEC_CATEGORY, "tags": [SPEC_CATEGORY]},
    }


# -- github -----------------------------------------------------------------------


def github_command(finding: Finding) -> str:
    """One workflow command: an annotation at the finding's place, titled by its code."""
    props = []
    loc = finding.location
    if loc is not None:
        props += [f"file={_property(loc.file)}", f"line={loc.line}", f"col={loc.column}"]
    title = f"{finding.code} {finding.rule}" if finding.rule else finding.code
    props.append(f"title={_property(title)}")
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    return f"::{_GITHUB_LEVEL[finding.severity]} {','.join(props)}::{_data(finding.message + tool)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
