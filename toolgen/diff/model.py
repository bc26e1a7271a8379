"""The values `toolgen diff` reports: one `Change` per difference, and the run's `Report`."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgen.diff.codes import Code, find
from toolgen.report.findings import Finding, Severity
from toolgen.spec.digests import set_digest
from toolgen.spec.errors import Location
from toolgen.spec.ir import Origin


@dataclass(frozen=True, slots=True)
class Change(Finding):
    """One difference between OLD and NEW, judged: a finding with two more facts.

    `breaking` is true when clients may break (certainly: severity error;
    possibly: severity warning). A non-breaking change has severity info, or
    warning when it deserves a look (a new description, a new default).
    `location` is in NEW; in OLD for what was removed.
    """

    breaking: bool
    path: str
    """A JSON pointer into the tool definition (`/inputSchema/properties/title/maxLength`)."""

    def report_order(self) -> tuple[str, str, str, str]:
        """Changes are listed by tool, then category, path and code."""
        return (self.tool or "", self.category, self.path, self.code)


def make_change(
    code: str,
    message: str,
    *,
    tool: str | None,
    path: str = "",
    location: Location | None = None,
    breaking: bool | None = None,
    severity: Severity | None = None,
) -> Change:
    """A `Change` of a registered code; `breaking` and `severity` default from the code."""
    entry: Code | None = find(code)
    assert entry is not None, code
    is_breaking = entry.breaking in ("yes", "maybe") if breaking is None else breaking
    if severity is None:
        severity = (
            (Severity.WARNING if entry.breaking == "maybe" else Severity.ERROR)
            if is_breaking
            else Severity.INFO
        )
    return Change(
        code=entry.code,
        rule=entry.name,
        category=entry.category.value,
        severity=severity,
        message=message,
        tool=tool,
        location=location,
        breaking=is_breaking,
        path=path,
    )


@dataclass
class ServerDiff:
    """The diff of one server: its changes, and both sides' tool digests and versions."""

    name: str
    changes: list[Change] = field(default_factory=list)
    old_digests: dict[str, str] = field(default_factory=dict)
    new_digests: dict[str, str] = field(default_factory=dict)
    old_version: str | None = None
    new_version: str | None = None
    version_origin: Origin | None = None

    @property
    def old_digest(self) -> str:
        return set_digest(self.old_digests)

    @property
    def new_digest(self) -> str:
        return set_digest(self.new_digests)

    def changed_tools(self) -> list[str]:
        old = self.old_digests
        return [n for n, d in self.new_digests.items() if n in old and old[n] != d]

    def added_tools(self) -> list[str]:
        return [n for n in self.new_digests if n not in self.old_digests]

    def removed_tools(self) -> list[str]:
        return [n for n in self.old_digests if n not in self.new_digests]

    def unchanged_tools(self) -> int:
        return sum(1 for n, d in self.new_digests.items() if self.old_digests.get(n) == d)


@dataclass
class Report:
    """Everything a diff found: the changes of every server (after ignores)."""

    servers: list[ServerDiff] = field(default_factory=list)
    old_absent: bool = False
    """OLD (a git path) is not at its revision yet: every server of NEW is new."""
    ignored: int = 0

    @property
    def changes(self) -> list[Change]:
        return sorted((c for s in self.servers for c in s.changes), key=Change.report_order)
