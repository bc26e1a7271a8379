"""The JSON text every emitter writes: one layout, whichever encoder writes it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolgen.build.common import json_text

CASES: list[Any] = [
    {},
    [],
    {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "é", "\u2028"]}}},
    {"nested": [[], {}, [1, [2, {"k": None}]], True, False]},
    {"quote": 'a"b\\c\x00\x1f', "big": 2**63 - 1, "negative": -(2**63)},
    {"float": 0.5, "tiny": 5e-324, "huge": 1.7976931348623157e308},
]


@pytest.mark.parametrize("value", CASES)
def test_json_text_has_the_standard_librarys_layout(value: Any) -> None:
    assert json_text(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "value",
    [{"id": 2**64}, {"id": -(2**64) - 1}, {1: "non-string key"}, ["\ud800"]],
)
def test_what_orjson_refuses_is_written_by_the_standard_library(value: Any) -> None:
    assert json_text(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_a_small_float_is_spelled_differently_but_reads_back_equal() -> None:
    text = json_text({"minimum": 1e-05})
    assert json.loads(text) == {"minimum": 1e-05}
