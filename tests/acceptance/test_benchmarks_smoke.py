"""The benchmark harness still runs end to end (smoke mode; no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_quick_benchmark_run_completes_and_writes_its_table(tmp_path: Path) -> None:
    table = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--no-install",
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(table),
            "--chart",
            str(tmp_path / "ratios.png"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = table.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark results")
    serving_rows = [line for line in text.splitlines() if line.startswith("| hand-written loop |")]
    assert serving_rows, text
    assert "n/a" not in serving_rows[0].split("|")[2], serving_rows[0]
    assert "| one `datamodel-codegen --formatters builtin` run |" in text
    assert "## Targets (issue 17)" in text
    issue17 = text.split("## Targets (issue 17)", 1)[1].split("\n## ", 1)[0]
    for target in ("enum", "diff of", "import of", "verify calls/s", "HTTP req/s vs SDK"):
        rows = [line for line in issue17.splitlines() if target in line]
        assert rows and all("not measured" not in row for row in rows), (target, issue17)
