"""A server reached over Streamable HTTP: one POST per payload, raw bytes in.

Built on the standard library's `http.client` (a kept-alive connection, no
client library between us and the wire), because probes must send what a
correct client never would. A POST answer is either `application/json` (one
message or a batch), `text/event-stream` (SSE events whose `data` is a message;
read until the awaited one arrives), or a bare status such as 202.

Bounds: a body, one event's data and the events of one answer together are read up to
`max_message()` bytes (more is `Refused` and the connection dropped); http.client bounds the status line and each
header line (64 KiB) and the header count (100); a watchdog shuts the socket down
when the exchange's deadline passes, so a server dripping a header, a body or an
event stream costs at most the timeout (renewed by progress, up to `longest`).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from toolgen.limits import TooLong, max_message, read_lines
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

CONNECT_TIMEOUT: Final = 10.0
CHUNK: Final = 65536


class HttpTarget:
    """Connects to `url` (`http://` or `https://`), sending `headers` with every request."""

    kind = "http"

    def __init__(self, url: str, headers: Mapping[str, str] | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Unreachable(f"--url must be an http:// or https:// URL, not {url!r}")
        self.url = url
        self.secure = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.secure else 80)
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.headers = dict(headers or {})

    def connect(self) -> HttpTransport:
        return HttpTransport(self)


class HttpTransport:
    """A kept-alive HTTP connection; reconnects when the server closes it."""

    kind = "http"

    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.stdout_junk: list[bytes] = []
        self.refused: list[str] = []
        self._limit = max_message()
        self._conn: http.client.HTTPConnection | None = None
        self._sock: socket.socket | None = None
        """The connection's socket, also once a response that closes it has taken it."""
        self._last_error = ""
        self._last_status: int | None = None
        try:
            self._connection(CONNECT_TIMEOUT).connect()
        except OSError as exc:
            self._drop()
            raise Unreachable(f"cannot reach {target.url}: {exc}") from None

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            factory = (
                http.client.HTTPSConnection if self.target.secure else http.client.HTTPConnection
            )
            self._conn = factory(self.target.host, self.target.port, timeout=timeout)
        self._conn.timeout = timeout
        if self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

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
        deadline = Deadline(timeout, longest, token)
        watchdog = Watchdog(deadline, self._interrupt)
        try:
            self._exchange(payload, wanted, timeout, headers, found, deadline)
        except Refused as exc:
            found.refused = str(exc)
            if len(self.refused) < KEPT:
                self.refused.append(found.refused)
            self._drop()  # the rest of the answer is not read
        finally:
            watchdog.stop()
        if watchdog.fired:
            self._drop()
            if not found.answered:
                found.timed_out, found.closed, self._last_error = True, False, ""
        return found

    def _exchange(
        self,
        payload: bytes,
        wanted: Wanted | None,
        timeout: float,
        headers: Mapping[str, str] | None,
        found: Exchange,
        deadline: Deadline,
    ) -> None:
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **self.target.headers,
            **(headers or {}),
        }
        for attempt in range(2):  # a kept-alive connection the server closed: reconnect once
            try:
                conn = self._connection(timeout)
                if conn.sock is None:
                    conn.connect()
                self._sock = conn.sock
                conn.request("POST", self.target.path, body=payload, headers=sent)
                response = conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self._drop()
                if attempt == 0:
                    continue
                self._failed(found, exc)
                return
            except TimeoutError:
                self._drop()
                found.timed_out = True
                return
            except (OSError, http.client.HTTPException) as exc:  # a header line over 64 KiB
                self._drop()
                self._failed(found, exc)
                return
            break
        found.status = self._last_status = response.status
        found.headers = {k.lower(): v for k, v in response.getheaders()}
        try:
            self._read_body(response, found, wanted, deadline)
        except TimeoutError:
            found.timed_out = True
            self._drop()
        except (OSError, http.client.HTTPException) as exc:
            self._failed(found, exc)

    def _interrupt(self) -> None:
        """End a read in progress (from another thread): the socket is shut down."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)

    def _failed(self, found: Exchange, exc: BaseException) -> Exchange:
        self._last_error = f"{type(exc).__name__}: {exc}"
        found.closed = True
        return found

    def _read_body(
        self,
        response: http.client.HTTPResponse,
        found: Exchange,
        wanted: Wanted | None,
        deadline: Deadline,
    ) -> None:
        kind = response.getheader("Content-Type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            for message in _events(response, self._limit):
                found.received(message)
                if wanted is not None and wanted(message):
                    found.reply = message
                    self._drop()  # stop reading the stream: the rest is not ours to wait for
                    return
                deadline.saw(message, found)
            return
        body = _body(response, self._limit)
        if not body.strip():
            return
        try:
            message = loads(body)
        except orjson.JSONDecodeError:
            return
        found.received(message)
        if wanted is not None and wanted(message):
            found.reply = message

    def drain(self, grace: float) -> list[Any]:
        return []

    def alive(self) -> bool:
        return True

    def describe_exit(self) -> str:
        url = self.target.url
        if self._last_error or self._last_status is None or self._last_status < 400:
            detail = f" ({self._last_error})" if self._last_error else ""
            return f"the server at {url} stopped answering{detail}"
        if self._last_status in (401, 403):
            return (
                f"the server at {url} refused the request (HTTP {self._last_status}): pass "
                "credentials with --header, e.g. --header 'Authorization: Bearer TOKEN'"
            )
        return f"the server at {url} answered HTTP {self._last_status}"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._drop()


class Watchdog:
    """Calls `expire` once `deadline` passes (read afresh: progress moves it), unless
    stopped first: a read stuck on a dripping server ends there."""

    def __init__(self, deadline: Deadline, expire: Callable[[], None]) -> None:
        self.fired = False
        self._done = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self._watch, args=(deadline, expire), daemon=True).start()

    def _watch(self, deadline: Deadline, expire: Callable[[], None]) -> None:
        while not self._done.wait(deadline.left()):
            with self._lock:
                if not self._done.is_set() and deadline.left() <= 0:
                    self.fired = True
                    expire()
                    return

    def stop(self) -> None:
        """After this, `expire` is not called (and `fired` no longer changes)."""
        with self._lock:
            self._done.set()


def _body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The whole body, read in chunks; `Refused` once it passes `limit` bytes."""
    parts: list[bytes] = []
    size = 0
    while chunk := response.read(CHUNK):
        size += len(chunk)
        if size > limit:
            raise too_large("an HTTP body", limit)
        parts.append(chunk)
    return b"".join(parts)


def _events(response: http.client.HTTPResponse, limit: int) -> Any:
    """The JSON `data` of each SSE event until the stream ends; `Refused` for a line, an
    event's data, or the events so far together, over `limit` bytes."""
    data: list[bytes] = []
    size = total = 0
    for line in read_lines(lambda: response.read1(CHUNK), limit):
        if isinstance(line, TooLong):
            raise too_large("a server-sent event line", limit)
        line = line.rstrip(b"\r")
        if not line:
            if data:
                total += size
                if total > limit:  # not decoded: what one answer brings is bounded in all
                    raise too_large(ONE_ANSWER, limit)
                with contextlib.suppress(orjson.JSONDecodeError):
                    yield loads(b"\n".join(data))
                data, size = [], 0
            continue
        if line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" "))
            size += len(data[-1]) + 1
            if size > limit:
                raise too_large("a server-sent event's data", limit)
