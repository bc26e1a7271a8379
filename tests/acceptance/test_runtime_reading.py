"""Sync calls run on the thread that read them, a blocking one never stops the server, and a
model result is dumped once.

Over stdio a sync call runs on the thread that read it (see `toolgen.serve.stdio`); a
call that runs long hands reading to a new thread. These tests hold such a handler
blocked and check that the server goes on meanwhile: pings, other calls and
cancellation are served, the timeout answers, the handler is told, and a stuck
handler is counted until it returns.
"""

from __future__ import annotations

import datetime
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import BaseModel, ConfigDict, Field
from runtime_support.frames import READ_LIMIT, EngineClient, Frames, _serve

import toolgen
from toolgen.serve.context import current_call
from toolgen.serve.engine import Engine
from toolgen.serve.results import serialize, to_plain

SPEC = """\
toolgen: 1
server: {name: reading, version: "1.0.0"}
tools:
  - name: block
  - name: where
    output: {type: object, properties: {thread: {type: string}}, required: [thread]}
  - name: later
"""


class Blocking:
    """`block` waits until released and records whether it was told it was cancelled."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.told: list[bool] = []

    def block(self) -> str:
        self.started.set()
        call = current_call()
        while not call.cancelled and not self.release.is_set():
            time.sleep(0.01)
        self.told.append(call.cancelled)
        self.release.wait(READ_LIMIT)  # stays stuck after noticing, until the test lets go
        return "released"

    def where(self) -> dict[str, Any]:
        return {"thread": threading.current_thread().name}

    async def later(self) -> str:
        return "async"


@pytest.fixture
def tools(tmp_path: Path) -> Any:
    (tmp_path / "reading.yaml").write_text(SPEC, encoding="utf-8")
    return toolgen.load(tmp_path)


@pytest.fixture
def handlers() -> Iterator[Blocking]:
    found = Blocking()
    yield found
    found.release.set()


def call(client: Frames, request_id: Any, name: str) -> Any:
    return client.request(request_id, "tools/call", {"name": name, "arguments": {}})


def until(condition: Any) -> bool:
    """Poll `condition()` for a while (a bound against hanging, never a timing assertion)."""
    deadline = time.monotonic() + READ_LIMIT
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(condition())


def test_sequential_sync_calls_run_on_the_thread_that_read_them(
    tools: Any, handlers: Blocking
) -> None:
    client = EngineClient(Engine(tools, handlers))
    client.initialize()
    threads = {call(client, i, "where")["result"]["structuredContent"]["thread"] for i in (1, 2)}
    assert threads == {"toolgen-stdin"}
    assert call(client, 3, "later")["result"]["content"][0]["text"] == "async"
    assert client.close() == []


def test_a_blocked_sync_call_on_the_reading_thread_does_not_stop_the_server(
    tools: Any, handlers: Blocking
) -> None:
    engine = Engine(tools, handlers)
    client = EngineClient(engine)
    client.initialize()
    client.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "block"}})
    assert handlers.started.wait(READ_LIMIT)
    assert client.request(2, "ping")["id"] == 2  # another thread reads meanwhile
    assert call(client, 3, "where")["result"]["structuredContent"]["thread"]
    assert call(client, 4, "later")["result"]["content"][0]["text"] == "async"
    client.notify("notifications/cancelled", {"requestId": 1})
    assert until(lambda: handlers.told == [True])  # the handler is told
    assert until(lambda: engine.calls.stuck_calls == 1)  # and counted while it runs on
    handlers.release.set()
    assert until(lambda: engine.calls.stuck_calls == 0)
    assert client.request(5, "ping")["id"] == 5
    assert client.close() == []  # the cancelled call is never answered


def test_a_sync_call_on_the_reading_thread_times_out_and_its_handler_is_told(
    tools: Any, handlers: Blocking
) -> None:
    engine = Engine(tools, handlers, timeout=0.2)
    client = EngineClient(engine)
    client.initialize()
    result = call(client, 1, "block")["result"]
    assert result["isError"] is True
    assert "did not finish within 0.2 seconds" in result["content"][0]["text"]
    assert until(lambda: handlers.told == [True])
    assert engine.calls.stuck_calls == 1
    assert call(client, 2, "where")["result"]["structuredContent"]["thread"] == "toolgen-stdin"
    handlers.release.set()
    assert until(lambda: engine.calls.stuck_calls == 0)
    assert client.close() == []


def test_a_sync_call_running_at_end_of_input_answers_within_the_grace_period(
    tools: Any, handlers: Blocking
) -> None:
    client = EngineClient(Engine(tools, handlers))
    client.initialize()
    client.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "block"}})
    assert handlers.started.wait(READ_LIMIT)
    threading.Timer(0.1, handlers.release.set).start()
    rest = client.close()
    assert [line for line in rest if b'"id":1' in line.replace(b" ", b"")]


def test_a_non_blocking_stdin_is_read_as_well(tools: Any, handlers: Blocking) -> None:
    server_in, client_out = os.pipe()
    os.set_blocking(server_in, False)  # as a parent process may leave it
    client_in, server_out = os.pipe()
    server = threading.Thread(
        target=_serve, args=(Engine(tools, handlers), server_in, server_out), daemon=True
    )
    server.start()
    client = Frames(os.fdopen(client_out, "wb"), os.fdopen(client_in, "rb"))
    time.sleep(0.05)  # (not a timing assertion: lets the server find stdin empty first)
    client.initialize()
    assert call(client, 1, "where")["result"]["structuredContent"] == {"thread": "toolgen-stdin"}
    client._to_server.close()
    server.join(READ_LIMIT)
    assert not server.is_alive()


# -- a model result is dumped once ------------------------------------------------------


class Inner(BaseModel):
    when: datetime.date
    tags: set[str]


class Result(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    count: float = Field(alias="Count")
    inner: Inner
    pair: tuple[int, str]


def result(count: float) -> Result:
    return Result(
        Count=count, inner=Inner(when=datetime.date(2026, 1, 2), tags={"a"}), pair=(1, "x")
    )


@pytest.mark.parametrize("count", [1.0, 2.5, 0.0])
def test_a_model_result_gives_the_plain_data_and_json_that_serializing_it_gives(
    count: float,
) -> None:
    plain, data = to_plain(result(count))
    assert data == serialize(result(count))
    again = orjson.loads(data)
    assert plain == again
    assert [type(x) for x in plain.values()] == [type(x) for x in again.values()]


@pytest.mark.parametrize("count", [math.nan, math.inf, -math.inf])
def test_a_model_result_holding_nan_or_infinity_is_refused(count: float) -> None:
    with pytest.raises(TypeError, match="NaN or Infinity"):
        to_plain(result(count))
