"""modelshape edits datamodel-code-generator's unformatted module: absent properties are
`Omittable`, integers `IntNumber` (with a `Field`: `Integral` after it), the base's config
said once."""

from __future__ import annotations

import pytest

from toolgen.build.python.modelshape import reshape
from toolgen.build.python.modelsplice import ModelGenerationError

CASES = [
    ("x: StrictStr | MISSING = MISSING", "x: Omittable[StrictStr] = OMITTED"),
    ("x: StrictStr | None | MISSING = MISSING", "x: Omittable[StrictStr | None] = OMITTED"),
    ("x: StrictInt | MISSING = MISSING", "x: Omittable[IntNumber] = OMITTED"),
    ("x: list[StrictInt] | MISSING = MISSING", "x: Omittable[list[IntNumber]] = OMITTED"),
    (
        "x: Annotated[StrictStr | MISSING, Field(description='é | MISSING')] = MISSING",
        "x: Annotated[Omittable[StrictStr], Field(description='é | MISSING')] = OMITTED",
    ),
    (
        "x: Annotated[StrictInt, Field(ge=1)] | None | MISSING = MISSING",
        "x: Omittable[Annotated[StrictInt, Field(ge=1), Integral] | None] = OMITTED",
    ),
    ("x: StrictInt = 3", "x: IntNumber = 3"),
    (
        "x: list[Annotated[StrictInt, Field(ge=0)]]",
        "x: list[Annotated[StrictInt, Field(ge=0), Integral]]",
    ),
    (
        "x: Annotated[\n        StrictInt,\n        Field(le=9),\n    ]",
        "x: Annotated[\n        StrictInt,\n        Field(le=9), Integral,\n    ]",
    ),
    (
        "x: Annotated[StrictStr, Field(min_length=1)]",
        "x: Annotated[StrictStr, Field(min_length=1)]",
    ),
]


@pytest.mark.parametrize(("field", "shaped"), CASES)
def test_a_field_becomes_what_the_prelude_names(field: str, shaped: str) -> None:
    code = f"class A(ToolModel):\n    '''Doc.'''\n    {field}\n    y: StrictStr\n"
    assert reshape(code) == f"class A(ToolModel):\n    '''Doc.'''\n    {shaped}\n    y: StrictStr\n"


def test_the_base_config_goes_and_a_class_left_empty_gets_pass() -> None:
    code = (
        "class A(ToolModel):\n    model_config = ConfigDict(\n        extra='forbid',\n    )\n"
        "    x: StrictStr\n\n\n"
        "class B(ToolModel):\n    model_config = ConfigDict(\n        extra='forbid',\n    )\n\n\n"
        "class C(ToolModel):\n    model_config = ConfigDict(\n        extra='allow',\n    )\n"
    )
    assert reshape(code) == (
        "class A(ToolModel):\n    x: StrictStr\n\n\n"
        "class B(ToolModel):\n    pass\n\n\n"
        "class C(ToolModel):\n    model_config = ConfigDict(\n        extra='allow',\n    )\n"
    )


def test_an_absent_value_outside_a_union_is_refused_not_left_unbound() -> None:
    with pytest.raises(ModelGenerationError):
        reshape("class A(ToolModel):\n    x: list[MISSING] = MISSING\n")
