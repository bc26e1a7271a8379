"""The fixed top of every generated `models.py`: the `ABSENT` sentinel and `ToolModel`.

Written into each module rather than imported from toolgen, so the models need
nothing but pydantic. Why a sentinel of our own: a property the JSON leaves
out is not `null`, and pydantic's experimental `MISSING` is truthy (so
`if args.title:` is wrong) and unknown to type checkers. `ABSENT` is falsy and
typed (`__bool__` returns `Literal[False]`), so both `if args.title:` and
`if args.title is not ABSENT:` narrow `str | Absent` to `str` for pyright and
mypy; no JSON value validates as it; and `ToolModel` leaves absent fields out
of every dump.
"""

from __future__ import annotations

IMPORTS: dict[str, tuple[str, ...]] = {
    "enum": (),
    "typing": ("Any", "Final", "Literal"),
    "pydantic": (
        "BaseModel",
        "ConfigDict",
        "GetCoreSchemaHandler",
        "GetJsonSchemaHandler",
        "SerializationInfo",
        "SerializerFunctionWrapHandler",
        "model_serializer",
    ),
    "pydantic.json_schema": ("JsonSchemaValue",),
    "pydantic_core": ("core_schema",),
}
"""What the prelude imports (module → names; `()`: `import module`)."""

NAMES = ("Absent", "ABSENT", "ToolModel")
"""What the prelude defines."""

PRELUDE = '''
class Absent(enum.Enum):
    """The type of `ABSENT`."""

    ABSENT = "ABSENT"

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "ABSENT"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.is_instance_schema(cls)  # no JSON value is absent

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"not": {}}


ABSENT: Final = Absent.ABSENT
"""A property left out of the JSON object. Falsy; `None` is JSON's `null`."""


class ToolModel(BaseModel):
    """Base of the models: strict JSON types, JSON property names, absent properties left out.

    Construct with Python names (`Model(repo_name=...)`); validation also reads the
    JSON names, and dumps write them.
    """

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        regex_engine="python-re",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    @model_serializer(mode="wrap")
    def _leave_out_absent(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name, spec in type(self).model_fields.items():
                if getattr(self, name) is ABSENT:
                    alias = spec.serialization_alias
                    data.pop(alias if alias and info.by_alias is not False else name, None)
        return data
'''
