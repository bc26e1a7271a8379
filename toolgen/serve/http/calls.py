"""Answering one `tools/call` over HTTP: notifications, requests to the client, resumable
streams, cancellation.

The engine gives a `PendingCall`, which `calls.start` runs where its handler belongs, with
a `CallContext` whose `send` feeds a queue and a `reply` that settles a future. Whichever
comes first decides the answer:

- the call ends: a plain JSON response;
- the client hangs up: the call is cancelled;
- the call sends a notification (or a request to the client): the answer becomes an SSE
  stream. Its events, the notifications and last the response, go through the store
  (`toolgen.serve.store`) under a new stream id, each with the SSE `id` `STREAM.SEQ`, and
  the response streams them from there. So the stream is resumable: the call goes on
  when the client hangs up, and a GET with `Last-Event-ID` to any instance sharing the
  store replays the events after that one and follows the rest (`resume`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final

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
from toolgen.serve.store import STREAM_TTL, Record, Store

log = logging.getLogger("toolgen.serve.http")

Receive = Callable[[], Awaitable[Mapping[str, Any]]]

FIRST_EVENT: Final = 2
"""The sequence number of a stream's first event (1 is its owner, never sent)."""
STREAM_WAIT: Final = 60.0
"""Seconds a stream waits for the next event past the per-call timeout."""

_pumps: set[asyncio.Task[None]] = set()
"""Streams being written to the store (held here until done)."""


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
    """Dispatch a `tools/call` and answer it (see the module docs)."""
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
        assert not isinstance(call, Awaitable)
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
        return answer(task.result(), accept, modern)
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
        if first is not None:
            first.cancel()
        raise
    finally:
        disconnect.cancel()
    if first is not None and not first.done():
        first.cancel()
    if not task.done() and (first is None or not first.done()):  # the client hung up
        task.cancel()
        return Response(status_code=204)  # nobody is listening any more
    if first is None or not first.done():  # done, nothing sent before: JSON
        reply = task.result()
        return Response(status_code=204) if reply is None else answer(reply, accept, modern)
    store = engine.task_store.store
    stream = secrets.token_urlsafe(16)
    await store.add_event(
        stream, FIRST_EVENT - 1, {"session": session.id if session else ""}, False
    )
    pump = asyncio.ensure_future(_pump(store, stream, first.result(), outbox, task))
    _pumps.add(pump)
    pump.add_done_callback(_pumps.discard)
    wait = (engine.calls.timeout or STREAM_TTL) + STREAM_WAIT
    body = _events(store, stream, FIRST_EVENT - 1, wait)
    return StreamingResponse(body, media_type=SSE_TYPE, headers=SSE_HEADERS)


async def resume(
    store: Store, last_event_id: str, session: Session | None, wait: float
) -> AsyncIterator[bytes] | None:
    """The rest of the stream whose event `last_event_id` the client got last (None: no
    such stream, or one of another session)."""
    stream, _, seq = last_event_id.strip().rpartition(".")
    if not stream or not seq.isdigit():
        return None
    events = store.events(stream, FIRST_EVENT - 2, 0.001)
    try:
        found, event = await anext(events, (0, {}))
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    owner = event.get("session") if found == FIRST_EVENT - 1 else None
    if owner is None or owner != (session.id if session is not None else ""):
        return None
    return _events(store, stream, max(int(seq), FIRST_EVENT - 1), wait)


async def _pump(
    store: Store,
    stream: str,
    first: dict[str, Any],
    outbox: asyncio.Queue[dict[str, Any]],
    task: asyncio.Future[dict[str, Any] | None],
) -> None:
    """Write a call's events to the store as they come, the response last: whether the
    client listens or not."""
    seq = FIRST_EVENT
    try:
        await store.add_event(stream, seq, first, False)
        while not task.done():
            getter = asyncio.ensure_future(outbox.get())
            both: set[asyncio.Future[Any]] = {task, getter}
            await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                seq += 1
                await store.add_event(stream, seq, getter.result(), False)
            else:
                getter.cancel()
        while not outbox.empty():
            seq += 1
            await store.add_event(stream, seq, outbox.get_nowait(), False)
        reply = None if task.cancelled() else task.result()
        await store.add_event(stream, seq + 1, reply or {}, True)  # {}: ended, nothing to say
    except Exception:
        log.exception("the events of a stream could not be kept")


async def _events(store: Store, stream: str, after: int, wait: float) -> AsyncIterator[bytes]:
    """The SSE events of `stream` after `after`, as they come, until its last."""
    async for seq, message in store.events(stream, after, wait):
        if message:
            yield sse_event(message, f"{stream}.{seq}")


def _asker(session: Session, send: Callable[[dict[str, Any]], None]) -> Ask:
    """Requests from a handler to the client of a legacy session: sent on the call's SSE
    stream, answered by the client in a later POST (routed by id in `app`, to whichever
    instance waits for it)."""

    async def ask(method: str, params: dict[str, Any]) -> Any:
        request_id = session.next_request_id()
        answer: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
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
