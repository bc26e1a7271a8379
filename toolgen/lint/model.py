"""The values lint's rules pass around: categories and hits (findings and severities are
`toolgen.report`'s)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toolgen.spec.errors import Location


class Category(StrEnum):
    """What a rule looks at."""

    SUPPRESSIONS = "suppressions"
    ANNOTATIONS = "annotations"
    NAMES = "names"
    SCHEMAS = "schemas"
    DESCRIPTIONS = "descriptions"
    PORTABILITY = "portability"


@dataclass(frozen=True, slots=True)
class Hit:
    """What a rule check reports: a message at a place, about a tool (or the server)."""

    message: str
    location: Location | None
    tool: str | None = None
