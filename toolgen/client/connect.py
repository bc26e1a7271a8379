"""Open an MCP session with the official SDK client (`mcp.Client`): over stdio or
Streamable HTTP, in the era `mode` picks; and read a server's whole tool list.

Typed clients (`ToolClient.stdio` / `.http`) and `toolgen call` connect here, so
there is one way this package opens a connection: the SDK's client on transports
that read within `toolgen.limits` (see `transports`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolgen.limits import MAX_PAGES, max_message

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
    from mcp.client.streamable_http import streamable_http_client

    from toolgen.client.transports import http_client, stdio_transport

    with _one_error():
        async with AsyncExitStack() as stack:
            if command:
                transport: Any = stdio_transport(command, env=env, cwd=cwd)
            elif url:
                http = await stack.enter_async_context(http_client(headers))
                transport = streamable_http_client(
                    url, http_client=http, max_sse_event_size=max_message()
                )
            else:
                raise ValueError("give a server command or a URL")
            sdk = await stack.enter_async_context(Client(transport, mode=mode))
            yield sdk.session


class PaginationError(Exception):
    """A server's list never ends: a cursor came twice, or pages ran past `MAX_PAGES`."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the server {detail}")
        self.detail = detail
        """What the server did, to follow a name for it."""


Page = tuple[list[Any], Any]
"""One page of a list: its items and its `nextCursor` (anything but a non-empty string ends)."""


async def read_pages(fetch: Callable[[str | None], Awaitable[Page]]) -> list[Any]:
    """The items of every page `fetch(cursor)` gives, first page with cursor None."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page, after = await fetch(cursor)
        items += page
        if not isinstance(after, str) or not after:
            return items
        if after in seen:
            raise PaginationError(
                f"sent the tools/list cursor {after!r} twice: its pages go round in a circle"
            )
        seen.add(after)
        cursor = after
    raise PaginationError(f"kept paginating tools/list past {MAX_PAGES} pages")


async def list_all_tools(session: ClientSession) -> list[dict[str, Any]]:
    """Every tool the server lists (all pages), as wire dicts."""
    from mcp_types import PaginatedRequestParams

    async def fetch(cursor: str | None) -> Page:
        params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        tools = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
        return tools, page.next_cursor

    return await read_pages(fetch)


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
