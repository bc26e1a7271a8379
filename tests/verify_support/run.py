"""Run `toolgen verify` in-process and read its JSON report."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from toolgen.cli import cli

HERE = Path(__file__).resolve().parent
DEMO_SPEC = HERE / "spec"
DEMO_SERVER = HERE / "server.py"
TOOLGEN_BASELINE = HERE / "toolgen-baseline.yaml"
"""What `toolgen verify --protocol all` finds wrong with toolgen's own runtime (each with why)."""
FAST = ("--cases", "8", "--timeout", "20")
"""Few generated inputs, and a generous per-answer guard against a hang (not a timing assertion)."""


def demo_server(*defects: str) -> str:
    """The `--server` command of the hand-written demo server with these defects."""
    return " ".join([sys.executable, str(DEMO_SERVER), *defects])


@dataclass
class Run:
    exit_code: int
    report: dict[str, Any]
    stderr: str

    def failed(self, level: str | None = "must") -> set[str]:
        """Check ids of failures (not expected by a baseline) at `level` (None: any level)."""
        return {
            r["check"]
            for r in self.report["results"]
            if r["status"] == "failed" and level in (None, r["level"]) and "expected" not in r
        }

    def levels(self) -> dict[str, str]:
        """Check id -> level of every failure not expected by a baseline."""
        return {
            r["check"]: r["level"]
            for r in self.report["results"]
            if r["status"] == "failed" and "expected" not in r
        }

    def results(self, check: str, tool: str | None = None) -> list[dict[str, Any]]:
        return [
            r
            for r in self.report["results"]
            if r["check"] == check and (tool is None or r["tool"] == tool)
        ]


def verify(spec: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """`toolgen verify SPEC ARGS --format json` (few cases); the parsed report."""
    result = CliRunner().invoke(
        cli, ["verify", str(spec), *FAST, *args, "--format", "json"], env=env
    )
    report = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return Run(result.exit_code, report, result.stderr)


def verify_raw(argv: Sequence[str]) -> tuple[int, str, str]:
    """`toolgen verify ARGV` as given: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(cli, ["verify", *argv])
    return result.exit_code, result.stdout, result.stderr
