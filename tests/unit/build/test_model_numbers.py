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
    (
        {"type": "integer", "minimum": 2, "maximum": 10, "multipleOf": 2, "description": "d"},
        [2, 10.0, 4],
        [0, 12, 3, 3.0, 2.5, 12.0, True, "4", None],
    ),
    ({"type": "integer", "exclusiveMinimum": 0}, [2**70, 1e21, 1.0], [0, 0.0, -(2**70), 0.5]),
    ({"type": ["integer", "null"]}, [None, 3.0], [3.5, False]),
    ({"type": "array", "items": {"type": "integer"}}, [[1, 2.0]], [[1.5], [False]]),
    (
        {"enum": [1, [1], {"a": 1}, 1.5]},
        [1, 1.0, [1], [1.0], {"a": 1}, 1.5],
        [2, 2.5, [2], {"a": 2}, {}, [], True, [True], "1", None, 2**70],
    ),
    ({"enum": [None, 0.5, "x"]}, [None, 0.5, "x"], [1, "y", False]),
]


def check(tmp_path: Path, schema: dict[str, Any], accepted: list[Any], refused: list[Any]) -> None:
    """The runtime and the model of property `v` with `schema` accept `accepted`, refuse
    `refused`."""
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


@pytest.mark.parametrize(("schema", "accepted", "refused"), CASES)
def test_models_accept_the_values_the_schema_accepts_and_refuse_the_others(
    tmp_path: Path, schema: dict[str, Any], accepted: list[Any], refused: list[Any]
) -> None:
    check(tmp_path, schema, accepted, refused)


PATTERNS: list[tuple[str, list[str], list[str]]] = [
    # (pattern, strings the runtime accepts, strings it refuses)
    (r"^\d+$", ["42"], ["\u0663", "4\u0663"]),
    (r"^\w+$", ["a_1"], ["\u00e9", "a\u00e9"]),
    (r"^\s$", [" ", "\ufeff", "\u3000"], ["\u0085", "x"]),
    (r"^[\d.]+$", ["1.5"], ["\u0663"]),
    (r"^\D$", ["\u0663", "x"], ["7"]),
    (r"^\\d$", ["\\d"], ["7"]),  # an escaped backslash, then a letter
]


@pytest.mark.parametrize(("pattern", "accepted", "refused"), PATTERNS)
def test_model_patterns_read_digit_word_and_space_classes_as_the_runtime_does(
    tmp_path: Path, pattern: str, accepted: list[str], refused: list[str]
) -> None:
    check(tmp_path, {"type": "string", "pattern": pattern}, accepted, refused)


def test_a_models_json_schema_names_an_integers_bounds_as_json_schema_does(
    tmp_path: Path,
) -> None:
    bounds = {"minimum": 2, "maximum": 10, "multipleOf": 2}
    whole = {
        "type": "object",
        "properties": {"v": {"type": "integer", **bounds}},
        "required": ["v"],
    }
    code = render_models(toolset_of(("pick", whole, None)), source_note="t")
    module = import_module(code, tmp_path, "numbers_bounds")
    schema = module.PickInput.model_json_schema()["properties"]["v"]
    assert {key: schema.get(key) for key in ("type", *bounds)} == {"type": "integer", **bounds}
