"""Raw frames for what older clients and peer suites rely on, over stdio and HTTP.

2024-11-05 sessions (no annotations, titles, output schemas or structuredContent),
JSON-RPC batches in 2025-03-26 sessions only, request ids echoed exactly as
written (`1.0`, integers beyond 64 bits), `isError: false` on successes, and
`"id": null` on errors whose id cannot be read.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import cache
from typing import Any

import httpx
import jsonschema
import orjson
import pytest
from http_support import http_server
from runtime_support.frames import DEMO_HANDLERS, DEMO_SPEC, Frames, InProcessClient, modern_meta
from runtime_support.handlers import Handlers

import toolgen
from toolgen.spec.protocol import LATEST_REVISION, official_schema

GUARD = 30.0
"""Seconds before a hung request fails: a guard, not a timing assertion."""
BIG_ID = 2**70


@cache
def official(revision: str, definition: str) -> jsonschema.protocols.Validator:
    document = copy.deepcopy(official_schema(revision))
    defs_key = "definitions" if "definitions" in document else "$defs"
    document["$ref"] = f"#/{defs_key}/{definition}"
    return jsonschema.validators.validator_for(document)(document)


def assert_valid(revision: str, definition: str, value: Any) -> None:
    errors = [error.message for error in official(revision, definition).iter_errors(value)]
    assert errors == [], errors


# -- stdio ------------------------------------------------------------------------------


@pytest.fixture
def stdio() -> Iterator[Frames]:
    client = InProcessClient(DEMO_SPEC, DEMO_HANDLERS)
    yield client
    client.close()


def test_a_2024_11_05_session_is_negotiated_over_stdio(stdio: Frames) -> None:
    result = stdio.initialize("2024-11-05")["result"]
    assert result["protocolVersion"] == "2024-11-05"
    assert_valid("2024-11-05", "InitializeResult", result)
    assert "title" not in result["serverInfo"]


def test_2024_11_05_tools_have_no_annotations_titles_or_output_schemas(stdio: Frames) -> None:
    stdio.initialize("2024-11-05")
    result = stdio.request(1, "tools/list")["result"]
    assert_valid("2024-11-05", "ListToolsResult", result)
    for tool in result["tools"]:
        assert set(tool) <= {"name", "description", "inputSchema"}, tool["name"]


def test_2024_11_05_results_carry_text_only(stdio: Frames) -> None:
    stdio.initialize("2024-11-05")
    result = stdio.request(1, "tools/call", {"name": "echo", "arguments": {"text": "a"}})["result"]
    assert_valid("2024-11-05", "CallToolResult", result)
    assert "structuredContent" not in result
    assert result["isError"] is False
    assert orjson.loads(result["content"][0]["text"])["text"] == "a"


def test_a_2025_03_26_session_answers_a_batch_with_one_array(stdio: Frames) -> None:
    stdio.initialize("2025-03-26")
    stdio.send(
        [
            {"jsonrpc": "2.0", "id": "p", "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "count"}},
            {"jsonrpc": "2.0", "id": 8, "method": "no/such"},
        ]
    )
    replies = stdio.recv()
    assert isinstance(replies, list)
    by_id = {reply["id"]: reply for reply in replies}
    assert set(by_id) == {"p", 7, 8}
    assert by_id["p"]["result"] == {}
    assert by_id[7]["result"]["content"][0]["text"] == "3"
    assert by_id[8]["error"]["code"] == -32601


def test_a_batch_of_notifications_gets_no_answer(stdio: Frames) -> None:
    stdio.initialize("2025-03-26")
    stdio.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert stdio.request(2, "ping")["id"] == 2  # the next line answers the ping


def test_initialize_inside_a_batch_is_refused(stdio: Frames) -> None:
    stdio.initialize("2025-03-26")
    stdio.send([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}])
    (reply,) = stdio.recv()
    assert reply["error"]["code"] == -32600
    assert reply["id"] == 1


@pytest.mark.parametrize("version", [None, "2024-11-05", "2025-06-18", "2025-11-25"])
def test_batches_are_refused_outside_2025_03_26_sessions(
    stdio: Frames, version: str | None
) -> None:
    if version is not None:
        stdio.initialize(version)
    stdio.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    reply = stdio.recv()
    assert reply["error"]["code"] == -32600
    assert reply["id"] is None


@pytest.mark.parametrize(
    "raw_id", [b"1.0", b"1e3", str(BIG_ID).encode(), b"-18446744073709551617", b"0.0"]
)
@pytest.mark.parametrize("modern", [False, True])
def test_numeric_ids_are_echoed_exactly_over_stdio(
    stdio: Frames, raw_id: bytes, modern: bool
) -> None:
    if modern:
        params = orjson.dumps({"name": "count", "_meta": modern_meta()})
    else:
        stdio.initialize()
        params = b'{"name": "count"}'
    stdio.send_raw(
        b'{"jsonrpc": "2.0", "id": '
        + raw_id
        + b', "method": "tools/call", "params": '
        + params
        + b"}\n"
    )
    line = stdio.recv_line()
    assert b'"id":' + raw_id + b"," in line
    assert orjson.loads(line)["result"]["isError"] is False


def test_a_fractional_id_is_still_refused(stdio: Frames) -> None:
    stdio.send_raw(b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}\n')
    reply = stdio.recv()
    assert reply["error"]["code"] == -32600
    assert reply["id"] is None


def test_a_big_id_can_be_cancelled(stdio: Frames) -> None:
    stdio.initialize()
    big = str(BIG_ID).encode()
    call = b'{"jsonrpc": "2.0", "id": ' + big + b', "method": "tools/call", "params": '
    stdio.send_raw(call + b'{"name": "slow", "arguments": {"seconds": 20}}}\n')
    cancel = b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": '
    stdio.send_raw(cancel + big + b"}}\n")
    stdio.send_raw(call + b'{"name": "count"}}\n')  # the id is free again once cancelled
    reply = stdio.recv()
    assert reply["result"]["structuredContent"] == {"result": 3}
    assert stdio.close() == []  # and the cancelled call never answers


# -- HTTP -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_server(toolgen.load(DEMO_SPEC), Handlers()) as endpoint:
        yield endpoint


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=GUARD) as http:
        yield http


def post(client: httpx.Client, url: str, body: Any, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    merged = {"content-type": "application/json", "accept": "application/json", **headers}
    return client.post(url, content=content, headers=merged)


def session(client: httpx.Client, url: str, version: str) -> str:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    response = post(
        client, url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    assert response.json()["result"]["protocolVersion"] == version
    return response.headers["mcp-session-id"]


def test_a_2024_11_05_session_is_negotiated_over_http(client: httpx.Client, url: str) -> None:
    sid = session(client, url, "2024-11-05")
    reply = post(
        client, url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, **{"mcp-session-id": sid}
    ).json()
    assert_valid("2024-11-05", "ListToolsResult", reply["result"])
    assert all("annotations" not in tool for tool in reply["result"]["tools"])


def test_a_2025_03_26_session_answers_a_batch_over_http(client: httpx.Client, url: str) -> None:
    sid = session(client, url, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hello"}},
    ]
    response = post(client, url, batch, **{"mcp-session-id": sid})
    assert response.status_code == 200
    replies = {reply["id"]: reply for reply in response.json()}
    assert replies[1]["result"] == {}
    assert replies[2]["result"]["content"][0]["text"] == "Hello!"
    notifications = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert post(client, url, notifications, **{"mcp-session-id": sid}).status_code == 202


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_batches_are_refused_in_later_sessions_over_http(
    client: httpx.Client, url: str, version: str
) -> None:
    sid = session(client, url, version)
    response = post(
        client, url, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], **{"mcp-session-id": sid}
    )
    assert response.status_code == 400
    assert response.json() == {"jsonrpc": "2.0", "id": None, "error": response.json()["error"]}
    assert response.json()["error"]["code"] == -32600


@pytest.mark.parametrize("raw_id", [b"1.0", str(BIG_ID).encode()])
def test_numeric_ids_are_echoed_exactly_over_http(
    client: httpx.Client, url: str, raw_id: bytes
) -> None:
    sid = session(client, url, "2025-11-25")
    body = (
        b'{"jsonrpc": "2.0", "id": '
        + raw_id
        + b', "method": "tools/call", "params": {"name": "hello"}}'
    )
    legacy = post(client, url, body, **{"mcp-session-id": sid})
    assert b'"id":' + raw_id + b"," in legacy.content
    params = orjson.dumps({"name": "hello", "_meta": modern_meta()})
    body = (
        b'{"jsonrpc": "2.0", "id": '
        + raw_id
        + b', "method": "tools/call", "params": '
        + params
        + b"}"
    )
    headers = {
        "mcp-protocol-version": LATEST_REVISION,
        "mcp-method": "tools/call",
        "mcp-name": "hello",
    }
    modern = post(client, url, body, **headers)
    assert modern.status_code == 200
    assert b'"id":' + raw_id + b"," in modern.content
    assert modern.json()["result"]["isError"] is False


@pytest.mark.parametrize(
    "body", [b"{not json", b"42", b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}']
)
def test_errors_without_a_readable_id_carry_a_null_id_over_http(
    client: httpx.Client, url: str, body: bytes
) -> None:
    response = post(client, url, body)
    assert response.status_code == 400
    reply = response.json()
    assert "id" in reply
    assert reply["id"] is None
