"""The time limit on request bodies, kept by one sweeping timer (`guard.BodyDeadlines`)."""

from __future__ import annotations

import asyncio

import pytest
from http_support import GUARD

from toolgen.serve.http.guard import BodyDeadlines


async def read(deadlines: BodyDeadlines, seconds: float) -> str:
    """A body reader: 'read' when the body came, 'timeout' when its deadline cut it."""
    task = asyncio.current_task()
    assert task is not None
    deadlines.start(task)
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        if not deadlines.expired(task):
            raise
        return "timeout"
    finally:
        deadlines.stop(task)
    return "read"


def test_a_body_past_its_deadline_is_cut_and_the_reader_is_told() -> None:
    assert asyncio.run(read(BodyDeadlines(0.2), GUARD)) == "timeout"


def test_a_body_in_time_is_read_and_nothing_is_cancelled_afterwards() -> None:
    async def scenario() -> tuple[str, str]:
        deadlines = BodyDeadlines(0.2)
        first = await read(deadlines, 0)
        await asyncio.sleep(0.5)  # past the deadline, outside the read: not cut
        return first, "still running"

    assert asyncio.run(scenario()) == ("read", "still running")


def test_a_cancellation_from_elsewhere_is_not_taken_for_the_deadline() -> None:
    async def scenario() -> None:
        deadlines = BodyDeadlines(GUARD)
        reader = asyncio.create_task(read(deadlines, GUARD))
        await asyncio.sleep(0)
        reader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reader

    asyncio.run(scenario())


def test_slow_and_fast_readers_side_by_side_each_get_their_own_answer() -> None:
    async def scenario() -> list[str]:
        deadlines = BodyDeadlines(0.2)
        return list(await asyncio.gather(read(deadlines, GUARD), read(deadlines, 0.01)))

    assert asyncio.run(scenario()) == ["timeout", "read"]


def test_deadlines_keep_working_when_the_event_loop_changes() -> None:
    """An app built once and served by one loop after another (tests, reloads)."""
    deadlines = BodyDeadlines(0.2)
    assert asyncio.run(read(deadlines, GUARD)) == "timeout"
    assert asyncio.run(read(deadlines, GUARD)) == "timeout"
