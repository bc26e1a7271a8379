"""The values lint passes around: severities, categories, hits and findings."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toolgen.spec.errors import Location


class Severity(StrEnum):
    """How bad a finding is; `--fail-on` compares against this order."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


class Category(StrEnum):
    """What a rule looks at."""

    SUPPRESSIONS = "suppressions"
    ANNOTATIONS = "annotations"
    NAMES = "names"
    SCHEMAS = "schemas"
    DESCRIPTIONS = "descriptions"
    PORTABILITY = "portability"


SPEC_CATEGORY = "spec"
"""The category of findings that are spec errors (the spec set did not load)."""


@dataclass(frozen=True, slots=True)
class Hit:
    """What a rule check reports: a message at a place, about a tool (or the server)."""

    message: str
    location: Location | None
    tool: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem, as every output format sees it.

    `rule` is the kebab-case rule name (None for spec errors, whose `code` is
    the spec error code, e.g. `unknown-key`).
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
