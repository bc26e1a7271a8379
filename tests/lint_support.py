"""Run lint rule cases stored as data (tests/lint_cases/*.yaml).

A case is a mapping:

- `rule`: the code under test; `name`: what the case shows.
- the input, one of:
  - `spec`: one spec file's text after a fixed two-line header
    (`toolgen: 1` and a `server` block), so positions count from the
    snippet's first line;
  - `files`: {file name: full text} of a spec set (positions as written);
  - `published`: the text of a `tools.json` file of published definitions.
- `select` (optional): rules to run; default: only `rule`.
- `config` (optional): `[tool.toolgen.lint]` keys, e.g. `{max-name-length: 10}`.
- `expect`: the findings, each `"CODE line:col"` (in the only file) or
  `"CODE file:line:col"`; `[]` for a passing case.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from toolgen import cache
from toolgen.lint.config import LintConfig, parse_section
from toolgen.lint.runner import lint_paths

CASES_DIR = Path(__file__).parent / "lint_cases"
HEADER = 'toolgen: 1\nserver: {name: demo, version: "1.0.0"}\n'
HEADER_LINES = HEADER.count("\n")


def load_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            case["_file"] = path.name
            cases.append(case)
    return cases


def case_id(case: dict[str, Any]) -> str:
    return f"{case['rule']}-{case['name']}"


def write_case(case: dict[str, Any], root: Path) -> tuple[Path, str | None, int]:
    """Write the case's input under `root`; return (path to lint, only file, line offset)."""
    root.mkdir(parents=True, exist_ok=True)
    if "spec" in case:
        (root / "main.yaml").write_text(HEADER + case["spec"], encoding="utf-8")
        return root, "main.yaml", HEADER_LINES
    if "published" in case:
        (root / "tools.json").write_text(case["published"], encoding="utf-8")
        return root / "tools.json", "tools.json", 0
    for name, text in case["files"].items():
        (root / name).write_text(text, encoding="utf-8")
    only = next(iter(case["files"])) if len(case["files"]) == 1 else None
    return root, only, 0


def run_case(case: dict[str, Any], root: Path) -> list[str]:
    """The findings of a case, in the `expect` notation (paths relative to `root`)."""
    target, only, offset = write_case(case, root)
    config = parse_section({"select": case.get("select", [case["rule"]]), **case.get("config", {})})
    run = lint_paths([target], config)
    got = []
    for f in run.findings:
        assert f.location is not None, f
        file = Path(f.location.file).name
        where = f"{f.location.line - offset}:{f.location.column}"
        got.append(f"{f.code} {where}" if file == only else f"{f.code} {file}:{where}")
    return got


def lint_result(paths: list[Path], config: LintConfig) -> list[dict[str, Any]]:
    """What a lint of `paths` reports, as plain data: counts first, then every finding."""
    run = lint_paths(paths, config)
    return [
        {"servers": run.servers, "tools": run.tools, "failed": run.load_failed},
        *(asdict(f) for f in run.findings),
    ]


def uncached_lint_result(paths: list[Path], config: LintConfig) -> list[dict[str, Any]]:
    """`lint_result` with toolgen's caches off: what every cached lint must equal."""
    saved = os.environ.get(cache.ENV)
    os.environ[cache.ENV] = "off"
    try:
        return lint_result(paths, config)
    finally:
        if saved is None:
            del os.environ[cache.ENV]
        else:
            os.environ[cache.ENV] = saved
