"""`github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,col=C,title=CODE rule::message [tool]`; info findings
become `notice` annotations.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgen.lint.model import Finding, Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding) -> str:
    props = []
    loc = finding.location
    if loc is not None:
        props += [f"file={_property(loc.file)}", f"line={loc.line}", f"col={loc.column}"]
    title = f"{finding.code} {finding.rule}" if finding.rule else finding.code
    props.append(f"title={_property(title)}")
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    return f"::{_LEVEL[finding.severity]} {','.join(props)}::{_data(finding.message + tool)}"


def render(findings: Sequence[Finding]) -> str:
    return "".join(command(f) + "\n" for f in findings)
