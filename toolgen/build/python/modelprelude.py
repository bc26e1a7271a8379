"""The fixed top of every generated `models.py`: the `OMITTED` sentinel and the `ToolModel` base.

Written into each module rather than imported from toolgen, so the models need
nothing but pydantic. datamodel-code-generator (DCG) is told to derive every
class from `ToolModel` (`base_class`), and its `MISSING` for a property left
out becomes `Omitted`/`OMITTED` (see `toolgen.build.python.modelshape`).

Why a sentinel of our own: a property the JSON leaves out is not `null`, and
pydantic's `MISSING` is truthy, so `if args.title:` would take the branch for
an absent title. `OMITTED` is falsy and typed (`__bool__` returns
`Literal[False]`), so both `if args.title:` and `if args.title is not OMITTED:`
narrow `str | Omitted` to `str` for pyright and mypy; no JSON value validates as
it; and `ToolModel` leaves absent fields out of every dump, so a model dumps
back to the JSON it was validated from.

`defer_build=True`: a class's pydantic-core validator and serializer are built when
the class is first used (validated, instantiated, dumped, asked for its JSON
Schema), not when `models.py` is imported. A generated server imports its models
on its first call; building only the called tool's models saves the time and the
memory (pydantic-core code pages, core schemas) of every other tool's. Validation
is the same once built.
"""

from __future__ import annotations

from toolgen.build.python.modelsplice import Import

BASE_MODULE = "toolgen_models_prelude"
"""The module DCG is told the base class lives in; its import is replaced by `PRELUDE`."""
BASE_CLASS = "ToolModel"
SENTINEL_TYPE = "Omitted"
SENTINEL = "OMITTED"
NAMES = (SENTINEL_TYPE, SENTINEL, BASE_CLASS)
"""What the prelude defines: never a class name of the plan."""

IMPORTS: tuple[Import, ...] = (
    Import(None, "enum"),
    Import("typing", "Any"),
    Import("typing", "Final"),
    Import("typing", "Literal"),
    Import("pydantic", "BaseModel"),
    Import("pydantic", "ConfigDict"),
    Import("pydantic", "GetCoreSchemaHandler"),
    Import("pydantic", "SerializationInfo"),
    Import("pydantic", "SerializerFunctionWrapHandler"),
    Import("pydantic", "model_serializer"),
    Import("pydantic_core", "core_schema"),
)
"""What `PRELUDE` uses (merged with the imports of the models)."""

PRELUDE = '''
class Omitted(enum.Enum):
    """The type of `OMITTED`: a property the JSON object leaves out."""

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
"""A property left out of the JSON object. Falsy; `None` is JSON's `null`."""


class ToolModel(BaseModel):
    """Base of the models: no undeclared properties unless a class allows them; built from
    Python names (`Model(class_=...)`) or JSON names; dumped with JSON names, absent
    properties left out. A class builds its validator and serializer on first use, not
    on import: a server's first call builds only the models of the tool it calls."""

    model_config = ConfigDict(
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )

    @model_serializer(mode="wrap")
    def _leave_out_absent(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name, spec in type(self).model_fields.items():
                if getattr(self, name, None) is OMITTED:
                    alias = spec.serialization_alias or spec.alias
                    data.pop(alias if alias and info.by_alias is not False else name, None)
        return data
'''.strip()
