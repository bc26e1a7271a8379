"""HTTP under abuse: slow and idle clients, connection floods, body floods, session
floods and clients that hang up mid-call (issue 10). Real uvicorn on loopback, raw
sockets for what well-behaved clients never do; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from http_support import http_server
from runtime_support.frames import MODERN, modern_meta

import toolgen
from toolgen.serve.connection import Connection
from toolgen.serve.context import current_call
from toolgen.serve.http import SecurityPolicy
from toolgen.serve.http.guard import DEFAULT_MAX_HEAD, ConnectionLimits
from toolgen.serve.http.sessions import Sessions, SessionsFull
from toolgen.serve.store import MemoryStore

GUARD = 10.0
"""Seconds any single wait may take: a guard against a hang, not a timing assertion."""

SPEC = """\
toolgen: 1
server: {name: abuse, version: "1.0.0"}
tools:
  - name: wait
  - name: quick
"""


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> toolgen.RuntimeToolSet:
    root = tmp_path_factory.mktemp("abuse")
    (root / "abuse.yaml").write_text(SPEC, encoding="utf-8")
    return toolgen.load(root)


def address(url: str) -> tuple[str, int]:
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    return host, int(port)


@contextmanager
def raw(url: str) -> Iterator[socket.socket]:
    sock = socket.create_connection(address(url), timeout=GUARD)
    try:
        yield sock
    finally:
        sock.close()


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by GUARD)."""
    data = b""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    return data


def head(host: tuple[str, int], length: int, **extra: str) -> bytes:
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{host[1]}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {length}",
        *(f"{k.replace('_', '-')}: {v}" for k, v in extra.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def modern_call(name: str) -> tuple[bytes, dict[str, str]]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": modern_meta()},
    }
    headers = {"MCP_Protocol_Version": MODERN, "Mcp_Method": "tools/call", "Mcp_Name": name}
    return json.dumps(body).encode(), headers


def test_a_client_that_never_finishes_its_request_head_is_disconnected(
    tools: toolgen.RuntimeToolSet,
) -> None:
    limits = ConnectionLimits(head_timeout=0.5)
    with http_server(tools, {}, limits=limits) as url, raw(url) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
        started = time.monotonic()
        assert read_all(sock) == b""
        assert time.monotonic() - started < GUARD


def test_connections_past_the_limit_are_refused_at_once_and_the_server_recovers(
    tools: toolgen.RuntimeToolSet,
) -> None:
    limits = ConnectionLimits(max_connections=4, head_timeout=GUARD * 3)
    with http_server(tools, {"quick": lambda: "ok"}, limits=limits) as url:
        idle = [socket.create_connection(address(url), timeout=GUARD) for _ in range(4)]
        try:
            time.sleep(0.2)  # let the server accept them
            with raw(url) as extra:
                assert read_all(extra).startswith(b"HTTP/1.1 503")
        finally:
            for sock in idle:
                sock.close()
        time.sleep(0.2)
        body, headers = modern_call("quick")
        with raw(url) as sock:
            sock.sendall(head(address(url), len(body), **headers) + body)
            assert b'"text":"ok"' in read_all(sock).replace(b" ", b"")


@pytest.fixture(params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each of uvicorn's HTTP parsers in turn (h11 is the one without httptools installed)."""
    from uvicorn.protocols.http import auto
    from uvicorn.protocols.http.h11_impl import H11Protocol

    if request.param == "h11":
        monkeypatch.setattr(auto, "AutoHTTPProtocol", H11Protocol)
    return str(request.param)


def unfinished_head(url: str, size: int) -> bytes:
    """A request head of `size` bytes whose last header never ends."""
    host = f"Host: 127.0.0.1:{address(url)[1]}"
    start = f"GET /mcp HTTP/1.1\r\n{host}\r\nConnection: close\r\nX-Pad: ".encode()
    return start + b"a" * (size - len(start))


@pytest.mark.parametrize(
    ("size", "end"),
    [(DEFAULT_MAX_HEAD + 1, b""), (DEFAULT_MAX_HEAD - 3, b"\r\n\r\n"), (100_000, b"\r\n\r\n")],
    ids=["one byte past it, unfinished", "one byte past it, whole", "100 kB in one read"],
)
def test_a_request_head_past_the_limit_is_answered_431_and_closed(
    tools: toolgen.RuntimeToolSet, parser: str, size: int, end: bytes
) -> None:
    with http_server(tools, {}) as url, raw(url) as sock:
        sock.sendall(unfinished_head(url, size) + end)
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert b"connection: close" in answer.lower()


def test_a_head_of_exactly_the_limit_is_served(tools: toolgen.RuntimeToolSet, parser: str) -> None:
    with http_server(tools, {}) as url, raw(url) as sock:
        sock.sendall(unfinished_head(url, DEFAULT_MAX_HEAD - 4) + b"\r\n\r\n")
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 ") and not answer.startswith(b"HTTP/1.1 431 ")


def test_a_client_still_sending_its_oversize_head_reads_the_431(
    tools: toolgen.RuntimeToolSet, parser: str
) -> None:
    """A 512 KiB head sent in 16 KiB pieces, as a slow link delivers it: the server goes
    on reading (and dropping) after its answer, so the client's sending ends normally and
    the 431 is not lost to a reset."""
    with http_server(tools, {}) as url, raw(url) as sock:
        data = unfinished_head(url, 512 * 1024) + b"\r\n\r\n"
        for start in range(0, len(data), 16384):
            sock.sendall(data[start : start + 16384])
            time.sleep(0.002)
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_huge_header_is_cut_off_long_before_it_ends(
    tools: toolgen.RuntimeToolSet, parser: str
) -> None:
    """The server closes the connection after a small part of a 64 MiB header (what the
    kernel's socket buffers hold), instead of reading and keeping all of it."""
    flood = 64 * 1024 * 1024
    chunk = b"a" * 65536
    sent = 0
    with http_server(tools, {"quick": lambda: "ok"}) as url:
        with raw(url) as sock:
            sock.sendall(unfinished_head(url, 1024))
            try:
                while sent < flood:
                    sent += sock.send(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer = read_all(sock)
        assert sent < flood / 4
        assert answer == b"" or answer.startswith(b"HTTP/1.1 431 ")  # b"": reset before read
        body, headers = modern_call("quick")
        with raw(url) as sock:
            sock.sendall(head(address(url), len(body), Connection="close", **headers) + body)
            assert b'"text":"ok"' in read_all(sock).replace(b" ", b"")


def test_many_connections_with_heads_past_the_limit_are_each_refused_and_the_server_serves_on(
    tools: toolgen.RuntimeToolSet, parser: str
) -> None:
    with http_server(tools, {"quick": lambda: "ok"}) as url:
        flood = [socket.create_connection(address(url), timeout=GUARD) for _ in range(50)]
        try:
            for sock in flood:
                sock.sendall(unfinished_head(url, DEFAULT_MAX_HEAD + 1024))
            answers = [read_all(sock) for sock in flood]
        finally:
            for sock in flood:
                sock.close()
        assert all(answer.startswith(b"HTTP/1.1 431 ") for answer in answers)
        body, headers = modern_call("quick")
        with raw(url) as sock:
            sock.sendall(head(address(url), len(body), Connection="close", **headers) + body)
            assert b'"text":"ok"' in read_all(sock).replace(b" ", b"")


class SplitHeads(http.client.HTTPConnection):
    """Sends each request head in two parts, a moment apart (two reads for the server)."""

    def send(self, data: Any) -> None:
        if isinstance(data, bytes) and data.startswith(b"POST "):
            super().send(data[: len(data) // 2])
            time.sleep(0.2)
            data = data[len(data) // 2 :]
        super().send(data)


def test_heads_just_under_the_limit_are_served_and_a_large_body_does_not_count_as_head(
    tools: toolgen.RuntimeToolSet, parser: str
) -> None:
    """Two requests on one keep-alive connection, each with a 60 KiB header arriving in
    two parts and 1 MiB of JSON whitespace after it."""
    body, headers = modern_call("quick")
    body += b" " * (1024 * 1024)
    headers = {k.replace("_", "-"): v for k, v in headers.items()}
    headers.update({"Content-Type": "application/json", "X-Pad": "a" * (60 * 1024)})
    headers["Accept"] = "application/json, text/event-stream"
    with http_server(tools, {"quick": lambda: "ok"}) as url:
        connection = SplitHeads(*address(url), timeout=GUARD)
        try:
            for _ in range(2):
                connection.request("POST", "/mcp", body, headers)
                answer = connection.getresponse()
                assert answer.status == 200
                assert b'"text":"ok"' in answer.read().replace(b" ", b"")
        finally:
            connection.close()


def test_a_body_that_does_not_arrive_in_time_is_answered_408(
    tools: toolgen.RuntimeToolSet,
) -> None:
    policy = SecurityPolicy(body_timeout=0.5)
    with http_server(tools, {}, policy) as url, raw(url) as sock:
        sock.sendall(head(address(url), 100) + b'{"jsonrpc"')
        assert read_all(sock).startswith(b"HTTP/1.1 408")


def test_a_client_that_leaves_mid_body_is_not_logged_as_an_internal_error(
    tools: toolgen.RuntimeToolSet, caplog: pytest.LogCaptureFixture
) -> None:
    with http_server(tools, {}) as url:
        with raw(url) as sock:
            sock.sendall(head(address(url), 100) + b'{"jsonrpc"')
        with raw(url) as sock:  # the server goes on answering
            body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
            sock.sendall(head(address(url), len(body)) + body)
            read_all(sock)
    internal = [r for r in caplog.records if "internal error" in r.getMessage()]
    assert internal == [] and not any(r.exc_info for r in caplog.records)


def test_bodies_buffered_at_once_are_bounded_server_wide(tools: toolgen.RuntimeToolSet) -> None:
    policy = SecurityPolicy(max_buffered=1000, body_timeout=GUARD * 3)
    with http_server(tools, {}, policy) as url, raw(url) as first, raw(url) as second:
        first.sendall(head(address(url), 900) + b" " * 800)  # 800 bytes held, 100 to come
        time.sleep(0.3)
        second.sendall(head(address(url), 900) + b" " * 800)
        answer = read_all(second)
        assert answer.startswith(b"HTTP/1.1 503")
        assert b"retry-after" in answer.lower()


def test_a_flood_of_sessions_never_evicts_the_sessions_in_use() -> None:
    store = MemoryStore()
    sessions = Sessions(store, max_sessions=10)

    async def main() -> None:
        real = [await sessions.create(Connection()) for _ in range(3)]
        for session_id in real:
            assert await sessions.get(session_id) is not None  # used after initialize
        for _ in range(1000):
            await sessions.create(Connection())  # initialize, never used again
        assert all([await sessions.get(session_id) is not None for session_id in real])
        assert await store.session_count() == 10

    asyncio.run(main())


def test_when_every_session_is_in_recent_use_a_new_one_is_refused() -> None:
    now = [0.0]
    sessions = Sessions(MemoryStore(), max_sessions=2, clock=lambda: now[0])

    async def main() -> None:
        for _ in range(2):
            await sessions.get(await sessions.create(Connection()))
        with pytest.raises(SessionsFull):
            await sessions.create(Connection())
        now[0] += 1000.0  # idle long enough: the least recently used may now make room
        assert await sessions.create(Connection())

    asyncio.run(main())


def test_a_full_session_store_answers_initialize_with_503(
    tools: toolgen.RuntimeToolSet, tmp_path: Path
) -> None:
    import httpx

    from toolgen.serve.engine import Engine
    from toolgen.serve.http import create_app

    engine = Engine(tools, {})
    app = create_app(engine, sessions=Sessions(engine.task_store.store, max_sessions=1))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream", "Host": "127.0.0.1"}

    async def scenario() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            first = await client.post("/mcp", json=body, headers=headers)
            session = {"Mcp-Session-Id": first.headers["mcp-session-id"], **headers}
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            await client.post("/mcp", json=ping, headers=session)
            second = await client.post("/mcp", json=body, headers=headers)
            return [first, second]

    import asyncio

    first, second = asyncio.run(scenario())
    assert first.status_code == 200
    assert second.status_code == 503


def test_a_client_that_hangs_up_mid_call_tells_the_sync_handler(
    tools: toolgen.RuntimeToolSet,
) -> None:
    started = threading.Event()
    noticed = threading.Event()

    def wait() -> str:
        call = current_call()
        started.set()
        deadline = time.monotonic() + GUARD
        while not call.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        if call.cancelled:
            noticed.set()
        return "done"

    with http_server(tools, {"wait": wait}) as url:
        body, headers = modern_call("wait")
        with raw(url) as sock:
            sock.sendall(head(address(url), len(body), **headers) + body)
            assert started.wait(GUARD)
        assert noticed.wait(GUARD)


def test_answers_under_abuse_are_json_rpc_errors(tools: toolgen.RuntimeToolSet) -> None:
    """The 408 and 503 bodies are JSON-RPC errors like every other refusal."""
    policy = SecurityPolicy(body_timeout=0.3)
    with http_server(tools, {}, policy) as url, raw(url) as sock:
        sock.sendall(head(address(url), 50) + b"{")
        answer = read_all(sock)
    body = answer.split(b"\r\n\r\n", 1)[1]
    assert json.loads(body)["error"]["code"] == -32600
    assert isinstance(json.loads(body)["error"]["message"], str)
