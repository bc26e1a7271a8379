"""The MCP SDK client's two transports, reading within `toolgen.limits`.

The SDK's stdio transport keeps a line until its newline comes, however long,
and its HTTP client reads a JSON body whole: a server can make a client hold
gigabytes. Both transports here read at most `max_message()` bytes per message
(a stdio line, an HTTP body, one server-sent event); past it the connection
ends with `MessageTooLarge`, which names the limit and how to raise it.
Typed clients, `toolgen call` and `toolgen import` connect through them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import anyio
import httpx2
from anyio.abc import Process
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

from toolgen.limits import MESSAGE_ENV, Lines, TooLong, max_message
from toolgen.spec.text import visible

log = logging.getLogger(__name__)
SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate (a lone one is JSON but not Unicode text)."""
LINE_QUOTED: Final = 200
"""Bytes of a stdout line that is not JSON-RPC quoted in the log."""
STDERR_TAIL: Final = 8192
"""Bytes of a server's stderr kept when it is read (`stderr_tail`)."""
EXIT_GRACE: Final = 2.0
"""Seconds a stdio server gets to exit after its stdin closes, then after SIGTERM."""
HTTP_TIMEOUT: Final = httpx2.Timeout(30.0, read=300.0)
"""The SDK's own timeouts for MCP traffic (a server may hold a response stream open)."""


class MessageTooLarge(httpx2.StreamError):
    """A server sent a message over `max_message()` bytes; it was not read."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        super().__init__(
            f"the server sent {what} of over {limit} bytes ({size} read); it was dropped "
            f"and the connection closed (set {MESSAGE_ENV} to a larger number of bytes to "
            "accept it)"
        )


@contextlib.asynccontextmanager
async def stdio_transport(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stderr_tail: bytearray | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start `command` and speak MCP over its stdin/stdout, one message per line.

    `env` is added to the SDK's safe default environment. The server's stderr goes to
    this process's stderr, or, with `stderr_tail`, is read into it, of which only the
    last `STDERR_TAIL` bytes are kept (for an error message). The
    server runs in its own process group, ended with the connection."""
    limit = max_message()
    process = await anyio.open_process(
        list(command),
        env={**get_default_environment(), **(env or {})},
        cwd=cwd,
        stderr=subprocess.PIPE if stderr_tail is not None else None,  # None: our stderr
        start_new_session=True,
    )
    incoming, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    too_large: list[MessageTooLarge] = []

    async def read_stdout() -> None:
        assert process.stdout is not None
        lines = Lines(limit)
        async with incoming:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    for line in lines.feed(chunk):
                        if isinstance(line, TooLong):
                            too_large.append(MessageTooLarge("a line", line.size, limit))
                            await incoming.send(too_large[-1])
                            return  # closing the stream fails the requests still waiting
                        if line.strip():
                            await incoming.send(_parsed(line))

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with outgoing:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for message in outgoing:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode() + b"\n")

    async def read_stderr(tail: bytearray) -> None:
        assert process.stderr is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in process.stderr:
                tail += chunk
                del tail[:-STDERR_TAIL]

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_stdout)
            tasks.start_soon(write_stdin)
            if stderr_tail is not None:
                tasks.start_soon(read_stderr, stderr_tail)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    await _stop(process)
                tasks.cancel_scope.cancel()
    except Exception:
        if too_large:  # the reason the session failed, not how it noticed
            raise too_large[0] from None
        raise
    if too_large:
        raise too_large[0]


def _parsed(line: bytes) -> SessionMessage | Exception:
    """One line as a message; a line that pydantic's JSON reader refuses but Python's
    reads (an escaped lone surrogate: JSON, though not Unicode text) is taken as read,
    so that the reader of the message, not the transport, decides what to do with it."""
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # said here, and handed to the session
        if SURROGATE_ESCAPE.search(line):
            with contextlib.suppress(ValueError, RecursionError):
                message = jsonrpc_message_adapter.validate_python(json.loads(line), by_name=False)
                return SessionMessage(message)
        why = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        text = visible(line[:LINE_QUOTED].decode("utf-8", "replace"))
        log.warning("the server wrote a line that is not a JSON-RPC message (%s): %r", why, text)
        return exc


async def _stop(process: Process) -> None:
    """Close stdin, give the server `EXIT_GRACE` to exit, then end its process group."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        with anyio.move_on_after(EXIT_GRACE):
            await process.wait()
            break
    with contextlib.suppress(OSError):
        await process.aclose()


def http_client(headers: Mapping[str, str] | None = None) -> httpx2.AsyncClient:
    """An HTTP client for `mcp.client.streamable_http.streamable_http_client` whose
    responses other than event streams are read up to `max_message()` bytes (pass
    `max_sse_event_size=max_message()` there for the events)."""
    transport = _BoundedTransport(httpx2.AsyncHTTPTransport(), max_message())
    return httpx2.AsyncClient(
        headers=dict(headers or {}), timeout=HTTP_TIMEOUT, transport=transport
    )


class _BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int) -> None:
        self.inner = inner
        self.limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "text/event-stream":  # events are bounded one by one by the SDK
            stream = response.stream
            assert isinstance(stream, httpx2.AsyncByteStream)
            response.stream = _BoundedBody(stream, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _BoundedBody(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self.inner = inner
        self.limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self.inner:
            size += len(chunk)
            if size > self.limit:
                raise MessageTooLarge("an HTTP body", size, self.limit)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()
