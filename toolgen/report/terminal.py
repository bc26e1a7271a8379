"""Located errors as a person reads them on a terminal: the `file:line:col: error[code]:
message` line, then the source line and a caret under the column (as ruff and rustc show
them), in colour when the stream is a terminal and `NO_COLOR` is not set.

The first line stays exactly `str(diagnostic)`, so tools that read `file:line:col` from
stderr read the same lines; the excerpt lines start with spaces and a `|`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TextIO

from toolgen.spec.errors import Diagnostic, Location
from toolgen.spec.text import visible

MAX_SHOWN = 200
"""Characters of a source line shown at most (a minified file is one long line)."""
_RED, _BLUE, _BOLD, _RESET = "\033[31m", "\033[34m", "\033[1m", "\033[0m"


def wants_colour(stream: TextIO) -> bool:
    """Whether to colour what goes to `stream`: a terminal, and `NO_COLOR` unset or empty
    (https://no-color.org)."""
    return not os.environ.get("NO_COLOR") and stream.isatty()


def print_spec_errors(diagnostics: Iterable[Diagnostic], stream: TextIO | None = None) -> None:
    """Every diagnostic with its excerpt on `stream` (stderr), in colour on a terminal."""
    stream = stream or sys.stderr
    colour = wants_colour(stream)
    for diagnostic in diagnostics:
        stream.write(diagnostic_text(diagnostic, colour=colour) + "\n")
    stream.flush()


def diagnostic_text(diagnostic: Diagnostic, *, colour: bool = False) -> str:
    """The diagnostic's line, then its source excerpt when the file can be read."""
    head = visible(str(diagnostic))  # a spec's or a server's text: no escape sequences
    if colour:
        where = visible(f"{diagnostic.location}: ") if diagnostic.location else ""
        head = (
            f"{_BOLD}{where}{_RESET}{_RED}{_BOLD}error[{diagnostic.code}]{_RESET}: "
            f"{visible(diagnostic.message)}"
        )
    shown = excerpt(diagnostic.location) if diagnostic.location else None
    if shown is None:
        return head
    gutter, caret = _BLUE if colour else "", _RED + _BOLD if colour else ""
    reset = _RESET if colour else ""
    number, text, pad = shown
    width = len(str(number))
    return (
        f"{head}\n{gutter}{' ' * width} |{reset}\n"
        f"{gutter}{number} |{reset} {text}\n"
        f"{gutter}{' ' * width} |{reset} {pad}{caret}^{reset}"
    )


def excerpt(location: Location) -> tuple[int, str, str] | None:
    """(line number, the line, the blanks before the caret) of `location`, or None when
    the file cannot be read (a `git:` side, a file gone) or has no such line."""
    try:
        with Path(location.file).open(encoding="utf-8", errors="replace") as handle:
            text = next(islice(handle, max(location.line - 1, 0), None), None)
    except OSError:
        return None
    if text is None:
        return None
    text = text.rstrip("\r\n")[:MAX_SHOWN]
    printable = "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in text)
    column = min(max(location.column, 1), len(printable) + 1)
    pad = "".join(ch if ch == "\t" else " " for ch in printable[: column - 1])
    return location.line, printable, pad
