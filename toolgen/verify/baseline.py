"""A baseline: the failures a team expects for now, each with its reason.

```yaml
expected-failures:
  - check: protocol.batch            # a check id, or an fnmatch pattern (`call.*`)
    reason: the SDK drops batches without a reply
  - check: call.text-fallback
    tool: search_*                   # optional: which tools (fnmatch); default any
    revision: 2025-06-18             # optional: which revision; default any
    reason: structured results only, tracked in #42
```

A failure an entry matches is reported as expected and does not fail the run.
An entry that matches no failure fails the run (`baseline.unused`): what was
fixed must leave the baseline, so that it cannot come back unnoticed. As the
conformance suite's `--expected-failures` does. Read with toolgen's YAML reader,
so every mistake in the file is reported at `file:line:col`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.positions import SourceFile
from toolgen.spec.source import read_source
from toolgen.verify.checks import BY_ID
from toolgen.verify.results import FAILED, Result, failed

KEYS: Final = frozenset({"check", "tool", "revision", "reason"})


@dataclass(frozen=True, slots=True)
class Entry:
    check: str
    tool: str | None
    revision: str | None
    reason: str
    where: str

    def matches(self, result: Result) -> bool:
        if not fnmatch.fnmatchcase(result.check, self.check):
            return False
        if self.tool is not None and not fnmatch.fnmatchcase(result.tool or "", self.tool):
            return False
        return self.revision is None or self.revision == result.revision


def load_baseline(path: Path) -> list[Entry]:
    """The entries of a baseline file; `SpecError` (with positions) when it cannot be used."""
    source = read_source(path)
    problems: list[Diagnostic] = list(source.problems)
    data = source.data
    entries_data = data.get("expected-failures") if isinstance(data, dict) else None
    if not isinstance(entries_data, list):
        raise SpecError(
            [*problems, _problem(source, (), "expected a mapping with an `expected-failures` list")]
        )
    entries = []
    for index, item in enumerate(entries_data):
        entry = _entry(source, index, item, problems)
        if entry is not None:
            entries.append(entry)
    if problems:
        raise SpecError(problems)
    return entries


def _entry(source: SourceFile, index: int, item: Any, problems: list[Diagnostic]) -> Entry | None:
    path = ("expected-failures", index)
    if not isinstance(item, dict):
        problems.append(_problem(source, path, "expected a mapping with `check` and `reason`"))
        return None
    for key in item:
        if key not in KEYS:
            problems.append(
                _problem(
                    source,
                    (*path, key),
                    f"unknown key {key!r}; expected one of: check, tool, revision, reason",
                    ErrorCode.UNKNOWN_KEY,
                    key=True,
                )
            )
    for key in ("check", "reason"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            problems.append(
                _problem(
                    source, path, f"`{key}` is required (a non-empty string)", ErrorCode.MISSING_KEY
                )
            )
    check = item.get("check")
    if isinstance(check, str) and not any(fnmatch.fnmatchcase(c, check) for c in BY_ID):
        problems.append(_problem(source, (*path, "check"), f"{check!r} matches no check id"))
    for key in ("tool", "revision"):
        if key in item and not isinstance(item[key], str):
            problems.append(
                _problem(source, (*path, key), f"`{key}` must be a string", ErrorCode.WRONG_TYPE)
            )
    if problems:
        return None
    where = str(source.locate(path))
    return Entry(str(check), item.get("tool"), item.get("revision"), item["reason"], where)


def _problem(
    source: SourceFile,
    path: tuple[str | int, ...],
    message: str,
    code: str = ErrorCode.INVALID_VALUE,
    *,
    key: bool = False,
) -> Diagnostic:
    return Diagnostic(code, message, source.locate(path, key=key))


def apply_baseline(results: Sequence[Result], entries: Sequence[Entry]) -> list[Result]:
    """`results` with expected failures marked, plus a failure per entry that matched none."""
    used: set[int] = set()
    out = []
    for result in results:
        if result.status == FAILED:
            for index, entry in enumerate(entries):
                if entry.matches(result):
                    used.add(index)
                    result = result.with_expected(entry.reason)
                    break
        out.append(result)
    for index, entry in enumerate(entries):
        if index not in used:
            what = entry.check + (f" for {entry.tool}" if entry.tool else "")
            out.append(
                failed(
                    "baseline.unused",
                    f"{entry.where}: the expected failure {what} did not happen: remove the entry",
                    entry.tool,
                    entry.revision,
                )
            )
    return out
