"""A verify report as text (people), JSON (programs) or JUnit XML (CI dashboards)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final
from xml.etree import ElementTree as ET

from toolgen.verify.results import FAILED, NO_INPUT, PASSED, SKIPPED, Report, Result


def render(report: Report, fmt: str) -> str:
    """The report in `fmt` (`text`, `json` or `junit`)."""
    return FORMATS[fmt](report)


def to_json(report: Report) -> str:
    data = {
        "results": [r.to_json() for r in report.results],
        "summary": report.summary(),
        "seed": report.seed,
        "revisions": list(report.revisions),
        "calls": report.calls,
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


_MARKS: Final = {PASSED: "ok  ", FAILED: "FAIL", SKIPPED: "skip"}


def to_text(report: Report) -> str:
    """Failures and warnings in full, skips in one line each, passes counted."""
    lines: list[str] = []
    for result in report.results:
        if result.status == PASSED:
            continue
        mark = _MARKS[result.status]
        if result.status == FAILED and result.expected is not None:
            mark = "xfail"
        elif result.status == FAILED and result.severity == "warning":
            mark = "warn"
        lines.append(f"{mark} {_label(result)}: {result.message}")
        if result.input is not NO_INPUT:
            lines.append(f"     input: {_input_text(result.input)}")
        if result.expected is not None:
            lines.append(f"     expected by the baseline: {result.expected}")
    counts = report.summary()
    revisions = ", ".join(report.revisions) or "none"
    lines.append(
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped, "
        f"{counts['warnings']} warnings, {counts['expected']} expected failures "
        f"({report.calls} calls, revisions {revisions}, seed {report.seed}, "
        f"{report.seconds:.1f} s)"
    )
    return "\n".join(lines) + "\n"


def to_junit(report: Report) -> str:
    """One test suite per check group (`protocol`, `listing`, `call`, ...), one case per result."""
    root = ET.Element("testsuites", name="toolgen verify")
    suites: dict[str, ET.Element] = {}
    counts: dict[str, dict[str, int]] = {}
    for result in report.results:
        group = result.check.split(".")[0]
        if group not in suites:
            suites[group] = ET.SubElement(root, "testsuite", name=group)
            counts[group] = {"tests": 0, "failures": 0, "skipped": 0}
        case = ET.SubElement(
            suites[group],
            "testcase",
            classname=result.check,
            name=" ".join(p for p in (result.tool or "(server)", result.revision or "") if p),
        )
        counts[group]["tests"] += 1
        if result.status == SKIPPED or (result.status == FAILED and not result.counts_as_failure):
            counts[group]["skipped"] += 1
            ET.SubElement(case, "skipped", message=result.expected or result.message)
        elif result.status == FAILED:
            counts[group]["failures"] += 1
            failure = ET.SubElement(case, "failure", message=result.message[:500])
            text = result.message
            if result.input is not NO_INPUT:
                text += f"\ninput: {_input_text(result.input)}"
            failure.text = text
    for group, suite in suites.items():
        for key, value in counts[group].items():
            suite.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


FORMATS: Final[dict[str, Callable[[Report], str]]] = {
    "text": to_text,
    "json": to_json,
    "junit": to_junit,
}
