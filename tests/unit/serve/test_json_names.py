"""Arguments from a client become a handler's model by their JSON names alone: a key spelled
as a field's Python name is an undeclared property, not that field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolgen.serve.handlers import BoundHandler


class Open(BaseModel):
    model_config = ConfigDict(extra="allow", validate_by_name=True, validate_by_alias=True)
    class_: int | None = Field(None, alias="class")


class Closed(Open):
    model_config = ConfigDict(extra="forbid")


def parsed(model: type[BaseModel], arguments: dict[str, Any]) -> Any:
    bound = BoundHandler(lambda args: args, False, True, find_model=lambda: model)
    (args,) = bound.call_args(arguments)
    return args


def test_a_json_name_fills_its_field() -> None:
    assert parsed(Open, {"class": 2}).class_ == 2


def test_a_python_name_in_json_is_an_extra_property_not_the_field() -> None:
    args = parsed(Open, {"class_": 1})
    assert args.class_ is None
    assert args.model_extra == {"class_": 1}


def test_a_python_name_in_json_is_refused_where_extra_properties_are() -> None:
    with pytest.raises(ValidationError) as caught:
        parsed(Closed, {"class_": 1})
    assert caught.value.errors()[0]["type"] == "extra_forbidden"


def test_code_still_builds_a_model_by_python_names() -> None:
    assert Open(class_=3).class_ == 3
