"""The bounded line splitter and the message limit every peer read shares."""

from __future__ import annotations

import pytest

from toolgen import limits
from toolgen.limits import Lines, TooLong, read_lines

CASES = [
    # (chunks, lines as (bytes) or sizes of dropped lines (int))
    (
        [b'{"a":', b"1}\n{", b'"b":2222', b"2222222", b"22}\n", b"{}\n", b"[1]"],
        [b'{"a":1}', 16, b"{}", b"[1]"],
    ),
    ([b"0123456789\n"], [b"0123456789"]),
    ([b"01234567890\n", b"ok\n"], [11, b"ok"]),
    ([b"012345", b"67890", b"123\nok"], [11, b"ok"]),
    ([b"\n\n"], [b"", b""]),
    ([], []),
]


@pytest.mark.parametrize(("chunks", "expected"), CASES)
def test_lines_over_the_limit_are_dropped_once_and_reading_goes_on(
    chunks: list[bytes], expected: list[bytes | int]
) -> None:
    read = iter([*chunks, b""]).__next__
    got = [line.size if isinstance(line, TooLong) else line for line in read_lines(read, 10)]
    assert got == expected


def test_an_oversize_line_is_never_held_whole() -> None:
    lines = Lines(1024)
    held = 0
    for _ in range(1000):
        list(lines.feed(b"x" * 4096))
        held = max(held, sum(map(len, lines._parts)))
    assert held <= 1024


@pytest.mark.parametrize(
    ("value", "expected"), [("", limits.DEFAULT_MAX_MESSAGE), ("4096", 4096), (" 2048 ", 2048)]
)
def test_the_message_limit_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: int
) -> None:
    monkeypatch.setenv(limits.MESSAGE_ENV, value)
    assert limits.max_message() == expected


@pytest.mark.parametrize("value", ["64MiB", "-5", "100", "1e6"])
def test_a_message_limit_that_is_not_a_byte_count_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(limits.MESSAGE_ENV, value)
    with pytest.raises(ValueError, match="TOOLGEN_MAX_MESSAGE"):
        limits.max_message()
