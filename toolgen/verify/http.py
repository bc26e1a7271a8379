"""A server reached over Streamable HTTP: one POST per payload, raw bytes in.

Built on the standard library's `http.client` (a kept-alive connection, no
client library between us and the wire), because probes must send what a
correct client never would. A POST answer is either `application/json` (one
message or a batch), `text/event-stream` (SSE events whose `data` is a message;
read until the awaited one arrives), or a bare status such as 202.
"""

from __future__ import annotations

import contextlib
import http.client
import time
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from toolgen.verify.transport import Deadline, Exchange, Unreachable, Wanted

CONNECT_TIMEOUT: Final = 10.0


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
        self._conn: http.client.HTTPConnection | None = None
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
    ) -> Exchange:
        found = Exchange()
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **self.target.headers,
            **(headers or {}),
        }
        for attempt in range(2):  # a kept-alive connection the server closed: reconnect once
            try:
                conn = self._connection(timeout)
                conn.request("POST", self.target.path, body=payload, headers=sent)
                response = conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self._drop()
                if attempt == 0:
                    continue
                return self._failed(found, exc)
            except TimeoutError:
                self._drop()
                found.timed_out = True
                return found
            except OSError as exc:
                self._drop()
                return self._failed(found, exc)
            break
        found.status = self._last_status = response.status
        found.headers = {k.lower(): v for k, v in response.getheaders()}
        try:
            self._read_body(response, found, wanted, Deadline(timeout, longest))
        except TimeoutError:
            found.timed_out = True
            self._drop()
        except (OSError, http.client.HTTPException) as exc:
            self._failed(found, exc)
        return found

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
            for message in _events(response, deadline):
                found.messages.append(message)
                if wanted is not None and wanted(message):
                    found.reply = message
                    self._drop()  # stop reading the stream: the rest is not ours to wait for
                    return
                deadline.saw(message, found)
            return
        body = response.read()
        if not body.strip():
            return
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            found.messages.append({"_unparsed_body": body[:200].decode("utf-8", "replace")})
            return
        found.messages.append(message)
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


def _events(response: http.client.HTTPResponse, deadline: Deadline) -> Any:
    """The JSON `data` of each SSE event, until the stream ends or the deadline passes
    (`deadline.at` is read afresh for each line: progress moves it)."""
    data: list[bytes] = []
    while time.monotonic() < deadline.at:
        line = response.readline()
        if not line:
            break
        line = line.rstrip(b"\r\n")
        if not line:
            if data:
                with contextlib.suppress(orjson.JSONDecodeError):
                    yield orjson.loads(b"\n".join(data))
                data = []
            continue
        if line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" "))
    if time.monotonic() >= deadline.at:
        raise TimeoutError
