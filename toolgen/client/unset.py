"""`UNSET`: the default of an optional argument the caller did not give (never sent).

`None` cannot mean "not given": a schema may accept `null` for a property.
"""

from __future__ import annotations

import enum
from typing import Final


class Unset(enum.Enum):
    """The type of `UNSET` (an enum, so type checkers narrow `x is UNSET`)."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset.UNSET
