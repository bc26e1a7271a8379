"""Enums too long for a `Literal` are a `str` checked against a frozenset of their values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, import_module
from pydantic import ValidationError

from toolgen.build.python.client import render_client
from toolgen.build.python.modelplan import build_plan
from toolgen.build.python.models import render_models
from toolgen.build.python.modelvalues import constant_name
from toolgen.build.typemodel import LARGE_ENUM
from toolgen.spec.ir import Annotations, Origin, Server, Tool, ToolSet
from toolgen.spec.positions import SourceFile

MANY = [f"v{i:05d}" for i in range(LARGE_ENUM + 1)]
HOSTILE = ['a"b', "c'd", "e\\f", "g\nh", '"""; import os  # ']


def toolset(input_schema: dict[str, Any], output_schema: dict[str, Any] | None = None) -> ToolSet:
    """One tool, `pick`, with these schemas."""
    origin = Origin(SourceFile(Path("t.yaml"), "t.yaml", {}, {}, {}), ())
    tool = Tool("pick", None, None, Annotations(), input_schema, output_schema, (), {}, origin)
    return ToolSet(Server("t", "1.0.0"), (tool,))


def models_of(tmp_path: Path, tools: ToolSet, name: str = "large_enum_models") -> ModuleType:
    return import_module(render_models(tools, source_note="t"), tmp_path, name)


def choice(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"choice": schema}, "required": ["choice"]}


def test_a_string_enum_over_the_limit_accepts_exactly_its_values(tmp_path: Path) -> None:
    module = models_of(tmp_path, toolset(choice({"type": "string", "enum": MANY})))
    assert module.PickInput(choice=MANY[-1]).choice == MANY[-1]
    for wrong in ("v99999", 7, None, b"v00001"):
        with pytest.raises(ValidationError):
            module.PickInput(choice=wrong)
    assert frozenset(MANY) == module.PICK_INPUT_CHOICE_VALUES


def test_an_enum_at_the_limit_stays_a_literal(tmp_path: Path) -> None:
    tools = toolset(choice({"type": "string", "enum": MANY[:LARGE_ENUM]}))
    code = render_models(tools, source_note="t")
    assert "frozenset" not in code
    assert f'choice: Literal["{MANY[0]}", ' in code


def test_a_nullable_large_enum_allows_null_and_its_values(tmp_path: Path) -> None:
    schema = {"type": ["string", "null"], "enum": [*MANY, None]}
    module = models_of(tmp_path, toolset(choice(schema)), "nullable_large_enum")
    assert module.PickInput(choice=None).choice is None
    assert module.PickInput(choice=MANY[3]).choice == MANY[3]
    with pytest.raises(ValidationError):
        module.PickInput(choice="nope")


def test_large_enums_in_items_defaults_and_outputs_are_checked(tmp_path: Path) -> None:
    items = {"type": "array", "items": {"enum": MANY}}
    schema = {
        "type": "object",
        "properties": {"all": items, "one": {"type": "string", "enum": MANY, "default": MANY[1]}},
    }
    module = models_of(tmp_path, toolset(schema, {"enum": MANY}), "placed_large_enums")
    parsed = module.PickInput(all=[MANY[0], MANY[2]])
    assert parsed.one == MANY[1]
    with pytest.raises(ValidationError):
        module.PickInput(all=[MANY[0], "x"])
    plan = build_plan(toolset(schema, {"enum": MANY}))
    assert [v.name for v in plan.value_sets] == [
        "PickInputAllItem",
        "PickInputOne",
        "PickOutputValues",
    ]


def test_values_that_look_like_code_are_escaped_and_kept_exactly(tmp_path: Path) -> None:
    values = [*HOSTILE, *MANY]
    module = models_of(tmp_path, toolset(choice({"enum": values})), "hostile_large_enum")
    for value in HOSTILE:
        assert module.PickInput(choice=value).choice == value
    assert frozenset(values) == module.PICK_INPUT_CHOICE_VALUES


def test_an_enum_beside_other_keywords_holds_only_the_values_that_pass_them(
    tmp_path: Path,
) -> None:
    schema = choice({"enum": [*MANY, "too-long-value"], "maxLength": 6})
    module = import_module(render_models(toolset(schema), source_note="t"), tmp_path, "beside")
    assert module.PickInput(choice=MANY[0]).choice == MANY[0]
    with pytest.raises(ValidationError):
        module.PickInput(choice="too-long-value")


def test_the_typed_client_takes_a_large_enum_as_a_str() -> None:
    tools = toolset(choice({"type": "string", "enum": MANY}))
    [(_, client)] = render_client(tools, source_note="t")
    assert "        choice: str,\n" in client
    assert MANY[0] not in client


def test_constant_names_are_upper_snake_case_of_the_class_name() -> None:
    assert constant_name("PickInputChoice") == "PICK_INPUT_CHOICE"
    assert constant_name("HTTPMethodValues") == "HTTP_METHOD_VALUES"
    assert constant_name("Item2Code") == "ITEM2_CODE"


def test_models_with_a_large_enum_are_ruff_clean_and_type_check(tmp_path: Path) -> None:
    tools = toolset(choice({"type": ["string", "null"], "enum": [*HOSTILE, *MANY, None]}))
    (tmp_path / "models.py").write_text(render_models(tools, source_note="t"), encoding="utf-8")
    config = ["--config", str(ROOT / "pyproject.toml")]
    commands = [
        [sys.executable, "-m", "ruff", "format", "--check", "--diff", *config, str(tmp_path)],
        [sys.executable, "-m", "ruff", "check", "--no-cache", *config, str(tmp_path)],
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(tmp_path / "models.py")],
    ]
    for command in commands:
        run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
