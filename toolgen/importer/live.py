"""Tools of a live MCP server, listed with the official MCP SDK client.

`--server "CMD ARGS..."` starts a server over stdio (with this process's
environment, so tokens in the environment reach it); `--url URL` talks
Streamable HTTP, with headers for auth. Every page of `tools/list` is read (up to
`toolgen.limits.MAX_PAGES`), each message within `toolgen.limits.max_message()`.
Results are taken as raw JSON, not as the SDK's models, so fields the SDK
does not model (`x-` keys, unknown annotations) reach the import and are
reported there instead of vanishing. The whole exchange is bounded in time.
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

from toolgen.extras import install_hint
from toolgen.importer.convert import ServerInfo
from toolgen.importer.sources import Published
from toolgen.limits import CALL_TIMEOUT

ERRLOG_TAIL = 2000
"""Characters of a failed stdio server's stderr quoted in the error."""


class LiveError(Exception):
    """A live server could not be listed: not started, unreachable, or not speaking MCP."""


def list_stdio(command: str, *, timeout: float = CALL_TIMEOUT) -> Published:
    """The tools of the stdio server `command` (a shell-like command line, never run by a shell)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise LiveError(f"--server {command!r}: {exc}; quote it as a shell would") from None
    if not argv:
        raise LiveError("--server needs a command, e.g. --server 'npx -y my-mcp-server'")
    return _run(_stdio(argv), timeout, f"the stdio server `{argv[0]}`")


def list_http(
    url: str, headers: Mapping[str, str] | None = None, *, timeout: float = CALL_TIMEOUT
) -> Published:
    """The tools of the Streamable HTTP server at `url`, sending `headers` with every request."""
    if not url.startswith(("http://", "https://")):
        raise LiveError(f"--url {url!r}: expected an http:// or https:// URL of the MCP endpoint")
    refusals: list[str] = []
    return _run(
        _http(url, dict(headers or {}), refusals), timeout, f"the server at {url}", refusals
    )


def _run(streams: Any, timeout: float, what: str, notes: Sequence[str] = ()) -> Published:
    """List the tools over `streams`; `notes` (filled while it runs) go into an error."""
    try:
        import anyio
        import mcp  # noqa: F401  (the official client: an optional dependency)
    except ImportError:
        raise LiveError(
            "a live import needs the MCP SDK (the import extra); add it with: "
            + install_hint("import")
        ) from None

    async def main() -> Published:
        with anyio.fail_after(timeout):
            async with streams as (read, write):
                return await _list(read, write, what)

    sdk_log = _SdkLog()
    try:
        return anyio.run(main)
    except TimeoutError:
        message = f"{what} did not list its tools within {timeout:g} s"
    except LiveError as exc:
        message = str(exc)
    except Exception as exc:  # any transport or protocol failure: said plainly, no traceback
        message = f"cannot list the tools of {what}: {_reason(exc)}"
    finally:
        sdk_log.close()
    raise LiveError(message + "".join(f"\n  {note}" for note in notes[:3]) + sdk_log.detail())


class _SdkLog(logging.Handler):
    """While installed, keeps the client's log records (the SDK's and toolgen's transports',
    with their tracebacks) off the terminal; what they say about the server (a line on
    stdout that is not JSON-RPC) goes into the error message instead."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.notes: list[str] = []
        self.loggers = [logging.getLogger(name) for name in ("mcp", "toolgen.client")]
        self.propagate = [logger.propagate for logger in self.loggers]
        for logger in self.loggers:
            logger.addHandler(self)
            logger.propagate = False

    def emit(self, record: logging.LogRecord) -> None:
        note = record.getMessage()
        errors = getattr(record.exc_info[1] if record.exc_info else None, "errors", None)
        if callable(errors):  # pydantic's ValidationError: the offending input
            with suppress(LookupError, TypeError, ValueError):
                note += f": {errors()[0]['input']!r}"
        if note not in self.notes:
            self.notes.append(note)

    def detail(self) -> str:
        return "".join(f"\n  the client: {note}" for note in self.notes[:3])

    def close(self) -> None:
        for logger, propagate in zip(self.loggers, self.propagate, strict=True):
            logger.removeHandler(self)
            logger.propagate = propagate
        super().close()


def _reason(exc: BaseException) -> str:
    exc = _leaf(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _leaf(exc: BaseException) -> BaseException:
    """The first error a task group's `ExceptionGroup` holds, however deep."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


@asynccontextmanager
async def _stdio(argv: list[str]) -> AsyncIterator[Any]:
    from toolgen.client.transports import stdio_transport

    stderr = bytearray()
    try:
        async with stdio_transport(argv, env=os.environ, stderr_tail=stderr) as streams:
            yield streams
    except Exception as exc:
        if isinstance(_leaf(exc), LiveError):
            raise _leaf(exc) from None
        tail = stderr.decode("utf-8", "replace")[-ERRLOG_TAIL:].strip()
        detail = f"\n{tail}" if tail else ""
        raise LiveError(f"the stdio server `{argv[0]}` failed: {_reason(exc)}{detail}") from None


@asynccontextmanager
async def _http(url: str, headers: dict[str, str], refusals: list[str]) -> AsyncIterator[Any]:
    """Streamable HTTP streams to `url`; each POST the server refuses (HTTP 4xx/5xx) is noted
    in `refusals` (the SDK's error says only "Server returned an error response")."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from toolgen.client.transports import http_client
    from toolgen.limits import max_message

    async def note(response: httpx2.Response) -> None:
        if response.request.method == "POST" and response.status_code >= 400:
            refusals.append(f"HTTP {response.status_code} {response.reason_phrase} to POST {url}")

    async with http_client(headers) as client:
        client.event_hooks["response"].append(note)
        async with streamable_http_client(
            url, http_client=client, max_sse_event_size=max_message()
        ) as streams:
            yield streams


async def _list(read: Any, write: Any, what: str) -> Published:
    from mcp import ClientSession, types
    from pydantic import BaseModel, ConfigDict

    from toolgen.client.connect import Page, PaginationError, read_pages

    class RawPage(BaseModel):
        """A `tools/list` result kept as sent: every field, no coercion."""

        model_config = ConfigDict(extra="allow")

    async with ClientSession(read, write) as session:
        init = await session.initialize()

        async def fetch(cursor: str | None) -> Page:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.send_request(types.ListToolsRequest(params=params), RawPage)
            page = result.model_extra or {}
            listed = page.get("tools")
            if not isinstance(listed, list):
                raise LiveError(f"{what} answered tools/list without a list of tools")
            return listed, page.get("nextCursor")

        try:
            tools = await read_pages(fetch)
        except PaginationError as exc:
            raise LiveError(f"{what} {exc.detail}") from None
    info = init.server_info
    server = ServerInfo(
        name=info.name,
        version=info.version,
        title=info.title,
        description=getattr(info, "description", None),
        instructions=init.instructions,
    )
    origin = f"{what} ({info.name} {info.version})"
    return Published(tuple(tools), server, str(init.protocol_version), origin)
