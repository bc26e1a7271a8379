"""`text`: one line per finding, `path:line:col: CODE severity message [tool]`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from toolgen.lint.model import Finding


def line(finding: Finding) -> str:
    where = f"{finding.location}: " if finding.location else ""
    tool = f" [{finding.tool}]" if finding.tool is not None else ""
    return f"{where}{finding.code} {finding.severity} {finding.message}{tool}"


def render(findings: Sequence[Finding]) -> str:
    return "".join(line(f) + "\n" for f in findings)


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
