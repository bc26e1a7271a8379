"""Raw-frame tests of `toolgen serve` over stdio: every error rule, both eras, concurrency.

Each test writes JSON-RPC lines to a real server and reads its output lines back,
so what is asserted is exactly what a client sees on the wire. Most servers run the
transport on a thread of the test process (`InProcessClient`); what only a process
shows (stderr, exit code, stray prints kept off stdout) uses `toolgen serve` itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS
from runtime_support.frames import (
    DEMO_HANDLERS,
    DEMO_SPEC,
    MODERN,
    FrameClient,
    Frames,
    InProcessClient,
    modern_meta,
)

SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


@pytest.fixture(scope="module")
def legacy() -> Iterator[Frames]:
    """One server, initialized at 2025-11-25, shared by the tests that do not change its state."""
    client = InProcessClient(DEMO_SPEC, DEMO_HANDLERS, timeout=1.5)
    client.initialize()
    yield client
    client.close()


@pytest.fixture
def fresh() -> Iterator[Frames]:
    """A new server on a thread of this process (the same transport, without the start-up)."""
    client = InProcessClient(DEMO_SPEC, DEMO_HANDLERS, timeout=1.5)
    yield client
    client.close()


@pytest.fixture
def process() -> Iterator[FrameClient]:
    """A new `toolgen serve` process, for what only a process shows: stderr, exit code."""
    client = FrameClient(str(DEMO_SPEC), "--handlers", DEMO_HANDLERS, "--timeout", "1.5")
    yield client
    client.close()


def call(client: Frames, request_id: Any, name: str, arguments: Any = None, **params: Any) -> Any:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return client.request(request_id, "tools/call", body)


def modern_call(client: Frames, request_id: Any, name: str, arguments: Any = None) -> Any:
    return call(client, request_id, name, arguments, _meta=modern_meta())


def error_code(reply: dict[str, Any]) -> int:
    assert "result" not in reply, reply
    return int(reply["error"]["code"])


def text_of(result: dict[str, Any]) -> str:
    return "".join(block["text"] for block in result["content"])


# -- framing and JSON-RPC errors --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"{not json", -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700),
        (b"\xff\xfe", -32700),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
        (b"[]", -32600),
        (b"42", -32600),
        (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600),
    ],
)
def test_unreadable_messages_get_an_error_with_null_id(
    legacy: Frames, line: bytes, code: int
) -> None:
    legacy.send_raw(line + b"\n")
    reply = legacy.recv()
    assert error_code(reply) == code
    assert reply["id"] is None
    assert reply["jsonrpc"] == "2.0"


def test_request_without_jsonrpc_version_is_an_invalid_request(legacy: Frames) -> None:
    legacy.send({"id": 7, "method": "ping"})
    reply = legacy.recv()
    assert (reply["id"], error_code(reply)) == (7, -32600)


def test_a_null_method_is_an_invalid_request_even_beside_an_error_member(
    legacy: Frames,
) -> None:
    legacy.send({"jsonrpc": "2.0", "id": 0, "method": None, "error": None})
    reply = legacy.recv()
    assert (reply["id"], error_code(reply)) == (0, -32600)


def test_unknown_method_gets_method_not_found(legacy: Frames) -> None:
    assert error_code(legacy.request(1, "resources/list")) == -32601


def test_unknown_method_gets_method_not_found_in_the_modern_era(legacy: Frames) -> None:
    reply = legacy.request(1, "prompts/list", {"_meta": modern_meta()})
    assert error_code(reply) == -32601


def test_params_that_are_not_an_object_are_invalid_params(legacy: Frames) -> None:
    assert error_code(legacy.request(1, "tools/list", [1, 2])) == -32602


@pytest.mark.parametrize("request_id", ["abc", "", "0042", 0, -5, 2**53 + 1])
def test_string_and_integer_ids_are_echoed_exactly(legacy: Frames, request_id: Any) -> None:
    legacy.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    line = legacy.recv_line()
    reply = json.loads(line)
    assert reply == {"jsonrpc": "2.0", "id": request_id, "result": {}}
    assert type(reply["id"]) is type(request_id)


def test_notifications_never_get_a_response(legacy: Frames) -> None:
    legacy.notify("notifications/initialized")
    legacy.notify("notifications/unknown", {"x": 1})
    legacy.notify("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    legacy.notify("notifications/cancelled", {"requestId": "never-sent"})
    legacy.send({"jsonrpc": "2.0", "method": "ping"})  # a request without id is a notification
    assert legacy.request("after", "ping") == {"jsonrpc": "2.0", "id": "after", "result": {}}


def test_stdout_carries_only_protocol_even_when_a_handler_prints(process: FrameClient) -> None:
    process.initialize()
    result = call(process, 1, "echo", {"text": "hi"})["result"]
    assert result["structuredContent"] == {"text": "hi", "times": 1}
    assert process.request(2, "ping")["result"] == {}
    process.close()
    assert b"stray print from a handler" in process.stderr


# -- legacy era -------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_answers_the_clients_version_when_supported(version: str) -> None:
    client = FrameClient(str(DEMO_SPEC), "--mock")
    try:
        result = client.initialize(version)["result"]
    finally:
        client.close()
    assert result["protocolVersion"] == version
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["serverInfo"]["name"] == "demo"
    assert result["serverInfo"]["version"] == "0.1.0"
    assert result["instructions"] == "Call echo first."


@pytest.mark.parametrize("version", ["2024-10-07", "2026-07-28", "2099-01-01"])
def test_initialize_answers_the_latest_handshake_version_otherwise(
    fresh: Frames, version: str
) -> None:
    assert fresh.initialize(version)["result"]["protocolVersion"] == "2025-11-25"


def test_initialize_without_protocol_version_is_invalid_params(fresh: Frames) -> None:
    assert error_code(fresh.request(1, "initialize", {"capabilities": {}})) == -32602


@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_requests_before_initialize_get_an_error(fresh: Frames, method: str) -> None:
    reply = fresh.request(1, method, {"name": "echo", "arguments": {"text": "x"}})
    assert error_code(reply) == -32600


def test_ping_is_answered_before_and_after_initialize(fresh: Frames) -> None:
    assert fresh.request(1, "ping")["result"] == {}
    fresh.initialize()
    assert fresh.request(2, "ping", {})["result"] == {}


def test_legacy_results_carry_no_result_type(legacy: Frames) -> None:
    listing = legacy.request(1, "tools/list")["result"]
    assert "resultType" not in listing
    assert "ttlMs" not in listing
    assert "resultType" not in call(legacy, 2, "count")["result"]


def test_legacy_non_object_output_is_wrapped_and_declared(legacy: Frames) -> None:
    tools = {t["name"]: t for t in legacy.request(1, "tools/list")["result"]["tools"]}
    assert tools["count"]["outputSchema"]["properties"]["result"]["type"] == "integer"
    assert tools["count"]["_meta"] == {"dev.toolgen/wrappedOutput": "result"}
    result = call(legacy, 2, "count")["result"]
    assert result["structuredContent"] == {"result": 3}
    assert json.loads(text_of(result)) == {"result": 3}


# -- modern era -------------------------------------------------------------------------


def test_server_discover_describes_the_server(fresh: Frames) -> None:
    result = fresh.request("d", "server/discover", {"_meta": modern_meta()})["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == SUPPORTED
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "demo"
    assert result["instructions"] == "Call echo first."
    assert result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")


@pytest.mark.parametrize("method", ["server/discover", "tools/list", "tools/call"])
def test_unsupported_protocol_version_gets_32022_with_supported_versions(
    fresh: Frames, method: str
) -> None:
    params = {"name": "echo", "arguments": {"text": "x"}, "_meta": modern_meta("2099-01-01")}
    reply = fresh.request(5, method, params)
    assert error_code(reply) == -32022
    assert reply["id"] == 5
    assert reply["error"]["data"] == {"supported": SUPPORTED, "requested": "2099-01-01"}


def test_protocol_version_that_is_not_a_string_is_invalid_params(fresh: Frames) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": 20260728}
    assert error_code(fresh.request(1, "tools/list", {"_meta": meta})) == -32602


def test_server_discover_without_protocol_version_is_invalid_params(fresh: Frames) -> None:
    assert error_code(fresh.request(1, "server/discover", {})) == -32602


def test_modern_requests_need_no_handshake_and_carry_cache_hints(fresh: Frames) -> None:
    result = fresh.request(1, "tools/list", {"_meta": modern_meta()})["result"]
    assert result["resultType"] == "complete"
    assert result["ttlMs"] >= 0
    assert result["cacheScope"] == "public"
    assert [t["name"] for t in result["tools"]][:2] == ["echo", "slow"]
    assert "nextCursor" not in result


def test_modern_non_object_output_is_sent_as_is(fresh: Frames) -> None:
    tools = {
        t["name"]: t
        for t in fresh.request(1, "tools/list", {"_meta": modern_meta()})["result"]["tools"]
    }
    assert tools["count"]["outputSchema"] == {"type": "integer", "minimum": 0}
    result = modern_call(fresh, 2, "count")["result"]
    assert result["structuredContent"] == 3
    assert text_of(result) == "3"
    assert result["resultType"] == "complete"


def test_ping_is_not_part_of_the_modern_era(fresh: Frames) -> None:
    assert error_code(fresh.request(1, "ping", {"_meta": modern_meta()})) == -32601


def test_both_eras_can_share_one_connection(fresh: Frames) -> None:
    assert modern_call(fresh, 1, "count")["result"]["structuredContent"] == 3
    fresh.initialize("2025-06-18")
    assert call(fresh, 2, "count")["result"]["structuredContent"] == {"result": 3}
    assert modern_call(fresh, 3, "count")["result"]["structuredContent"] == 3


# -- tools/call -------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_unknown_tool_gets_invalid_params_error(legacy: Frames, era: str) -> None:
    caller = call if era == "legacy" else modern_call
    assert error_code(caller(legacy, 1, "no_such_tool", {})) == -32602


@pytest.mark.parametrize(
    "params",
    [{}, {"name": 5}, {"name": "echo", "arguments": [1]}, {"name": "echo", "arguments": "x"}],
)
def test_malformed_call_params_are_invalid_params(legacy: Frames, params: Any) -> None:
    assert error_code(legacy.request(1, "tools/call", params)) == -32602


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({}, "text"),
        ({"text": ""}, "text"),
        ({"text": "x", "times": 0}, "times"),
        ({"text": "x", "times": "2"}, "times"),
        ({"text": "x", "extra": 1}, "extra"),
    ],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_arguments_that_fail_the_input_schema_get_an_error_result_naming_the_field(
    legacy: Frames, era: str, arguments: dict[str, Any], named: str
) -> None:
    caller = call if era == "legacy" else modern_call
    result = caller(legacy, 1, "echo", arguments)["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert named in text_of(result)


def test_defaults_are_applied_before_the_handler_runs(legacy: Frames) -> None:
    result = call(legacy, 1, "echo", {"text": "ab"})["result"]
    assert result["structuredContent"] == {"text": "ab", "times": 1}


def test_result_has_structured_content_and_the_same_json_as_text(legacy: Frames) -> None:
    result = call(legacy, 1, "echo", {"text": "ab", "times": 2})["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == {"text": "abab", "times": 2}
    assert len(result["content"]) == 1
    assert result["content"][0]["type"] == "text"
    assert json.loads(text_of(result)) == result["structuredContent"]


def test_a_raising_handler_gets_a_safe_error_result_and_details_go_to_stderr(
    process: FrameClient,
) -> None:
    legacy_result = call(process, 1, "boom")
    process.initialize()
    results = [call(process, 2, "boom")["result"], modern_call(process, 3, "boom")["result"]]
    process.close()
    assert error_code(legacy_result) == -32600  # before initialize
    for result in results:
        assert result["isError"] is True
        assert "secret internal detail" not in text_of(result)
        assert "Traceback" not in text_of(result)
    assert process.stderr.count(b"RuntimeError: secret internal detail") == 2
    assert b"Traceback" in process.stderr


def test_tool_error_message_reaches_the_client(legacy: Frames) -> None:
    result = call(legacy, 1, "refuse")["result"]
    assert result["isError"] is True
    assert text_of(result) == "Nothing to refuse today"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_result_that_violates_the_output_schema_is_never_sent_as_success(
    legacy: Frames, era: str
) -> None:
    caller = call if era == "legacy" else modern_call
    result = caller(legacy, 1, "bad_output")["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert "many" not in text_of(result)


def test_tool_without_output_schema_answers_text_only(legacy: Frames) -> None:
    result = call(legacy, 1, "hello")["result"]
    assert result == {"content": [{"type": "text", "text": "Hello!"}], "isError": False}


def test_handlers_can_take_and_return_pydantic_models(legacy: Frames) -> None:
    result = call(legacy, 1, "typed", {"first-name": "Ada"})["result"]
    assert result["structuredContent"] == {"greeting": "Hi Ada"}


def test_tool_without_handler_answers_an_error_result(legacy: Frames) -> None:
    result = call(legacy, 1, "unimplemented")["result"]
    assert result["isError"] is True


@pytest.mark.parametrize("tool", ["slow", "slow_sync"])
def test_a_call_over_the_timeout_answers_an_error_result(legacy: Frames, tool: str) -> None:
    result = call(legacy, 1, tool, {"seconds": 60})["result"]
    assert result["isError"] is True
    assert "1.5 seconds" in text_of(result)


# -- concurrency and cancellation -------------------------------------------------------


def test_calls_run_concurrently_and_answer_by_id(fresh: Frames) -> None:
    fresh.initialize()
    fresh.send(_call_frame(1, "slow", {"seconds": 600}))
    fresh.send(_call_frame(2, "slow_sync", {"seconds": 600}))
    fresh.send(_call_frame(3, "echo", {"text": "fast"}))
    assert fresh.recv()["id"] == 3  # answered while 1 and 2 still run
    fresh.notify("notifications/cancelled", {"requestId": 1})
    fresh.notify("notifications/cancelled", {"requestId": 2})
    assert fresh.close() == []


@pytest.mark.parametrize("tool", ["slow", "slow_sync"])
def test_a_cancelled_call_gets_no_response_and_others_continue(fresh: Frames, tool: str) -> None:
    fresh.initialize()
    fresh.send(_call_frame("slow-1", tool, {"seconds": 0.5}))  # would be answered first
    assert fresh.request("started", "ping")["id"] == "started"  # slow-1 is running now
    fresh.notify("notifications/cancelled", {"requestId": "slow-1", "reason": "user"})
    fresh.send(_call_frame("slow-2", tool, {"seconds": 1.0}))
    assert fresh.recv()["id"] == "slow-2"
    assert fresh.request("after", "ping")["id"] == "after"
    assert fresh.close() == []


def test_a_cancelled_modern_call_gets_no_response(fresh: Frames) -> None:
    frame = _call_frame(9, "slow", {"seconds": 60})
    frame["params"]["_meta"] = modern_meta()
    fresh.send(frame)
    fresh.notify("notifications/cancelled", {"requestId": 9})
    assert fresh.request(10, "server/discover", {"_meta": modern_meta()})["id"] == 10
    assert fresh.close() == []


def test_an_id_in_flight_cannot_be_reused(fresh: Frames) -> None:
    fresh.initialize()
    fresh.send(_call_frame(1, "slow", {"seconds": 600}))
    reply = call(fresh, 1, "echo", {"text": "x"})
    assert error_code(reply) == -32600
    fresh.notify("notifications/cancelled", {"requestId": 1})
    assert call(fresh, 1, "echo", {"text": "x"})["result"]["structuredContent"]["text"] == "x"


def test_server_exits_promptly_when_stdin_closes(process: FrameClient) -> None:
    process.initialize()
    process.send(_call_frame(1, "slow", {"seconds": 600}))
    process.send(_call_frame(2, "slow_sync", {"seconds": 600}))
    process.close()  # waits for exit (bounded); a server that hangs fails here
    assert process.process.returncode == 0


def test_calls_still_running_at_eof_answer_within_the_grace_period() -> None:
    client = FrameClient(str(DEMO_SPEC), "--handlers", DEMO_HANDLERS)
    client.initialize()
    client.send(_call_frame(1, "slow", {"seconds": 0.1}))
    rest = client.close()
    assert [json.loads(line)["id"] for line in rest] == [1]


# -- pagination -------------------------------------------------------------------------


def test_tools_list_pages_with_opaque_cursors() -> None:
    client = FrameClient(str(DEMO_SPEC), "--mock", "--page-size", "3")
    try:
        client.initialize()
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            params = {} if cursor is None else {"cursor": cursor}
            result = client.request(pages, "tools/list", params)["result"]
            names += [tool["name"] for tool in result["tools"]]
            pages += 1
            cursor = result.get("nextCursor")
            if cursor is None:
                break
            assert isinstance(cursor, str)
        modern = client.request(
            "m", "tools/list", {"_meta": modern_meta(MODERN), "cursor": _first_cursor(client)}
        )["result"]
        bad = client.request("bad", "tools/list", {"cursor": "not-a-cursor"})
    finally:
        client.close()
    assert pages == 4
    assert len(names) == len(set(names)) == 12
    assert [t["name"] for t in modern["tools"]] == names[3:6]
    assert modern["resultType"] == "complete"
    assert error_code(bad) == -32602


def _first_cursor(client: Frames) -> str:
    cursor = client.request("c", "tools/list")["result"]["nextCursor"]
    assert isinstance(cursor, str)
    return cursor


def _call_frame(request_id: Any, name: str, arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


# -- notifications from handlers ------------------------------------------------------


def _read_until_response(client: FrameClient, request_id: Any) -> tuple[list[Any], Any]:
    notifications = []
    while True:
        message = client.recv()
        if message.get("id") == request_id and "method" not in message:
            return notifications, message
        notifications.append(message)


@pytest.mark.parametrize("tool", ["report", "report_sync"])
def test_handlers_send_progress_and_log_notifications_before_the_result(
    legacy: Frames, tool: str
) -> None:
    legacy.send(
        {
            "jsonrpc": "2.0",
            "id": "r",
            "method": "tools/call",
            "params": {"name": tool, "_meta": {"progressToken": "tok"}},
        }
    )
    notifications, reply = _read_until_response(legacy, "r")
    assert reply["result"]["structuredContent"] == {"done": True}
    assert notifications == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": 1, "total": 2, "message": "half way"},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "working"},  # legacy default level: info
        },
    ]


def test_modern_calls_get_log_messages_only_when_they_ask_for_a_level(legacy: Frames) -> None:
    quiet = modern_meta()
    quiet["progressToken"] = 5
    loud = {**modern_meta(), "io.modelcontextprotocol/logLevel": "debug"}
    legacy.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "report", "_meta": quiet},
        }
    )
    quiet_notes, _ = _read_until_response(legacy, 1)
    legacy.send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "report", "_meta": loud},
        }
    )
    loud_notes, _ = _read_until_response(legacy, 2)
    assert [n["method"] for n in quiet_notes] == ["notifications/progress"]
    assert [n["params"]["level"] for n in loud_notes] == ["debug", "info"]


# -- framing of long and oversize lines ---------------------------------------------------


def test_a_message_of_several_megabytes_is_read_whole(legacy: Frames) -> None:
    text = "x" * 3_000_000
    result = call(legacy, "big", "echo", {"text": text})["result"]
    assert result["structuredContent"]["text"] == text


# -- command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference",
    ["nonexistent_module_xyz:Handlers", "tests/runtime_support/handlers.py:Nope", "no-colon"],
)
def test_serve_reports_a_bad_handlers_reference_as_a_usage_error(reference: str) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "toolgen", "serve", str(DEMO_SPEC), "--handlers", reference],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_serve_needs_exactly_one_of_handlers_and_mock() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "toolgen", "serve", str(DEMO_SPEC)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 2


@pytest.mark.parametrize("stdin_kind", ["devnull", "file"])
def test_server_exits_cleanly_when_stdin_is_not_a_pipe(stdin_kind: str, tmp_path: Path) -> None:
    """/dev/null and regular files cannot be watched by epoll: they are read on a thread."""
    source = tmp_path / "in.jsonl"
    source.write_text("")
    with open(os.devnull if stdin_kind == "devnull" else source, "rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "toolgen", "serve", str(SPECS / "notes"), "--mock"],
            stdin=stdin,
            capture_output=True,
            timeout=30,
            check=False,
        )
    assert result.returncode == 0
    assert result.stdout == b""
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("stdin_kind", ["pipe", "file"])
def test_pipelined_calls_beyond_the_in_flight_limit_all_get_answers(
    stdin_kind: str, tmp_path: Path
) -> None:
    """Reading pauses at MAX_CALLS_IN_FLIGHT running calls; held-back lines are not lost."""
    from toolgen.serve.stdio import MAX_CALLS_IN_FLIGHT

    count = MAX_CALLS_IN_FLIGHT * 4 + 7
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x"}, "_meta": modern_meta()},
            }
        )
        for i in range(count)
    ]
    data = ("\n".join(lines) + "\n").encode()
    command = [
        sys.executable,
        "-m",
        "toolgen",
        "serve",
        str(DEMO_SPEC),
        "--handlers",
        DEMO_HANDLERS,
    ]
    if stdin_kind == "file":
        source = tmp_path / "in.jsonl"
        source.write_bytes(data)
        with open(source, "rb") as stdin:
            result = subprocess.run(
                command, stdin=stdin, capture_output=True, timeout=60, check=False
            )
    else:
        result = subprocess.run(command, input=data, capture_output=True, timeout=60, check=False)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == list(range(count))
    assert all(a["result"]["structuredContent"]["text"] == "x" for a in answers)


ASYNC_HANDLERS = ["--handlers", "examples.conformance_handlers:HANDLERS"]
"""Async handlers: each call runs as a task on the event loop, handed over by the reader."""


def test_async_calls_beyond_the_in_flight_limit_all_get_answers() -> None:
    from toolgen.serve.stdio import MAX_CALLS_IN_FLIGHT

    count = MAX_CALLS_IN_FLIGHT + 5
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "test_simple_text", "arguments": {}, "_meta": modern_meta()},
            }
        )
        for i in range(count)
    ]
    command = [sys.executable, "-m", "toolgen", "serve", str(SPECS / "conformance")]
    result = subprocess.run(
        [*command, *ASYNC_HANDLERS],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == list(range(count))
    assert all(a["result"]["isError"] is False for a in answers)
