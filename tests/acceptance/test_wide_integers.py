"""Integers beyond 64 bits stay exact over stdio and HTTP, in arguments and in results."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from http_support import call_headers, http_server
from runtime_support.frames import MODERN, InProcessClient, modern_meta

import toolgen
from toolgen.serve import jsonrpc
from toolgen.serve.handlers import import_object
from toolgen.serve.inputs import arguments_digest

SPEC = """\
toolgen: 1
server: {name: wide, version: "1.0.0"}
tools:
  - name: kind
    input: {type: object, properties: {n: {type: integer}}, required: [n]}
    output:
      type: object
      properties: {n: {type: integer}, kind: {type: string}}
      required: [n, kind]
  - name: big
    output: {type: integer}
"""

HANDLERS = """\
from typing import Any


class Handlers:
    def kind(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"n": args["n"], "kind": type(args["n"]).__name__}

    def big(self) -> int:
        return 2**64
"""

WIDE = [18446744073709551617, -9223372036854775809, 2**200]


def call(name: str, n: int | None = None) -> bytes:
    """A tools/call request, written by hand: `n` exactly as its digits."""
    arguments = b"{}" if n is None else b'{"n": %d}' % n
    meta = orjson.dumps(modern_meta())
    return (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "%s", '
        b'"arguments": %s, "_meta": %s}}' % (name.encode(), arguments, meta)
    )


@pytest.fixture
def spec(write_specs: Callable[[dict[str, str]], Path]) -> Path:
    root = write_specs({"wide.yaml": SPEC})
    (root / "wide_handlers.py").write_text(HANDLERS, encoding="utf-8")
    return root


def exchange_stdio(spec: Path, requests: list[bytes]) -> list[Any]:
    client = InProcessClient(spec / "wide.yaml", f"{spec / 'wide_handlers.py'}:Handlers")
    try:
        replies = []
        for request in requests:
            client.send_raw(request + b"\n")
            replies.append(jsonrpc.loads(client.recv_line()))
        return replies
    finally:
        client.close()


def exchange_http(spec: Path, requests: list[bytes]) -> list[Any]:
    handlers = import_object(f"{spec / 'wide_handlers.py'}:Handlers")
    replies = []
    with http_server(toolgen.load(spec / "wide.yaml"), handlers) as url:
        for request in requests:
            name = orjson.loads(request)["params"]["name"]
            headers = call_headers(name, MODERN)
            reply = httpx.post(url, content=request, headers=headers, timeout=30)
            assert reply.status_code == 200, reply.text
            replies.append(jsonrpc.loads(reply.content))
    return replies


EXCHANGES = [exchange_stdio, exchange_http]


@pytest.mark.parametrize("exchange", EXCHANGES)
def test_wide_integer_arguments_reach_the_handler_and_come_back_exactly(
    spec: Path, exchange: Callable[[Path, list[bytes]], list[Any]]
) -> None:
    replies = exchange(spec, [call("kind", n) for n in WIDE])
    for n, reply in zip(WIDE, replies, strict=True):
        result = reply["result"]
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"n": n, "kind": "int"}


@pytest.mark.parametrize("exchange", EXCHANGES)
def test_a_handler_returning_two_to_the_64_gets_it_sent_exactly(
    spec: Path, exchange: Callable[[Path, list[bytes]], list[Any]]
) -> None:
    (reply,) = exchange(spec, [call("big")])
    assert reply["result"]["isError"] is False, reply
    assert reply["result"]["structuredContent"] == 2**64  # (unwrapped in this revision)


@pytest.mark.parametrize(
    "text",
    [b"18446744073709551617", b"-9223372036854775809", b'{"a": [1, 18446744073709551616]}'],
)
def test_the_json_rpc_codec_reads_and_writes_integers_beyond_64_bits_exactly(text: bytes) -> None:
    value = jsonrpc.loads(text)
    assert jsonrpc.dumps(value) == text.replace(b" ", b"")
    assert jsonrpc.loads(jsonrpc.dumps(value)) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 18446744073709551616]}', {"a": [1, 2**64]}),
        ('{"a": "x", "n": -9223372036854775809}', {"a": "x", "n": -(2**63) - 1}),
    ],
)
def test_the_json_rpc_codec_reads_wide_integers_from_text_as_from_bytes(
    text: str, value: object
) -> None:
    assert jsonrpc.loads(text) == value == jsonrpc.loads(text.encode())


def test_the_arguments_a_state_is_bound_to_may_hold_wide_integers() -> None:
    assert arguments_digest("t", {"n": 2**64}) != arguments_digest("t", {"n": 2**64 + 1})
