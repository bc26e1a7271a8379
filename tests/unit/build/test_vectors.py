"""The shared target vectors say what the schemas say: every valid input and output is valid,
every invalid input is not, and every tool of every set has what the row tests call it with."""

from __future__ import annotations

import pytest
from targets_support import SETS, vector_set

from toolgen.schema.check import compile_validator


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_vectors_agree_with_the_schemas(name: str) -> None:
    vectors = vector_set(name)
    for tool in vectors.toolset.tools:
        instances = vectors.tools[tool.name]
        accepts = compile_validator(tool.input_schema)
        assert all(accepts.is_valid(v) for v in instances.valid), (tool.name, instances.valid)
        refused = [v for v in instances.invalid if accepts.is_valid(v)]
        assert refused == [], (tool.name, "accepted though invalid")
        if tool.output_schema is not None:
            checks = compile_validator(tool.output_schema)
            assert instances.outputs, f"{tool.name}: no output to answer with"
            wrong = [v for v in instances.outputs if not checks.is_valid(v)]
            assert wrong == [], (tool.name, wrong)


@pytest.mark.parametrize("name", ["features", "names", "collisions"])
def test_every_tool_of_a_vector_set_has_instances_written_for_it(name: str) -> None:
    vectors = vector_set(name)
    written = set(vectors.tools)
    assert written == {tool.name for tool in vectors.toolset.tools}
