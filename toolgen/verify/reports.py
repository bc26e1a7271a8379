"""A verify report as text (people), JSON (programs), JUnit XML (CI dashboards) or SARIF
(code scanning).

Every format carries each result's level and rule. The text starts with a one-line
summary (what fails the run, the tools by verdict and how many were exercised), then the failures
grouped by level, verify's own errors, the tools that were not exercised or were
skipped (with why), and the skipped checks folded by reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final
from xml.etree import ElementTree as ET

from toolgen.report.formats import SARIF_SCHEMA, artifact_uri
from toolgen.spec.text import visible
from toolgen.verify.checks import CHECKS, LEVELS, MAY, MUST, SHOULD
from toolgen.verify.results import (
    ERROR,
    FAILED,
    NO_INPUT,
    NOT_EXERCISED,
    PASSED,
    SKIPPED,
    Report,
    Result,
)
from toolgen.version import __version__


def render(report: Report, fmt: str) -> str:
    """The report in `fmt` (`text`, `json`, `junit` or `sarif`)."""
    return FORMATS[fmt](report)


def headline(report: Report) -> str:
    """The one-line summary: the outcome, failures by level, the tools by verdict (each once;
    the exercised ones are among the passed and failed), the checks by status."""
    counts = report.summary()
    levels = counts["levels"]
    outcome = "passed" if report.ok else "FAILED"
    parts = [", ".join(f"{levels[level]} {level}" for level in LEVELS) + " failures"]
    if counts[ERROR]:
        parts.append(f"{counts[ERROR]} errors of verify itself")
    tools = counts["tools"]
    parts.append(
        f"{tools['total']} tools: {tools[PASSED]} passed, {tools[FAILED]} failed, "
        f"{tools[NOT_EXERCISED]} not exercised, {tools[SKIPPED]} skipped "
        f"({tools['exercised']} exercised)"
    )
    rest = (
        f"checks: {counts[PASSED]} passed, {counts[SKIPPED]} skipped, "
        f"{counts[NOT_EXERCISED]} not exercised"
    )
    if counts["expected"]:
        rest += f", {counts['expected']} expected failures"
    parts.append(rest)
    if report.cut:
        parts.append(f"calls of {len(set(report.cut))} tools cut short by the run's --budget")
    revisions = ", ".join(report.revisions) or "none"
    return (
        f"toolgen verify: {outcome} (fails on {report.fail_on}): {'; '.join(parts)} "
        f"({report.calls} calls, revisions {revisions}, seed {report.seed}, "
        f"{report.seconds:.1f} s)"
    )


def to_json(report: Report) -> str:
    data = {
        "results": [r.to_json() for r in report.results],
        "tools": [v.to_json() for v in report.verdicts()],
        "summary": report.summary(),
        "ok": report.ok,
        "fail_on": report.fail_on,
        "seed": report.seed,
        "revisions": list(report.revisions),
        "calls": report.calls,
        "cut_short": sorted(set(report.cut)),
    }
    return json.dumps(data, indent=2, ensure_ascii=False, default=repr) + "\n"


def _input_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 400 else text[:399] + "…"


def _label(result: Result) -> str:
    parts = [result.check]
    if result.tool is not None:
        parts.append(result.tool)
    if result.revision is not None:
        parts.append(f"[{result.revision}]")
    return " ".join(parts)


def _detail(result: Result, mark: str) -> list[str]:
    lines = [f"{mark} {_label(result)}: {result.message}"]
    if result.input is not NO_INPUT:
        lines.append(f"     input: {_input_text(result.input)}")
    if result.status != ERROR:
        rule, url = result.rule, result.rule.url(result.revision)
        lines.append(
            f"     rule: {rule.level.upper()}, {url}" if url else f"     rule: {rule.cite()}"
        )
    if result.expected is not None:
        lines.append(f"     expected by the baseline: {result.expected}")
    return lines


_GROUPS: Final = {MUST: "MUST", SHOULD: "SHOULD", MAY: "MAY"}


def to_text(report: Report) -> str:
    lines = [headline(report)]
    failures = [r for r in report.results if r.status == FAILED and r.expected is None]
    for level in LEVELS:
        group = [r for r in failures if r.level == level]
        if group:
            fails = "" if group[0].fails(report.fail_on) else ", reported only"
            lines += ["", f"{_GROUPS[level]}: {len(group)} failed{fails}"]
            for result in group:
                lines += _detail(result, "FAIL")
    errors = [r for r in report.results if r.status == ERROR]
    if errors:
        lines += ["", f"ERRORS of verify itself: {len(errors)}"]
        for result in errors:
            lines += _detail(result, "ERROR")
    expected = [r for r in report.results if r.status == FAILED and r.expected is not None]
    if expected:
        lines += ["", f"EXPECTED by the baseline: {len(expected)}"]
        for result in expected:
            lines += _detail(result, "xfail")
    verdicts = report.verdicts()
    for status, title in ((NOT_EXERCISED, "NOT EXERCISED"), (SKIPPED, "SKIPPED tools")):
        tools = [v for v in verdicts if v.status == status]
        if tools:
            lines += ["", f"{title}: {len(tools)}"]
            lines += [f"  {v.tool}: {v.reason}" for v in tools]
    folded: dict[tuple[str, str | None, str], list[str]] = {}
    for result in report.results:
        if result.status == SKIPPED:
            key = (result.check, result.revision, result.message)
            folded.setdefault(key, []).append(result.tool or "(server)")
    if folded:
        lines += ["", "Skipped checks:"]
        for (check_id, revision, message), names in folded.items():
            where = f" [{revision}]" if revision else ""
            lines.append(f"  {check_id}{where}: {message}: {', '.join(names)}")
    return "\n".join(lines) + "\n"


def to_junit(report: Report) -> str:
    """One test suite per check group (`protocol`, `listing`, `call`, ...), one case per
    result: a failure when it fails the run, an error for verify's own, else skipped."""
    root = ET.Element("testsuites", name="toolgen verify")
    suites: dict[str, ET.Element] = {}
    counts: dict[str, dict[str, int]] = {}
    for result in report.results:
        group = result.check.split(".")[0]
        if group not in suites:
            suites[group] = ET.SubElement(root, "testsuite", name=group)
            counts[group] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        case = ET.SubElement(
            suites[group],
            "testcase",
            classname=result.check,
            name=" ".join(p for p in (result.tool or "(server)", result.revision or "") if p),
        )
        counts[group]["tests"] += 1
        text = result.message
        if result.input is not NO_INPUT:
            text += f"\ninput: {_input_text(result.input)}"
        rule = result.rule.cite(result.revision)
        if result.status == ERROR:
            counts[group]["errors"] += 1
            ET.SubElement(case, "error", message=result.message[:500]).text = text
        elif result.fails(report.fail_on):
            counts[group]["failures"] += 1
            failure = ET.SubElement(case, "failure", message=f"[{rule}] {result.message}"[:500])
            failure.text = f"{text}\nrule: {rule}"
        elif result.status != PASSED:
            counts[group]["skipped"] += 1
            why = result.expected or result.message
            if result.status == FAILED:
                why = f"[{result.level}, reported only] {why}"
            elif result.status == NOT_EXERCISED:
                why = f"[not exercised] {why}"
            ET.SubElement(case, "skipped", message=why[:500])
    for group, suite in suites.items():
        for key, value in counts[group].items():
            suite.set(key, str(value))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode")  # control characters raw: XML cannot hold them
    return '<?xml version="1.0" encoding="utf-8"?>\n' + visible(text, keep="\n\t\r") + "\n"


_SARIF_LEVEL: Final = {MUST: "error", SHOULD: "warning", MAY: "note"}


def to_sarif(report: Report) -> str:
    """SARIF 2.1.0: a rule per check; a result per failure (expected ones suppressed) and per
    error of verify, located at the tool's description in the spec set."""
    rules = []
    for c in CHECKS:
        rule = c.rules[-1]
        descriptor: dict[str, Any] = {
            "id": c.id,
            "name": c.id,
            "shortDescription": {"text": c.summary},
            "fullDescription": {"text": c.doc},
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.level]},
            "properties": {"levels": [r.level for r in c.rules], "source": rule.source},
        }
        if rule.url() is not None:
            descriptor["helpUri"] = rule.url()
        rules.append(descriptor)
    index = {c.id: i for i, c in enumerate(CHECKS)}
    results = []
    for result in report.results:
        if result.status not in (FAILED, ERROR):
            continue
        where = f"{result.tool} " if result.tool else ""
        where += f"[{result.revision}] " if result.revision else ""
        entry: dict[str, Any] = {
            "ruleId": result.check,
            "ruleIndex": index[result.check],
            "level": "error" if result.status == ERROR else _SARIF_LEVEL[result.level],
            "message": {"text": f"{where}{result.message} ({result.rule.cite(result.revision)})"},
            "properties": result.to_json(),
        }
        location = report.locations.get(result.tool) or report.locations.get(None)
        if location is not None:
            region = {"startLine": location.line, "startColumn": location.column}
            entry["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(location.file)},
                        "region": region,
                    }
                }
            ]
        if result.expected is not None:
            entry["suppressions"] = [{"kind": "external", "justification": result.expected}]
        results.append(entry)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolgen verify",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": "https://modelcontextprotocol.io/specification",
                        "rules": rules,
                    }
                },
                "invocations": [
                    {"executionSuccessful": not any(r.status == ERROR for r in report.results)}
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=repr) + "\n"


FORMATS: Final[dict[str, Callable[[Report], str]]] = {
    "text": to_text,
    "json": to_json,
    "junit": to_junit,
    "sarif": to_sarif,
}
