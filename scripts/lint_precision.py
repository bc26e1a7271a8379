"""Measure each lint rule's false-positive rate on the corpus of real servers' tools.

    python scripts/lint_precision.py            # docs/lint.md's table (markdown) on stdout

Every rule runs (opt-in ones too) over `tests/data/corpus/` (published tools/list
results of real servers; sources in its README). A finding is a false positive
when what it says is not true of the tool; the findings judged so, by reading
the tool's name, description, annotations and schema, are listed with a reason
in `tests/data/corpus/false-positives.yaml`. The rate is false positives /
findings. Rules whose statement is a fact about the schema or the hints
(`required` names a missing property, a hint is absent, ...) are exact by
construction; the review matters for the heuristic ones (names, descriptions).
`tests/unit/lint/test_lint_precision.py` keeps the table, the review and the lint in step.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
REVIEW = CORPUS / "false-positives.yaml"
sys.path.insert(0, str(ROOT))

from toolgen.lint.config import parse_section  # noqa: E402
from toolgen.lint.registry import all_rules  # noqa: E402
from toolgen.lint.runner import lint_paths  # noqa: E402
from toolgen.report.findings import Finding  # noqa: E402


@dataclass(frozen=True, slots=True)
class Measure:
    code: str
    name: str
    severity: str
    findings: int
    false_positives: int

    @property
    def rate(self) -> float:
        return self.false_positives / self.findings if self.findings else 0.0


def corpus_paths() -> list[Path]:
    """Each server of the corpus: a tools/list file, or a directory of Tool files."""
    return sorted([p for p in CORPUS.glob("*.json")] + [p for p in CORPUS.iterdir() if p.is_dir()])


def corpus_findings() -> list[Finding]:
    config = parse_section({"select": ["ALL"]})
    findings: list[Finding] = []
    for path in corpus_paths():
        findings += lint_paths([path], config).findings
    return findings


def finding_key(finding: Finding) -> tuple[str, str, str]:
    """(code, server file or directory, tool) of a finding."""
    assert finding.location is not None
    where = Path(finding.location.file)
    server = (
        where.name
        if where.suffix == ".json" and where.parent.name == "corpus"
        else where.parent.name
    )
    return finding.code, server, finding.tool or ""


def reviewed() -> list[dict[str, str]]:
    """The findings judged false, each {code, server, tool, reason}."""
    data = yaml.safe_load(REVIEW.read_text(encoding="utf-8")) or []
    return list(data)


def measure(findings: list[Finding]) -> list[Measure]:
    counts = Counter(f.code for f in findings)
    false = Counter(entry["code"] for entry in reviewed())
    return [
        Measure(r.code, r.name, str(r.severity), counts[r.code], false[r.code])
        for r in all_rules()
        if r.code[:3] != "TG0"  # suppressions: the corpus has none
    ]


def table(findings: list[Finding]) -> str:
    tools = sum(1 for _ in _tools())
    servers = len(corpus_paths())
    lines = [
        f"{tools} tools of {servers} servers; {len(findings)} findings.",
        "",
        "| code | rule | severity | findings | false positives | rate |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for m in measure(findings):
        lines.append(
            f"| {m.code} | `{m.name}` | {m.severity} | {m.findings} | {m.false_positives} | {m.rate:.1%} |"
        )
    return "\n".join(lines) + "\n"


def _tools() -> list[str]:
    import json

    names: list[str] = []
    for path in corpus_paths():
        files = [path] if path.is_file() else sorted(path.glob("*.json"))
        for file in files:
            data = json.loads(file.read_text(encoding="utf-8"))
            tools = data.get("tools", [data])
            names += [t["name"] for t in tools]
    return names


if __name__ == "__main__":
    sys.stdout.write(table(corpus_findings()))
