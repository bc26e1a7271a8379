"""`Tools`: a loaded spec set as the engine serves it.

It wraps the IR `ToolSet` (the same one the compiler uses, at `.toolset`)
and adds what a server needs at run time: per-revision tool definitions,
argument and result validation (validators compiled once per tool, lazily),
defaults, and building `CallToolResult`s. It imports neither jinja2 nor
datamodel-code-generator. `toolgen.load` gives a `RuntimeToolSet`
(`toolgen.serve.toolset`), which adds `serve()`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolgen.schema import shape
from toolgen.schema.validation import SchemaValidator, ValidationIssue
from toolgen.serve import results
from toolgen.serve.needs import client_needs
from toolgen.serve.results import ResultSchemaError
from toolgen.spec.ir import Server, Tool, ToolSet
from toolgen.spec.protocol import list_tools_result, tool_definition


@dataclass(slots=True)
class _Compiled:
    """Everything prepared per tool (validators compile on first use)."""

    tool: Tool
    input: SchemaValidator
    output: SchemaValidator | None
    input_defaults: bool


class Tools:
    """The run-time view of a spec set: definitions, validation, results."""

    def __init__(self, toolset: ToolSet) -> None:
        """`SpecError` when a tool's `x-toolgen-client-capabilities` is malformed."""
        self.toolset = toolset
        self.client_needs = client_needs(toolset.tools)
        """The client capabilities each tool needs (`toolgen.serve.needs`)."""
        self._tools: dict[str, _Compiled] = {
            tool.name: _Compiled(
                tool=tool,
                input=SchemaValidator(tool.input_schema),
                output=None if tool.output_schema is None else SchemaValidator(tool.output_schema),
                input_defaults=shape.has_defaults(tool.input_schema),
            )
            for tool in toolset.tools
        }
        self._definitions: dict[str, list[dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.server.name} ({len(self._tools)} tools)>"

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.toolset.tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def server(self) -> Server:
        return self.toolset.server

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self.toolset.tools

    def tool(self, name: str) -> Tool:
        """The tool called `name`; `KeyError` when there is none."""
        return self._tools[name].tool

    # -- definitions ------------------------------------------------------------------

    def definitions(self, revision: str) -> list[dict[str, Any]]:
        """The MCP `Tool` objects for `revision` (built once per revision; do not mutate)."""
        found = self._definitions.get(revision)
        if found is None:
            found = [tool_definition(tool, revision) for tool in self.toolset.tools]
            self._definitions[revision] = found
        return found

    def list_tools_result(self, revision: str) -> dict[str, Any]:
        """The complete (unpaginated) `tools/list` result body for `revision`."""
        return list_tools_result(self.toolset, revision)

    # -- validation -------------------------------------------------------------------

    def validate_input(self, name: str, arguments: Any) -> list[ValidationIssue]:
        """Why `arguments` are not valid for tool `name` (empty list: valid)."""
        return self._tools[name].input.issues(arguments)

    def validate_output(self, name: str, value: Any) -> list[ValidationIssue]:
        """Why a handler's return `value` is not a valid result of `name` (empty: valid).

        `value` is checked as the handler returned it (models are dumped first),
        before any `{"result": ...}` wrapping. A tool without output schema
        accepts anything.
        """
        compiled = self._tools[name]
        if compiled.output is None:
            return []
        plain, _ = self._plain_output(compiled, value)
        return compiled.output.issues(plain)

    def with_defaults(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`arguments` with the input schema's defaults filled in (a copy when anything changes)."""
        compiled = self._tools[name]
        args = dict(arguments) if not isinstance(arguments, dict) else arguments
        if not compiled.input_defaults:
            return args
        schema = compiled.tool.input_schema
        filled: dict[str, Any] = shape.apply_defaults(schema, args, schema)
        return filled

    # -- results ----------------------------------------------------------------------

    def call_result(self, name: str, value: Any, revision: str) -> dict[str, Any]:
        """The `CallToolResult` for a handler's return `value`, for protocol `revision`.

        With an output schema: `structuredContent` (wrapped as `{"result": ...}`
        for legacy revisions when the output is not an object) plus the same
        JSON as a text block. Raises `ResultSchemaError` when `value` does not
        conform: a non-conforming result must never be sent as a success.
        Without an output schema: text only (see `results.unstructured_result`).
        """
        compiled = self._tools[name]
        if compiled.output is None:
            return results.unstructured_result(value)
        plain, data = self._plain_output(compiled, value)
        if not compiled.output.is_valid(plain):
            raise ResultSchemaError(name, compiled.output.issues(plain))
        return results.structured_result(compiled.tool, plain, data, revision)

    @staticmethod
    def error_result(message: str) -> dict[str, Any]:
        """A `CallToolResult` with `isError: true` and `message` as its text."""
        return results.error_result(message)

    def _plain_output(self, compiled: _Compiled, value: Any) -> tuple[Any, bytes]:
        plain, data = results.to_plain(value)
        if data.find(b"null") >= 0 and compiled.tool.output_schema is not None:
            schema = compiled.tool.output_schema
            pruned = shape.prune_nulls(schema, plain, schema)
            if pruned is not plain:
                plain, data = pruned, results.serialize(pruned)
        return plain, data
