"""`add_tools`: serve a spec set's tools from an existing SDK server, beside its own.

The adapter wraps the low-level server's `tools/list` and `tools/call` request
handlers (whatever the server registered there: `MCPServer`'s tool manager,
FastMCP's providers, a hand-written `on_call_tool`):

- `tools/list` answers the server's own tools, then the spec's exact
  definitions for the connection's protocol revision (`toolgen.spec.protocol`:
  titles, annotations, both schemas, the declared `{"result": ...}` wrapping of
  non-object outputs before 2026-07-28). A server tool with a spec tool's name
  is hidden (the spec wins) and logged.
- `tools/call` of a spec tool checks the arguments against the input schema
  (an `isError` result naming each bad field), runs the handler exactly as
  `toolgen serve --handlers` does (`toolgen.serve.handlers` binds it,
  `toolgen.serve.calls` runs it: dict or Input model, sync on a thread of
  its own or async, `ToolError` for a message the client sees, the
  per-call timeout), checks the result against the output schema, and answers
  `structuredContent` plus the text fallback. Every other call goes to the
  server's own handler.

Resources, prompts, auth, middleware and the transports stay the server's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolgen.limits import CALL_TIMEOUT
from toolgen.schema.validation import invalid_arguments
from toolgen.sdk.context import sdk_call_context
from toolgen.sdk.servers import lowlevel_server
from toolgen.serve.calls import Calls
from toolgen.serve.handlers import bind_handlers, unknown_handlers
from toolgen.serve.results import error_result
from toolgen.serve.toolset import RuntimeToolSet
from toolgen.spec.protocol import is_modern

log = logging.getLogger("toolgen.sdk")

Specs = RuntimeToolSet | str | Path | Iterable[str | Path]


def load_specs(specs: Any) -> RuntimeToolSet:
    """`specs` as a `RuntimeToolSet`: one already loaded, a `ToolSet`, or spec paths."""
    from toolgen.spec.ir import ToolSet

    if isinstance(specs, RuntimeToolSet):
        return specs
    if isinstance(specs, ToolSet):
        return RuntimeToolSet(specs)
    from toolgen.spec.pipeline import load_spec_set

    return RuntimeToolSet(load_spec_set(specs))


class SpecTools:
    """The spec tools registered on one low-level server, and the handlers they replaced."""

    def __init__(
        self,
        server: Any,
        tools: RuntimeToolSet,
        handlers: Any,
        *,
        timeout: float | None = CALL_TIMEOUT,
        inline_sync: bool = False,
    ) -> None:
        self.tools = tools
        names = [tool.name for tool in tools.tools]
        bound = bind_handlers(names, handlers)
        self.calls = Calls(tools, bound, timeout=timeout, inline_sync=inline_sync)
        self.server = lowlevel_server(server)
        self._list = self.server.get_request_handler("tools/list")
        self._call = self.server.get_request_handler("tools/call")
        self._input_schema = self.server.get_tool_input_schema
        for name in names:
            if name not in bound:
                log.warning("no handler for tool %r: its calls will answer with an error", name)
        for key in unknown_handlers(names, handlers):
            log.warning("handler %r matches no tool of %s", key, tools.server.name)

    def install(self) -> None:
        """Register `list_tools` and `call_tool` on the server (replacing, and calling, its own)."""
        from mcp_types import CallToolRequestParams, PaginatedRequestParams

        self.server.add_request_handler("tools/list", PaginatedRequestParams, self.list_tools)
        self.server.add_request_handler("tools/call", CallToolRequestParams, self.call_tool)
        self.server.get_tool_input_schema = self.input_schema

    async def list_tools(self, ctx: Any, params: Any) -> Any:
        """The server's own tools (all pages but the last are theirs alone), then ours."""
        version: str = ctx.protocol_version
        if self._list is None:
            return self.tools.list_tools_result(version)
        own = _plain(await self._list.handler(ctx, params))
        if own.get("nextCursor") is not None:
            return own
        ours = self.tools.definitions(version)
        kept = []
        for tool in own.get("tools", []):
            if tool.get("name") in self.tools:
                log.warning("tool %r of the server is hidden by the spec tool", tool.get("name"))
            else:
                kept.append(tool)
        return _complete({**own, "tools": kept + ours}, version)

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        """A spec tool's call; any other goes to the server's own handler."""
        name: str = params.name
        if name not in self.tools:
            if self._call is None:
                from mcp.shared.exceptions import MCPError
                from mcp_types import INVALID_PARAMS

                raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name[:128]!r}")
            return await self._call.handler(ctx, params)
        arguments = params.arguments if params.arguments is not None else {}
        version: str = ctx.protocol_version
        issues = self.tools.validate_input(name, arguments)
        if issues:
            return _complete(error_result(invalid_arguments(name, issues)), version)
        with sdk_call_context(ctx, params) as notifier:
            result = await self.calls.result(name, arguments, version)
        await notifier.flush()  # the call's notifications go before its result
        return _complete(result, version)

    def input_schema(self, name: str) -> Any:
        """A tool's input schema for the SDK's `Mcp-Param-*` header checks (2026-07-28 HTTP)."""
        if name in self.tools:
            return self.tools.tool(name).input_schema
        return None if self._input_schema is None else self._input_schema(name)


def add_tools(
    server: Any,
    specs: Specs,
    handlers: Any,
    *,
    timeout: float | None = CALL_TIMEOUT,
    inline_sync: bool = False,
) -> RuntimeToolSet:
    """Serve every tool of `specs` from `server`, beside the server's own tools.

    `server`: an `MCPServer`, a low-level `Server` or a FastMCP 4 `FastMCP`.
    `specs`: spec paths, or what `toolgen.load` returns. `handlers`: as for
    `toolgen serve --handlers` (an object or class with one method per tool, or a
    `{tool: callable}` mapping). `timeout`: seconds a call may run (None: no limit);
    `inline_sync`: run sync handlers on the event loop (they never block). Returns the
    loaded tools.
    Raises `SpecError` when the specs do not load, `TypeError` for another server.
    """
    tools = load_specs(specs)
    SpecTools(server, tools, handlers, timeout=timeout, inline_sync=inline_sync).install()
    return tools


def _complete(result: dict[str, Any], version: str) -> dict[str, Any]:
    """`result` with the `resultType` every 2026-07-28 result carries (the SDK's result
    models require it of a dict)."""
    if is_modern(version):
        result["resultType"] = "complete"
    return result


def _plain(result: Any) -> dict[str, Any]:
    """A handler's result as its wire dict (the SDK accepts models and dicts)."""
    if result is None:
        return {}
    if isinstance(result, dict):
        return dict(result)
    dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped
