"""Model fields keep their exact JSON names: names Python's parser folds (NFKC) get an alias."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema_rs
import pytest
from conftest import import_module, toolset_of
from pydantic import ValidationError

from toolgen.build.naming import field_aliases
from toolgen.build.python.models import render_models

FULLWIDTH_A, KELVIN, LONG_S = "\uff41", "\u212a", "\u017f"


def models(tmp_path: Path, schema: dict[str, Any], name: str) -> ModuleType:
    code = render_models(toolset_of(("pick", schema, None)), source_note="t")
    return import_module(code, tmp_path, name)


def closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


FOLDED = closed(
    {
        FULLWIDTH_A: {"type": "string"},
        KELVIN: {"type": "integer"},
        LONG_S: {"type": "integer"},
        "s": {"type": "string"},
        f"x-{FULLWIDTH_A}": {"type": "boolean"},
    },
    [FULLWIDTH_A, KELVIN],
)

# (object, whether the schema accepts it)
CASES: list[tuple[dict[str, Any], bool]] = [
    ({FULLWIDTH_A: "x", KELVIN: 1, LONG_S: 2, "s": "y", f"x-{FULLWIDTH_A}": True}, True),
    ({FULLWIDTH_A: "x", KELVIN: 1}, True),
    ({"a": "x", "K": 1}, False),  # the folded names are undeclared
    ({FULLWIDTH_A: "x", KELVIN: 1, "a": "y"}, False),
    ({FULLWIDTH_A: "x", KELVIN: 1, "K": 2}, False),
    ({FULLWIDTH_A: "x", KELVIN: "1"}, False),
]


@pytest.mark.parametrize(("value", "valid"), CASES)
def test_models_of_names_python_folds_accept_exactly_what_the_schema_accepts(
    tmp_path: Path, value: dict[str, Any], valid: bool
) -> None:
    assert jsonschema_rs.is_valid(FOLDED, value) is valid
    module = models(tmp_path, FOLDED, f"folded_{abs(hash(repr(value)))}")
    if not valid:
        with pytest.raises(ValidationError):
            module.PickInput.model_validate(value)
        return
    dumped = module.PickInput.model_validate(value).model_dump()
    assert dumped == value  # no property lost or renamed


def test_folded_names_get_ascii_field_names_that_no_other_property_has() -> None:
    aliases = field_aliases([FULLWIDTH_A, KELVIN, LONG_S, "s", "uff41", "plain", "ü"])
    assert aliases == {FULLWIDTH_A: "uff41_", KELVIN: "u212a", LONG_S: "u017f"}
    assert all(name.isascii() and name.isidentifier() for name in aliases.values())
