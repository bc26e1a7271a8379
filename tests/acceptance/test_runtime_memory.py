"""Memory of a stdio server: a finished call is freed by reference counting alone.

A call whose objects form a reference cycle (its task, the task's context, the
call's `notify` closure) stays in memory until the garbage collector runs a full
collection; under pipelining the survivors of thousands of calls pile up and
raise the server's peak RSS. These tests run calls with the collector off and
then look for the call objects among what only the collector could free.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest
from runtime_support.frames import DEMO_HANDLERS, DEMO_SPEC, InProcessClient

from toolgen.serve.context import CallContext


@pytest.fixture
def server() -> Iterator[InProcessClient]:
    client = InProcessClient(DEMO_SPEC, DEMO_HANDLERS, timeout=5.0)
    client.initialize()
    yield client
    client.close()


def _cyclic_call_objects() -> list[Any]:
    """The calls' tasks and contexts that only a garbage collection would free."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return [o for o in gc.garbage if isinstance(o, asyncio.Task | CallContext)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def _response(server: InProcessClient, request_id: int) -> Any:
    """The response to `request_id` (the call's notifications before it are skipped)."""
    while True:
        message = server.recv()
        if message.get("id") == request_id:
            return message


CALLS = [
    ("echo", {"text": "a", "times": 2}),  # sync: on the thread that read it
    ("count", None),  # async: on the loop
    ("report", None),  # async, sends notifications through the call's `notify`
    ("report_sync", None),  # sync, sends them from the thread that read it
]


@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[tool for tool, _ in CALLS])
def test_a_finished_call_leaves_no_reference_cycle(
    server: InProcessClient, tool: str, arguments: Any
) -> None:
    gc.collect()
    gc.disable()
    try:
        for request_id in range(3):
            params: dict[str, Any] = {"name": tool, "_meta": {"progressToken": request_id}}
            if arguments is not None:
                params["arguments"] = arguments
            server.send(
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            )
            reply = _response(server, request_id)
            assert reply["result"]["isError"] is False, reply
        left = _cyclic_call_objects()
    finally:
        gc.enable()
    # A closure or object in the call's context that holds the call strongly makes the cycle:
    # hold it weakly, as `toolgen.serve.stdio._Notifier` does.
    assert left == [], f"finished calls left for the garbage collector: {left[:4]}"
