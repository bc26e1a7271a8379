"""The official MCP Python SDK's low-level `Server`, over stdio.

Handlers are plain coroutines: the tool list is built once as SDK `Tool`
objects from the shared definitions; `get_issue` validates its arguments and
result with the same pydantic models as the hand-written loop.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp.types as types
from common import BENCH_TOOL, GetIssueInput, get_issue_result, tool_definitions
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import ValidationError


def make_server(definitions: list[dict[str, Any]]) -> Server[Any]:
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in definitions])
    known = {d["name"] for d in definitions}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in known:
            raise ValueError(f"unknown tool: {params.name}")
        if params.name != BENCH_TOOL:
            text = f"{params.name} is not implemented"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=True
            )
        try:
            arguments = GetIssueInput.model_validate(params.arguments or {})
        except ValidationError as exc:
            content = [types.TextContent(type="text", text=str(exc))]
            return types.CallToolResult(content=content, is_error=True)
        structured = get_issue_result(**arguments.model_dump()).model_dump(mode="json")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(structured))],
            structured_content=structured,
        )

    return Server(
        "sdk-lowlevel",
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=lambda name: None,
    )


async def serve(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve, make_server(tool_definitions()))
