"""`toolgen serve --http --workers N --store URL`: several processes on one port.

The server is the real command, its workers sharing a real Redis store;
`test_simple_text` answers with the pid of the process that ran it
(`runtime_support/pid_handlers.py`). Every request below opens a new TCP
connection (`fresh`), so the kernel may hand it to any worker: stateless calls
are seen in more than one process, a legacy session's calls are served by every
worker (and outlive the worker that opened it), a task is reached from any
connection, and stopping leaves no process behind.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp.types as types
import orjson
import pytest
from http_support import CliServer
from mcp.client.client import Client
from redis_support import redis_url

from toolgen.serve.http.workers import balanced_by_kernel, can_fork
from toolgen.serve.tasks import TASKS_EXTENSION
from toolgen.spec.protocol import LATEST_REVISION

pytestmark = pytest.mark.skipif(not can_fork(), reason="workers need fork()")
__all__ = ["redis_url"]  # the fixture

GUARD = 30.0
"""Seconds before a hung request, start or stop fails: a guard, not a timing assertion."""
ROUNDS = 40
"""Fresh connections per check: the chance that 40 all reach one of two workers is 2**-39."""
LEGACY = "2025-11-25"
HANDLERS = "tests/runtime_support/pid_handlers.py:HANDLERS"
CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}
TASK_CAPABILITIES = {**CAPABILITIES, "extensions": {TASKS_EXTENSION: {}}}
ALICE = {"action": "accept", "content": {"name": "Alice"}}
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture
def server(redis_url: str) -> Iterator[CliServer]:
    running = CliServer(HANDLERS, "--workers", "2", "--store", redis_url)
    yield running
    running.stop()


def workers_with(handlers: str, redis_url: str) -> CliServer:
    """Two workers serving `pid_handlers.<handlers>` with the store at `redis_url`."""
    return CliServer(
        HANDLERS.replace(":HANDLERS", f":{handlers}"), "--workers", "2", "--store", redis_url
    )


def fresh(method: str, url: str, body: Any = None, **headers: str) -> httpx.Response:
    """One request on a connection of its own."""
    content = orjson.dumps(body) if body is not None else None
    with httpx.Client(timeout=GUARD) as http:
        return http.request(method, url, content=content, headers={**JSON_HEADERS, **headers})


def modern_call(
    url: str, name: str, capabilities: Any = CAPABILITIES, **params: Any
) -> httpx.Response:
    meta = {
        "io.modelcontextprotocol/protocolVersion": LATEST_REVISION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": meta, **params},
    }
    headers = {
        "mcp-protocol-version": LATEST_REVISION,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    return fresh("POST", url, body, **headers)


def pid_of(response: httpx.Response) -> int:
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert not result.get("isError"), result
    return int(result["content"][0]["text"])


def open_session(url: str) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "workers-test", "version": "1"},
        },
    }
    response = fresh("POST", url, init)
    assert response.status_code == 200, response.text
    session: str = response.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert fresh("POST", url, note, **{"mcp-session-id": session}).status_code == 202
    return session


def legacy_call(url: str, session: str, name: str = "test_simple_text") -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}},
    }
    return fresh("POST", url, body, **{"mcp-session-id": session, "mcp-protocol-version": LEGACY})


def alive(pid: int) -> bool:
    """Whether `pid` still runs: a process that ended but is not reaped yet (a zombie, as an
    orphan stays until the machine's init gets to it) does not."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except ProcessLookupError:
        return False
    except FileNotFoundError:  # no /proc (not Linux), or it ended just now
        return sys.platform != "linux"
    return state != "Z"


def wait_until_gone(pids: set[int]) -> set[int]:
    """The pids still alive once the guard expires (empty: all gone, as expected)."""
    deadline = time.monotonic() + GUARD
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {pid for pid in pids if alive(pid)}


def children_of(pid: int) -> set[int]:
    """The pids of the children of `pid` (Linux)."""
    return {int(word) for word in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


def worker_pids(url: str) -> set[int]:
    return {pid_of(modern_call(url, "test_simple_text")) for _ in range(ROUNDS)}


# -- several processes, one port --------------------------------------------------------


def test_stateless_calls_are_served_by_several_processes_on_one_port(server: CliServer) -> None:
    assert "with 2 workers at http://127.0.0.1:" in server.announced
    pids = worker_pids(server.url)
    assert len(pids) == 2
    assert server.process.pid not in pids  # the parent only watches


def test_a_handlers_class_is_created_in_each_worker(redis_url: str) -> None:
    """A class is instantiated after the fork, so what it opens (a database connection)
    is the worker's own; an instance would be shared, copied by the fork."""
    server = workers_with("PidHandlers", redis_url)
    try:
        answers = [modern_call(server.url, "test_simple_text") for _ in range(ROUNDS)]
        pairs = {
            tuple(response.json()["result"]["content"][0]["text"].split()) for response in answers
        }
    finally:
        server.stop()
    assert len(pairs) == 2
    assert all(created == serving for created, serving in pairs)


def test_an_input_required_retry_is_accepted_by_any_worker(server: CliServer) -> None:
    """The requestState signed by one worker verifies in the other: one key, made before
    the fork (run several rounds so that retries cross workers both ways)."""
    tool = "test_input_required_result_elicitation"
    for _ in range(ROUNDS // 4):
        first = modern_call(server.url, tool)
        state = first.json()["result"]["requestState"]
        answers = {"user_name": ALICE}
        second = modern_call(server.url, tool, inputResponses=answers, requestState=state)
        assert second.status_code == 200, second.text
        assert second.json()["result"]["content"][0]["text"] == "Hello, Alice!"


def task_request(url: str, method: str, task_id: str) -> httpx.Response:
    meta = {
        "io.modelcontextprotocol/protocolVersion": LATEST_REVISION,
        "io.modelcontextprotocol/clientCapabilities": TASK_CAPABILITIES,
    }
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": method,
        "params": {"taskId": task_id, "_meta": meta},
    }
    headers = {"mcp-protocol-version": LATEST_REVISION, "mcp-method": method, "mcp-name": task_id}
    return fresh("POST", url, body, **headers)


def test_a_task_is_reached_from_any_connection(server: CliServer) -> None:
    """A task's handler runs in the worker that created it, its record in the store:
    tasks/get and tasks/cancel on any connection reach it."""
    created = modern_call(server.url, "slow_compute", TASK_CAPABILITIES, arguments={"seconds": 60})
    task_id = created.json()["result"]["taskId"]
    statuses = {
        task_request(server.url, "tasks/get", task_id).json()["result"]["status"]
        for _ in range(ROUNDS // 4)
    }
    assert statuses == {"working"}
    cancelled = task_request(server.url, "tasks/cancel", task_id)
    assert cancelled.json()["result"]["resultType"] == "complete"
    final = {
        task_request(server.url, "tasks/get", task_id).json()["result"]["status"]
        for _ in range(ROUNDS // 4)
    }
    assert final == {"cancelled"}


# -- legacy sessions ----------------------------------------------------------------------


def test_a_legacy_session_is_served_by_every_worker(server: CliServer) -> None:
    workers = worker_pids(server.url)
    session = open_session(server.url)
    pids = {pid_of(legacy_call(server.url, session)) for _ in range(ROUNDS)}
    assert pids == workers


def test_a_legacy_session_asks_the_client_across_connections(server: CliServer) -> None:
    """elicitation/create goes out on the call's SSE stream; the client's answer arrives
    on new connections, whichever worker they reach (repeated: both ways)."""
    for _ in range(ROUNDS // 4):
        session = open_session(server.url)
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "test_input_required_result_elicitation", "arguments": {}},
        }
        headers = {**JSON_HEADERS, "mcp-session-id": session}
        final = None
        with (
            httpx.Client(timeout=GUARD) as http,
            http.stream("POST", server.url, content=orjson.dumps(call), headers=headers) as stream,
        ):
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = orjson.loads(line[len("data:") :])
                if message.get("method") == "elicitation/create":
                    answer = {"jsonrpc": "2.0", "id": message["id"], "result": ALICE}
                    reply = fresh("POST", server.url, answer, **{"mcp-session-id": session})
                    assert reply.status_code == 202
                elif message.get("id") == 1:
                    final = message
                    break
        assert final is not None
        assert final["result"]["content"][0]["text"] == "Hello, Alice!"


def test_an_ended_legacy_session_is_gone_in_every_worker(server: CliServer) -> None:
    session = open_session(server.url)
    assert fresh("DELETE", server.url, **{"mcp-session-id": session}).status_code == 204
    statuses = {legacy_call(server.url, session).status_code for _ in range(ROUNDS // 4)}
    assert statuses == {404}


def test_a_session_outlives_the_worker_that_opened_it(server: CliServer) -> None:
    session = open_session(server.url)
    owner = pid_of(legacy_call(server.url, session))
    os.kill(owner, signal.SIGKILL)
    assert not wait_until_gone({owner})
    survivors = {pid_of(legacy_call(server.url, session)) for _ in range(ROUNDS // 4)}
    assert len(survivors) == 1 and owner not in survivors
    deadline = time.monotonic() + GUARD
    while not any("stopped (killed by SIGKILL)" in line for line in server.lines):
        assert time.monotonic() < deadline, server.lines
        time.sleep(0.05)
    assert any(f"(pid {owner}) stopped" in line and "1 of 2" in line for line in server.lines)


def test_several_workers_without_a_store_is_a_usage_error() -> None:
    server = CliServer.failing(HANDLERS, "--workers", "2")
    assert server.returncode == 2
    assert "--store" in server.stderr


async def name_then_color(context: Any, params: types.ElicitRequestParams) -> Any:
    content = {"color": "red"} if "color" in params.message else {"name": "Ada"}
    return types.ElicitResult(action="accept", content=content)


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_the_sdk_client_answers_a_multi_round_question_through_two_workers(
    server: CliServer, mode: str
) -> None:
    """The official client, its own connection pool: InputRequiredResult rounds in the
    stateless era, elicitation/create on the session's event stream in the legacy one."""

    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with Client(server.url, mode=mode, elicitation_callback=name_then_color) as c:
                return await c.call_tool("test_input_required_result_multi_round", {})

    for _ in range(3):
        result = anyio.run(main)
        assert not result.is_error
        assert result.content[0].text == "Ada likes red"


# -- stopping -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)]
)
def test_stopping_the_server_stops_every_worker(server: CliServer, signum: int, code: int) -> None:
    pids = worker_pids(server.url)
    assert server.stop(signum) == code
    assert not wait_until_gone(pids)
    assert not any("Traceback" in line for line in server.lines)


def stop_each_worker(server: CliServer, pids: set[int]) -> None:
    """SIGTERM each worker itself (not through the parent, which bounds their stop): every
    one ends, and then the server (exit 1)."""
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    assert not wait_until_gone(pids)
    assert server.process.wait(GUARD) == 1


def test_a_worker_told_to_stop_while_it_starts_stops(redis_url: str) -> None:
    """SIGTERM that reaches a worker before its server handles the stop signals (here: while
    its handlers class is created, which takes `STARTING` seconds) still stops it: both
    workers end, and then the server (exit 1)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("finds the workers in /proc")
    starting = workers_with("SlowToStartHandlers", redis_url)
    try:
        deadline = time.monotonic() + GUARD
        while len(pids := children_of(starting.process.pid)) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        stop_each_worker(starting, pids)
    finally:
        starting.stop()
    assert not any("Traceback" in line for line in starting.lines)


def test_a_worker_told_to_stop_ends_even_when_a_handler_ignores_its_cancellation(
    redis_url: str,
) -> None:
    """asyncio waits for every task when its loop ends, a handler that goes on when
    cancelled included: a worker told to stop still ends once its graceful shutdown is
    done."""
    server = workers_with("STUBBORN", redis_url)
    try:
        pids = worker_pids(server.url)
        for _ in range(ROUNDS // 4):  # tasks in both workers, most likely
            created = modern_call(
                server.url, "slow_compute", TASK_CAPABILITIES, arguments={"seconds": 60}
            )
            assert created.json()["result"]["resultType"] == "task"
        stop_each_worker(server, pids)
    finally:
        server.stop()


def test_workers_of_a_killed_parent_stop_and_their_tasks_read_failed_at_once(
    server: CliServer, redis_url: str
) -> None:
    """Workers whose parent was killed stop as if told to (SIGTERM), saying so to the store:
    a task one of them ran reads `failed` on another instance as soon as they are gone, not
    only once their last sign of life expires."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    other = CliServer(HANDLERS, "--store", redis_url)
    try:
        pids = worker_pids(server.url)
        created = modern_call(
            server.url, "slow_compute", TASK_CAPABILITIES, arguments={"seconds": 60}
        )
        task_id = created.json()["result"]["taskId"]
        assert server.stop(signal.SIGKILL) == -signal.SIGKILL
        left = wait_until_gone(pids)
        assert not left, {pid: Path(f"/proc/{pid}/status").read_text()[:300] for pid in left}
        found = task_request(other.url, "tasks/get", task_id).json()["result"]
    finally:
        other.stop()
    assert found["status"] == "failed"
    assert found["error"]["code"] == -32603


def test_when_every_worker_died_the_server_exits_1(server: CliServer) -> None:
    for pid in worker_pids(server.url):
        os.kill(pid, signal.SIGKILL)
    assert server.process.wait(GUARD) == 1
    deadline = time.monotonic() + GUARD
    while not any("every worker stopped" in line for line in server.lines):
        assert time.monotonic() < deadline, server.lines
        time.sleep(0.05)


def test_a_handlers_class_that_cannot_be_created_stops_every_worker_with_exit_1(
    redis_url: str,
) -> None:
    server = workers_with("BrokenHandlers", redis_url)
    assert server.process.wait(GUARD) == 1
    server.stop()
    failures = [line for line in server.lines if "failed: ValueError: cannot create" in line]
    assert len(failures) == 2 and all("no database" in line for line in failures)
    assert not any("Traceback" in line for line in server.lines)


def test_one_worker_ctrl_c_exits_130_too() -> None:
    single = CliServer(HANDLERS)
    assert pid_of(modern_call(single.url, "test_simple_text")) == single.process.pid
    assert single.stop(signal.SIGINT) == 130


# -- sockets -----------------------------------------------------------------------------


def test_each_worker_has_its_own_socket_where_the_kernel_balances() -> None:
    """On Linux the workers listen with SO_REUSEPORT (one accept queue each)."""
    if not balanced_by_kernel():
        pytest.skip("no kernel balancing here: the workers share one socket")
    from toolgen.serve.http.server import listen
    from toolgen.serve.http.workers import close_all

    sockets = listen("127.0.0.1", 0, 3)
    try:
        assert len({sock.getsockname()[1] for sock in sockets}) == 1
        assert len({sock.fileno() for sock in sockets}) == 3
    finally:
        close_all(sockets)
