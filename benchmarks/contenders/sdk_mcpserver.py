"""The official MCP Python SDK's high-level `MCPServer` (decorator style), over stdio.

`get_issue` is an ordinary typed function (the SDK derives its schemas and
validates arguments and the result). The other listed tools are registered
with placeholder functions whose published input and output schemas are then
set to the shared definitions, so `tools/list` carries the same payload as
every other contender.
"""

from __future__ import annotations

from typing import Annotated, Any

from common import GetIssueOutput, get_issue_result, http_port, tool_definitions
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("sdk-mcpserver", version="1.0.0", log_level="WARNING")


@server.tool(
    title="Get an issue",
    annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=True),
)
def get_issue(
    owner: Annotated[str, Field(min_length=1, description="Repository owner.")],
    repo: Annotated[str, Field(min_length=1, description="Repository name.")],
    issue_number: Annotated[int, Field(ge=1, description="Issue number.")],
) -> GetIssueOutput:
    """Return one issue of a repository by its number."""
    return get_issue_result(owner, repo, issue_number)


def _not_implemented() -> dict[str, Any]:
    raise NotImplementedError("only get_issue is called in the benchmark")


def add_listed_tools(definitions: list[dict[str, Any]]) -> None:
    for definition in definitions:
        if definition["name"] == "get_issue":
            continue
        server.add_tool(
            _not_implemented,
            name=definition["name"],
            title=definition.get("title"),
            description=definition.get("description"),
            annotations=ToolAnnotations.model_validate(definition.get("annotations") or {}),
        )
        tool = server._tool_manager.get_tool(definition["name"])
        assert tool is not None
        tool.parameters = definition["inputSchema"]
        tool.fn_metadata.output_schema = definition.get("outputSchema")


if __name__ == "__main__":
    add_listed_tools(tool_definitions())
    port = http_port()
    if port is None:
        server.run("stdio")
    else:  # Streamable HTTP, stateless, JSON responses (the SDK's fastest HTTP configuration)
        server.run("streamable-http", port=port, stateless_http=True, json_response=True)
