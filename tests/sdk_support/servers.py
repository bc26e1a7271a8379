"""`python servers.py KIND`: an SDK server with its own tool, resource and prompt, plus
the demo spec's tools (`toolgen.sdk.add_tools`), over stdio (`http_app` serves the same
server over Streamable HTTP, in the test's process). KIND is `mcpserver`
(the official SDK's `MCPServer`), `lowlevel` (its low-level `Server`) or `fastmcp`
(FastMCP 4)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEMO_SPEC = HERE.parent / "runtime_support" / "spec"
OWN_TOOL = "own_tool"
RESOURCE_URI = "own://readme"
RESOURCE_TEXT = "the server's own resource"
PROMPT = "own_prompt"
PROMPT_TEXT = "the server's own prompt"


def demo_handlers() -> Any:
    """The runtime tests' demo handlers, but for `echo`'s stray print: an SDK server's
    stdout is its protocol stream (toolgen's own transports move prints to stderr)."""
    sys.path.insert(0, str(HERE.parent))
    from runtime_support.handlers import Handlers

    class Quiet(Handlers):
        def echo(self, args: dict[str, Any]) -> dict[str, Any]:
            return {"text": args["text"] * args["times"], "times": args["times"], "note": None}

    return Quiet()


def mcpserver() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("own-mcpserver")

    @server.tool(name=OWN_TOOL)
    def own_tool(word: str) -> str:
        """The server's own tool."""
        return word.upper()

    @server.resource(RESOURCE_URI)
    def readme() -> str:
        return RESOURCE_TEXT

    @server.prompt(name=PROMPT)
    def own_prompt() -> str:
        return PROMPT_TEXT

    return server


def fastmcp() -> Any:
    from fastmcp import FastMCP

    server = FastMCP("own-fastmcp")

    @server.tool(name=OWN_TOOL)
    def own_tool(word: str) -> str:
        """The server's own tool."""
        return word.upper()

    @server.resource(RESOURCE_URI)
    def readme() -> str:
        return RESOURCE_TEXT

    @server.prompt(name=PROMPT)
    def own_prompt() -> str:
        return PROMPT_TEXT

    return server


def lowlevel() -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"word": {"type": "string"}}}
        return types.ListToolsResult(tools=[types.Tool(name=OWN_TOOL, input_schema=schema)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != OWN_TOOL:
            raise ValueError(f"unknown tool {params.name}")
        word = str((params.arguments or {}).get("word", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=word.upper())])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[types.Resource(uri=RESOURCE_URI, name="readme")]
        )

    async def read_resource(ctx: Any, params: Any) -> types.ReadResourceResult:
        contents = [types.TextResourceContents(uri=RESOURCE_URI, text=RESOURCE_TEXT)]
        return types.ReadResourceResult(contents=contents)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name=PROMPT)])

    async def get_prompt(ctx: Any, params: Any) -> types.GetPromptResult:
        text = types.TextContent(type="text", text=PROMPT_TEXT)
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])

    return Server(
        "own-lowlevel",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


KINDS = {"mcpserver": mcpserver, "lowlevel": lowlevel, "fastmcp": fastmcp}


def build(kind: str) -> Any:
    """The server of `kind` with the demo spec's tools added."""
    from toolgen.sdk import add_tools

    server = KINDS[kind]()
    add_tools(server, DEMO_SPEC, demo_handlers(), timeout=10)
    return server


def http_app(kind: str, server: Any) -> Any:
    """The server's own Streamable HTTP ASGI app (at `/mcp`), as its users would serve it."""
    if kind == "fastmcp":
        return server.http_app()
    return server.streamable_http_app()


def run(kind: str, server: Any) -> None:
    if kind == "mcpserver":
        server.run("stdio")
    elif kind == "fastmcp":
        server.run("stdio", show_banner=False)
    else:
        import anyio
        from mcp.server.stdio import stdio_server

        async def main() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)


if __name__ == "__main__":
    run(sys.argv[1], build(sys.argv[1]))
