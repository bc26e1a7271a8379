"""Diff configuration: `[tool.toolgen.diff]` in pyproject.toml, then the command line.

```toml
[tool.toolgen.diff]
fail-on = "breaking"            # breaking (default), safety, any, never
accept-major-bump = true        # a major server.version bump makes breaking changes notices
ignore = [                      # every entry needs a reason
  {code = "TD502", reason = "descriptions are reviewed by hand"},
  {code = "input-property-removed", tool = "legacy_*", reason = "legacy tools ignore extra arguments"},
]
```

`code` takes a change code or name; `tool` is an fnmatch pattern of tool
names (absent: every tool, and server-level changes). Any mistake is a
`ConfigError` (a usage error, exit 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from toolgen.diff.codes import find
from toolgen.diff.model import Change
from toolgen.report.config import ConfigError, check_keys, load_section, one_of
from toolgen.version import DOCS_URL

FAIL_ON = ("breaking", "safety", "any", "never")
_KNOWN = ("fail-on", "accept-major-bump", "ignore")
_ENTRY_KEYS = ("code", "tool", "reason")


@dataclass(frozen=True)
class Ignore:
    """One configured ignore: a change code, optionally for some tools only, and why."""

    code: str
    tool: str | None
    reason: str

    def matches(self, change: Change) -> bool:
        if change.code != self.code:
            return False
        return self.tool is None or (
            change.tool is not None and fnmatchcase(change.tool, self.tool)
        )


@dataclass(frozen=True)
class DiffConfig:
    """What to ignore and when a diff fails."""

    fail_on: str = "breaking"
    accept_major_bump: bool = True
    """Whether a major `server.version` bump turns the breaking changes it covers into notices."""
    ignores: tuple[Ignore, ...] = ()
    source: Path | None = None

    def with_fail_on(self, fail_on: str) -> DiffConfig:
        return replace(self, fail_on=fail_on)

    def ignored(self, change: Change) -> bool:
        return any(entry.matches(change) for entry in self.ignores)

    def fails(self, changes: Sequence[Change]) -> bool:
        """Whether these (reported) changes make the run fail (exit 1)."""
        if self.fail_on == "never":
            return False
        if self.fail_on == "any":
            return bool(changes)
        if self.fail_on == "safety":
            return any(c.breaking and c.category == "safety" for c in changes)
        return any(c.breaking for c in changes)


def load_config(path: Path | None) -> DiffConfig:
    """The configuration in `[tool.toolgen.diff]` of `path` (defaults when None or absent)."""
    return replace(load_section(path, "diff", parse_section), source=path)


def parse_section(section: Mapping[str, Any]) -> DiffConfig:
    check_keys(section, _KNOWN)
    entries = section.get("ignore", [])
    if not isinstance(entries, list):
        raise ConfigError("'ignore' must be a list of tables {code, tool, reason}")
    accept = section.get("accept-major-bump", True)
    if not isinstance(accept, bool):
        raise ConfigError(f"'accept-major-bump' must be true or false, got {accept!r}")
    return DiffConfig(
        fail_on=check_fail_on(section.get("fail-on", "breaking")),
        accept_major_bump=accept,
        ignores=tuple(_ignore(entry, index) for index, entry in enumerate(entries)),
    )


def check_fail_on(value: Any) -> str:
    return one_of("fail-on", value, FAIL_ON)


def _ignore(entry: Any, index: int) -> Ignore:
    where = f"ignore[{index}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table {{code, tool, reason}}, got {entry!r}")
    check_keys(entry, _ENTRY_KEYS, f"{where}: ")
    code = entry.get("code")
    found = find(code) if isinstance(code, str) else None
    if found is None:
        raise ConfigError(f"{where}: unknown change code {code!r} (see {DOCS_URL}diff-changes/)")
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigError(
            f"{where}: every ignore needs a 'reason' (why is {found.code} acceptable?)"
        )
    tool = entry.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise ConfigError(f"{where}: 'tool' must be a string (an fnmatch pattern of tool names)")
    return Ignore(found.code, tool, reason)
