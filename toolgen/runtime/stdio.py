"""The stdio transport: one JSON-RPC message per line on stdin and stdout.

stdout carries protocol only: `serve_stdio` moves the real stdout to a
private descriptor and points file descriptor 1 (and `print`) at stderr, so
stray output from handlers or libraries cannot corrupt the stream. Logs go
to stderr. Requests are read and answered in order, except `tools/call`,
whose handlers run concurrently (so responses may come back in any order,
matched by id); their handlers may send progress and log notifications
(`toolgen.runtime.context.current_call()`). A sync handler's worker thread writes
its call's response itself (`DirectReply`), and its notifications, under the lock
that every write to stdout takes. When stdin closes, calls still running get a short grace
period to answer, then are cancelled, and the server exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
from typing import IO, Any, Final

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

from toolgen.runtime import jsonrpc
from toolgen.runtime.connection import DIRECT_REPLY, Connection, DirectReply, PendingCall
from toolgen.runtime.context import (
    DEFAULT_LEGACY_LOG_LEVEL,
    CallContext,
    for_request,
    use_call_context,
)
from toolgen.runtime.engine import Engine, log
from toolgen.runtime.handlers import unknown_handlers
from toolgen.runtime.pipes import MAX_MESSAGE, LineReader, open_reader, open_writer
from toolgen.runtime.serving import log_to_stderr
from toolgen.runtime.toolset import RuntimeToolSet

SHUTDOWN_GRACE: Final = 2.0
"""Seconds that running calls get to answer after stdin closes."""
MAX_CALLS_IN_FLIGHT = 64
"""Reading stdin pauses while this many calls run (resumes at half): bounded memory under
pipelining, and calls queued in the pipe cost nothing."""


async def run_stdio(
    engine: Engine,
    stdin: IO[bytes],
    stdout: IO[bytes],
    *,
    shutdown_grace: float = SHUTDOWN_GRACE,
) -> None:
    """Serve `engine` on a pair of binary streams until `stdin` reaches end of file."""
    loop = asyncio.get_running_loop()
    connection = Connection()
    eof = asyncio.Event()

    write, close_writer, writer = await open_writer(loop, stdout, eof.set)

    def send(message: Any, wait: bool = True) -> bool:
        try:
            data = jsonrpc.dumps(message)
        except Exception:
            log.exception("could not serialize a response")
            request_id = message.get("id") if isinstance(message, dict) else None
            data = jsonrpc.dumps(
                jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
            )
        return write(data + b"\n", wait)

    def call_done(task: asyncio.Task[Any]) -> None:
        calls.discard(task)
        if len(calls) <= MAX_CALLS_IN_FLIGHT // 2:
            lines.resume()
            if (
                reader is not None
                and not reader.is_reading()
                and not reader.is_closing()
                and (writer is None or not writer.paused)
            ):
                reader.resume_reading()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("a call failed unexpectedly", exc_info=exc)
            return
        reply = task.result()
        if reply is not None:
            send(reply)

    def on_line(line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = jsonrpc.loads(line)
        except jsonrpc.JSONDecodeError:
            send(jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error: not valid JSON"))
            return
        if engine.takes_batch(message, connection):
            start_batch(message)
            return
        try:
            reply = engine.dispatch(message, connection)
        except Exception:
            log.exception("internal error while handling a message")
            request_id = message.get("id") if isinstance(message, dict) else None
            if jsonrpc.is_request_id(request_id):
                send(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"))
            return
        if reply is None:
            return
        if isinstance(reply, PendingCall):
            start_call(reply, message.get("params"))
        else:
            send(reply)

    def start_call(call: PendingCall, params: Any) -> None:
        """Run a call as a task whose handler may send progress and log notifications."""
        task: asyncio.Task[dict[str, Any] | None] | None = None

        def notify(notification: dict[str, Any]) -> None:  # from any thread
            # nothing more once a call has ended (answered or cancelled)
            if task is not None and connection.inflight.get(call.request_id) is task:
                send(notification)

        legacy_level = connection.log_level or DEFAULT_LEGACY_LOG_LEVEL
        token = DIRECT_REPLY.set(direct)
        try:
            with use_call_context(for_request(params, notify, legacy_log_level=legacy_level)):
                task = loop.create_task(call.coroutine)  # the task keeps a copy of this context
        finally:
            DIRECT_REPLY.reset(token)
        connection.track(call.request_id, task)
        calls.add(task)
        task.add_done_callback(call_done)
        if len(calls) >= MAX_CALLS_IN_FLIGHT and reader is not None and reader.is_reading():
            reader.pause_reading()  # a client that pipelines thousands of calls waits here

    def start_batch(messages: list[Any]) -> None:
        """A 2025-03-26 batch: its calls run concurrently, one array answers them all."""
        legacy_level = connection.log_level or DEFAULT_LEGACY_LOG_LEVEL

        def notify(notification: dict[str, Any]) -> None:
            send(notification)

        def context_for(params: Any) -> CallContext:
            return for_request(params, notify, legacy_log_level=legacy_level)

        task = loop.create_task(engine.handle_batch(messages, connection, context_for))
        calls.add(task)
        task.add_done_callback(call_done)

    def oversize() -> None:
        message = f"Message too large: the limit is {MAX_MESSAGE} bytes per line"
        send(jsonrpc.error(None, jsonrpc.INVALID_REQUEST, message))

    def send_from_worker(response: dict[str, Any], wait: bool) -> bool:
        # Only while no other call is in flight: then the loop would wake up just to send
        # this. Under load it is awake anyway, and sends many responses per wake-up.
        return not connection.inflight and send(response, wait)

    direct = DirectReply(connection, send_from_worker)
    # Calls not finished (a call claimed by its worker leaves `connection.inflight` first).
    calls: set[asyncio.Task[Any]] = set()
    reader: asyncio.ReadTransport | None = None
    lines = LineReader(on_line, eof.set, oversize, hold=lambda: len(calls) >= MAX_CALLS_IN_FLIGHT)
    reader = await open_reader(loop, stdin, lines)
    if writer is not None:
        writer.reader = reader
    await eof.wait()
    running = list(calls)
    if running:
        await asyncio.wait(running, timeout=shutdown_grace)
    connection.cancel_all()
    await close_writer()


def serve_stdio(
    tools: RuntimeToolSet,
    handlers: Any,
    *,
    timeout: float | None = None,
    page_size: int | None = None,
    inline_sync: bool = False,
    shutdown_grace: float = SHUTDOWN_GRACE,
    log_level: int = logging.WARNING,
) -> None:
    """Serve `tools` with `handlers` over this process's stdin/stdout until stdin closes."""
    options: dict[str, Any] = {"timeout": timeout, "inline_sync": inline_sync}
    if page_size is not None:
        options["page_size"] = page_size
    engine = Engine(tools, handlers, **options)
    log_to_stderr(log_level)
    for name in engine.missing_handlers:
        log.warning("no handler for tool %r: its calls will answer with an error", name)
    for key in unknown_handlers([tool.name for tool in tools.tools], handlers):
        log.warning("handler %r matches no tool of %s", key, tools.server.name)
    # Everything loaded so far lives as long as the server: keep it out of the garbage
    # collector's generations, so that collections during calls stay short. (No
    # `gc.collect()` first: it would cost milliseconds of cold start.)
    gc.freeze()
    with _protocol_stdout() as protocol_out:
        stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
        try:
            asyncio.run(run_stdio(engine, stdin, protocol_out, shutdown_grace=shutdown_grace))
        except KeyboardInterrupt:
            pass
        finally:
            stdin.close()


@contextlib.contextmanager
def _protocol_stdout() -> Any:
    """A private stream on the real stdout; fd 1 and `sys.stdout` now point at stderr."""
    sys.stdout.flush()
    saved = os.dup(1)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        yield out
    finally:
        with contextlib.suppress(OSError):
            out.close()
        os.dup2(saved, 1)
        os.close(saved)
