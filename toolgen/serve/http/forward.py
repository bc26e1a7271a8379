"""Sessions and tasks under several worker processes: a request goes to the worker owning it.

With `toolgen serve --http --workers N`, the kernel hands each TCP connection to
any worker, but a legacy-era session (`Mcp-Session-Id`) lives in the memory of
the worker that answered its `initialize`: its negotiated version, log level,
calls in flight, and the requests a running call sent to the client and waits
for. So each worker issues ids that name it (`w<INDEX>.<random>`) and also
listens on a private Unix socket; `SessionRouter` passes a request whose session
belongs to another worker, unchanged, to that worker's socket and streams the
answer back (SSE included). The owner applies every rule (Host, Origin, token,
limits) as if the client had reached it directly. Requests without a session id
(the stateless 2026-07-28 era, `initialize`) are served where they arrive,
except the tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`: a
task lives in the worker that created it too, its id names that worker the same
way, and those requests carry it in `Mcp-Name` (checked against the body by the
owner), so they are forwarded alike.

A session (or task) whose worker has stopped is gone: its requests are served
where they arrive, which does not know it (404 for a session, -32602 for a task),
and the client starts again.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any, Final

import h11

from toolgen.serve import jsonrpc

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

SESSION_HEADER: Final = b"mcp-session-id"
METHOD_HEADER: Final = b"mcp-method"
NAME_HEADER: Final = b"mcp-name"
TASK_METHODS: Final = frozenset({b"tasks/get", b"tasks/update", b"tasks/cancel"})
"""Requests about one task (the tasks extension): their `Mcp-Name` is the task id."""
OWNER: Final = re.compile(rb"\s*w([0-9]{1,4})\.")
HOP_BY_HOP: Final = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"upgrade", b"trailer", b"date"}
)
"""Headers that describe one connection (and `date`, which the answering worker adds)."""
READ_SIZE: Final = 65536


def owner_prefix(index: int) -> str:
    """The start of every session and task id worker `index` issues."""
    return f"w{index}."


def owner_of(scope: Scope) -> int | None:
    """The worker named by the request's `Mcp-Session-Id`, or for a task request by its
    `Mcp-Name` (the task id); None: neither, or not an id of ours."""
    headers = dict(reversed(scope["headers"]))  # a repeated header: the first, as Starlette
    named = headers.get(SESSION_HEADER)
    if named is None and headers.get(METHOD_HEADER, b"").strip() in TASK_METHODS:
        named = headers.get(NAME_HEADER)
    found = OWNER.match(named) if named is not None else None
    return int(found[1]) if found else None


class SessionRouter:
    """ASGI middleware: serve a request here, or forward it to the worker owning its session."""

    def __init__(self, app: App, index: int, routes: Sequence[str]) -> None:
        """`routes[i]`: the Unix socket path of worker `i`; `index`: this worker."""
        self.app = app
        self.index = index
        self.routes = list(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        owner = owner_of(scope) if scope["type"] == "http" else None
        if owner is not None and owner != self.index and owner < len(self.routes):
            forwarded = await forward(self.routes[owner], scope, receive, send)
            if forwarded:
                return
        await self.app(scope, receive, send)


async def forward(path: str, scope: Scope, receive: Receive, send: Send) -> bool:
    """Send the request to the server at Unix socket `path` and stream its answer back;
    the client hanging up closes the forwarded connection (the owner then cancels).
    False, with nothing read or sent, when the owner cannot be reached (its worker
    stopped): the request is then served here, where its session is unknown (404), and
    a stateless request that happens to carry an old session id is answered as usual."""
    connection = h11.Connection(h11.CLIENT)
    try:
        head = connection.send(_request_head(scope)) or b""
        reader, writer = await asyncio.open_unix_connection(path)
    except (h11.LocalProtocolError, OSError):  # e.g. HTTP/1.0 without Host, a dead owner
        return False
    writer.write(head)
    pump = asyncio.ensure_future(_send_body(connection, writer, receive))
    try:
        await _relay_response(connection, reader, send, pump)
    finally:
        pump.cancel()
        if pump.done() and not pump.cancelled():
            pump.exception()  # retrieved: a failed write is the owner closing early, not an error
        writer.close()
        with contextlib.suppress(OSError, asyncio.CancelledError):
            await writer.wait_closed()
    return True


def _request_head(scope: Scope) -> h11.Request:
    """The request line and headers to send on (hop-by-hop headers dropped)."""
    headers = [(name, value) for name, value in scope["headers"] if name not in HOP_BY_HOP]
    if not any(name == b"content-length" for name, _ in headers):
        headers.append((b"transfer-encoding", b"chunked"))
    target = scope.get("raw_path") or scope["path"].encode()
    if scope.get("query_string"):
        target += b"?" + scope["query_string"]
    return h11.Request(method=scope["method"], target=target, headers=headers)


async def _send_body(
    connection: h11.Connection, writer: asyncio.StreamWriter, receive: Receive
) -> None:
    """Write the request body as it arrives, then wait for the client to hang up:
    returning means it did."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        chunk = message.get("body", b"")
        if chunk:
            writer.write(connection.send(h11.Data(data=chunk)) or b"")
            await writer.drain()
        if not message.get("more_body", False):
            break
    writer.write(connection.send(h11.EndOfMessage()) or b"")
    await writer.drain()
    while (await receive())["type"] != "http.disconnect":
        pass


async def _relay_response(
    connection: h11.Connection,
    reader: asyncio.StreamReader,
    send: Send,
    pump: asyncio.Future[None],
) -> None:
    """Read the owner's answer and pass it on as it comes; stop when the client hangs up."""
    started = False
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError:  # the owner died mid-answer
            break
        if event is h11.NEED_DATA:
            data = await _read_or_hang_up(reader, pump)
            if data is None:
                return
            connection.receive_data(data)
        elif isinstance(event, h11.Response):
            headers = [(name, value) for name, value in event.headers if name not in HOP_BY_HOP]
            await send(
                {"type": "http.response.start", "status": event.status_code, "headers": headers}
            )
            started = True
        elif isinstance(event, h11.Data):
            await send({"type": "http.response.body", "body": bytes(event.data), "more_body": True})
        elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
            break
    if started:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    else:
        await _session_gone(send)


async def _read_or_hang_up(
    reader: asyncio.StreamReader, pump: asyncio.Future[None]
) -> bytes | None:
    """The owner's next bytes (b"" at its end of stream); None when the client hung up."""
    read: asyncio.Future[Any] = asyncio.ensure_future(reader.read(READ_SIZE))
    if not pump.done():
        await asyncio.wait({read, pump}, return_when=asyncio.FIRST_COMPLETED)
    if not read.done() and pump.exception() is None:
        read.cancel()
        return None
    try:  # a failed write means the owner stopped reading: its answer still comes
        data: bytes = await read
    except OSError:  # the owner went away: end of its stream
        return b""
    return data


async def _session_gone(send: Send) -> None:
    """The owner died while answering: its sessions ended, as a 404 says."""
    body = jsonrpc.dumps(
        jsonrpc.error(
            None,
            jsonrpc.INVALID_REQUEST,
            "Session not found: its worker stopped; send initialize to start a new one",
        )
    )
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
