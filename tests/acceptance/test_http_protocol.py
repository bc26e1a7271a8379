"""Raw HTTP exchanges with the `/mcp` endpoint: every transport rule, both eras.

Errors are asserted by HTTP status and JSON-RPC code, never by message text.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from conftest import SPECS
from http_support import http_server

import toolgen
from examples.conformance_handlers import HANDLERS
from toolgen.spec.protocol import LATEST_REVISION, SUPPORTED_REVISIONS

CONFORMANCE = toolgen.load(SPECS / "conformance")
ACCEPT_BOTH = "application/json, text/event-stream"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": LATEST_REVISION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
GUARD = 30.0
"""Seconds before a hung request fails: a guard, not a timing assertion."""

cancelled = threading.Event()


async def wait_forever() -> str:
    """A handler that only ends when cancelled (and says so)."""
    import asyncio

    try:
        await asyncio.Event().wait()
    finally:
        cancelled.set()
    return "never"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    handlers = dict(HANDLERS)
    handlers["test_logging_tool"] = wait_forever
    with http_server(CONFORMANCE, handlers) as endpoint:
        yield endpoint


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=GUARD) as http:
        yield http


def post(
    client: httpx.Client,
    url: str,
    body: Any,
    headers: dict[str, str] | None = None,
    accept: str = ACCEPT_BOTH,
) -> httpx.Response:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    merged = {"content-type": "application/json", "accept": accept, **(headers or {})}
    return client.post(url, content=content, headers=merged)


def request(method: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def initialize(client: httpx.Client, url: str, version: str = "2025-11-25") -> str:
    response = post(
        client,
        url,
        request(
            "initialize",
            protocolVersion=version,
            capabilities={},
            clientInfo={"name": "test", "version": "1"},
        ),
    )
    assert response.status_code == 200
    session = response.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(client, url, note, {"mcp-session-id": session}).status_code == 202
    return session


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"mcp-protocol-version": LATEST_REVISION, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers


def modern(method: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return request(method, request_id, _meta=MODERN_META, **params)


def sse_messages(text: str) -> list[dict[str, Any]]:
    return [
        orjson.loads(line[len("data:") :])
        for line in text.splitlines()
        if line.startswith("data:") and line[len("data:") :].strip()
    ]


# -- framing (both eras) ------------------------------------------------------------------


def test_malformed_json_gets_parse_error_with_null_id(client: httpx.Client, url: str) -> None:
    response = post(client, url, b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    body = response.json()
    assert body["id"] is None
    assert body["error"]["code"] == -32700


def test_a_batch_array_is_rejected_as_an_invalid_request(client: httpx.Client, url: str) -> None:
    response = post(client, url, [request("ping", 1), request("ping", 2)])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


def test_a_body_that_is_not_json_content_gets_415(client: httpx.Client, url: str) -> None:
    response = client.post(url, content=b"{}", headers={"content-type": "text/plain"})
    assert response.status_code == 415


def test_a_client_accepting_neither_json_nor_sse_gets_406(client: httpx.Client, url: str) -> None:
    response = post(client, url, request("ping"), accept="text/html")
    assert response.status_code == 406


def test_get_offers_no_server_stream(client: httpx.Client, url: str) -> None:
    response = client.get(url, headers={"accept": "text/event-stream"})
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]


def test_other_paths_are_not_found(client: httpx.Client, url: str) -> None:
    assert post(client, url.replace("/mcp", "/other"), request("ping")).status_code == 404


# -- legacy era: sessions -----------------------------------------------------------------


def test_initialize_issues_a_session_id_and_the_session_answers(
    client: httpx.Client, url: str
) -> None:
    session = initialize(client, url)
    response = post(client, url, request("tools/list", 2), {"mcp-session-id": session})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["id"] == 2
    assert [tool["name"] for tool in body["result"]["tools"]] == [t.name for t in CONFORMANCE]


def test_each_initialize_gets_a_different_session(client: httpx.Client, url: str) -> None:
    assert initialize(client, url) != initialize(client, url)


def test_a_failed_initialize_creates_no_session(client: httpx.Client, url: str) -> None:
    response = post(client, url, request("initialize", capabilities={}))
    assert response.json()["error"]["code"] == -32602
    assert "mcp-session-id" not in response.headers


def test_a_request_without_session_id_gets_400(client: httpx.Client, url: str) -> None:
    response = post(client, url, request("tools/list", 7))
    assert response.status_code == 400
    assert response.json()["id"] == 7


def test_an_unknown_session_id_gets_404(client: httpx.Client, url: str) -> None:
    response = post(client, url, request("tools/list"), {"mcp-session-id": "no-such-session"})
    assert response.status_code == 404


def test_delete_ends_the_session_and_later_requests_get_404(client: httpx.Client, url: str) -> None:
    session = initialize(client, url)
    assert client.delete(url, headers={"mcp-session-id": session}).status_code == 204
    response = post(client, url, request("ping"), {"mcp-session-id": session})
    assert response.status_code == 404
    assert client.delete(url, headers={"mcp-session-id": session}).status_code == 404


def test_delete_without_session_id_gets_400(client: httpx.Client, url: str) -> None:
    assert client.delete(url).status_code == 400


def test_notifications_and_client_responses_get_202_with_no_body(
    client: httpx.Client, url: str
) -> None:
    session = initialize(client, url)
    headers = {"mcp-session-id": session}
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    reply = {"jsonrpc": "2.0", "id": "server-1", "result": {}}
    for message in (note, reply):
        response = post(client, url, message, headers)
        assert response.status_code == 202
        assert response.content == b""


def test_an_unsupported_protocol_version_header_is_rejected(client: httpx.Client, url: str) -> None:
    session = initialize(client, url)
    headers = {"mcp-session-id": session, "mcp-protocol-version": "1999-01-01"}
    response = post(client, url, request("tools/list"), headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32022


def test_json_rpc_errors_of_a_session_keep_http_200(client: httpx.Client, url: str) -> None:
    session = initialize(client, url)
    response = post(client, url, request("no/such/method", 3), {"mcp-session-id": session})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32601


def test_a_client_accepting_only_sse_gets_the_response_as_an_event(
    client: httpx.Client, url: str
) -> None:
    session = initialize(client, url)
    response = post(
        client, url, request("ping", 4), {"mcp-session-id": session}, accept="text/event-stream"
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert sse_messages(response.text) == [{"jsonrpc": "2.0", "id": 4, "result": {}}]


def test_progress_turns_the_response_into_an_sse_stream_ending_with_the_result(
    client: httpx.Client, url: str
) -> None:
    session = initialize(client, url)
    call = request("tools/call", 5, name="test_tool_with_progress", _meta={"progressToken": "p"})
    response = post(client, url, call, {"mcp-session-id": session})
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(response.text)
    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]
    assert [m["params"]["progress"] for m in messages[:3]] == [0, 50, 100]
    assert {m["params"]["progressToken"] for m in messages[:3]} == {"p"}
    assert messages[-1]["id"] == 5
    assert "result" in messages[-1]


def test_a_client_accepting_only_json_gets_json_and_no_notifications(
    client: httpx.Client, url: str
) -> None:
    session = initialize(client, url)
    call = request("tools/call", 6, name="test_tool_with_progress", _meta={"progressToken": "p"})
    response = post(client, url, call, {"mcp-session-id": session}, accept="application/json")
    assert response.headers["content-type"] == "application/json"
    assert response.json()["id"] == 6


def test_a_client_that_disconnects_cancels_its_running_call(url: str) -> None:
    cancelled.clear()
    with httpx.Client(timeout=GUARD) as client:
        session = initialize(client, url)
    call = orjson.dumps(request("tools/call", 8, name="test_logging_tool"))
    headers = {
        "content-type": "application/json",
        "accept": ACCEPT_BOTH,
        "mcp-session-id": session,
    }
    # the call never ends: give up waiting and hang up
    with (
        httpx.Client(timeout=httpx.Timeout(GUARD, read=0.5)) as client,
        pytest.raises(httpx.ReadTimeout),
    ):
        client.post(url, content=call, headers=headers)
    assert cancelled.wait(GUARD)


# -- modern era (2026-07-28): stateless, headers mirror the body ---------------------------


def test_a_modern_request_needs_no_session(client: httpx.Client, url: str) -> None:
    response = post(client, url, modern("tools/list", 11), modern_headers("tools/list"))
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers
    result = response.json()["result"]
    assert result["resultType"] == "complete"


def test_server_discover_lists_the_supported_versions(client: httpx.Client, url: str) -> None:
    response = post(client, url, modern("server/discover"), modern_headers("server/discover"))
    assert response.status_code == 200
    assert set(response.json()["result"]["supportedVersions"]) == set(SUPPORTED_REVISIONS)


def test_a_modern_tool_call_with_matching_headers_runs(client: httpx.Client, url: str) -> None:
    body = modern("tools/call", 12, name="test_simple_text")
    response = post(client, url, body, modern_headers("tools/call", "test_simple_text"))
    assert response.status_code == 200
    assert response.json()["result"]["content"][0]["type"] == "text"


@pytest.mark.parametrize(
    ("headers", "case"),
    [
        (modern_headers("tools/list", "test_simple_text"), "method differs"),
        (modern_headers("tools/call", "test_error_handling"), "name differs"),
        (modern_headers("tools/call"), "name missing"),
        ({"mcp-protocol-version": LATEST_REVISION, "mcp-name": "test_simple_text"}, "no method"),
        (modern_headers("TOOLS/CALL", "test_simple_text"), "method case differs"),
        (
            {
                **modern_headers("tools/call", "test_simple_text"),
                "mcp-protocol-version": "2025-11-25",
            },
            "version differs",
        ),
    ],
)
def test_headers_that_do_not_match_the_body_get_400_header_mismatch(
    client: httpx.Client, url: str, headers: dict[str, str], case: str
) -> None:
    response = post(client, url, modern("tools/call", 13, name="test_simple_text"), headers)
    assert response.status_code == 400, case
    body = response.json()
    assert body["error"]["code"] == -32020, case
    assert body["id"] == 13


def test_a_base64_encoded_name_header_is_decoded_before_comparing(
    client: httpx.Client, url: str
) -> None:
    encoded = "=?base64?" + base64.b64encode(b"test_simple_text").decode() + "?="
    body = modern("tools/call", 14, name="test_simple_text")
    response = post(client, url, body, modern_headers("tools/call", encoded))
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("header", "status"),
    [
        ({"mcp-param-region": "us-west1"}, 200),
        ({"Mcp-Param-Region": "=?base64?" + base64.b64encode(b"us-west1").decode() + "?="}, 200),
        ({}, 400),
        ({"mcp-param-region": "eu-north1"}, 400),
        ({"mcp-param-region": "=?base64?not base64!?="}, 400),
    ],
)
def test_x_mcp_header_arguments_must_be_mirrored_in_their_header(
    client: httpx.Client, url: str, header: dict[str, str], status: int
) -> None:
    body = modern("tools/call", 15, name="test_param_header", arguments={"region": "us-west1"})
    headers = {**modern_headers("tools/call", "test_param_header"), **header}
    response = post(client, url, body, headers)
    assert response.status_code == status
    if status == 400:
        assert response.json()["error"]["code"] == -32020


def test_an_unsupported_version_gets_400_with_the_supported_list(
    client: httpx.Client, url: str
) -> None:
    meta = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    body = request("tools/list", 16, _meta=meta)
    headers = {**modern_headers("tools/list"), "mcp-protocol-version": "1999-01-01"}
    response = post(client, url, body, headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "1999-01-01"
    assert set(error["data"]["supported"]) == set(SUPPORTED_REVISIONS)


@pytest.mark.parametrize("method", ["ping", "initialize", "logging/setLevel", "no/such/method"])
def test_a_method_the_stateless_era_lacks_gets_404_method_not_found(
    client: httpx.Client, url: str, method: str
) -> None:
    response = post(client, url, modern(method, 17), modern_headers(method))
    assert response.status_code == 404
    body = response.json()
    assert body["error"]["code"] == -32601
    assert body["id"] == 17


@pytest.mark.parametrize(
    "meta",
    [None, {"io.modelcontextprotocol/protocolVersion": LATEST_REVISION}],
    ids=["no _meta", "no clientCapabilities"],
)
def test_a_modern_request_with_incomplete_meta_gets_400_invalid_params(
    client: httpx.Client, url: str, meta: dict[str, Any] | None
) -> None:
    body = request("tools/list", 18) if meta is None else request("tools/list", 18, _meta=meta)
    response = post(client, url, body, modern_headers("tools/list"))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602


def test_modern_requests_ignore_a_session_id(client: httpx.Client, url: str) -> None:
    headers = {**modern_headers("tools/list"), "mcp-session-id": "whatever"}
    response = post(client, url, modern("tools/list"), headers)
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers


def test_modern_log_messages_are_sent_only_when_the_request_asks(
    client: httpx.Client, url: str
) -> None:
    meta = {**MODERN_META, "io.modelcontextprotocol/logLevel": "info"}
    body = request("tools/call", 19, name="test_tool_with_logging", _meta=meta)
    headers = modern_headers("tools/call", "test_tool_with_logging")
    asked = sse_messages(post(client, url, body, headers).text)
    assert [m.get("method") for m in asked] == ["notifications/message"] * 3 + [None]
    silent = post(client, url, modern("tools/call", 20, name="test_tool_with_logging"), headers)
    assert silent.headers["content-type"] == "application/json"
    assert silent.json()["id"] == 20


# -- sync handlers report through the same context -----------------------------------------


def report_synchronously() -> str:
    """A sync handler (no await anywhere) that reports progress and logs."""
    from toolgen.serve.context import current_call

    call = current_call()
    call.progress(1, 2)
    call.log("warning", "half way")
    call.progress(2, 2)
    return "done"


@pytest.mark.parametrize("inline_sync", [False, True], ids=["worker thread", "inline"])
def test_a_sync_handler_streams_its_notifications_before_the_result(inline_sync: bool) -> None:
    handlers = {**HANDLERS, "test_simple_text": report_synchronously}
    with (
        http_server(CONFORMANCE, handlers, inline_sync=inline_sync) as endpoint,
        httpx.Client(timeout=GUARD) as client,
    ):
        session = initialize(client, endpoint)
        call = request("tools/call", 21, name="test_simple_text", _meta={"progressToken": 7})
        response = post(client, endpoint, call, {"mcp-session-id": session})
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(response.text)
    assert [m.get("method") for m in messages] == [
        "notifications/progress",
        "notifications/message",
        "notifications/progress",
        None,
    ]
    assert messages[1]["params"] == {"level": "warning", "data": "half way"}
    assert messages[-1]["result"]["content"][0]["text"] == "done"
