"""What `verify` needs from a connection to a server: raw frames in, decoded messages out.

Protocol probes send bytes no MCP client library would (malformed JSON, batches),
so a transport takes a payload as bytes and reports everything that came back:
the decoded JSON-RPC messages, lines that were not JSON (a log line on stdout),
the HTTP status, and whether the wait for an answer ran out. Every read is bounded
by a timeout: a server that hangs costs at most that long.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

Wanted = Callable[[Any], bool]
"""Whether a received message is the one an exchange waits for."""


class Unreachable(Exception):
    """The server cannot be started or reached at all (the command exits 2)."""


@dataclass(slots=True)
class Exchange:
    """What came back for one payload."""

    reply: Any = None
    """The awaited message, or None when none came (see `timed_out`, `closed`)."""
    messages: list[Any] = field(default_factory=list)
    """Every message received while waiting, the reply included, in arrival order."""
    status: int | None = None
    """The HTTP status (None over stdio)."""
    headers: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False
    closed: bool = False
    """The server went away (process exited, connection refused or dropped)."""

    @property
    def answered(self) -> bool:
        return self.reply is not None


class Transport(Protocol):
    """One connection to a server (a process over stdio, or an HTTP endpoint)."""

    kind: str
    """`stdio` or `http`."""
    stdout_junk: list[bytes]
    """stdout lines that were not JSON (stdio); never filled over HTTP."""

    def exchange(
        self,
        payload: bytes,
        wanted: Wanted | None,
        timeout: float,
        headers: Mapping[str, str] | None = None,
    ) -> Exchange:
        """Send `payload`; wait (at most `timeout` s) for a message `wanted` accepts.

        `wanted=None` sends without waiting for any answer (a notification)."""
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
