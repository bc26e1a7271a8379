"""Answering one `tools/call` over HTTP: notifications, requests to the client, cancellation.

The engine gives a `PendingCall`, which `calls.start` runs where its handler belongs, with
a `CallContext` whose `send` feeds a queue and a `reply` that settles a future. Whichever
comes first decides the answer: the call ending (a plain JSON response), a notification
(the answer becomes an SSE stream: notifications as they come, then the response), or the
client hanging up (the call is cancelled).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from toolgen.serve.calls import PendingCall, start
from toolgen.serve.connection import Connection
from toolgen.serve.context import Ask, for_request
from toolgen.serve.engine import Engine
from toolgen.serve.http.responses import (
    SSE_HEADERS,
    SSE_TYPE,
    Accept,
    answer,
    sse_event,
)
from toolgen.serve.http.sessions import Session
from toolgen.serve.results import ToolError

log = logging.getLogger("toolgen.serve.http")

Receive = Callable[[], Awaitable[Mapping[str, Any]]]


async def run_call(
    engine: Engine,
    request: Request,
    message: dict[str, Any],
    connection: Connection,
    accept: Accept,
    *,
    modern: bool,
    level: str | None,
    session: Session | None,
) -> Response:
    """Dispatch a `tools/call` and answer it: JSON when it ends before sending anything,
    else an SSE stream of its notifications (and requests to the client), then its
    response. The client hanging up cancels the call.
    """
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def send(notification: dict[str, Any]) -> None:  # any thread
        if threading.get_ident() == loop_thread:
            outbox.put_nowait(notification)
        else:
            loop.call_soon_threadsafe(outbox.put_nowait, notification)

    ask = _asker(session, send) if session is not None and accept.sse else None
    context = for_request(
        message.get("params"),
        send,
        legacy_log_level=level,
        ask=ask,
        client_capabilities=session.client_capabilities if session is not None else None,
    )
    call = engine.dispatch(message, connection)
    if not isinstance(call, PendingCall):  # an error: answered at once, nothing sent before
        return answer(call, accept, modern)
    call.context = context
    task: asyncio.Future[dict[str, Any] | None] = loop.create_future()

    def settle(response: dict[str, Any] | None) -> None:
        if not task.done():  # (else the client hung up: nobody waits)
            task.set_result(response)

    call.reply = settle
    running = start(call, loop)
    if running is not None:  # cancelling the future cancels the call
        task.add_done_callback(lambda done: done.cancelled() and running.cancel())
    if task.done() and (outbox.empty() or not accept.sse):
        return answer(call_reply(task), accept, modern)
    disconnect = asyncio.ensure_future(_disconnected(request.receive))
    first: asyncio.Future[dict[str, Any]] | None = None
    try:
        waiting: set[asyncio.Future[Any]] = {task, disconnect}
        if accept.sse:
            first = asyncio.ensure_future(outbox.get())
            waiting.add(first)
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        disconnect.cancel()
        if first is not None:
            first.cancel()
        raise
    if disconnect.done() and not task.done():
        task.cancel()
        if first is not None:
            first.cancel()
        return Response(status_code=204)  # nobody is listening any more
    pending: list[dict[str, Any]] = []
    if first is not None:
        if first.done():
            pending.append(first.result())
        else:
            first.cancel()
        while not outbox.empty():
            pending.append(outbox.get_nowait())
    if task.done() and (not pending or not accept.sse) and accept.json:
        disconnect.cancel()
        reply = call_reply(task)
        if reply is None:
            return Response(status_code=204)
        return answer(reply, accept, modern)
    stream = _stream(task, outbox, pending, disconnect)
    return StreamingResponse(stream, media_type=SSE_TYPE, headers=SSE_HEADERS)


async def _stream(
    task: asyncio.Future[dict[str, Any] | None],
    outbox: asyncio.Queue[dict[str, Any]],
    pending: list[dict[str, Any]],
    disconnect: asyncio.Future[None],
) -> AsyncIterator[bytes]:
    """SSE events: queued notifications as they come, then the response; the stream
    closing early (client gone) cancels the call."""
    try:
        for notification in pending:
            yield sse_event(notification)
        while not task.done():
            getter = asyncio.ensure_future(outbox.get())
            waiting: set[asyncio.Future[Any]] = {task, getter, disconnect}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield sse_event(getter.result())
            else:
                getter.cancel()
            if disconnect.done() and not task.done():
                return
        while not outbox.empty():
            yield sse_event(outbox.get_nowait())
        reply = call_reply(task)
        if reply is not None:
            yield sse_event(reply)
    finally:
        disconnect.cancel()
        if not task.done():
            task.cancel()


def call_reply(task: asyncio.Future[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The response of a finished call task (None: cancelled by the client)."""
    if task.cancelled():
        return None
    exc = task.exception()
    if exc is not None:
        log.error("a call failed unexpectedly", exc_info=exc)
        return None
    return task.result()


def _asker(session: Session, send: Callable[[dict[str, Any]], None]) -> Ask:
    """Requests from a handler to the client of a legacy session: sent on the call's SSE
    stream, answered by the client in a later POST (routed by id in `app`)."""

    async def ask(method: str, params: dict[str, Any]) -> Any:
        request_id = session.next_request_id()
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        session.waiting[request_id] = answer
        try:
            send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            reply = await answer
        finally:
            session.waiting.pop(request_id, None)
        error = reply.get("error")
        if error is not None:
            reason = error.get("message") if isinstance(error, dict) else None
            raise ToolError(f"The client refused {method}: {str(reason)[:300]}")
        return reply.get("result")

    return ask


async def _disconnected(receive: Receive) -> None:
    """Return once the client has closed the connection."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
