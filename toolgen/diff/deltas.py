"""What the schema comparison finds: `Delta`s, each with the direction it moves the schema.

A delta says whether it *narrows* what the schema accepts (some value valid
before is invalid now) and whether it *widens* it (some value invalid before
is valid now), each as NO, MAYBE or YES. The rules then judge by side:
narrowing breaks inputs (what clients send), widening breaks outputs (what
clients receive). MAYBE is the sound answer when the comparison cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum

from toolgen.spec.errors import Location
from toolgen.spec.ir import Origin
from toolgen.spec.positions import JsonPath


class Certainty(IntEnum):
    """How sure the comparison is that a delta moves the schema one way."""

    NO = 0
    MAYBE = 1
    YES = 2


class Kind(StrEnum):
    """What a delta changes; the rules map (side, kind) to a change code."""

    PROPERTY_REMOVED = "property-removed"
    PROPERTY_ADDED = "property-added"
    REQUIRED_PROPERTY_ADDED = "required-property-added"
    BECAME_REQUIRED = "became-required"
    BECAME_OPTIONAL = "became-optional"
    TYPE = "type"
    ENUM_REMOVED = "enum-removed"
    ENUM_ADDED = "enum-added"
    TIGHTENED = "tightened"
    RELAXED = "relaxed"
    CONSTRAINT_CHANGED = "constraint-changed"
    CLOSED = "closed"
    OPENED = "opened"
    DEFAULT = "default"
    DOCS = "docs"
    SCHEMA = "schema"


NO, MAYBE, YES = Certainty.NO, Certainty.MAYBE, Certainty.YES


@dataclass(frozen=True, slots=True)
class Delta:
    """One difference between two schemas, at a path below their roots."""

    kind: Kind
    narrows: Certainty
    widens: Certainty
    path: JsonPath
    """Where, below the schema root, through properties and items (not through `$defs`)."""
    message: str
    origin: Origin | None
    """The schema node (in NEW, or in OLD for what was removed) the delta is about."""
    at: JsonPath = ()
    """The changed keyword below `origin` (the JSON pointer ends with it); the location
    points at its key when it is still written there, else at the node itself."""

    def location(self) -> Location | None:
        if self.origin is None:
            return None
        source, here = self.origin.source, (*self.origin.path, *self.at)
        if self.at and (here in source.key_positions or here in source.positions):
            return self.origin.locate(*self.at, key=True)
        return self.origin.locate()

    def uncertain(self) -> Delta:
        """This delta seen through `oneOf`, `not` or `if`, where a narrowing may widen:
        an unclassified change, possibly breaking either way."""
        if self.narrows is NO and self.widens is NO:
            return self
        message = f"inside `oneOf`, `not` or `if`: {self.message}"
        return replace(self, kind=Kind.SCHEMA, narrows=MAYBE, widens=MAYBE, message=message)

    @property
    def validates(self) -> bool:
        """Whether the delta may change which values are valid."""
        return self.narrows is not NO or self.widens is not NO
