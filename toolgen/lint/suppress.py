"""Suppressions written in specs: the `x-toolgen-lint` extension key.

On a tool it silences findings about that tool; on the `server` block, every
finding of the spec set (including those in defs):

```yaml
tools:
  - name: purge_cache
    x-toolgen-lint:
      ignore:
        - {code: TG106, reason: "the cache is rebuilt on the next read"}
```

`code` takes a rule code or name. Every entry must give a `reason`
(TG001); an entry that silences nothing is reported (TG002); one that cannot
be read is reported (TG003) and silences nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from toolgen.lint.model import Hit
from toolgen.lint.registry import find_rule
from toolgen.spec.errors import Location
from toolgen.spec.ir import Origin, ToolSet

KEY = "x-toolgen-lint"
_ENTRY_KEYS = frozenset({"code", "reason"})


@dataclass(slots=True)
class Suppression:
    """One `ignore` entry; `tool` None means the whole spec set."""

    code: str
    reason: str | None
    tool: str | None
    location: Location
    used: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """A suppression that is itself a finding: `code` is TG001, TG002 or TG003."""

    code: str
    hit: Hit


def collect(toolset: ToolSet) -> tuple[list[Suppression], list[Problem]]:
    """Every suppression of the spec set, and the entries that cannot be read."""
    suppressions: list[Suppression] = []
    problems: list[Problem] = []
    owners: list[tuple[Any, Origin | None, str | None]] = [
        (tool.extensions.get(KEY), tool.origin, tool.name)
        for tool in toolset.tools
        if KEY in tool.extensions
    ]
    server = toolset.server
    if KEY in server.extensions:
        owners.append((server.extensions[KEY], server.origin, None))
    for value, origin, tool in owners:
        if origin is None:
            continue
        for item in _entries(value, origin.child(KEY), tool):
            if isinstance(item, Problem):
                problems.append(item)
            else:
                suppressions.append(item)
    return suppressions, problems


def _entries(value: Any, origin: Origin, tool: str | None) -> Iterator[Suppression | Problem]:
    def invalid(message: str, where: Origin, *, key: bool = False) -> Problem:
        return Problem("TG003", Hit(message, where.locate(key=key), tool))

    if not isinstance(value, dict) or set(value) - {"ignore"}:
        yield invalid(f"`{KEY}` must be a mapping with one key, `ignore`", origin, key=True)
        return
    entries = value.get("ignore", [])
    if not isinstance(entries, list):
        yield invalid("`ignore` must be a list of {code, reason} entries", origin.child("ignore"))
        return
    for index, entry in enumerate(entries):
        where = origin.child("ignore", index)
        if isinstance(entry, str):
            entry = {"code": entry}
        if not isinstance(entry, dict) or set(entry) - _ENTRY_KEYS or "code" not in entry:
            yield invalid("an `ignore` entry must be {code: CODE, reason: TEXT}", where)
            continue
        code, reason = entry["code"], entry.get("reason")
        found = find_rule(code) if isinstance(code, str) else None
        if found is None:
            at = where.child("code") if isinstance(entry.get("code"), str) else where
            yield invalid(f"unknown rule {code!r} in a suppression", at)
            continue
        if reason is not None and not isinstance(reason, str):
            yield invalid("`reason` must be text", where.child("reason"))
            continue
        text = reason.strip() if isinstance(reason, str) else ""
        yield Suppression(found.code, text or None, tool, where.locate())


def apply(
    findings: Iterable[tuple[str, Hit]], suppressions: list[Suppression]
) -> list[tuple[str, Hit]]:
    """The findings no suppression silences; marks the suppressions that were used."""
    by_tool: dict[tuple[str | None, str], Suppression] = {}
    for s in suppressions:
        by_tool.setdefault((s.tool, s.code), s)
    kept: list[tuple[str, Hit]] = []
    for code, hit in findings:
        match = (by_tool.get((hit.tool, code)) if hit.tool is not None else None) or by_tool.get(
            (None, code)
        )
        if match is None:
            kept.append((code, hit))
        else:
            match.used = True
    return kept


def problems_after(suppressions: list[Suppression], selected: set[str]) -> Iterator[Problem]:
    """TG001 for entries without a reason; TG002 for entries of selected rules left unused."""
    for s in suppressions:
        if s.reason is None:
            yield Problem(
                "TG001",
                Hit(f"suppression of {s.code} gives no reason; add `reason:`", s.location, s.tool),
            )
        if not s.used and s.code in selected:
            yield Problem(
                "TG002",
                Hit(f"suppression of {s.code} suppresses nothing; remove it", s.location, s.tool),
            )
