"""End to end with the official MCP Python SDK client over stdio, in both eras.

The SDK validates `structuredContent` against each tool's `outputSchema` (and
raises on a violation or a missing structured result), so every successful
call here is checked by an implementation nobody on this project wrote.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from conftest import ROOT, SPECS
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from runtime_support.calls import arguments_for

import toolgen
from toolgen.spec.protocol import WRAP_KEY

NOTES = toolgen.load(SPECS / "notes")
ERAS = ["legacy", "modern"]


@asynccontextmanager
async def connect(era: str, *args: str) -> AsyncIterator[ClientSession]:
    """A session to `toolgen serve ARGS`, opened with the era's handshake."""
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolgen", "serve", *args],
        cwd=str(ROOT),
        env=dict(os.environ),  # the SDK passes a minimal environment: keep coverage's
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        if era == "legacy":
            await session.initialize()
        else:
            session.adopt(await session.discover())
        yield session


def run(era: str, args: list[str], body: Callable[[ClientSession], Any]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
            async with connect(era, *args) as session:
                return await body(session)

    return anyio.run(main)


@pytest.mark.parametrize("era", ERAS)
def test_sdk_negotiates_and_lists_every_tool_of_the_mock_server(era: str) -> None:
    async def body(session: ClientSession) -> Any:
        return session.protocol_version, await session.list_tools()

    version, listing = run(era, ["specs/notes", "--mock"], body)
    assert version == ("2025-11-25" if era == "legacy" else "2026-07-28")
    assert [tool.name for tool in listing.tools] == [tool.name for tool in NOTES.tools]
    by_name = {tool.name: tool for tool in listing.tools}
    assert by_name["delete_note"].annotations.destructive_hint is True
    assert by_name["get_note"].annotations.read_only_hint is True


@pytest.mark.parametrize("era", ERAS)
def test_sdk_calls_every_tool_of_the_mock_server_and_accepts_each_result(era: str) -> None:
    async def body(session: ClientSession) -> Any:
        await session.list_tools()
        return {
            tool.name: await session.call_tool(tool.name, arguments_for(tool))
            for tool in NOTES.tools
        }

    results = run(era, ["specs/notes", "--mock"], body)
    for tool in NOTES.tools:
        result = results[tool.name]
        assert not result.is_error, (tool.name, result)
        examples = [e.output for e in tool.examples if e.has_output]
        if examples:
            expected = examples[0]
            if era == "legacy" and not tool.output_is_object:
                expected = {WRAP_KEY: expected}
            assert result.structured_content == expected
        assert result.content[0].type == "text"


@pytest.mark.parametrize("era", ERAS)
def test_sdk_sees_tool_errors_as_error_results(era: str) -> None:
    async def body(session: ClientSession) -> Any:
        await session.list_tools()
        return await session.call_tool("create_note", {"title": ""})

    result = run(era, ["specs/notes", "--mock"], body)
    assert result.is_error
    assert "title" in result.content[0].text
