"""Every spec set the format accepts builds for every target.

Hypothesis draws spec sets from every keyword of JSON Schema 2020-12 (`schema_strategies`:
nesting, `$ref`s to defs with keywords beside them, maps, unions, tuples, recursion, enums,
nullable types), with example calls drawn from the tools' own schemas. Each one loads, or
is refused with located errors; one that loads renders for every target the build knows
(`toolgen.build.run.TARGETS`, so a target added later is drawn too) and its Python models
import and accept the examples. Anything else, an internal error above all, is a failure.

The unit suite draws a few spec sets; `.ci/run` draws more (`TOOLGEN_SCHEMA_EXAMPLES`).
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from conftest import import_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter
from schema_strategies import instances, spec_sets

from toolgen.build.python.modelplan import build_plan
from toolgen.build.run import TARGETS, render_package
from toolgen.schema.validation import SchemaValidator
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.text import visible

EXAMPLES = int(os.environ.get("TOOLGEN_SCHEMA_EXAMPLES", "20"))
_modules = itertools.count()


def load(directory: Path, spec: dict[str, Any]) -> ToolSet:
    path = directory / "drawn.yaml"
    # JSON is YAML 1.2, but for the characters YAML refuses raw (DEL, C1): escaped
    path.write_text(visible(json.dumps(spec, ensure_ascii=False), keep=""), encoding="utf-8")
    return load_spec_set(path)


def with_examples(spec: dict[str, Any], toolset: ToolSet, data: st.DataObject) -> bool:
    """Add to `spec` example calls drawn from its tools' schemas, the valid ones; whether any."""
    added = False
    for entry, tool in zip(spec["tools"], toolset.tools, strict=True):
        example = {}
        for part, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
            if schema is None:
                continue
            value = data.draw(instances([schema]), label=f"{tool.name} {part}")
            if SchemaValidator(schema).is_valid(value):
                example[part] = value
        if example:
            entry["examples"] = [example]
            added = True
    return added


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(spec=spec_sets(), data=st.data())
def test_every_spec_set_the_format_accepts_builds_for_every_target_and_its_models_take_its_examples(
    spec: dict[str, Any], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        try:
            toolset = load(directory, spec)
        except SpecError as exc:  # a schema the format refuses: said where
            assert all(d.location is not None for d in exc.diagnostics), exc
            return
        if with_examples(spec, toolset, data):
            toolset = load(directory, spec)  # valid examples load
        files = render_package(toolset, source_note="drawn", targets=TARGETS)
        models = import_module(files["models.py"], directory, f"drawn_models_{next(_modules)}")
        classes = build_plan(toolset).tool_classes
        for tool in toolset.tools:
            input_class, output_class = classes[tool.name]
            for example in tool.examples:
                if example.has_input:
                    getattr(models, input_class).model_validate(example.input)
                if example.has_output and output_class is not None:
                    validate(getattr(models, output_class), example.output)


def validate(output: Any, value: Any) -> None:
    """`value` checked by a tool's Output model or type alias, as the typed client does."""
    if isinstance(output, type) and issubclass(output, BaseModel):
        output.model_validate(value, by_alias=True, by_name=False)
    else:
        TypeAdapter(output).validate_python(value, by_alias=True, by_name=False)
