"""The stores, in process and in a real Redis alike: stream events replayed and followed;
tasks changed by edits; sessions ranked for eviction. The in-process one is bounded in
bytes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis_support import redis_url

from toolgen.serve import store as store_module
from toolgen.serve.store import MemoryStore, Store

__all__ = ["redis_url"]  # the fixture


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Store:
    if request.param == "memory":
        return MemoryStore()
    from toolgen.serve.redis_store import RedisStore

    return RedisStore(request.getfixturevalue("redis_url"))


def run(store: Store, scenario: Any) -> Any:
    """Run `scenario()` on a loop of its own, then close the store's connection."""

    async def main() -> Any:
        try:
            return await scenario()
        finally:
            await store.close()

    return asyncio.run(main())


async def _collect(store: Store, stream: str, after: int) -> list[tuple[int, Any]]:
    return [event async for event in store.events(stream, after, 5.0)]


def test_a_stream_replays_the_events_after_one_and_follows_until_its_last(store: Store) -> None:
    async def main() -> list[tuple[int, Any]]:
        await store.add_event("s", 1, {"n": 1}, False)
        await store.add_event("s", 2, {"n": 2}, False)
        reading = asyncio.ensure_future(_collect(store, "s", 1))
        await asyncio.sleep(0.05)
        await store.add_event("s", 3, {"n": 3}, True)
        return await reading

    assert run(store, main) == [(2, {"n": 2}), (3, {"n": 3})]


def test_a_redis_stream_waits_for_its_next_event_past_the_socket_timeout(redis_url: str) -> None:
    """A blocking read of a stream in Redis is answered only when an event comes: the store
    reads in steps shorter than the time the client gives Redis to answer."""
    from toolgen.serve.redis_store import RedisStore

    store = RedisStore(f"{redis_url}?socket_timeout=0.6")

    async def main() -> list[tuple[int, Any]]:
        await store.add_event("slow", 1, {"n": 1}, False)
        reading = asyncio.ensure_future(_collect(store, "slow", 1))
        await asyncio.sleep(1.0)
        await store.add_event("slow", 2, {"n": 2}, True)
        return await reading

    assert run(store, main) == [(2, {"n": 2})]


def test_an_unknown_stream_has_no_events(store: Store) -> None:
    assert run(store, lambda: _collect(store, "nowhere", 0)) == []


def test_streams_past_the_byte_bound_go_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "STREAM_BYTES", 100)
    store = MemoryStore()

    async def main() -> tuple[list[Any], list[Any]]:
        for name in ("old", "new"):
            await store.add_event(name, 1, {"data": "x" * 60}, True)
        return await _collect(store, "old", 0), await _collect(store, "new", 0)

    old, new = asyncio.run(main())
    assert old == [] and len(new) == 1


def test_a_task_edit_that_changes_nothing_keeps_the_record(store: Store) -> None:
    async def main() -> list[Any]:
        await store.put_task("t", {"status": "working"}, 60)
        kept = await store.change_task("t", lambda record: None)
        changed = await store.change_task("t", lambda record: {**record, "status": "completed"})
        missing = await store.change_task("other", lambda record: {})
        return [kept, changed, missing]

    assert run(store, main) == [{"status": "working"}, {"status": "completed"}, None]


def test_sessions_rank_unused_by_start_and_used_by_last_use(store: Store) -> None:
    async def main() -> list[Any]:
        for name, start in (("a", 1.0), ("b", 2.0), ("c", 3.0)):
            await store.put_session(name, {"lastSeen": start})
        await store.use_session("b", 10.0)
        return [
            await store.oldest_session(unused=True),
            await store.oldest_session(unused=False),
            await store.session_count(),
        ]

    assert run(store, main) == [("a", 1.0), ("a", 1.0), 3]
