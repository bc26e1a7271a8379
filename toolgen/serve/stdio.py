"""The stdio transport: one JSON-RPC message per line on stdin and stdout.

stdout carries protocol only: `serve_stdio` moves the real stdout to a
private descriptor and points file descriptor 1 (and `print`) at stderr, so
stray output from handlers or libraries cannot corrupt the stream. Logs go
to stderr. Requests are read and answered in order, except `tools/call`,
whose handlers run concurrently (so responses may come back in any order,
matched by id); their handlers may send progress and log notifications
(`toolgen.serve.context.current_call()`). A sync handler's worker thread writes
its call's response itself (`DirectReply`), and its notifications, under the lock
that every write to stdout takes. When stdin closes, calls still running get a short grace
period to answer, then are cancelled, and the server exits.

Where stdin is read: when sync handlers run off the event loop (the default for sync
handlers), stdin is read on a thread (`toolgen.serve.reading`), and a sync call that
arrives while no other call is in flight runs on that thread, with no hand-off to a
worker; the loop keeps watch over it (timeout, cancellation, handing reading to a new
thread when it runs long) and runs everything else. Otherwise (only async or inline
handlers, tools that run as tasks) the event loop reads stdin itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import IO, Any, Final

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

from toolgen.serve import jsonrpc
from toolgen.serve.connection import DIRECT_REPLY, Connection, DirectReply, PendingCall
from toolgen.serve.context import (
    DEFAULT_LEGACY_LOG_LEVEL,
    CallContext,
    for_request,
    install_call_context,
    use_call_context,
)
from toolgen.serve.engine import Engine, log
from toolgen.serve.handlers import unknown_handlers
from toolgen.serve.pipes import MAX_MESSAGE, LineReader, Writer, open_reader, open_writer
from toolgen.serve.reading import PROMOTE_AFTER, Leaders, ThreadCall
from toolgen.serve.serving import log_to_stderr
from toolgen.serve.toolset import RuntimeToolSet

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
        # Reading on threads (see the module docs): the leaders, messages handed to the loop
        # and not handled yet (later ones follow them there, in order), the call running
        # on a reading thread, and the watchdog's state.
        self.leaders: Leaders | None = None
        self._handed = 0
        self._here: ThreadCall | None = None
        self._watch_lock = threading.Lock()
        self._root = contextvars.copy_context()  # what a call on a reading thread starts from
        self._watching = False
        self._active = False

    async def run(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        """Serve until end of file, then give running calls a grace period and cancel them."""
        self._write, close_writer, self.writer = await open_writer(self.loop, stdout, self.eof.set)
        if self.engine.calls.runs_threads and not self.engine.task_support:
            self.leaders = Leaders(
                stdin.fileno(), self._thread_line, self._oversize, self._held, self._thread_eof
            )
            self.leaders.start()
        else:
            self.reader = await open_reader(self.loop, stdin, self.lines)
            if self.writer is not None:
                self.writer.reader = self.reader
        await self.eof.wait()
        deadline = self.loop.time() + self.shutdown_grace
        running = list(self.calls)
        if running:
            await asyncio.wait(running, timeout=self.shutdown_grace)
        while self._running_here() and self.loop.time() < deadline:
            await asyncio.sleep(PROMOTE_AFTER)
        if self.leaders is not None:
            self.leaders.close()
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
        """One line read by the event loop (or handed to it by a reading thread)."""
        self._receive(line, self._start_call, self._start_batch)

    def _receive(
        self,
        line: bytes,
        start_call: Callable[[PendingCall, Any], None],
        start_batch: Callable[[list[Any]], None],
    ) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = jsonrpc.loads(line)
        except jsonrpc.JSONDecodeError:
            self.send(jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error: not valid JSON"))
            return
        if self.engine.takes_batch(message, self.connection):
            start_batch(message)
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
            start_call(reply, message.get("params"))
        elif reply is not None:
            self.send(reply)

    # -- reading on threads (see toolgen.serve.reading) -------------------------------

    def _thread_line(self, line: bytes) -> None:
        """One line, on the leader thread: handled here unless the loop must see it."""
        if self._handed:  # earlier messages wait on the loop: this one follows them there
            self._hand(self._on_line, line)
            return
        try:
            self._receive(line, self._thread_call, self._thread_batch)
        except Exception:  # pragma: no cover - _receive answers every error itself
            log.exception("internal error while handling a message")

    def _thread_call(self, call: PendingCall, params: Any) -> None:
        """Run a sync call right here when it is the only one in flight (the sequential
        case: no thread hand-off on its path); anything else goes to the loop."""
        blocking = call.blocking
        if (
            blocking is None
            or self.connection.inflight
            or not self.engine.calls.may_block_elsewhere
        ):
            self._hand(self._start_call, call, params)
            return
        self._run_here(call.request_id, blocking, params)

    def _thread_batch(self, messages: list[Any]) -> None:
        self._hand(self._start_batch, messages)

    def _hand(self, handler: Callable[..., None], *args: Any) -> None:
        """Have the loop run `handler(*args)`, after everything handed to it before."""
        with self._watch_lock:
            self._handed += 1
        with contextlib.suppress(RuntimeError):  # the loop is closed: the session is over
            self.loop.call_soon_threadsafe(self._handed_over, handler, args)

    def _handed_over(self, handler: Callable[..., None], args: tuple[Any, ...]) -> None:
        try:
            handler(*args)
        finally:
            with self._watch_lock:
                self._handed -= 1

    def _run_here(self, request_id: Any, blocking: Any, params: Any) -> None:
        """Run one sync call on this (leader) thread and answer it, unless it was cancelled
        or timed out meanwhile (the watchdog answers a timeout)."""
        notify = _CallNotifier(self, request_id)
        here = ThreadCall(request_id, blocking, self._context(params, notify), self._give_up)
        notify.running(here)
        self.connection.enter(request_id, here)
        self._here = here
        self._watch()
        try:
            response = self._root.copy().run(_run_in, here.context, blocking.run)
            if self.connection.claim(request_id, here):
                self.send(response)
        finally:
            assert self.leaders is not None
            if self.leaders.finish(here):
                self.engine.calls.stuck_elsewhere(blocking.name, False)

    def _give_up(self, here: ThreadCall) -> None:
        """A call on a reading thread ended first (cancelled, timed out, shutdown): tell its
        handler, and count it stuck while it still runs."""
        here.context.cancel()
        if self.leaders is not None and self.leaders.abandon(here):
            self.engine.calls.stuck_elsewhere(here.blocking.name, True)

    def _watch(self) -> None:
        """A call started on a reading thread: make sure the watchdog ticks."""
        if self._active and self._watching:  # (the ticker reads `_here` first: no lock needed)
            return
        with self._watch_lock:
            self._active = True
            if self._watching:
                return
            self._watching = True
        with contextlib.suppress(RuntimeError):  # the loop is closed: the session is over
            self.loop.call_soon_threadsafe(self._tick)

    def _tick(self) -> None:
        """The watchdog, on the loop: times out the call on the reading thread and promotes
        a new leader when it runs long. Ticks while calls come; stops when they do not."""
        here, now = self._here, time.monotonic()
        delay, needed = PROMOTE_AFTER, False
        if here is not None and not here.finished:
            in_flight = self.connection.inflight.get(here.request_id) is here
            if in_flight and here.overdue(now) and self.connection.claim(here.request_id, here):
                in_flight = False
                self._give_up(here)
                self.send(here.blocking.timed_out())
            if now - here.started >= PROMOTE_AFTER and self.leaders is not None:
                self.leaders.promote(here)
            timed = in_flight and here.blocking.timeout is not None
            needed = not here.promoted or timed
            if timed:
                delay = here.next_check(now)
        with self._watch_lock:
            if not self._active and not needed:
                self._watching = False
                return
            self._active = False
        self.loop.call_later(delay, self._tick)

    def _running_here(self) -> bool:
        here = self._here
        return (
            here is not None
            and not here.finished
            and self.connection.inflight.get(here.request_id) is here
        )

    def _held(self) -> bool:
        """Whether the reading thread should wait: too many calls in flight, or the client
        does not read our output."""
        return len(self.calls) + self._handed >= MAX_CALLS_IN_FLIGHT or (
            self.writer is not None and self.writer.paused
        )

    def _thread_eof(self) -> None:
        self._hand(self.eof.set)

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
        if len(self.calls) >= MAX_CALLS_IN_FLIGHT and self.reader:
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
        if self.leaders is not None:
            self.leaders.wake()
            return
        self.lines.resume()
        reader, writer = self.reader, self.writer
        if reader is not None and not reader.is_closing() and (writer is None or not writer.paused):
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


def _run_in(context: CallContext, run: Callable[[], Any]) -> Any:
    """`run()` with `context` as the current call's; run it in a `contextvars.Context` of
    its own (a copy), which is thrown away afterwards."""
    install_call_context(context)
    return run()


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
