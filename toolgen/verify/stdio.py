"""A server started as a command, spoken to over stdin/stdout, one JSON message per line.

A reader thread splits stdout into lines of at most `max_message()` bytes, and of at
most what is left of that limit once the lines read since the last request are counted:
a line past either is dropped as it arrives, never held whole (`Refused`, queued: the
answer awaited will not be read). JSON goes to a queue holding at most the limit in
bytes (more is dropped and noted: a server flooding messages costs no more), a line
over orjson's nesting limit is dropped (`Refused`, also queued), anything else is kept,
cut short, in `stdout_junk`
(MCP allows nothing but protocol on stdout). stderr is drained into a bounded
tail of bounded lines for error messages. The process gets its own session
(process group), so closing ends it and whatever it started, and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from toolgen.limits import MESSAGE_ENV, STDERR_LINE, Lines, TooLong, max_message, read_lines
from toolgen.verify.transport import (
    KEPT,
    ONE_ANSWER,
    Deadline,
    Exchange,
    Refused,
    Unreachable,
    Wanted,
    loads,
    too_large,
)

_EOF: Final = object()
STDERR_TAIL: Final = 40
"""stderr lines kept for messages about a server that went away."""
EXIT_GRACE: Final = 2.0
"""Seconds a server gets to exit after stdin closes, before it is terminated."""
HUNG_GRACE: Final = 0.1
"""Seconds a server that let a request time out gets to exit after stdin closes."""
JUNK_PREFIX: Final = 200
"""Bytes kept of each stdout line that is not JSON-RPC."""
CHUNK: Final = 65536


class StdioTarget:
    """Starts `command` (a shell-like string or an argv list) for every connection."""

    kind = "stdio"

    def __init__(self, command: str | Sequence[str], env: Mapping[str, str] | None = None) -> None:
        try:
            self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:  # an unclosed quote
            raise Unreachable(f"--server {command!r} is not a command line: {exc}") from None
        if not self.argv:
            raise Unreachable("--server names no command")
        self.env = dict(env) if env is not None else None

    def connect(self) -> StdioTransport:
        return StdioTransport(self.argv, self.env)


class StdioTransport:
    """One running server process."""

    kind = "stdio"

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise Unreachable(f"cannot start {shlex.join(argv)}: {exc.strerror or exc}") from None
        self.argv = argv
        self.stdout_junk: list[bytes] = []
        self.refused: list[str] = []
        self._limit = max_message()
        self._queue: queue.Queue[tuple[Any, int]] = queue.Queue()
        self._queued = 0
        """Bytes of the messages in the queue (as received)."""
        self._lines = Lines(self._limit)
        self._arrived = 0
        """Bytes of the lines read since the last request was sent; the lines reader is kept
        to what is left of the limit."""
        self._over = False
        """Whether a line was dropped since then (the rest until the next request is too)."""
        self._lock = threading.Lock()
        self._stderr: deque[bytes] = deque(maxlen=STDERR_TAIL)
        self._eof = False
        self._hung = False
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while chunk := os.read(fd, CHUNK):
            for line in self._lines.feed(chunk):
                self._take(line)
                del line  # not held while the next line is read
        if (last := self._lines.end()) is not None:
            self._take(last)
        self._queue.put((_EOF, 0))

    def _take(self, line: bytes | TooLong) -> None:
        """Decode and queue one line, or drop it: over the limit alone, or with what arrived
        since the last request (the lines reader is kept to what that leaves, so a line past
        it is dropped as it arrives)."""
        if isinstance(line, TooLong):
            with self._lock:
                alone, first = self._arrived == 0, not self._over
                self._over = True
            if alone:
                refusal = too_large("a stdout line", self._limit)
            elif not first:
                return  # the answer awaited already knows
            else:
                refusal = too_large(ONE_ANSWER, self._limit)
            self._note(str(refusal))
            self._offer(refusal, 0)
            return
        with self._lock:
            self._arrived += len(line)
            self._lines.limit = max(0, self._limit - self._arrived)
        try:
            message = loads(line) if line.strip() else None
        except orjson.JSONDecodeError:
            message = None
        except Refused as exc:
            self._note(str(exc))
            self._offer(exc, len(line))
            return
        if _is_jsonrpc(message):
            self._offer(message, len(line))
        elif line.strip() and len(self.stdout_junk) < KEPT:
            self.stdout_junk.append(line[:JUNK_PREFIX].rstrip(b"\r"))

    def _offer(self, item: Any, size: int) -> None:
        """Queue `item` (`size` bytes as received), unless the queue already holds the limit:
        then it is dropped, and that is noted."""
        with self._lock:
            full = self._queued > 0 and self._queued + size > self._limit
            self._queued += 0 if full else size
        if full:
            self._note(
                f"messages past {self._limit} bytes waiting to be read (a flood), dropped "
                f"unread (set {MESSAGE_ENV} to raise the limit)"
            )
        else:
            self._queue.put((item, size))

    def _note(self, refusal: str) -> None:
        if len(self.refused) < KEPT and refusal not in self.refused:
            self.refused.append(refusal)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        for line in read_lines(lambda: os.read(fd, CHUNK), STDERR_LINE):
            if isinstance(line, TooLong):
                line = f"[a line over {STDERR_LINE} bytes, dropped]".encode()
            self._stderr.append(line.rstrip(b"\r"))

    def exchange(
        self,
        payload: bytes,
        wanted: Wanted | None,
        timeout: float,
        headers: Mapping[str, str] | None = None,
        longest: float | None = None,
        token: Any = None,
    ) -> Exchange:
        found = Exchange()
        if wanted is not None:
            with self._lock:
                self._arrived, self._over, self._lines.limit = 0, False, self._limit
        if not self._write(payload):
            found.closed = True
            return found
        if wanted is None:
            return found
        deadline = Deadline(timeout, longest, token)
        while True:
            message = self._next(deadline.at)
            if isinstance(message, Refused):  # most likely the awaited reply: not waited for
                found.refused = str(message)
                return found
            if message is None:
                found.timed_out = not self._eof
                self._hung = found.timed_out and not found.progressed
                found.closed = self._eof
                return found
            found.received(message)
            if wanted(message):
                found.reply = message
                return found
            deadline.saw(message, found)

    def drain(self, grace: float) -> list[Any]:
        deadline = time.monotonic() + grace
        out = []
        while (message := self._next(deadline)) is not None:
            if not isinstance(message, Refused):
                out.append(message)
        return out

    def _write(self, payload: bytes) -> bool:
        stdin = self.process.stdin
        assert stdin is not None
        if not payload.endswith(b"\n"):
            payload += b"\n"
        try:
            stdin.write(payload)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def _next(self, deadline: float) -> Any:
        """The next message, or None at the deadline or at end of output."""
        if self._eof:
            return None
        try:
            item, size = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        with self._lock:
            self._queued -= size
        if item is _EOF:
            self._eof = True
            return None
        return item

    def alive(self) -> bool:
        return self.process.poll() is None and not self._eof

    def describe_exit(self) -> str:
        code = self.process.poll()
        if code is None and self._eof:  # stdout closed: the exit status follows shortly
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(EXIT_GRACE)
        state = "is still running" if code is None else f"exited with code {code}"
        tail = b"\n".join(list(self._stderr)[-5:]).decode("utf-8", "replace")
        return f"the server {state}" + (f"; its last stderr lines:\n{tail}" if tail else "")

    def close(self) -> None:
        """Close stdin, give the server a moment to exit, then end its process group.
        A server that let a request time out is not waited for: it is hung."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self.process.stdin.close()
        try:
            self.process.wait(HUNG_GRACE if self._hung else EXIT_GRACE)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(EXIT_GRACE)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(EXIT_GRACE)

    def _signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


def _is_jsonrpc(message: Any) -> bool:
    """A JSON-RPC message or batch (anything else on stdout breaks the stdio transport)."""
    if isinstance(message, list):
        return all(_is_jsonrpc(m) for m in message)
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0"
