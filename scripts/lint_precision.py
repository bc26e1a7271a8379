"""Measure each lint rule's precision on two corpora of real servers' published tools.

    python scripts/lint_precision.py            # the precision table (markdown) on stdout

Every rule runs (opt-in ones too) over each corpus: `tests/data/corpus/`, which the
heuristic rules were tuned on, and `tests/data/corpus/heldout/`, servers captured after
the rules were written and not used to tune them (sources in each README). A finding is a
false positive when what it says is not true of the tool; every finding of the heuristic
rules (names and verbs, descriptions) was read, and those judged false are listed with a
reason in the corpus's `false-positives.yaml` (an entry stays listed once a rule no
longer reports it: a known false positive, which must not come back by default).
Precision is 1 - false positives / findings. Rules whose statement is a fact about the
schema or the hints (`required` names a missing property, a hint is absent, ...) are exact
by construction. `tests/unit/lint/test_lint_precision.py` keeps the table, the reviews and
the lint in step.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
HELDOUT = CORPUS / "heldout"
CORPORA = {"tuned": CORPUS, "held out": HELDOUT}
REVIEW = "false-positives.yaml"
sys.path.insert(0, str(ROOT))

from toolgen.lint.config import parse_section  # noqa: E402
from toolgen.lint.registry import all_rules  # noqa: E402
from toolgen.lint.runner import lint_paths  # noqa: E402
from toolgen.report.findings import Finding  # noqa: E402

HEURISTIC = frozenset({"TG105", "TG106", "TG107", "TG108", "TG110", "TG402", "TG404", "TG405"})
"""Rules that judge names, verbs and text: their findings were each read."""

Key = tuple[str, str, str]


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


def corpus_paths(corpus: Path = CORPUS) -> list[Path]:
    """Each server of a corpus: a tools/list file, or a directory of Tool files."""
    files = list(corpus.glob("*.json"))
    dirs = [p for p in corpus.iterdir() if p.is_dir() and p != HELDOUT]
    return sorted(files + dirs)


def corpus_findings(corpus: Path = CORPUS, *, select: str = "ALL") -> list[Finding]:
    """Every finding on the corpus: of every rule (`ALL`), or of the default ones."""
    config = parse_section({} if select == "default" else {"select": [select]})
    findings: list[Finding] = []
    for path in corpus_paths(corpus):
        findings += lint_paths([path], config).findings
    return findings


def finding_key(finding: Finding) -> Key:
    """(code, server file or directory, tool) of a finding."""
    assert finding.location is not None
    where = Path(finding.location.file)
    server = (
        where.name
        if where.suffix == ".json" and where.parent.name in ("corpus", "heldout")
        else where.parent.name
    )
    return finding.code, server, finding.tool or ""


def reviewed(corpus: Path = CORPUS) -> list[dict[str, str]]:
    """The known false positives of a corpus, each {code, server, tool, reason}."""
    path = corpus / REVIEW
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    return list(data or [])


def measure(findings: list[Finding], corpus: Path = CORPUS) -> list[Measure]:
    counts = Counter(f.code for f in findings)
    current = {finding_key(f) for f in findings}
    false = Counter(
        e["code"] for e in reviewed(corpus) if (e["code"], e["server"], e["tool"]) in current
    )
    return [
        Measure(r.code, r.name, str(r.severity), counts[r.code], false[r.code])
        for r in all_rules()
        if r.code[:3] != "TG0"  # suppressions: the corpora have none
    ]


def tools(corpus: Path = CORPUS) -> list[str]:
    names: list[str] = []
    for path in corpus_paths(corpus):
        files = [path] if path.is_file() else sorted(path.glob("*.json"))
        for file in files:
            data = json.loads(file.read_text(encoding="utf-8"))
            names += [t["name"] for t in data.get("tools", [data])]
    return names


def heuristic(measures: list[Measure]) -> Measure:
    """The rules that read names and descriptions (`HEURISTIC`) together."""
    chosen = [m for m in measures if m.code in HEURISTIC]
    return Measure(
        "heuristic",
        "names and descriptions",
        "",
        sum(m.findings for m in chosen),
        sum(m.false_positives for m in chosen),
    )


def _cell(m: Measure) -> str:
    precision = f"{1 - m.rate:.1%}" if m.findings else "—"
    return f"{m.findings} | {m.false_positives} | {precision}"


def table(found: dict[str, list[Finding]]) -> str:
    """The markdown table: per rule, findings, false positives and precision on each corpus."""
    lines = []
    for label, corpus in CORPORA.items():
        count = len(found[label])
        lines.append(
            f"- {label}: {len(tools(corpus))} tools of {len(corpus_paths(corpus))} servers, "
            f"{count} findings"
        )
    lines += [
        "",
        "| code | rule | severity | tuned: findings | false | precision "
        "| held out: findings | false | precision |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    measured = {label: measure(found[label], CORPORA[label]) for label in CORPORA}
    together = {label: heuristic(measures) for label, measures in measured.items()}
    lines[len(CORPORA) : len(CORPORA)] = [
        "",
        "The rules that read names and descriptions (in bold), together: "
        + "; ".join(
            f"{label} {m.findings} findings, {m.false_positives} false, precision {1 - m.rate:.1%}"
            for label, m in together.items()
        )
        + ".",
    ]
    for tuned, held in zip(measured["tuned"], measured["held out"], strict=True):
        code = f"**{tuned.code}**" if tuned.code in HEURISTIC else tuned.code
        lines.append(
            f"| {code} | `{tuned.name}` | {tuned.severity} | {_cell(tuned)} | {_cell(held)} |"
        )
    return "\n".join(lines) + "\n"


def all_findings() -> dict[str, list[Finding]]:
    return {label: corpus_findings(corpus) for label, corpus in CORPORA.items()}


if __name__ == "__main__":
    sys.stdout.write(table(all_findings()))
