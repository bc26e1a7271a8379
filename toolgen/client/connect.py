"""Open an MCP session with the official SDK client (`mcp.Client`): over stdio or
Streamable HTTP, in the era `mode` picks; and read a server's whole tool list.

Typed clients (`ToolClient.stdio` / `.http`) and `toolgen call` connect here, so
there is one way this package opens a connection, on the SDK's own transports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp import ClientSession


@asynccontextmanager
async def open_session(
    *,
    command: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    mode: str = "auto",
) -> AsyncIterator[ClientSession]:
    """A connected session to the stdio server `command`, else the endpoint at `url`.

    `env`: the server's environment (None: the SDK's safe default). `mode`:
    `"auto"` (2026-07-28 if the server offers it, else the `initialize`
    handshake), `"legacy"`, or a revision. An error the SDK's task groups wrap
    (also one raised in the caller's block) comes out as itself.
    """
    from mcp import Client

    with _one_error():
        if command:
            from mcp import StdioServerParameters

            server = StdioServerParameters(
                command=command[0],
                args=list(command[1:]),
                env=None if env is None else dict(env),
                cwd=cwd,
            )
            async with Client(server, mode=mode) as sdk:
                yield sdk.session
            return
        if not url:
            raise ValueError("give a server command or a URL")
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx2.Timeout(30.0, read=300.0)  # the SDK's defaults for MCP traffic
        async with (
            httpx2.AsyncClient(headers=dict(headers or {}), timeout=timeout) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as sdk,
        ):
            yield sdk.session


async def list_all_tools(session: ClientSession) -> list[dict[str, Any]]:
    """Every tool the server lists (all pages), as wire dicts."""
    from mcp_types import PaginatedRequestParams

    listed: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        listed += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return listed


@contextmanager
def _one_error() -> Iterator[None]:
    """Raise the one error an SDK task group wrapped as itself, not as an `ExceptionGroup`."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        if isinstance(leaf, BaseExceptionGroup):
            raise
        raise leaf from None
