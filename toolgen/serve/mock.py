"""Mock handlers: every tool answers from its spec, with no code at all.

A tool answers its first example's output; without one, a value generated
from its output schema (checked against the schema, so a mock never sends a
result its own schema rejects); a tool without output schema answers a short
text. Client developers use this to try a spec set; our end-to-end tests use
it to exercise the whole protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolgen.schema.sample import sample
from toolgen.serve.handlers import inline
from toolgen.serve.results import ToolError
from toolgen.serve.tools import Tools
from toolgen.spec.ir import Tool


def mock_value(tool: Tool) -> Any:
    """What the mock answers for `tool` (see the module docs)."""
    for example in tool.examples:
        if example.has_output:
            return example.output
    if tool.output_schema is None:
        return f"Mock result of tool {tool.name!r} (it declares no output schema)."
    return sample(tool.output_schema)


def mock_handlers(tools: Tools) -> dict[str, Callable[[], Any]]:
    """A handler per tool returning its mock value (inline: it never blocks)."""
    handlers: dict[str, Callable[[], Any]] = {}
    for tool in tools.tools:
        value = mock_value(tool)
        issues = tools.validate_output(tool.name, value)
        handlers[tool.name] = _answer(tool.name, value, str(issues[0]) if issues else None)
    return handlers


def _answer(name: str, value: Any, problem: str | None) -> Callable[[], Any]:
    @inline
    def answer() -> Any:  # never blocks; the runtime serializes the value, never mutates it
        if problem is not None:
            raise ToolError(
                f"The mock cannot produce a valid result for tool {name!r} ({problem}); "
                "add an example output to the spec"
            )
        return value

    return answer
