"""Located errors on a terminal: the line as before, then the source line and a caret under
the column; colour only on a terminal without NO_COLOR."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from toolgen.report.terminal import diagnostic_text, wants_colour
from toolgen.spec.errors import Diagnostic, Location


@pytest.mark.parametrize(
    ("source", "line", "column", "shown", "pad"),
    [
        ("a: 1\ntools: [x, y]\n", 2, 12, "tools: [x, y]", " " * 11),
        ("\tkey: v\n", 1, 3, "\tkey: v", "\t "),  # a tab before the caret stays a tab
        ("only\n", 1, 99, "only", " " * 4),  # a column past the end points just after it
    ],
)
def test_a_located_error_shows_its_source_line_and_a_caret_under_the_column(
    tmp_path: Path, source: str, line: int, column: int, shown: str, pad: str
) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(source, encoding="utf-8")
    diagnostic = Diagnostic("unknown-key", "what", Location(str(spec), line, column))
    head, blank, text, caret = diagnostic_text(diagnostic).split("\n")
    assert head == str(diagnostic)
    gutter = " " * len(str(line))
    assert (blank, text, caret) == (f"{gutter} |", f"{line} | {shown}", f"{gutter} | {pad}^")


@pytest.mark.parametrize(
    "location", [None, Location("git:HEAD:specs/a.yaml", 1, 1), Location("x.yaml", 1, 1)]
)
def test_without_a_readable_line_only_the_error_line_is_shown(location: Location | None) -> None:
    diagnostic = Diagnostic("io", "what", location)
    assert diagnostic_text(diagnostic) == str(diagnostic)


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_colour(Terminal()) and not wants_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_colour(Terminal())
    diagnostic = Diagnostic("io", "what", None)
    assert "\033[" in diagnostic_text(diagnostic, colour=True)
    assert "\033[" not in diagnostic_text(diagnostic)
