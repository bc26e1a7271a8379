"""What a connection and a session keep of the capabilities a client declares in
`initialize` is bounded, whatever the client sends."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from conftest import toolset_of

from toolgen.serve.connection import (
    MAX_CAPABILITIES,
    MAX_CAPABILITY_NAMES,
    Connection,
    kept_capabilities,
)
from toolgen.serve.engine import Engine
from toolgen.serve.http.sessions import Sessions
from toolgen.serve.store import MemoryStore
from toolgen.serve.tools import Tools

HUGE = {"sampling": {}, "experimental": {f"k{i}": {} for i in range(50_000)}}
MANY = {f"name{i}": {"x": "y" * 100} for i in range(500)}
CASES: list[tuple[str, Any, Any]] = [
    ("a usual object is kept as sent", {"sampling": {}, "elicitation": {"form": {}}}, None),
    ("a huge object keeps its names", HUGE, {"sampling": {}, "experimental": {}}),
    ("not an object keeps nothing", ["sampling"], {}),
]


@pytest.mark.parametrize(
    ("declared", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_what_a_connection_keeps_of_the_declared_capabilities(declared: Any, expected: Any) -> None:
    kept = kept_capabilities(declared)
    assert kept == (declared if expected is None else expected)
    assert len(orjson.dumps(kept)) <= MAX_CAPABILITIES


def test_an_object_of_many_members_keeps_a_bounded_number_of_names() -> None:
    kept = kept_capabilities(MANY)
    assert list(kept) == list(MANY)[:MAX_CAPABILITY_NAMES]


def test_initialize_keeps_a_bounded_capabilities_object() -> None:
    engine = Engine(Tools(toolset_of(("echo", {"type": "object"}, None))), {})
    connection = Connection()
    params = {"protocolVersion": "2025-11-25", "capabilities": HUGE, "clientInfo": {"name": "c"}}
    reply = engine.dispatch(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, connection
    )
    assert isinstance(reply, dict) and "result" in reply
    assert connection.client_capabilities == {"sampling": {}, "experimental": {}}


def test_a_session_record_is_bounded() -> None:
    store = MemoryStore()
    sessions = Sessions(store)
    connection = Connection()
    connection.legacy_version = "2025-11-25"
    connection.client_capabilities = kept_capabilities(MANY)

    async def main() -> dict[str, Any] | None:
        session_id = await sessions.create(connection)
        return await store.use_session(session_id, 0.0)

    record = asyncio.run(main())
    assert record is not None
    assert len(orjson.dumps(record)) <= MAX_CAPABILITIES + 512
