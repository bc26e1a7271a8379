"""Two `toolgen serve --http` processes sharing one Redis store answer for each other.

Each instance is the real command on a port of its own, as two hosts behind a load
balancer would be; a real `redis-server` holds what outlives a request. A task created
on one is read, answered, cancelled and finished on the other; a stream broken on one
is resumed on the other; a legacy session opened on one is served by the other; and a
task whose instance is killed ends `failed`, never hangs.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from http_support import CliServer
from redis_support import redis_url

from toolgen.serve.tasks import TASKS_EXTENSION
from toolgen.spec.protocol import LATEST_REVISION

__all__ = ["redis_url"]  # the fixture

GUARD = 30.0
"""Seconds before a hung request or wait fails: a guard, not a timing assertion."""
HANDLERS = "tests/runtime_support/pid_handlers.py:HANDLERS"
LEGACY = "2025-11-25"
CAPABILITIES = {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}}
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
YES = {"action": "accept", "content": {"confirm": True}}


@pytest.fixture
def pair(redis_url: str) -> Iterator[tuple[CliServer, CliServer]]:
    first = CliServer(HANDLERS, "--store", redis_url)
    second = CliServer(HANDLERS, "--store", redis_url)
    yield first, second
    first.stop()
    second.stop()


def post(url: str, body: Any, **headers: str) -> httpx.Response:
    with httpx.Client(timeout=GUARD) as http:
        return http.post(url, content=orjson.dumps(body), headers={**JSON_HEADERS, **headers})


def modern(url: str, method: str, name: str, **params: Any) -> httpx.Response:
    meta = {
        "io.modelcontextprotocol/protocolVersion": LATEST_REVISION,
        "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
    }
    key = "taskId" if method.startswith("tasks/") else "name"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {key: name, "_meta": meta}}
    body["params"].update(params)
    headers = {"mcp-protocol-version": LATEST_REVISION, "mcp-method": method, "mcp-name": name}
    return post(url, body, **headers)


def start_task(url: str, tool: str, **arguments: Any) -> str:
    created = modern(url, "tools/call", tool, arguments=arguments).json()["result"]
    assert created["resultType"] == "task", created
    return str(created["taskId"])


def status(url: str, task_id: str) -> dict[str, Any]:
    response = modern(url, "tasks/get", task_id)
    assert response.status_code == 200, response.text
    return dict(response.json()["result"])


def until(url: str, task_id: str, wanted: str) -> dict[str, Any]:
    deadline = time.monotonic() + GUARD
    while (found := status(url, task_id))["status"] != wanted:
        assert time.monotonic() < deadline, found
        time.sleep(0.05)
    return found


def test_a_task_created_on_one_instance_is_read_and_finished_on_the_other(
    pair: tuple[CliServer, CliServer],
) -> None:
    one, other = pair
    task_id = start_task(one.url, "slow_compute", seconds=0.5, label="sums")
    assert status(other.url, task_id)["status"] == "working"
    done = until(other.url, task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Computed sums after 0.5 s"


def test_a_task_is_answered_on_the_other_instance_and_its_handler_resumes(
    pair: tuple[CliServer, CliServer],
) -> None:
    one, other = pair
    task_id = start_task(one.url, "confirm_delete", filename="notes.txt")
    asked = until(other.url, task_id, "input_required")
    assert set(asked["inputRequests"]) == {"confirm"}
    updated = modern(other.url, "tasks/update", task_id, inputResponses={"confirm": YES})
    assert updated.json()["result"]["resultType"] == "complete"
    done = until(one.url, task_id, "completed")
    assert done["result"]["content"][0]["text"].endswith("confirmed (nothing was deleted)")


def test_a_task_cancelled_on_the_other_instance_stops_its_handler(
    pair: tuple[CliServer, CliServer],
) -> None:
    one, other = pair
    task_id = start_task(one.url, "slow_compute", seconds=60)
    assert modern(other.url, "tasks/cancel", task_id).status_code == 200
    assert until(one.url, task_id, "cancelled")["status"] == "cancelled"
    assert status(other.url, task_id)["status"] == "cancelled"


def test_a_task_whose_instance_was_killed_ends_failed(pair: tuple[CliServer, CliServer]) -> None:
    one, other = pair
    task_id = start_task(one.url, "slow_compute", seconds=60)
    one.stop(signal.SIGKILL)
    failed = until(other.url, task_id, "failed")
    assert failed["error"]["code"] == -32603
    assert "stopped" in failed["statusMessage"]


def legacy_session(url: str) -> str:
    """The id of a legacy-era session `initialize` opens at `url`."""
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t"}},
    }
    session: str = post(url, init).headers["mcp-session-id"]
    return session


def events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event id, message) of each SSE event."""
    event_id = ""
    for line in lines:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:") and line[5:].strip():
            yield event_id, orjson.loads(line[5:])


def test_a_stream_broken_on_one_instance_is_resumed_on_the_other(
    pair: tuple[CliServer, CliServer],
) -> None:
    one, other = pair
    session = legacy_session(one.url)
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "_meta": {"progressToken": "p"}},
    }
    headers = {**JSON_HEADERS, "mcp-session-id": session}
    with (
        httpx.Client(timeout=GUARD) as http,
        http.stream("POST", one.url, content=orjson.dumps(call), headers=headers) as stream,
    ):
        last, first = next(events(stream.iter_lines()))  # then hang up
    assert first["params"]["progress"] == 0
    resumed_headers = {"accept": "text/event-stream", "mcp-session-id": session}
    with httpx.Client(timeout=GUARD) as http:
        resumed = http.get(other.url, headers={**resumed_headers, "last-event-id": last})
    assert resumed.status_code == 200, resumed.text
    rest = [message for _, message in events(iter(resumed.text.splitlines()))]
    assert [m["params"]["progress"] for m in rest[:-1]] == [50, 100]
    assert rest[-1]["id"] == 5 and "result" in rest[-1]
    with httpx.Client(timeout=GUARD) as http:
        stranger = http.get(
            other.url, headers={"accept": "text/event-stream", "last-event-id": last}
        )
    assert stranger.status_code == 404  # another client (no session) cannot read it


def test_a_legacy_session_opened_on_one_instance_is_served_by_the_other(
    pair: tuple[CliServer, CliServer],
) -> None:
    one, other = pair
    session = legacy_session(one.url)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}
    call["params"]["arguments"] = {"name": "Ada"}
    answered = post(other.url, call, **{"mcp-session-id": session})
    assert answered.status_code == 200, answered.text
    assert "Ada" in answered.json()["result"]["content"][0]["text"]
    assert post(one.url, {"jsonrpc": "2.0", "id": 2, "method": "ping"}).status_code == 400
    with httpx.Client(timeout=GUARD) as http:
        assert http.delete(other.url, headers={"mcp-session-id": session}).status_code == 204
    gone = post(one.url, call, **{"mcp-session-id": session})
    assert gone.status_code == 404
