"""The models accept exactly what the schema accepts: integral floats are integers, enums of
mixed values are those values, and patterns read `\\d`, `\\w`, `\\s` as the runtime does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import import_module, toolset_of
from pydantic import ValidationError

from toolgen.build.python.models import render_models

# (the schema of property `v`, values the schema accepts, values it refuses)
CASES: list[tuple[dict[str, Any], list[Any], list[Any]]] = [
    ({"type": "integer"}, [20, 20.0, -3.0, 2**70], [20.5, True, "20", None]),
    ({"type": "integer", "minimum": 1}, [1.0, 5], [0.0, 0]),
    ({"type": ["integer", "null"]}, [None, 3.0], [3.5, False]),
    ({"type": "array", "items": {"type": "integer"}}, [[1, 2.0]], [[1.5], [False]]),
]


@pytest.mark.parametrize(("schema", "accepted", "refused"), CASES)
def test_models_accept_the_values_the_schema_accepts_and_refuse_the_others(
    tmp_path: Path, schema: dict[str, Any], accepted: list[Any], refused: list[Any]
) -> None:
    whole = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
    code = render_models(toolset_of(("pick", whole, None)), source_note="t")
    module = import_module(code, tmp_path, f"numbers_{abs(hash(repr(schema)))}")
    for value in accepted:
        assert jsonschema_rs.is_valid(whole, {"v": value}), value
        module.PickInput.model_validate({"v": value})
    for value in refused:
        assert not jsonschema_rs.is_valid(whole, {"v": value}), value
        with pytest.raises(ValidationError):
            module.PickInput.model_validate({"v": value})
