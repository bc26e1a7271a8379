"""The `/mcp` app's direct path (MCP clients' requests skip Starlette) answers exactly as the
Starlette app does; everything else still goes through Starlette; uvicorn's writes coalesce."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from conftest import SPECS
from http_support import GUARD

import toolgen
from examples.conformance_handlers import HANDLERS
from toolgen.serve.engine import Engine
from toolgen.serve.http import SecurityPolicy, create_app
from toolgen.serve.http.asgi import McpApp
from toolgen.serve.http.guard import CoalescingTransport, ConnectionLimits
from toolgen.serve.http.server import uvicorn_config

CONFORMANCE = toolgen.load(SPECS / "conformance")
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
JSON = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def app_with(policy: SecurityPolicy | None = None) -> McpApp:
    return create_app(Engine(CONFORMANCE, dict(HANDLERS)), policy)


def call(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, str], bytes]:
    headers = {**JSON, "mcp-protocol-version": MODERN, "mcp-method": "tools/call"}
    body = {"name": tool, "arguments": arguments, "_meta": META}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": body}
    return {**headers, "mcp-name": tool}, orjson.dumps(message)


def ask(app: Any, method: str, path: str, headers: dict[str, str], body: bytes) -> httpx.Response:
    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, path, headers=headers, content=body)

    return asyncio.run(send())


PING = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
SAME_AS_STARLETTE = {
    "a stateless call": ("POST", {}, *call("test_simple_text", {})),
    "a call with invalid arguments": ("POST", {}, *call("test_simple_text", {"x": 1})),
    "a ping without a session": ("POST", {}, JSON, PING),
    "a wrong content type": ("POST", {}, {"content-type": "text/plain"}, PING),
    "nothing acceptable": ("POST", {}, {**JSON, "accept": "text/html"}, PING),
    "a body that is not JSON": ("POST", {}, JSON, b"{nope"),
    "a rebound host name": ("POST", {}, {**JSON, "host": "evil.example"}, PING),
    "GET": ("GET", {}, {"accept": "text/event-stream"}, b""),
    "DELETE without a session": ("DELETE", {}, {}, b""),
    "DELETE of an unknown session": ("DELETE", {}, {"mcp-session-id": "nope"}, b""),
    "no token": ("POST", {"token": "s3cret"}, JSON, PING),
    "the wrong token": ("POST", {"token": "s3cret"}, {**JSON, "authorization": "Bearer x"}, PING),
    "the right token": (
        "POST",
        {"token": "s3cret"},
        {**JSON, "authorization": "Bearer s3cret"},
        PING,
    ),
}


@pytest.mark.parametrize("case", SAME_AS_STARLETTE.values(), ids=list(SAME_AS_STARLETTE))
def test_an_mcp_clients_request_gets_what_the_starlette_app_answers(case: tuple[Any, ...]) -> None:
    method, policy_options, headers, body = case
    app = app_with(SecurityPolicy(**policy_options))
    direct = ask(app, method, "/mcp", headers, body)
    through_starlette = ask(app.fallback, method, "/mcp", headers, body)
    assert direct.status_code == through_starlette.status_code
    assert direct.content == through_starlette.content
    assert sorted(direct.headers.multi_items()) == sorted(through_starlette.headers.multi_items())
    assert direct.headers["vary"] == "Origin"  # what the CORS middleware adds to every answer


def test_a_browser_request_gets_cors_headers_from_the_starlette_stack() -> None:
    headers, body = call("test_simple_text", {})
    response = ask(app_with(), "POST", "/mcp", {**headers, "origin": "http://localhost:5173"}, body)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "http://localhost:5173"
    assert "Mcp-Session-Id" in response.headers["access-control-expose-headers"]


def test_a_cors_preflight_from_a_loopback_origin_is_answered() -> None:
    preflight = {
        "origin": "http://127.0.0.1:6274",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-protocol-version",
    }
    response = ask(app_with(), "OPTIONS", "/mcp", preflight, b"")
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "http://127.0.0.1:6274"
    assert "POST" in response.headers["access-control-allow-methods"]


@pytest.mark.parametrize("method", ["PUT", "PATCH", "OPTIONS"])
def test_a_method_the_endpoint_does_not_serve_gets_405(method: str) -> None:
    response = ask(app_with(), method, "/mcp", JSON, PING)
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]


@pytest.mark.parametrize("path", ["/", "/mcp/x", "/other"])
def test_other_paths_get_404(path: str) -> None:
    assert ask(app_with(), "POST", path, JSON, PING).status_code == 404


def test_the_app_mounted_under_a_prefix_serves_there() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    outer = Starlette(routes=[Mount("/api", app=app_with())])
    headers, body = call("test_simple_text", {})
    response = ask(outer, "POST", "/api/mcp", headers, body)
    assert response.status_code == 200
    assert response.json()["result"]["content"][0]["type"] == "text"
    assert ask(outer, "POST", "/mcp", headers, body).status_code == 404


# -- coalesced writes --------------------------------------------------------------------------


class FakeTransport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def writelines(self, chunks: list[bytes]) -> None:
        self.sent.append(b"".join(chunks))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_extra_info(self, name: str) -> str:
        return f"info {name}"


def test_writes_in_one_loop_step_reach_the_transport_as_one_in_order() -> None:
    async def scenario() -> list[bytes]:
        fake = FakeTransport()
        transport = CoalescingTransport(fake, asyncio.get_running_loop())
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b"")
        transport.writelines([b"body", b"!"])
        assert fake.sent == []  # nothing before the step ends
        await asyncio.sleep(0)
        transport.write(b"later")
        await asyncio.sleep(0)
        return fake.sent

    assert asyncio.run(scenario()) == [b"HTTP/1.1 200 OK\r\n\r\nbody!", b"later"]


def test_close_sends_what_is_pending_first_and_abort_drops_it() -> None:
    async def scenario() -> tuple[FakeTransport, FakeTransport]:
        loop = asyncio.get_running_loop()
        closed, aborted = FakeTransport(), FakeTransport()
        first = CoalescingTransport(closed, loop)
        first.write(b"last ")
        first.write(b"words")
        first.close()
        second = CoalescingTransport(aborted, loop)
        second.write(b"never")
        second.abort()
        assert first.get_extra_info("peername") == "info peername"  # the rest is the transport's
        await asyncio.sleep(0)  # the flushes scheduled by the writes find nothing left
        return closed, aborted

    closed, aborted = asyncio.run(scenario())
    assert closed.sent == [b"last words"] and closed.closed
    assert aborted.sent == [] and aborted.aborted


def test_an_idle_keep_alive_connection_is_closed_after_the_head_timeout() -> None:
    """After a response the client has `head_timeout` again for its next request head;
    uvicorn's own keep-alive timeout is set far beyond the guard, so the close is ours."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    config = uvicorn_config(
        app_with(),
        limits=ConnectionLimits(head_timeout=0.3),
        log_level="warning",
        access_log=False,
        timeout_keep_alive=3600,
    )
    server = uvicorn.Server(config)

    async def scenario() -> bytes:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        port = sock.getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.2)  # the first deadline is near: the response moves it
        headers, body = call("test_simple_text", {})
        lines = ["POST /mcp HTTP/1.1", f"host: 127.0.0.1:{port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append(f"content-length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        received = await asyncio.wait_for(reader.read(), GUARD)  # all of it: the server closed
        writer.close()
        server.should_exit = True
        await asyncio.wait_for(serving, GUARD)
        return received

    try:
        received = asyncio.run(scenario())
    finally:
        sock.close()
    assert received.startswith(b"HTTP/1.1 200 OK")
    assert orjson.loads(received.split(b"\r\n\r\n", 1)[1])["id"] == 7
