"""The fixed top of every generated `models.py`: the absent value `OMITTED`, the `Omittable`
fields that may hold it, and the `ToolModel` base.

The models import pydantic and nothing else, so an application that only validates with
them needs nothing of toolgen. datamodel-code-generator (DCG) is told to derive every class
from `ToolModel` (`base_class`), and its `X | MISSING` for a property left out becomes
`Omittable[X]`, its `MISSING` default the module's `OMITTED` (see
`toolgen.build.python.modelshape`). An `Omittable` field holding `OMITTED` is left out of
every dump (pydantic's `exclude_if`, checked in pydantic-core, field by field), so a model
dumps back to the JSON it was validated from. The generated client defaults its optional
arguments to the same value and leaves them out of a call (`toolgen.client.base`).

`OMITTED` is falsy and typed (`__bool__` returns `Literal[False]`), so `if args.title:` and
`if args.title is not OMITTED:` both narrow `Omittable[str]` (`str | Omitted`) to `str` for
mypy and pyright; no JSON value validates as it. pydantic's own `MISSING` is truthy, so
`if args.title:` would take the branch for an absent title.

`defer_build=True`: a class's pydantic-core validator and serializer are built when
the class is first used (validated, instantiated, dumped, asked for its JSON
Schema), not when `models.py` is imported. A generated server imports its models
on its first call; building only the called tool's models saves the time and the
memory (pydantic-core code pages, core schemas) of every other tool's. Validation
is the same once built.
"""

from __future__ import annotations

from toolgen.build.python.modelsplice import Import

INTEGER = "IntNumber"
"""What a JSON Schema `integer` is in the models (for DCG's `StrictInt`):
an int, or a float without fractional part (`20.0`, an integer to JSON Schema and to the
runtime), validated as the int it equals; never a bool or a string."""
INTEGRAL = "Integral"
"""What an integer with a `Field` has after it (`Annotated[StrictInt, Field(ge=1),
Integral]`): it takes the float as the int, and pydantic-core checks the constraints
with the int (after `IntNumber`, pydantic checks each with a Python function)."""
DCG_INTEGER = "StrictInt"

BASE_MODULE = "toolgen_models_prelude"
"""The module DCG is told the base class lives in; its import is replaced by `PRELUDE`."""
BASE_CLASS = "ToolModel"
SENTINEL_TYPE = "Omitted"
SENTINEL = "OMITTED"
"""The names of `toolgen.client`'s absent value (never class names: `naming.RESERVED`)."""
OMITTABLE = "Omittable"
"""The type of a field that may be absent (`Omittable[str]`: a `str`, or `OMITTED`)."""

IMPORTS: tuple[Import, ...] = (
    Import("enum", "Enum"),
    Import("typing", "Annotated"),
    Import("typing", "Any"),
    Import("typing", "Final"),
    Import("typing", "Literal"),
    Import("typing", "TypeAlias"),
    Import("typing", "TypeVar"),
    Import("pydantic", "BeforeValidator"),
    Import("pydantic", DCG_INTEGER),
    Import("pydantic", "BaseModel"),
    Import("pydantic", "ConfigDict"),
    Import("pydantic", "Field"),
    Import("pydantic", "GetCoreSchemaHandler"),
    Import("pydantic_core", "core_schema"),
)
"""What `PRELUDE` uses (merged with the imports of the models): pydantic's, and the standard
library's."""

PRELUDE = '''
class Omitted(Enum):
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


def _is_omitted(value: object) -> bool:
    return value is OMITTED


_T = TypeVar("_T")
Omittable: TypeAlias = Annotated[_T | Omitted, Field(exclude_if=_is_omitted)]
"""A property that may be left out: a `_T`, or `OMITTED`, which every dump leaves out."""


def _integral(value: Any) -> Any:
    """A float without fractional part as the int it equals (JSON Schema: `20.0` is an integer)."""
    return int(value) if type(value) is float and value.is_integer() else value


Integral: Final = BeforeValidator(_integral)
"""Put after an integer's constraints: it also takes a float without fractional part."""
IntNumber = Annotated[StrictInt, Integral]
"""A JSON Schema `integer`: an int, or a float without fractional part; never a bool."""


class ToolModel(BaseModel):
    """Base of the models: no undeclared properties unless a class allows them; built from
    Python names (`Model(class_=...)`) or JSON names; dumped with JSON names. A class
    builds its validator and serializer on first use, not on import: a server's first
    call builds only the models of the tool it calls."""

    model_config = ConfigDict(
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )
'''.strip()
