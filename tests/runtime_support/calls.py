"""End-to-end test helpers: arguments for a tool, an SDK client session against a server."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import toolgen
from toolgen.schema.sample import sample


def arguments_for(tool: toolgen.Tool) -> dict[str, Any]:
    """The tool's first example input, else schema-valid generated arguments."""
    for example in tool.examples:
        if example.has_input:
            return dict(example.input)
    value = sample(tool.input_schema)
    assert isinstance(value, dict)
    return value


Scenario = Callable[[ClientSession, str], Awaitable[dict[str, Any]]]
"""What a test does with a connected session, given the era it asked for."""


def run_sdk_scenario(
    era: str,
    args: list[str],
    scenario: Scenario,
    cwd: Path,
    **session_options: Any,
) -> dict[str, Any]:
    """Start `python ARGS` as a stdio server, connect the official SDK client in `era`
    ("legacy": initialize handshake; else the stateless revision) and run `scenario`.
    `session_options` go to `ClientSession` (callbacks, `log_level`)."""
    server = StdioServerParameters(
        command=sys.executable,
        args=args,
        cwd=str(cwd),
        env=dict(os.environ),  # the SDK passes a minimal environment: keep coverage's
    )
    return _run(lambda: stdio_client(server), era, scenario, session_options)


def run_sdk_http_scenario(
    era: str, url: str, scenario: Scenario, **session_options: Any
) -> dict[str, Any]:
    """As `run_sdk_scenario`, for the Streamable HTTP endpoint at `url`."""
    from mcp.client.streamable_http import streamable_http_client

    return _run(lambda: streamable_http_client(url), era, scenario, session_options)


def _run(
    transport: Callable[[], Any], era: str, scenario: Scenario, session_options: dict[str, Any]
) -> dict[str, Any]:
    """Open `transport()`, a `ClientSession` on it in `era`, and run `scenario`."""

    async def main() -> dict[str, Any]:
        with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
            async with (
                transport() as (read, write, *_),
                ClientSession(read, write, **session_options) as s,
            ):
                if era == "legacy":
                    await s.initialize()
                else:
                    s.adopt(await s.discover())
                return await scenario(s, era)

    return anyio.run(main)
