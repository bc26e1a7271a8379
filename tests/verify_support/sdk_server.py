"""The demo spec's tools on the official SDK's `MCPServer` (mcp 2.3.0), over stdio.

Written the way the SDK's users write tools (typed functions, pydantic fields), so
that `toolgen verify` reports what the SDK itself does (README, "Verify").
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

app = MCPServer("verify-demo", version="1.0.0")


class SearchResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[str]
    total: Annotated[int, Field(ge=0)]


@app.tool(
    name="search",
    title="Search",
    description="Search the catalogue and return matching item names.",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
def search(
    query: Annotated[str, Field(min_length=1, max_length=50)],
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    tags: list[Annotated[str, Field(max_length=20)]] = [],  # noqa: B006 (never mutated)
) -> SearchResult:
    count = min(limit, 3)
    return SearchResult(items=[query] * count, total=count)


@app.tool(
    name="add",
    title="Add",
    description="Add two numbers.",
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
)
def add(a: float, b: float) -> float:
    return a + b


@app.tool(
    name="wipe",
    title="Wipe",
    description="Delete every item.",
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    ),
)
def wipe() -> str:
    return "wiped"


if __name__ == "__main__":
    app.run()
