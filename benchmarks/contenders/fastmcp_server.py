"""FastMCP (the standalone `fastmcp` package), decorator style, over stdio.

Runs with the interpreter of its own venv (`benchmarks/.work/fastmcp-venv`),
made by `run.py`, so its dependencies never touch the project's. `get_issue`
is a typed function; the other listed tools are `Tool` subclasses that
publish the shared definitions.
"""

from __future__ import annotations

from typing import Annotated, Any

from common import GetIssueOutput, get_issue_result, http_port, tool_definitions
from fastmcp import FastMCP
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from mcp.types import ToolAnnotations
from pydantic import Field

server = FastMCP("fastmcp-bench", version="1.0.0")


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


class ListedTool(Tool):
    """A tool that is listed but never called in the benchmark."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        raise NotImplementedError("only get_issue is called in the benchmark")


def add_listed_tools(definitions: list[dict[str, Any]]) -> None:
    for definition in definitions:
        if definition["name"] == "get_issue":
            continue
        server.add_tool(
            ListedTool(
                name=definition["name"],
                title=definition.get("title"),
                description=definition.get("description"),
                parameters=definition["inputSchema"],
                output_schema=definition.get("outputSchema"),
                annotations=ToolAnnotations.model_validate(definition.get("annotations") or {}),
            )
        )


if __name__ == "__main__":
    add_listed_tools(tool_definitions())
    port = http_port()
    if port is None:
        server.run("stdio", show_banner=False)
    else:  # Streamable HTTP, stateless, JSON responses
        server.run(
            "http",
            host="127.0.0.1",
            port=port,
            stateless_http=True,
            json_response=True,
            show_banner=False,
            log_level="warning",
        )
