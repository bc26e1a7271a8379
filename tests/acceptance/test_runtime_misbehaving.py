"""Handlers that misbehave never take the server down, starve it, or corrupt a result.

Issue 10: a handler raising KeyboardInterrupt or SystemExit ended the whole server;
BaseException, GeneratorExit or CancelledError left the request unanswered; 32 hung
sync calls starved every later one; NaN was sent as null with isError false.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from runtime_support.frames import FrameClient

import toolgen
from toolgen.serve.connection import Connection
from toolgen.serve.context import current_call
from toolgen.serve.engine import Engine
from toolgen.serve.handlers import import_object

SPEC = """\
toolgen: 1
server: {name: unruly, version: "1.0.0"}
tools:
  - name: boom
    input: {type: object, properties: {kind: {type: string}}, required: [kind]}
  - name: aboom
    input: {type: object, properties: {kind: {type: string}}, required: [kind]}
  - name: value
    input: {type: object, properties: {kind: {type: string}}, required: [kind]}
    output: {type: object, properties: {x: {type: number}}, required: [x]}
  - name: loose
    input: {type: object, properties: {kind: {type: string}}, required: [kind]}
  - name: hang
  - name: quick
"""

HANDLERS = """\
import asyncio
import math

RAISED = {
    "KeyboardInterrupt": KeyboardInterrupt,
    "SystemExit": SystemExit,
    "BaseException": BaseException,
    "GeneratorExit": GeneratorExit,
    "CancelledError": asyncio.CancelledError,
}


class Handlers:
    def boom(self, args):
        raise RAISED[args["kind"]]()

    async def aboom(self, args):
        await asyncio.sleep(0)
        raise RAISED[args["kind"]]()

    def value(self, args):
        return {"x": {"nan": math.nan, "inf": math.inf, "ninf": -math.inf, "one": 1.0}[args["kind"]]}

    def loose(self, args):
        return [math.nan] if args["kind"] == "nan" else [1.5]
"""

KINDS = ["KeyboardInterrupt", "SystemExit", "BaseException", "GeneratorExit", "CancelledError"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("unruly")
    (root / "unruly.yaml").write_text(SPEC, encoding="utf-8")
    (root / "unruly_handlers.py").write_text(HANDLERS, encoding="utf-8")
    client = FrameClient(
        str(root / "unruly.yaml"), "--handlers", f"{root / 'unruly_handlers.py'}:Handlers"
    )
    client.initialize()
    yield client
    client.close()


def call(client: FrameClient, request_id: int, name: str, arguments: dict[str, Any]) -> Any:
    return client.request(request_id, "tools/call", {"name": name, "arguments": arguments})


@pytest.mark.parametrize("tool", ["boom", "aboom"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_handler_raising_any_base_exception_answers_is_error_and_the_server_goes_on(
    server: FrameClient, tool: str, kind: str
) -> None:
    request_id = KINDS.index(kind) * 10 + len(tool)
    reply = call(server, request_id, tool, {"kind": kind})
    assert reply["id"] == request_id
    assert reply["result"]["isError"] is True
    assert "internal error" in reply["result"]["content"][0]["text"]
    assert server.request(request_id + 1000, "ping", {})["result"] == {}


@pytest.mark.parametrize("kind", ["nan", "inf", "ninf"])
def test_a_result_holding_nan_or_infinity_is_refused_not_sent_as_null(
    server: FrameClient, kind: str
) -> None:
    reply = call(server, 100 + len(kind), "value", {"kind": kind})
    assert reply["result"]["isError"] is True
    assert "structuredContent" not in reply["result"]
    good = call(server, 200, "value", {"kind": "one"})
    assert good["result"]["structuredContent"] == {"x": 1.0}


def test_nan_in_a_result_without_output_schema_is_refused_too(server: FrameClient) -> None:
    assert call(server, 300, "loose", {"kind": "nan"})["result"]["isError"] is True
    assert call(server, 301, "loose", {"kind": "ok"})["result"]["content"][0]["text"] == "[1.5]"


# -- hung sync handlers ------------------------------------------------------------------


def test_hung_sync_calls_do_not_starve_new_ones_and_are_told_they_were_cancelled(
    tmp_path: Path,
) -> None:
    (tmp_path / "unruly.yaml").write_text(SPEC, encoding="utf-8")
    tools = toolgen.load(tmp_path)
    release = threading.Event()
    saw_cancel: list[bool] = []
    started: list[int] = []  # a job whose call ends before a worker takes it never runs

    def hang() -> dict[str, Any]:
        started.append(1)
        call = current_call()
        while not call.cancelled and not release.is_set():
            time.sleep(0.01)
        saw_cancel.append(call.cancelled)
        release.wait(30)  # stays stuck after noticing, until the test lets go
        return {}

    def quick() -> str:
        return "done"

    engine = Engine(
        tools, {"hang": hang, "quick": quick}, timeout=5.0
    )  # long enough that every hung job has started, even on a loaded machine

    async def scenario() -> list[tuple[list[Any], int, Any]]:
        connection = Connection()
        connection.legacy_version = "2025-11-25"

        def request(request_id: int, name: str) -> Any:
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
            message["params"] = {"name": name, "arguments": {}}
            return engine.handle(message, connection)

        waves = []
        for wave in (range(32), range(32, 40)):  # fill the pool, then more on top
            hung = await asyncio.gather(*(request(i, "hang") for i in wave))
            stuck = (engine.calls.stuck_calls, len(started))
            waves.append((hung, stuck, await request(99, "quick")))
        return waves

    try:
        waves = asyncio.run(scenario())
        for hung, (stuck, running), after in waves:
            assert all(r["result"]["isError"] for r in hung)
            assert "did not finish within" in hung[0]["result"]["content"][0]["text"]
            assert stuck == running  # every handler that started is stuck, none is lost
            assert after["result"]["content"] == [{"type": "text", "text": "done"}]
            assert not after["result"].get("isError")
        assert waves[1][1][0] > 32  # the second wave ran beside a full pool of stuck workers
        deadline = time.monotonic() + 10  # each handler polls every 10 ms
        while len(saw_cancel) < len(started) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert saw_cancel == [True] * len(started)
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while engine.calls.stuck_calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert engine.calls.stuck_calls == 0


@pytest.mark.parametrize("kind", KINDS)
def test_over_http_a_handler_raising_any_base_exception_answers_is_error(
    tmp_path: Path, kind: str
) -> None:
    import httpx
    from http_support import call_headers, http_server
    from runtime_support.frames import MODERN, modern_meta

    (tmp_path / "unruly.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "unruly_http_handlers.py").write_text(HANDLERS, encoding="utf-8")
    handlers = import_object(f"{tmp_path / 'unruly_http_handlers.py'}:Handlers")
    with http_server(toolgen.load(tmp_path), handlers) as url:
        for request_id, tool in enumerate(["boom", "aboom", "boom"]):
            body = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": {"kind": kind}, "_meta": modern_meta()},
            }
            reply = httpx.post(url, json=body, headers=call_headers(tool, MODERN), timeout=30)
            assert reply.status_code == 200, reply.text
            assert reply.json()["result"]["isError"] is True
