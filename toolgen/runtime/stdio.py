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
import weakref
from collections.abc import Callable
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
from toolgen.runtime.pipes import MAX_MESSAGE, LineReader, Writer, open_reader, open_writer
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
    await _StdioSession(engine, shutdown_grace).run(stdin, stdout)


class _StdioSession:
    """One client on a pair of streams: reads lines, starts calls, writes every reply.

    Reading pauses while `MAX_CALLS_IN_FLIGHT` calls run, and while the writer is
    paused (the client is not reading): bounded memory however fast a client writes.
    """

    def __init__(self, engine: Engine, shutdown_grace: float) -> None:
        self.engine = engine
        self.shutdown_grace = shutdown_grace
        self.loop = asyncio.get_running_loop()
        self.connection = Connection()
        self.eof = asyncio.Event()
        # Calls not finished (a call claimed by its worker leaves `connection.inflight` first).
        self.calls: set[asyncio.Task[Any]] = set()
        self.direct = DirectReply(self.connection, self._send_from_worker)
        self.lines = LineReader(
            self._on_line,
            self.eof.set,
            self._oversize,
            hold=lambda: len(self.calls) >= MAX_CALLS_IN_FLIGHT,
        )
        self.reader: asyncio.ReadTransport | None = None
        self.writer: Writer | None = None
        self._write: Callable[[bytes, bool], bool] = _not_open

    async def run(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        """Serve until end of file, then give running calls a grace period and cancel them."""
        self._write, close_writer, self.writer = await open_writer(self.loop, stdout, self.eof.set)
        self.reader = await open_reader(self.loop, stdin, self.lines)
        if self.writer is not None:
            self.writer.reader = self.reader
        await self.eof.wait()
        running = list(self.calls)
        if running:
            await asyncio.wait(running, timeout=self.shutdown_grace)
        self.connection.cancel_all()
        await close_writer()

    # -- writing ------------------------------------------------------------------------

    def send(self, message: Any, wait: bool = True) -> bool:
        """Write one message; one that cannot be serialized becomes an internal error."""
        try:
            data = jsonrpc.dumps(message)
        except Exception:
            log.exception("could not serialize a response")
            request_id = message.get("id") if isinstance(message, dict) else None
            data = jsonrpc.dumps(
                jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
            )
        return self._write(data + b"\n", wait)

    def _send_from_worker(self, response: dict[str, Any], wait: bool) -> bool:
        # Only while no other call is in flight: then the loop would wake up just to send
        # this. Under load it is awake anyway, and sends many responses per wake-up.
        return not self.connection.inflight and self.send(response, wait)

    def _oversize(self) -> None:
        message = f"Message too large: the limit is {MAX_MESSAGE} bytes per line"
        self.send(jsonrpc.error(None, jsonrpc.INVALID_REQUEST, message))

    # -- reading ------------------------------------------------------------------------

    def _on_line(self, line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = jsonrpc.loads(line)
        except jsonrpc.JSONDecodeError:
            self.send(jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error: not valid JSON"))
            return
        if self.engine.takes_batch(message, self.connection):
            self._start_batch(message)
            return
        try:
            reply = self.engine.dispatch(message, self.connection)
        except Exception:
            log.exception("internal error while handling a message")
            request_id = message.get("id") if isinstance(message, dict) else None
            if jsonrpc.is_request_id(request_id):
                self.send(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"))
            return
        if isinstance(reply, PendingCall):
            self._start_call(reply, message.get("params"))
        elif reply is not None:
            self.send(reply)

    # -- calls --------------------------------------------------------------------------

    def _start_call(self, call: PendingCall, params: Any) -> None:
        """Run a call as a task whose handler may send progress and log notifications."""
        notify = _CallNotifier(self, call.request_id)
        token = DIRECT_REPLY.set(self.direct)
        try:
            with use_call_context(self._context(params, notify)):
                task = self.loop.create_task(call.coroutine)  # the task keeps this context
        finally:
            DIRECT_REPLY.reset(token)
        notify.running(task)
        self.connection.track(call.request_id, task)
        self._track(task)
        if len(self.calls) >= MAX_CALLS_IN_FLIGHT and self.reader and self.reader.is_reading():
            self.reader.pause_reading()  # a client that pipelines thousands of calls waits here

    def _start_batch(self, messages: list[Any]) -> None:
        """A 2025-03-26 batch: its calls run concurrently, one array answers them all."""

        def notify(notification: dict[str, Any]) -> None:
            self.send(notification)

        def context_for(params: Any) -> CallContext:
            return self._context(params, notify)

        self._track(
            self.loop.create_task(self.engine.handle_batch(messages, self.connection, context_for))
        )

    def _context(self, params: Any, notify: Callable[[dict[str, Any]], None]) -> CallContext:
        legacy_level = self.connection.log_level or DEFAULT_LEGACY_LOG_LEVEL
        return for_request(params, notify, legacy_log_level=legacy_level)

    def _track(self, task: asyncio.Task[Any]) -> None:
        self.calls.add(task)
        task.add_done_callback(self._call_done)

    def _call_done(self, task: asyncio.Task[Any]) -> None:
        self.calls.discard(task)
        if len(self.calls) <= MAX_CALLS_IN_FLIGHT // 2:
            self._resume_reading()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("a call failed unexpectedly", exc_info=exc)
            return
        reply = task.result()
        if reply is not None:
            self.send(reply)

    def _resume_reading(self) -> None:
        self.lines.resume()
        reader, writer = self.reader, self.writer
        if (
            reader is not None
            and not reader.is_reading()
            and not reader.is_closing()
            and (writer is None or not writer.paused)
        ):
            reader.resume_reading()


class _CallNotifier:
    """Sends one call's progress and log notifications, only while the call is in flight.

    It holds the call weakly: the call's context holds the notifier, so a strong reference
    would make a reference cycle (call, context, notifier) that only the garbage collector
    frees. Under pipelining, thousands of finished calls then wait for a full collection
    (about 1 MiB more peak RSS in the serve benchmark); this way each is freed at once.
    """

    __slots__ = ("_call", "_request_id", "_session")

    def __init__(self, session: _StdioSession, request_id: Any) -> None:
        self._session = session
        self._request_id = request_id
        self._call: Callable[[], object] = _nothing

    def running(self, call: object) -> None:
        """`call` (what `connection.inflight` holds for it) now runs."""
        self._call = weakref.ref(call)

    def __call__(self, notification: dict[str, Any]) -> None:  # from any thread
        # nothing more once a call has ended (answered or cancelled)
        call = self._call()
        if call is not None and self._session.connection.inflight.get(self._request_id) is call:
            self._session.send(notification)


def _nothing() -> None:
    return None


def _not_open(data: bytes, wait: bool) -> bool:
    raise RuntimeError("the stdio session is not running")


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
