"""Arguments to call a tool with in end-to-end tests."""

from __future__ import annotations

from typing import Any

import toolgen
from toolgen.runtime.sample import sample


def arguments_for(tool: toolgen.Tool) -> dict[str, Any]:
    """The tool's first example input, else schema-valid generated arguments."""
    for example in tool.examples:
        if example.has_input:
            return dict(example.input)
    value = sample(tool.input_schema)
    assert isinstance(value, dict)
    return value
