"""A list read page by page ends: at a cursor seen twice, or after MAX_PAGES pages."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from toolgen.client.connect import Page, PaginationError, read_pages
from toolgen.limits import MAX_PAGES

SERVERS: dict[str, Callable[[str | None], Page]] = {
    "endless": lambda cursor: ([cursor], f"{cursor}+"),
    "circle": lambda cursor: ([cursor], "b" if cursor == "a" else "a"),
}


@pytest.mark.parametrize(
    ("server", "error"), [("endless", f"past {MAX_PAGES} pages"), ("circle", "'a' twice")]
)
def test_a_list_that_never_ends_is_an_error(server: str, error: str) -> None:
    calls: list[str | None] = []

    async def fetch(cursor: str | None) -> Page:
        calls.append(cursor)
        return SERVERS[server](cursor)

    with pytest.raises(PaginationError, match=error):
        asyncio.run(read_pages(fetch))
    assert len(calls) <= MAX_PAGES


@pytest.mark.parametrize("last", [None, "", 7])
def test_pages_end_at_a_cursor_that_is_not_a_non_empty_string(last: object) -> None:
    async def fetch(cursor: str | None) -> Page:
        return ([1, 2], "next") if cursor is None else ([3], last)

    assert asyncio.run(read_pages(fetch)) == [1, 2, 3]
