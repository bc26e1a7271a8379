"""Findings and their severities: what a lint rule or a diff reports, in one shape."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toolgen.spec.errors import Location


class Severity(StrEnum):
    """How bad a finding is; `fail-on` compares against this order."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

SPEC_CATEGORY = "spec"
"""The category of findings that are spec errors (the input did not load)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem, as every output format sees it.

    `code` is stable (a rule's, a change's or a spec error's); `rule` is its kebab-case
    name (None for spec errors, whose `code` is already a name, e.g. `unknown-key`).
    """

    code: str
    rule: str | None
    category: str
    severity: Severity
    message: str
    tool: str | None
    location: Location | None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        where = (loc.file, loc.line, loc.column) if loc else ("", 0, 0)
        return (*where, self.code, self.message)
