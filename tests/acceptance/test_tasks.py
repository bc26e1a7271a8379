"""The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) as raw frames over
stdio and HTTP: negotiation, the flat `CreateTaskResult`, the lifecycle seen through
`tasks/get`, input requests answered with `tasks/update`, cancellation, the errors,
questions asked before a task starts (`InputRequiredResult`), the legacy era, and the
official SDK client (which does not declare the extension) getting plain results.

Errors are asserted by code (and HTTP status), never by message text. Polling loops
are bounded by a guard, never timing assertions.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import orjson
import pytest
from conftest import ROOT, SPECS
from http_support import http_server
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from runtime_support.frames import FrameClient, modern_meta

import toolgen
from examples.conformance_handlers import HANDLERS
from toolgen.serve.connection import Connection
from toolgen.serve.context import current_call
from toolgen.serve.engine import Engine
from toolgen.serve.handlers import starts_task
from toolgen.serve.results import ProtocolError
from toolgen.serve.tasks import TASKS_EXTENSION, TaskStore
from toolgen.spec.protocol import LATEST_REVISION

GUARD = 30.0
"""Seconds before a hung exchange fails: a guard, not a timing assertion."""
CONFORMANCE = SPECS / "conformance"
WITH_TASKS = {"extensions": {TASKS_EXTENSION: {}}, "elicitation": {}}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
TERMINAL = ("completed", "failed", "cancelled")
YES = {"action": "accept", "content": {"confirm": True}}
ALICE = {"action": "accept", "content": {"name": "Alice"}}


def meta(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    found = modern_meta()
    found["io.modelcontextprotocol/clientCapabilities"] = (
        WITH_TASKS if capabilities is None else capabilities
    )
    return found


class Rpc:
    """Modern requests over stdio with fresh ids; `call` gives the whole response."""

    def __init__(self, client: FrameClient) -> None:
        self.client = client
        self.next_id = 0

    def __call__(self, method: str, capabilities: Any = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        body = {**params, "_meta": meta(capabilities)}
        reply: dict[str, Any] = self.client.request(self.next_id, method, body)
        return reply

    def tool(self, name: str, capabilities: Any = None, **params: Any) -> dict[str, Any]:
        params.setdefault("arguments", {})
        return self("tools/call", capabilities, name=name, **params)

    def task(self, name: str, **arguments: Any) -> str:
        """Start a task; its id."""
        result = self.tool(name, arguments=arguments)["result"]
        assert result["resultType"] == "task"
        task_id: str = result["taskId"]
        return task_id

    def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        """Poll `tasks/get` until the task has one of `statuses` or a terminal one."""
        deadline = time.monotonic() + GUARD
        while True:
            found: dict[str, Any] = self("tasks/get", taskId=task_id)["result"]
            if found["status"] in statuses or found["status"] in TERMINAL:
                return found
            assert time.monotonic() < deadline, f"task stuck in {found['status']}"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def rpc() -> Iterator[Rpc]:
    client = FrameClient(str(CONFORMANCE), "--handlers", "examples.conformance_handlers:HANDLERS")
    yield Rpc(client)
    client.close()


# -- negotiation --------------------------------------------------------------------------


def test_discover_advertises_the_extension_and_no_v1_tasks_capability(rpc: Rpc) -> None:
    capabilities = rpc("server/discover")["result"]["capabilities"]
    assert capabilities["extensions"] == {TASKS_EXTENSION: {}}
    assert "tasks" not in capabilities


def test_a_client_without_the_extension_gets_a_plain_result_from_an_optional_tool(
    rpc: Rpc,
) -> None:
    result = rpc.tool("slow_compute", {}, arguments={"seconds": 0, "label": "x"})["result"]
    assert result["resultType"] == "complete"
    assert "taskId" not in result
    assert result["content"][0]["text"].startswith("Computed x")


def test_a_required_task_tool_refuses_a_client_without_the_extension(rpc: Rpc) -> None:
    error = rpc.tool("failing_job", {"elicitation": {}})["error"]
    assert error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
def test_task_methods_refuse_a_client_without_the_extension(rpc: Rpc, method: str) -> None:
    error = rpc(method, {}, taskId="anything", inputResponses={})["error"]
    assert error["code"] == -32021
    assert error["data"]["requiredCapabilities"]["extensions"] == {TASKS_EXTENSION: {}}


def test_a_sync_only_tool_is_never_a_task_even_with_a_legacy_task_param(rpc: Rpc) -> None:
    task_param = {"ttl": 60000, "pollInterval": 100}
    result = rpc.tool("greet", arguments={"name": "Ada"}, task=task_param)["result"]
    assert result["resultType"] == "complete"
    assert result["content"][0]["text"] == "Hello, Ada!"


# -- the handle and the lifecycle -----------------------------------------------------------


def test_create_task_result_is_flat_with_the_v2_wire_fields(rpc: Rpc) -> None:
    result = rpc.tool("slow_compute", arguments={"seconds": 30})["result"]
    assert result["resultType"] == "task"
    assert result["status"] == "working"
    assert ISO.match(result["createdAt"]) and ISO.match(result["lastUpdatedAt"])
    assert type(result["ttlMs"]) is int and result["ttlMs"] > 0
    assert type(result["pollIntervalMs"]) is int and result["pollIntervalMs"] > 0
    for absent in ("task", "ttl", "pollInterval", "result", "error", "inputRequests"):
        assert absent not in result
    assert "requestState" not in result
    assert rpc("tasks/cancel", taskId=result["taskId"])["result"]["resultType"] == "complete"


def test_a_task_resolves_at_once_and_completes_with_its_result_inlined(rpc: Rpc) -> None:
    task_id = rpc.task("slow_compute", seconds=0.2, label="done")
    first = rpc("tasks/get", taskId=task_id)["result"]
    assert first["taskId"] == task_id
    assert first["resultType"] == "complete"
    assert "requestState" not in first
    final = rpc.until(task_id)
    assert final["status"] == "completed"
    assert final["result"]["content"][0]["text"] == "Computed done after 0.2 s"
    assert final["result"]["isError"] is False
    assert "io.modelcontextprotocol/related-task" not in final["result"].get("_meta", {})
    assert "error" not in final


def test_a_tool_error_completes_the_task_with_is_error(rpc: Rpc) -> None:
    final = rpc.until(rpc.task("failing_job"))
    assert final["status"] == "completed"
    assert final["result"]["isError"] is True


def test_a_protocol_error_fails_the_task_with_the_json_rpc_error(rpc: Rpc) -> None:
    final = rpc.until(rpc.task("protocol_error_job"))
    assert final["status"] == "failed"
    assert final["error"]["code"] == -32603
    assert isinstance(final["error"]["message"], str)
    assert "result" not in final


def test_cancel_answers_an_empty_ack_and_the_task_ends_cancelled(rpc: Rpc) -> None:
    task_id = rpc.task("slow_compute", seconds=60)
    ack = rpc("tasks/cancel", taskId=task_id)["result"]
    assert set(ack) == {"resultType", "_meta"}
    assert ack["resultType"] == "complete"
    assert rpc.until(task_id)["status"] == "cancelled"
    again = rpc("tasks/cancel", taskId=task_id)["result"]
    assert set(again) == {"resultType", "_meta"}


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
def test_an_unknown_task_id_is_invalid_params(rpc: Rpc, method: str) -> None:
    assert rpc(method, taskId="no-such-task", inputResponses={})["error"]["code"] == -32602


def test_a_missing_task_id_is_invalid_params(rpc: Rpc) -> None:
    assert rpc("tasks/get")["error"]["code"] == -32602


@pytest.mark.parametrize("method", ["tasks/result", "tasks/list"])
def test_the_removed_v1_methods_are_unknown(rpc: Rpc, method: str) -> None:
    assert rpc(method, taskId="x")["error"]["code"] == -32601


# -- input during a task ---------------------------------------------------------------------


def test_a_question_parks_the_task_until_tasks_update_answers_it(rpc: Rpc) -> None:
    task_id = rpc.task("confirm_delete", filename="a.txt")
    parked = rpc.until(task_id, "input_required")
    assert parked["status"] == "input_required"
    request = parked["inputRequests"]["confirm"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Delete a.txt?"
    ack = rpc("tasks/update", taskId=task_id, inputResponses={"confirm": YES})["result"]
    assert set(ack) == {"resultType", "_meta"}
    final = rpc.until(task_id)
    assert final["status"] == "completed"
    assert "inputRequests" not in final
    assert final["result"]["content"][0]["text"].startswith("Deletion of a.txt confirmed")


def test_answers_may_come_one_at_a_time(rpc: Rpc) -> None:
    task_id = rpc.task("multi_input")
    deadline = time.monotonic() + GUARD
    parked = rpc.until(task_id, "input_required")
    while len(parked.get("inputRequests", {})) < 2:
        assert time.monotonic() < deadline
        parked = rpc.until(task_id, "input_required")
    assert set(parked["inputRequests"]) == {"name", "confirm"}
    rpc("tasks/update", taskId=task_id, inputResponses={"name": ALICE})
    partial = rpc("tasks/get", taskId=task_id)["result"]
    assert partial["status"] == "input_required"
    assert set(partial["inputRequests"]) == {"confirm"}
    rpc("tasks/update", taskId=task_id, inputResponses={"confirm": YES})
    final = rpc.until(task_id)
    assert final["result"]["content"][0]["text"] == "Alice answered; proceed: True"


def test_answers_to_keys_not_outstanding_are_ignored(rpc: Rpc) -> None:
    task_id = rpc.task("confirm_delete", filename="b.txt")
    rpc.until(task_id, "input_required")
    ack = rpc("tasks/update", taskId=task_id, inputResponses={"unknown-key": {"ignored": True}})
    assert ack["result"]["resultType"] == "complete"
    assert rpc("tasks/get", taskId=task_id)["result"]["status"] == "input_required"
    rpc("tasks/cancel", taskId=task_id)


@pytest.mark.parametrize("responses", [None, [], {"confirm": {"action": "maybe"}}])
def test_a_malformed_update_is_invalid_params(rpc: Rpc, responses: Any) -> None:
    task_id = rpc.task("confirm_delete", filename="c.txt")
    rpc.until(task_id, "input_required")
    error = rpc("tasks/update", taskId=task_id, inputResponses=responses)["error"]
    assert error["code"] == -32602
    assert rpc("tasks/get", taskId=task_id)["result"]["status"] == "input_required"
    rpc("tasks/cancel", taskId=task_id)


def test_questions_before_the_task_go_through_input_required_then_the_task_starts(
    rpc: Rpc,
) -> None:
    first = rpc.tool("test_tool_with_task")["result"]
    assert first["resultType"] == "input_required"
    assert "taskId" not in first
    second = rpc.tool(
        "test_tool_with_task",
        inputResponses={"user_name": ALICE},
        requestState=first["requestState"],
    )["result"]
    assert second["resultType"] == "task"
    assert "requestState" not in second and "inputRequests" not in second
    final = rpc.until(second["taskId"])
    assert final["result"]["content"][0]["text"] == "Hello, Alice!"


# -- the legacy era -------------------------------------------------------------------------


def test_a_2025_session_runs_task_tools_synchronously_and_has_no_task_methods() -> None:
    client = FrameClient(str(CONFORMANCE), "--handlers", "examples.conformance_handlers:HANDLERS")
    try:
        client.initialize("2025-11-25")
        reply = client.request(
            2, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}
        )
        assert "taskId" not in reply["result"]
        assert reply["result"]["content"][0]["text"].startswith("Computed")
        assert client.request(3, "tasks/get", {"taskId": "x"})["error"]["code"] == -32601
    finally:
        client.close()


# -- in process: sync handlers, expiry, keys ------------------------------------------------


def request(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": meta()},
    }


async def poll(engine: Engine, task_id: str) -> dict[str, Any]:
    with anyio.fail_after(GUARD):
        while True:
            reply = await engine.handle(request(99, "tasks/get", taskId=task_id), Connection())
            assert reply is not None
            if reply["result"]["status"] in TERMINAL:
                return dict(reply["result"])
            await asyncio.sleep(0.01)


def test_sync_handlers_run_as_tasks_on_worker_threads() -> None:
    def compute(arguments: dict[str, Any]) -> str:
        time.sleep(0.05)
        return f"slept {arguments['seconds']}"

    def broken() -> None:
        raise ProtocolError("backend gone", code=-32001, data={"retry": True})

    engine = Engine(
        toolgen.load(CONFORMANCE),
        {**HANDLERS, "slow_compute": compute, "protocol_error_job": broken},
    )

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        results = []
        for name, arguments in (("slow_compute", {"seconds": 1}), ("protocol_error_job", {})):
            started = await engine.handle(
                request(1, "tools/call", name=name, arguments=arguments), Connection()
            )
            assert started is not None
            results.append(await poll(engine, started["result"]["taskId"]))
        return results[0], results[1]

    done, failed = asyncio.run(main())
    assert done["result"]["content"][0]["text"] == "slept 1"
    assert failed["error"] == {"code": -32001, "message": "backend gone", "data": {"retry": True}}


def test_a_handler_that_starts_its_task_runs_plainly_for_a_client_without_the_extension() -> None:
    started: list[bool] = []

    @starts_task
    async def export() -> str:
        started.append(current_call().start_task())
        return "exported"

    engine = Engine(toolgen.load(CONFORMANCE), {**HANDLERS, "slow_compute": export})
    params = {"name": "slow_compute", "arguments": {"seconds": 0}, "_meta": meta({})}
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
    reply = asyncio.run(engine.handle(message, Connection()))
    assert reply is not None
    assert reply["result"]["content"][0]["text"] == "exported"
    assert started == [False]


def test_a_handler_that_starts_its_task_becomes_one_where_it_says() -> None:
    @starts_task
    async def export() -> str:
        assert current_call().start_task()
        assert current_call().start_task()  # once a task, it stays the same one
        await asyncio.sleep(0.01)
        return "exported"

    engine = Engine(toolgen.load(CONFORMANCE), {**HANDLERS, "slow_compute": export})

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        call = request(4, "tools/call", name="slow_compute", arguments={"seconds": 0})
        created = await engine.handle(call, Connection())
        assert created is not None
        return created["result"], await poll(engine, created["result"]["taskId"])

    created, final = asyncio.run(main())
    assert created["resultType"] == "task"
    assert len(engine.task_store) == 1
    assert final["result"]["content"][0]["text"] == "exported"


def test_a_protocol_error_outside_a_task_answers_a_json_rpc_error() -> None:
    engine = Engine(toolgen.load(CONFORMANCE), HANDLERS)
    params = {"name": "protocol_error_job", "arguments": {}, "_meta": meta({})}
    message = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}
    reply = asyncio.run(engine.handle(message, Connection()))
    assert reply is not None
    assert reply["error"]["code"] == -32603


def test_a_task_is_dropped_once_its_ttl_has_passed_and_its_handler_cancelled() -> None:
    now = [1000.0]
    store = TaskStore(ttl_ms=5000, clock=lambda: now[0])

    async def main() -> None:
        task = store.create()
        assert task is not None
        await task.saved()
        task.runner = asyncio.ensure_future(asyncio.sleep(60))
        now[0] += 4.9
        assert await store.get(task.id) == task.record
        now[0] += 0.2
        assert await store.get(task.id) is None
        await asyncio.sleep(0)
        assert task.runner.cancelled()
        assert len(store) == 0

    asyncio.run(main())


def test_creating_a_task_drops_the_expired_ones_oldest_first() -> None:
    now = [0.0]
    store = TaskStore(ttl_ms=1000, clock=lambda: now[0])
    old = [store.create(), store.create()]
    now[0] += 0.5
    younger = store.create()
    now[0] += 0.6
    newest = store.create()
    assert all(task is not None for task in (*old, younger, newest))
    assert len(store) == 2
    assert old[0] is not None and store.running(old[0].id) is None
    assert younger is not None and store.running(younger.id) is younger


def test_task_ids_are_unguessable_and_name_their_owner() -> None:
    store = TaskStore()
    tasks = [task for task in (store.create(), store.create()) if task is not None]
    assert len({task.id for task in tasks}) == 2
    assert all(len(task.id) >= 32 for task in tasks)
    assert {task.record["owner"] for task in tasks} == {store.store.instance}


def test_a_full_store_creates_no_task() -> None:
    store = TaskStore(limit=1)
    assert store.create() is not None
    assert store.create() is None


def test_keys_are_never_reused_within_a_task() -> None:
    store = TaskStore()

    async def main() -> list[str]:
        task = store.create()
        assert task is not None
        seen = []
        for _ in range(2):
            asking = asyncio.ensure_future(task.ask("elicitation/create", {}, "same"))
            while not task.requests:
                await asyncio.sleep(0)
            (key,) = task.requests
            seen.append(key)
            await store.answer(task.id, {key: ALICE})
            assert await asking == ALICE
        return seen

    first, second = asyncio.run(main())
    assert first == "same" and second != "same"


# -- HTTP ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_server(toolgen.load(CONFORMANCE), HANDLERS) as endpoint:
        yield endpoint


def http_rpc(
    http: httpx.Client, url: str, method: str, route: str | None, **params: Any
) -> httpx.Response:
    """A modern request whose `Mcp-Name` header is `route` (None: no header)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta()}}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_REVISION,
        "mcp-method": method,
    }
    if route is not None:
        headers["mcp-name"] = route
    return http.post(url, content=orjson.dumps(body), headers=headers)


def test_a_task_over_http_answers_at_once_and_routes_on_mcp_name(url: str) -> None:
    with httpx.Client(timeout=GUARD) as http:
        arguments = {"seconds": 60}
        created = http_rpc(
            http, url, "tools/call", "slow_compute", name="slow_compute", arguments=arguments
        )
        assert created.status_code == 200
        task_id = created.json()["result"]["taskId"]
        got = http_rpc(http, url, "tasks/get", task_id, taskId=task_id)
        assert got.status_code == 200
        assert got.json()["result"]["status"] == "working"
        wrong = http_rpc(http, url, "tasks/get", "another-task", taskId=task_id)
        assert wrong.status_code == 400
        assert wrong.json()["error"]["code"] == -32020
        missing = http_rpc(http, url, "tasks/get", None, taskId=task_id)
        assert missing.status_code == 400
        assert missing.json()["error"]["code"] == -32020
        cancelled = http_rpc(http, url, "tasks/cancel", task_id, taskId=task_id)
        assert cancelled.json()["result"]["resultType"] == "complete"
        final = http_rpc(http, url, "tasks/get", task_id, taskId=task_id)
        assert final.json()["result"]["status"] == "cancelled"


def test_task_methods_without_the_extension_are_400_over_http(url: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tasks/get",
        "params": {"taskId": "t", "_meta": meta({})},
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "mcp-protocol-version": LATEST_REVISION,
        "mcp-method": "tasks/get",
        "mcp-name": "t",
    }
    with httpx.Client(timeout=GUARD) as http:
        response = http.post(url, content=orjson.dumps(body), headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32021


def test_input_during_a_task_over_http(url: str) -> None:
    with httpx.Client(timeout=GUARD) as http:
        created = http_rpc(
            http,
            url,
            "tools/call",
            "confirm_delete",
            name="confirm_delete",
            arguments={"filename": "h.txt"},
        )
        task_id = created.json()["result"]["taskId"]
        deadline = time.monotonic() + GUARD
        while True:
            found = http_rpc(http, url, "tasks/get", task_id, taskId=task_id).json()["result"]
            if found["status"] == "input_required":
                break
            assert time.monotonic() < deadline
            time.sleep(0.02)
        update = http_rpc(
            http, url, "tasks/update", task_id, taskId=task_id, inputResponses={"confirm": YES}
        )
        assert update.json()["result"] == {"resultType": "complete", "_meta": found["_meta"]}
        while found["status"] not in TERMINAL:
            assert time.monotonic() < deadline
            time.sleep(0.02)
            found = http_rpc(http, url, "tasks/get", task_id, taskId=task_id).json()["result"]
        assert found["result"]["content"][0]["text"].startswith("Deletion of h.txt confirmed")


# -- the official SDK client (mcp 2.3.0 does not declare the extension) ---------------------


def sdk_call(tool: str, arguments: dict[str, Any]) -> Any:
    server = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "toolgen",
            "serve",
            str(CONFORMANCE),
            "--handlers",
            "examples.conformance_handlers:HANDLERS",
        ],
        cwd=str(ROOT),
        env=dict(os.environ),  # the SDK passes a minimal environment: keep coverage's
    )

    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with Client(server, mode="2026-07-28") as client:
                try:
                    return await client.call_tool(tool, arguments)
                except MCPError as exc:  # returned: raising would wrap it in a group
                    return exc

    return anyio.run(main)


def test_the_sdk_client_gets_a_plain_result_from_an_optional_task_tool() -> None:
    result = sdk_call("slow_compute", {"seconds": 0, "label": "sdk"})
    assert not result.is_error
    assert result.content[0].text.startswith("Computed sdk")


def test_the_sdk_client_is_told_a_required_task_tool_needs_the_extension() -> None:
    refused = sdk_call("failing_job", {})
    assert isinstance(refused, MCPError)
    assert refused.error.code == -32021
