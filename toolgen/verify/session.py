"""One MCP conversation at one protocol revision, over any transport.

Legacy revisions (2025-03-26 … 2025-11-25) open with the `initialize`
handshake; the stateless revision (2026-07-28) has none: every request names
its version and the client's capabilities in `params._meta` (and, over HTTP,
in the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers). The
session numbers requests, adds what the revision needs, and hands back the
`Exchange` with the raw reply so that checks can judge it.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Mapping
from typing import Any, Final

from toolgen.limits import MAX_PAGES
from toolgen.spec.protocol import is_modern
from toolgen.verify.transport import Exchange, Transport, any_response, dumps

VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO: Final = {"name": "toolgen-verify", "version": "1"}
LISTING_TIMEOUTS: Final = 10
"""A whole `tools/list`, all its pages, gets at most this many `--timeout`s."""
STARTUP: Final = 20.0
"""Seconds the opening request over stdio waits at least: a server just started (Node,
Python imports) may take longer to answer its first request than any later one. (A server
reached by URL is already running: `--timeout` holds from its first request.)"""


def request_message(request_id: int, method: str, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def answers(request_id: Any) -> Any:
    """A `wanted` predicate: a response to `request_id`."""

    def wanted(message: Any) -> bool:
        return (
            isinstance(message, dict)
            and message.get("id") == request_id
            and ("result" in message or "error" in message)
        )

    return wanted


class Session:
    """Requests at `revision` over `transport`; `open()` first."""

    def __init__(self, transport: Transport, revision: str, timeout: float) -> None:
        self.transport = transport
        self.revision = revision
        self.timeout = timeout
        self.modern = is_modern(revision)
        self.http_headers: dict[str, str] = {}
        self._ids = itertools.count(1)

    # -- opening -----------------------------------------------------------------------

    def open(self, requested: str | None = None) -> Exchange:
        """The handshake (legacy): `initialize` asking for `requested` (default: the
        session's revision), then `notifications/initialized`. Modern: `server/discover`."""
        patience = max(self.timeout, STARTUP) if self.transport.kind == "stdio" else self.timeout
        if self.modern:
            return self.request("server/discover", {}, patience)
        reply = self.request(
            "initialize",
            {
                "protocolVersion": requested or self.revision,
                "capabilities": {},
                "clientInfo": CLIENT_INFO,
            },
            patience,
        )
        result = reply.reply.get("result") if isinstance(reply.reply, dict) else None
        if isinstance(result, dict):
            session_id = reply.headers.get("mcp-session-id")
            if session_id:
                self.http_headers["Mcp-Session-Id"] = session_id
            version = result.get("protocolVersion")
            if isinstance(version, str):
                self.http_headers["MCP-Protocol-Version"] = version
            self.notify("notifications/initialized")
        return reply

    # -- messages ------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """`params` with the modern era's `_meta` added."""
        out = dict(params or {})
        if self.modern:
            meta = dict(out.get("_meta") or {})
            meta.setdefault(VERSION_META, self.revision)
            meta.setdefault(CAPABILITIES_META, {})
            out["_meta"] = meta
        return out

    def headers(self, method: str | None, name: str | None = None) -> dict[str, str]:
        """HTTP headers for a message: the session's, and the modern era's mirrors."""
        headers = dict(self.http_headers)
        if self.modern and method is not None:
            headers["MCP-Protocol-Version"] = self.revision
            headers["Mcp-Method"] = method
            if name is not None:
                headers["Mcp-Name"] = name
        return headers

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        extra_headers: Mapping[str, str] | None = None,
        longest: float | None = None,
    ) -> Exchange:
        """Send a request and wait for its answer. With `longest`, the request asks for
        progress notifications (`_meta.progressToken`), each of which renews the timeout up
        to `longest` seconds; one still progressing then is cancelled (`timed_out` and
        `progressed`: not a hang)."""
        request_id = self.next_id()
        sent = self.params(params)
        if longest is not None:
            sent["_meta"] = {**sent.get("_meta", {}), "progressToken": request_id}
        message = request_message(request_id, method, sent)
        name = params.get("name") if method == "tools/call" and params else None
        headers = self.headers(method, name if isinstance(name, str) else None)
        if self.modern and extra_headers:
            headers.update(extra_headers)
        exchange = self.transport.exchange(
            dumps(message),
            answers(request_id),
            self.timeout if timeout is None else timeout,
            headers,
            longest,
            request_id,
        )
        if exchange.timed_out and exchange.progressed:
            reason = "toolgen verify: still running at its time limit"
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})
        return exchange

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> Exchange:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None or self.modern:
            message["params"] = self.params(params)
        return self.transport.exchange(dumps(message), None, self.timeout, self.headers(method))

    def send_raw(self, payload: bytes, method: str | None, timeout: float) -> Exchange:
        """A probe: raw bytes, answered by any response (or nothing)."""
        return self.transport.exchange(payload, any_response, timeout, self.headers(method))

    def call_tool(
        self,
        name: str,
        arguments: Any,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        longest: float | None = None,
    ) -> Exchange:
        """`tools/call`; `headers` (the modern era's `Mcp-Param-*`) are sent over HTTP."""
        params = {"name": name, "arguments": arguments}
        return self.request("tools/call", params, timeout, headers, longest)

    def list_tools(self, max_pages: int = MAX_PAGES) -> tuple[list[Any], Exchange]:
        """Every tool of every page, and the last exchange. A listing that goes on past
        `max_pages` pages or `LISTING_TIMEOUTS` timeouts, or whose `nextCursor` repeats an
        earlier one (it would never end), is cut there and noted in the transport's
        `refused`."""
        tools: list[Any] = []
        cursor: Any = None
        seen: dict[bytes, int] = {}  # cursor digests: bounded, whatever a cursor's size
        ends = time.monotonic() + LISTING_TIMEOUTS * self.timeout
        for page in range(1, max_pages + 1):
            exchange = self.request("tools/list", {"cursor": cursor} if cursor else {})
            result = result_of(exchange)
            if result is None:
                return tools, exchange
            found = result.get("tools")
            tools.extend(found if isinstance(found, list) else [])
            cursor = result.get("nextCursor")
            if not cursor:
                return tools, exchange
            earlier = seen.setdefault(hashlib.sha256(dumps(cursor)).digest(), page)
            if earlier != page:
                self.transport.refused.append(
                    f"tools/list page {page} gives the nextCursor of page {earlier}, read no "
                    "further: the listing would never end"
                )
                return tools, exchange
            if time.monotonic() > ends:
                self.transport.refused.append(
                    f"tools/list took over {LISTING_TIMEOUTS} timeouts ({LISTING_TIMEOUTS * self.timeout:g} s) "
                    f"for {page} pages, read no further (a fixed limit of verify)"
                )
                return tools, exchange
        self.transport.refused.append(
            f"tools/list goes on past {max_pages} pages, read no further (a fixed limit of verify)"
        )
        return tools, exchange

    def alive_check(self) -> Exchange:
        """A cheap request every server answers: `ping` (legacy) or `server/discover`."""
        return self.request("server/discover" if self.modern else "ping", {})

    def close(self) -> None:
        self.transport.close()


def result_of(exchange: Exchange) -> dict[str, Any] | None:
    """The `result` object of the exchange's reply (None for errors and silence)."""
    reply = exchange.reply
    result = reply.get("result") if isinstance(reply, dict) else None
    return result if isinstance(result, dict) else None
