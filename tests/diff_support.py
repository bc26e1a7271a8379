"""Run diff change cases stored as data (tests/diff_cases/*.yaml).

A case is a mapping:

- `name`: what the case shows (a sentence);
- `old`, `new`: one spec file's text each, after a fixed header: `toolgen: 1`
  and a `server` block (version 1.0.0 in OLD, 2.0.0 in NEW, so breaking
  changes do not also report a missing major bump; the cases run with
  `accept-major-bump` off, so the bump does not make them notices); positions
  count from the snippet's first line;
- `old_files`, `new_files` (optional): more files of the spec set, name -> text
  (after a two-line header `toolgen: 1` and a comment, so positions count
  from the snippet's first line there too);
- `git: true` (optional): OLD is committed to a repository and read as
  `git:HEAD:old` (positions in it are the same lines of `HEAD:old/...`);
- `old_version`, `new_version` (optional): override the header's versions;
- `old_server`, `new_server` (optional): more keys of the `server` block;
- `expect`: the changes, each `"CODE label"` or `"CODE label line:col"` (in
  NEW, or OLD for what was removed; `file.yaml:line:col` in another file),
  label as the text format prints it
  (breaking, possibly-breaking, error, warning, note), optionally followed
  by `[tool]` and by the change's JSON pointer (`/inputSchema/...`); `[]`
  when nothing may be reported.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from contextlib import chdir
from pathlib import Path
from typing import Any

import yaml

from toolgen.diff.config import DiffConfig
from toolgen.diff.model import Change
from toolgen.diff.report import label
from toolgen.diff.run import run_diff

CASES_DIR = Path(__file__).parent / "diff_cases"


def header(version: str, extra: dict[str, Any] | None = None) -> str:
    server = json.dumps({"name": "demo", "version": version, **(extra or {})})
    return f"toolgen: 1\nserver: {server}\n"


HEADER_LINES = 2


def load_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            case["_file"] = path.stem
            cases.append(case)
    return cases


AS_CLASSIFIED = DiffConfig(accept_major_bump=False)
"""Each change as the diff classifies it, whatever the versions say."""


def case_id(case: dict[str, Any]) -> str:
    return f"{case['_file']}: {case['name']}"


def run_case(case: dict[str, Any], tmp: Path) -> list[Change]:
    for side, version in (("old", "1.0.0"), ("new", "2.0.0")):
        text = header(case.get(f"{side}_version", version), case.get(f"{side}_server")) + case[side]
        (tmp / side).mkdir()
        (tmp / side / "main.yaml").write_text(text, encoding="utf-8")
        for name, more in case.get(f"{side}_files", {}).items():
            (tmp / side / name).write_text(f"toolgen: 1\n# {name}\n{more}", encoding="utf-8")
    if not case.get("git"):
        return run_diff(str(tmp / "old"), str(tmp / "new"), AS_CLASSIFIED).changes
    for args in (["init", "-q"], ["add", "old"], ["commit", "-qm", "old"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=tmp,
            check=True,
            capture_output=True,
            timeout=60,
        )
    shutil.rmtree(tmp / "old")  # what is read comes from the commit, not the working tree
    with chdir(tmp):
        changes = run_diff("git:HEAD:old", "new", AS_CLASSIFIED).changes
    assert all(
        c.location is None or c.location.file.startswith(("HEAD:old/", "new/")) for c in changes
    ), [c.location for c in changes]
    return changes


def _position(change: Change) -> str:
    """`line:col` in main.yaml, else `file.yaml:line:col` (lines counted after the header)."""
    loc = change.location
    if loc is None:
        return ""
    name = Path(loc.file).name
    where = f"{loc.line - HEADER_LINES}:{loc.column}"
    return where if name == "main.yaml" else f"{name}:{where}"


def describe(change: Change) -> str:
    """A change as a case's `expect` writes it, with its position."""
    where = f" {_position(change)}" if change.location else ""
    tool = f" [{change.tool}]" if change.tool else ""
    return f"{change.code} {label(change)}{where}{tool} {change.path}"


def matches(expected: str, change: Change) -> bool:
    """Whether `change` is what an `expect` entry says (position and tool only when given)."""
    words = expected.split()
    code, what = words[0], words[1]
    if change.code != code or label(change) != what:
        return False
    for word in words[2:]:
        if word.startswith("["):
            if f"[{change.tool}]" != word:
                return False
        elif word.startswith("/"):
            if change.path != word:
                return False
        elif change.location is None or _position(change) != word:
            return False
    return True
