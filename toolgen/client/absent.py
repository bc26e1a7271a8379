"""`OMITTED`: a value that is absent, the one sentinel of generated models and clients.

In a generated model, a property the JSON object leaves out (`title: str | Omitted =
OMITTED`; a model dumps back without it). In a generated client, the default of an
optional argument the caller did not give (it is not sent). `None` can mean neither:
it is JSON's `null`, which a schema may accept.

`OMITTED` is falsy and typed (`__bool__` returns `Literal[False]`), so `if args.title:`
and `if args.title is not OMITTED:` both narrow `str | Omitted` to `str` for mypy and
pyright; no JSON value validates as it. pydantic's own `MISSING` is truthy, so `if
args.title:` would take the branch for an absent title.
"""

from __future__ import annotations

import enum
from typing import Any, Final, Literal

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


class Omitted(enum.Enum):
    """The type of `OMITTED` (an enum, so type checkers narrow `x is OMITTED`)."""

    OMITTED = "OMITTED"

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "OMITTED"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.is_instance_schema(cls)  # no JSON value is absent


OMITTED: Final = Omitted.OMITTED
"""Absent: a property left out of a JSON object, an argument not given. Falsy; `None` is
JSON's `null`."""
