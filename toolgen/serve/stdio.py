"""The stdio transport: one JSON-RPC message per line on stdin and stdout.

stdout carries protocol only: `serve_stdio` moves the real stdout to a private
descriptor and points file descriptor 1 (and `print`) at stderr, so stray output from
handlers or libraries cannot corrupt the stream. Logs go to stderr. Each message is one
write of a whole line, under one lock, from whichever thread sends it; a write waits
while the client does not read.

stdin is read on a handler thread (`toolgen.serve.calls.Workers`), the *reader*, which
handles each message as it reads it: the engine's `dispatch`, then `calls.start`, which
runs a sync handler right there (a call costs no hand-off between threads) and hands an
async one to the event loop. While the reader runs a call, nobody reads: once the call
has run `PROMOTE_AFTER`, the watchdog (on the event loop) makes another handler thread
the reader, and answers that call if it runs over the timeout; the old reader finishes
its call and goes back to the pool. Calls run concurrently and are answered by id, in
any order; reading waits while `MAX_CALLS_IN_FLIGHT` calls run. When stdin closes,
running calls get `SHUTDOWN_GRACE` seconds to answer, then are cancelled, and the server
exits.

A server whose tools may run as tasks dispatches on the loop instead (where the tasks
extension keeps its state): the reader waits for each message to be dispatched there.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import select
import sys
import threading
import time
import weakref
from typing import IO, Any, Final

import orjson

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

from toolgen.limits import DEFAULT_MAX_MESSAGE, TooLong, read_lines
from toolgen.serve import calls, jsonrpc
from toolgen.serve.calls import PendingCall
from toolgen.serve.connection import Connection, Response
from toolgen.serve.context import DEFAULT_LEGACY_LOG_LEVEL, CallContext, for_request
from toolgen.serve.engine import Engine, log
from toolgen.serve.handlers import unknown_handlers
from toolgen.serve.serving import log_to_stderr
from toolgen.serve.tools import Tools
from toolgen.spec import collector

SHUTDOWN_GRACE: Final = 2.0
"""Seconds that running calls get to answer after stdin closes."""
MAX_CALLS_IN_FLIGHT: Final = 64
"""Reading stdin waits while this many calls run: bounded memory under pipelining, and
calls queued in the pipe cost nothing."""
MAX_MESSAGE: Final = DEFAULT_MAX_MESSAGE
"""Longest line accepted (bytes); a longer one is dropped and answered with -32600."""
READ_SIZE: Final = 64 * 1024
"""Bytes read from stdin at a time."""
PROMOTE_AFTER: Final = 0.005
"""Seconds a call may run on the reader before another handler thread takes over reading."""
READER_NAME: Final = "toolgen-stdin"
"""The name of the handler thread while it reads stdin."""
END: Final = b"\n"
"""What reading gives at the end of input (never a line: lines have no newline)."""
PIPE_BUFFER: Final = 1 << 20
"""Bytes of the stdout pipe's kernel buffer asked for (Linux): a large `tools/list`
leaves in one write."""


async def run_stdio(
    engine: Engine,
    stdin: IO[bytes],
    stdout: IO[bytes],
    *,
    shutdown_grace: float = SHUTDOWN_GRACE,
) -> None:
    """Serve `engine` on a pair of binary streams until `stdin` reaches end of file (or the
    client closes `stdout`)."""
    session = _Session(engine, os.dup(stdin.fileno()), os.dup(stdout.fileno()))
    try:
        session.spawn_leader()
        await session.ended.wait()
        deadline = session.loop.time() + shutdown_grace
        while (session.connection.inflight or session.tasks) and session.loop.time() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0)  # a call taken off `inflight` just now sends its answer first
    finally:
        session.close()


class _Session:
    """One client on a pair of file descriptors (ours: closed at the end)."""

    def __init__(self, engine: Engine, stdin: int, stdout: int) -> None:
        self.engine = engine
        self.loop = asyncio.get_running_loop()
        self.connection = Connection()
        self.ended = asyncio.Event()
        self.tasks: set[asyncio.Task[Any]] = set()
        """Batches running on the loop."""
        self._in = stdin
        self._out = stdout
        self._lines = read_lines(lambda: _read(stdin), MAX_MESSAGE)
        self._write_lock = threading.Lock()
        """Taken for every message; this lock and `_lock` with `acquire`/`release` where a
        call passes (see `toolgen.serve.calls.Calls.lock`)."""
        self._closed = False
        self._on_loop = bool(engine.task_support)
        self._root = contextvars.copy_context()  # what a call on the leader starts from
        # The reader and the watchdog, under `_lock`: the number of the current reader, the
        # call it runs and since when, whether the watchdog ticks, whether a call started
        # since its last tick.
        self._lock = threading.Lock()
        self._leader = 0
        self._leading: tuple[PendingCall, float] | None = None
        self._ticking = False
        self._busy = False
        grow_pipe(stdout)

    def close(self) -> None:
        """The session is over: calls still running are cancelled, no reader goes on."""
        with self._lock:
            self._leader = -(1 << 62)  # (promotions still count up: never a reader's number)
        self.connection.cancel_all()
        with self._write_lock:
            if not self._closed:
                self._closed = True
                os.close(self._out)

    def _end(self) -> None:
        """End the session (end of input, or the client closed our output), from any thread."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: ended already
            self.loop.call_soon_threadsafe(self.ended.set)

    # -- writing ----------------------------------------------------------------------

    def send(self, message: Any) -> None:
        """Write one message as a line; one that cannot be serialized becomes an internal
        error."""
        try:
            data = jsonrpc.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
        except Exception:
            log.exception("could not serialize a response")
            request_id = message.get("id") if isinstance(message, dict) else None
            error = jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
            data = jsonrpc.dumps(error, option=orjson.OPT_APPEND_NEWLINE)
        rest: bytes | memoryview = data  # (a view only after a partial write: no copies)
        self._write_lock.acquire()
        try:
            while rest and not self._closed:
                try:
                    written = os.write(self._out, rest)
                    rest = memoryview(rest)[written:] if written < len(rest) else b""
                except BlockingIOError:  # stdout shares a non-blocking file (a socket)
                    select.select([], [self._out], [])
                except OSError:  # the client closed stdout: nobody reads answers any more
                    self._closed = True
                    os.close(self._out)
                    self._end()
        finally:
            self._write_lock.release()

    # -- reading ----------------------------------------------------------------------

    def spawn_leader(self) -> None:
        with self._lock:
            me = self._leader = self._leader + 1
        self._start_leader(me)

    def _start_leader(self, me: int) -> None:
        self.engine.calls.workers.run(lambda: self._lead(me))

    def _lead(self, me: int) -> None:
        """Read and handle lines while this thread is the reader (named so meanwhile)."""
        thread = threading.current_thread()
        thread.name, name = READER_NAME, thread.name
        leads = lambda: self._leader == me  # noqa: E731 (one read: no lock needed)
        try:
            while self.connection.wait_room(MAX_CALLS_IN_FLIGHT, leads):
                line = next(self._lines, END)
                if line is END:
                    os.close(self._in)
                    self._end()
                    return
                self._handle(line)
        except Exception:  # pragma: no cover - a bug here must end the server, not hang it
            log.exception("reading stdin failed")
            self._end()
        finally:
            thread.name = name

    def _handle(self, line: bytes | TooLong) -> None:
        """One line, on the leader."""
        if isinstance(line, TooLong):
            message = f"Message too large: the limit is {MAX_MESSAGE} bytes per line"
            self.send(jsonrpc.error(None, jsonrpc.INVALID_REQUEST, message))
            return
        line = line.strip()
        if not line:
            return
        try:
            message = jsonrpc.loads(line)
        except jsonrpc.JSONDecodeError:
            self.send(jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error: not valid JSON"))
            return
        if type(message) is list and self.engine.takes_batch(message, self.connection):
            self.loop.call_soon_threadsafe(self._start_batch, message)
            return
        try:
            reply: Any
            if self._on_loop:
                coroutine = self.engine.reply(message, self.connection)
                reply = asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()
            else:
                # Only the tasks extension's methods wait, and a server with tasks dispatches
                # on the loop (above): `dispatch` gives no awaitable here.
                reply = self.engine.dispatch(message, self.connection)
        except Exception:
            log.exception("internal error while handling a message")
            request_id = message.get("id") if isinstance(message, dict) else None
            if jsonrpc.is_request_id(request_id):
                self.send(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"))
            return
        if isinstance(reply, PendingCall):
            reply.new_context = self._context
            reply.log_level = self.connection.log_level
            reply.reply = self._reply
            self._run(reply)
        elif reply is not None:
            self.send(reply)

    def _context(self, call: PendingCall) -> CallContext:
        """A call's context, built when its handler first asks for it (most never do)."""
        legacy_level = call.log_level or DEFAULT_LEGACY_LOG_LEVEL
        return for_request(call.params, _Notifier(self, call), legacy_log_level=legacy_level)

    # -- calls ------------------------------------------------------------------------

    def _run(self, call: PendingCall) -> None:
        """`start` the call on the reader, watched: a sync handler runs right here, and the
        watchdog makes another thread the reader if it runs long."""
        self._lock.acquire()
        try:
            self._leading = (call, time.monotonic())
            self._busy = True
            start, self._ticking = not self._ticking, True
        finally:
            self._lock.release()
        if start:
            self.loop.call_soon_threadsafe(self._tick)
        self._root.copy().run(calls.start, call, self.loop)  # a context of its own, thrown away
        self._lock.acquire()
        try:
            if self._leading is not None and self._leading[0] is call:
                self._leading = None
        finally:
            self._lock.release()

    def _reply(self, response: Response | None) -> None:
        if response is not None:
            self.send(response)

    def _tick(self) -> None:
        """The watchdog, on the loop: makes another thread the reader when the call on the
        reader runs long. Ticks while calls come; stops when they do not."""
        now = time.monotonic()
        with self._lock:
            leading = self._leading
            if leading is None and not self._busy:
                self._ticking = False
                return
            self._busy = False
            promote = leading is not None and now - leading[1] >= PROMOTE_AFTER
            if promote:  # the old reader stops reading once it has answered its call
                self._leading = None
                me = self._leader = self._leader + 1
        if promote:
            assert leading is not None
            call, started = leading
            self._start_leader(me)
            if self.engine.calls.timeout is not None:
                left = started + self.engine.calls.timeout - now
                self.loop.call_later(max(left, 0.0), self._time_out, weakref.ref(call))
        self.loop.call_later(PROMOTE_AFTER, self._tick)

    def _time_out(self, ref: weakref.ref[PendingCall]) -> None:
        call = ref()  # (held weakly: a call that ended long before its timeout is freed)
        if call is not None and self.connection.claim(call.request_id, call):
            call.abandon()
            self.send(call.timed_out())

    def _start_batch(self, messages: list[Any]) -> None:
        """A 2025-03-26 batch: its calls run concurrently, one array answers them all."""
        legacy_level = self.connection.log_level or DEFAULT_LEGACY_LOG_LEVEL

        def context_for(params: Any) -> CallContext:
            return for_request(params, self.send, legacy_log_level=legacy_level)

        self._track(
            self.loop.create_task(self.engine.handle_batch(messages, self.connection, context_for))
        )

    def _track(self, task: asyncio.Task[Any]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("a batch failed unexpectedly", exc_info=exc)
            return
        self._reply(task.result())


class _Notifier:
    """Sends one call's progress and log notifications, only while the call is in flight.

    It holds the call weakly: the call's context holds the notifier, so a strong reference
    would make a reference cycle (call, context, notifier) that only the garbage collector
    frees; under pipelining thousands of finished calls would wait for a full collection.
    """

    __slots__ = ("_call", "_request_id", "_session")

    def __init__(self, session: _Session, call: PendingCall) -> None:
        self._session = session
        self._request_id = call.request_id
        self._call = weakref.ref(call)

    def __call__(self, notification: dict[str, Any]) -> None:  # from any thread
        call = self._call()
        if call is not None and self._session.connection.inflight.get(self._request_id) is call:
            self._session.send(notification)


def _read(fd: int) -> bytes:
    """The next bytes of `fd`, b"" at its end (pipes, files, terminals, sockets alike)."""
    while True:
        try:
            return os.read(fd, READ_SIZE)
        except BlockingIOError:  # stdin shares a non-blocking file with stdout (a socket)
            select.select([fd], [], [])
        except OSError:
            return b""


def grow_pipe(fd: int) -> None:
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is not None:
        with contextlib.suppress(OSError):  # not a pipe, or over the system limit
            fcntl.fcntl(fd, set_size, PIPE_BUFFER)


def serve_stdio(
    tools: Tools,
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
    collector.keep_forever()  # what is loaded so far lives as long as the server
    with _protocol_stdout() as out, contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_stdio(engine, sys.stdin.buffer, out, shutdown_grace=shutdown_grace))


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
