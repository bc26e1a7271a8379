"""stdin and stdout as asyncio pipes: line splitting, flow control, thread-safe output.

The stdio transport (`toolgen.serve.stdio`) builds on these. Pipes and sockets
are watched by the event loop; files, terminals and /dev/null are read on a
thread (epoll refuses them). Every write to stdout, from the loop or a worker
thread, goes through one lock, so lines never interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import Callable
from typing import IO, Any, Final

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]


READ_SIZE: Final = 64 * 1024
"""Bytes read from stdin at a time (below malloc's mmap threshold)."""
MAX_MESSAGE: Final = 64 * 1024 * 1024
"""Longest line accepted (bytes); a longer one is dropped and answered with -32600."""


class LineReader(asyncio.Protocol):
    """Splits the incoming bytes into lines and hands each to `on_line`.

    A partial line is kept as a list of chunks (joined once, when its newline
    arrives), so a long message costs linear time; one over `MAX_MESSAGE` is
    dropped up to its newline and reported with `on_oversize`.
    """

    def __init__(
        self,
        on_line: Callable[[bytes], None],
        on_eof: Callable[[], None],
        on_oversize: Callable[[], None],
        hold: Callable[[], bool] = lambda: False,
    ) -> None:
        self._on_line = on_line
        self._on_eof = on_eof
        self._on_oversize = on_oversize
        self._hold_lines = hold
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False
        self._closed = False
        self._backlog = b""  # bytes not split yet because `hold()` said stop
        self._eof_pending = False

    def resume(self) -> None:
        """Hand on the lines kept back while `hold()` was true (and a pending end of input)."""
        data, self._backlog = self._backlog, b""
        if data:
            self.data_received(data)
        if self._eof_pending and not self._backlog:
            self._eof_pending = False
            self.connection_lost(None)

    def data_received(self, data: bytes) -> None:
        if self._backlog:  # lines still held back: keep the order
            self._backlog += data
            return
        if b"\n" not in data:
            self._hold(data)
            return
        if self._parts:
            self._parts.append(data)
            data = b"".join(self._parts)
            self._parts, self._size = [], 0
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            if self._skipping:
                self._skipping = False  # the end of an oversize message: drop it
            else:
                self._on_line(data[start:end])
            start = end + 1
            if self._hold_lines() and start < len(data):
                self._backlog = data[start:]  # the consumer is full: wait for resume()
                return
        if start < len(data):
            self._hold(data[start:])

    def _hold(self, data: bytes) -> None:
        if self._skipping:
            return
        self._size += len(data)
        if self._size > MAX_MESSAGE:
            self._parts, self._size, self._skipping = [], 0, True
            self._on_oversize()
        else:
            self._parts.append(data)

    def eof_received(self) -> bool:
        self.connection_lost(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self._closed:
            return
        if self._backlog:  # the end of input comes after the lines held back
            self._eof_pending = True
            return
        self._closed = True
        if self._parts and not self._skipping:
            line = b"".join(self._parts)
            self._parts = []
            self._on_line(line)
        self._on_eof()


class Output:
    """Every write to a non-blocking stdout pipe, from the loop or any thread, under one lock.

    The loop writes through the asyncio transport (which buffers when the pipe is full).
    Another thread writes straight to the pipe while nothing is buffered, without waking
    the loop; otherwise, or for what did not fit, it hands the bytes to the loop, in order.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, transport: asyncio.WriteTransport, fd: int):
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._transport = transport
        self._fd = os.dup(fd)  # ours: never a reused number once the transport closes
        self._lock = threading.Lock()
        self._handoff: list[bytes] = []
        self._closed = False

    def write(self, data: bytes, wait: bool = True) -> bool:
        """Write `data`; False (nothing written) when `wait` is False and another thread is
        writing: then the caller leaves it to the loop rather than queue up on the lock."""
        if not self._lock.acquire(blocking=wait):
            return False
        try:
            self._write(data)
        finally:
            self._lock.release()
        return True

    def _write(self, data: bytes) -> None:
        if self._closed:
            return
        if threading.get_ident() == self._loop_thread:
            self._transport.write(b"".join([*self._handoff, data]))
            self._handoff.clear()
            return
        if self._transport.is_closing():
            return  # the client closed stdout: nobody reads answers any more
        if not self._handoff and not self._transport.get_write_buffer_size():
            try:
                sent = os.write(self._fd, data)
            except BlockingIOError:
                sent = 0
            except OSError:  # the client closed stdout: the transport reports it
                return
            if sent == len(data):
                return
            data = data[sent:]
        self._handoff.append(data)
        if len(self._handoff) == 1:
            self._loop.call_soon_threadsafe(self._flush)

    def _flush(self) -> None:
        with self._lock:
            if self._handoff and not self._closed:
                self._transport.write(b"".join(self._handoff))
            self._handoff.clear()

    def close(self) -> None:
        self._flush()
        with self._lock:
            self._closed = True
            self._transport.close()
            os.close(self._fd)


class Writer(asyncio.Protocol):
    """Write side of a pipe: flow control (pause reading while the client does not read our
    output) and a future that is done when the transport has flushed and closed."""

    def __init__(self, on_lost: Callable[[], None]) -> None:
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.reader: asyncio.ReadTransport | None = None
        self.paused = False
        self._on_lost = on_lost

    def pause_writing(self) -> None:
        self.paused = True
        # Pausing or resuming twice does nothing; asking `is_reading()` first would fail on the
        # pipe transport of Python 3.11.0-3.11.3, which lacks it.
        if self.reader is not None:
            self.reader.pause_reading()

    def resume_writing(self) -> None:
        self.paused = False
        if self.reader is not None and not self.reader.is_closing():
            self.reader.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        self._on_lost()  # the client closed our stdout: nobody reads answers any more


def pollable(stream: IO[bytes]) -> bool:
    """Whether the event loop can watch `stream`: pipes and sockets, not files or devices
    (epoll refuses a regular file or /dev/null, and only says so once the loop runs)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def open_reader(
    loop: asyncio.AbstractEventLoop, stdin: IO[bytes], protocol: LineReader
) -> asyncio.ReadTransport | None:
    """Feed `protocol` from `stdin`; the transport (None when a thread reads instead)."""
    if pollable(stdin):
        try:
            transport, _ = await loop.connect_read_pipe(lambda: protocol, stdin)
            # asyncio reads up to 256 KiB at a time: a buffer that large is mmap'ed and
            # unmapped on every read, which costs more than the rest of a small call.
            if hasattr(transport, "max_size"):
                transport.max_size = READ_SIZE
            return transport
        except (ValueError, OSError):  # not pollable after all: fall back to a reader thread
            pass

    def pump() -> None:  # blocking reads on a thread (files, terminals, /dev/null)
        try:
            while chunk := stdin.readline():
                loop.call_soon_threadsafe(protocol.data_received, chunk)
        finally:
            loop.call_soon_threadsafe(protocol.connection_lost, None)

    threading.Thread(target=pump, name="toolgen-stdin", daemon=True).start()
    return None


async def open_writer(
    loop: asyncio.AbstractEventLoop, stdout: IO[bytes], on_lost: Callable[[], None]
) -> tuple[Callable[[bytes, bool], bool], Callable[[], Any], Writer | None]:
    """(write, close, protocol): a non-blocking pipe transport, else blocking writes."""
    if pollable(stdout):
        grow_pipe(stdout)
        try:
            transport, protocol = await loop.connect_write_pipe(lambda: Writer(on_lost), stdout)
        except ValueError:  # a regular file: plain blocking writes
            pass
        else:
            output = Output(loop, transport, stdout.fileno())

            async def close() -> None:
                output.close()
                await protocol.closed

            return output.write, close, protocol

    lock = threading.Lock()

    def write(data: bytes, wait: bool = True) -> bool:  # blocking writes, from any thread
        if not lock.acquire(blocking=wait):
            return False
        try:
            stdout.write(data)
            stdout.flush()
        finally:
            lock.release()
        return True

    async def flush() -> None:
        stdout.flush()

    return write, flush, None


PIPE_BUFFER: Final = 1 << 20
"""Bytes of the stdout pipe's kernel buffer we ask for (Linux), so a large `tools/list`
leaves in one write instead of a loop iteration per 64 KiB."""


def grow_pipe(stream: IO[bytes]) -> None:
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is None:
        return
    with contextlib.suppress(OSError, ValueError):  # not a pipe, or over the system limit
        fcntl.fcntl(stream.fileno(), set_size, PIPE_BUFFER)
