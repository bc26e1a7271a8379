"""Spec-defined tools on the official MCP SDK's servers and on FastMCP.

    from mcp.server.mcpserver import MCPServer
    from toolgen.sdk import add_tools

    server = MCPServer("notes")          # keeps its own tools, resources, prompts, auth
    add_tools(server, "specs/notes", NotesHandlers())

`add_tools` works on `mcp.server.mcpserver.MCPServer`, the low-level
`mcp.server.lowlevel.Server` and FastMCP 4's `FastMCP`; see `toolgen.sdk.adapter`.
"""

from __future__ import annotations

from toolgen.sdk.adapter import SpecTools, add_tools

__all__ = ["SpecTools", "add_tools"]
