"""What `verify` needs from a connection to a server: raw frames in, decoded messages out.

Protocol probes send bytes no MCP client library would (malformed JSON, batches),
so a transport takes a payload as bytes and reports everything that came back:
the decoded JSON-RPC messages, lines that were not JSON (a log line on stdout),
the HTTP status, and whether the wait for an answer ran out. Every read is bounded
by a timeout (a server that hangs costs at most that long) and by `toolgen.limits`:
a message over a limit, or messages that together pass one while verify waits for an
answer, are dropped unread, and the exchange and the connection say so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import orjson

from toolgen.limits import MAX_DEPTH, MESSAGE_ENV

Wanted = Callable[[Any], bool]
"""Whether a received message is the one an exchange waits for."""
PROGRESS: Final = "notifications/progress"
KEPT: Final = 20
"""Junk lines and refusals a connection keeps (the first ones)."""


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """`value` as JSON bytes. Integers beyond 64 bits (JSON has no limit; orjson has, and
    generated inputs reach it) go through the standard library; anything else that is
    not JSON is written as its `repr`."""
    try:
        return orjson.dumps(value, default=repr, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, default=repr).encode()


class Unreachable(Exception):
    """The server cannot be started or reached at all (the command exits 2)."""


class Refused(Exception):
    """A message verify did not read: it is over one of verify's limits (the text says
    which, and how to raise it where it can be raised)."""


ONE_ANSWER: Final = "what came while waiting for one answer (notifications and answer together)"
"""What the message limit also bounds in all (`too_large`)."""


def too_large(what: str, limit: int) -> Refused:
    return Refused(
        f"{what} over verify's limit of {limit} bytes, dropped unread (set {MESSAGE_ENV} to "
        "raise it)"
    )


def loads(raw: bytes) -> Any:
    """`raw` as JSON: `Refused` when nested deeper than `MAX_DEPTH` (orjson's limit),
    `orjson.JSONDecodeError` when it is not JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in exc.msg:  # orjson: "depth limit exceeded"
            raise Refused(
                f"a message nested more than {MAX_DEPTH} levels deep, dropped unread (a fixed "
                "limit of verify, orjson's)"
            ) from None
        raise


@dataclass(slots=True)
class Exchange:
    """What came back for one payload."""

    reply: Any = None
    """The awaited message, or None when none came (see `timed_out`, `closed`)."""
    messages: list[Any] = field(default_factory=list)
    """The responses received while waiting, the reply included, in arrival order
    (notifications are looked at as they come, for progress, and not kept)."""
    status: int | None = None
    """The HTTP status (None over stdio)."""
    headers: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False
    closed: bool = False
    """The server went away (process exited, connection refused or dropped)."""
    progressed: bool = False
    """A progress notification came while waiting (a timeout then is not a hang)."""
    refused: str | None = None
    """Why a message that came while waiting was dropped unread (over a limit); the wait
    ended there."""

    def received(self, message: Any) -> None:
        if any_response(message):
            self.messages.append(message)

    @property
    def answered(self) -> bool:
        return self.reply is not None


def any_response(message: Any) -> bool:
    """Whether a message is a response or a batch of them (a `wanted` predicate too)."""
    if isinstance(message, list):
        return True
    return isinstance(message, dict) and ("result" in message or "error" in message)


class Deadline:
    """The end of one wait: `timeout` seconds from now, moved on by each progress
    notification for the request's `token` (MCP lets a client reset its timeout on
    progress) but never past `longest` seconds from the start (nor ever, when `longest` is
    None). Progress of another request (one given up on) moves nothing."""

    __slots__ = ("at", "limit", "timeout", "token")

    def __init__(self, timeout: float, longest: float | None = None, token: Any = None) -> None:
        now = time.monotonic()
        self.timeout = timeout
        self.token = token
        self.at = now + timeout
        self.limit = now + longest if longest is not None and longest > timeout else self.at

    def saw(self, message: Any, found: Exchange) -> None:
        """Note a message that arrived while waiting."""
        if (
            self.limit > self.at
            and isinstance(message, dict)
            and message.get("method") == PROGRESS
            and isinstance(params := message.get("params"), dict)
            and params.get("progressToken") == self.token
        ):
            found.progressed = True
            self.at = min(time.monotonic() + self.timeout, self.limit)

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())


class Transport(Protocol):
    """One connection to a server (a process over stdio, or an HTTP endpoint)."""

    kind: str
    """`stdio` or `http`."""
    stdout_junk: list[bytes]
    """stdout lines that were not JSON (stdio), each cut to a short prefix; never filled
    over HTTP."""
    refused: list[str]
    """What verify did not read from this connection, and why (a few at most)."""

    def exchange(
        self,
        payload: bytes,
        wanted: Wanted | None,
        timeout: float,
        headers: Mapping[str, str] | None = None,
        longest: float | None = None,
        token: Any = None,
    ) -> Exchange:
        """Send `payload`; wait (at most `timeout` s) for a message `wanted` accepts.

        `wanted=None` sends without waiting for any answer (a notification). With
        `longest`, each progress notification for `token` renews the `timeout` (see
        `Deadline`). Everything that arrives while waiting is read up to `max_message()`
        bytes in all, the answer included; past that the rest is dropped unread and the
        exchange is `refused`."""
        ...

    def drain(self, grace: float) -> list[Any]:
        """Messages that arrive within `grace` seconds (stdio; HTTP answers per request)."""
        ...

    def alive(self) -> bool: ...

    def describe_exit(self) -> str:
        """Why the server went away, for messages (exit code, last stderr lines)."""
        ...

    def close(self) -> None: ...


class Target(Protocol):
    """How to open connections to the server under test."""

    kind: str
    """`stdio` or `http`."""

    def connect(self) -> Transport:
        """A new connection; `Unreachable` when the server cannot be started or reached."""
        ...
