"""Find the low-level `mcp.server.lowlevel.Server` that answers an SDK server's requests.

`MCPServer` (the official SDK 2.x) and FastMCP 4's `FastMCP` both sit on one: the SDK's
own `mcp.Client` reaches `MCPServer._lowlevel_server` the same way; FastMCP keeps it as
`_mcp_server`. Registering request handlers there is the one place where every kind of
server routes `tools/list` and `tools/call`, in both protocol eras.
"""

from __future__ import annotations

from typing import Any

SERVER_ATTRIBUTES = ("_lowlevel_server", "_mcp_server")
"""Where `MCPServer` and FastMCP keep their low-level server."""


def lowlevel_server(server: Any) -> Any:
    """The `mcp.server.lowlevel.Server` of `server` (itself when it is one).

    Raises `TypeError` naming what is supported when `server` is none of them.
    """
    from mcp.server.lowlevel import Server

    if isinstance(server, Server):
        return server
    for attribute in SERVER_ATTRIBUTES:
        inner = getattr(server, attribute, None)
        if isinstance(inner, Server):
            return inner
    raise TypeError(
        f"add_tools needs an MCP server: mcp.server.mcpserver.MCPServer, "
        f"mcp.server.lowlevel.Server or fastmcp.FastMCP, not {type(server).__name__}"
    )
