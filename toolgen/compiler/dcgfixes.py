"""Linear-time stand-ins for a quadratic helper of datamodel-code-generator's builtin formatter.

DCG's formatter splits the generated module into lines with `_splitlines_no_ff`,
a character-by-character Python loop that appends one character at a time to
the current line. On an ordinary module that is cheap; on a tool with a huge
enum (one `Literal[...]` line of megabytes) the appends make it quadratic: a
128,000-value enum spent 60 of its 70 s there, a 580,000-value enum more than
five minutes. `apply()` replaces it with one regular expression that returns
the same lines (lines end at `\\r\\n`, `\\r` or `\\n`; a form feed does not end
a line; a last line without an end is kept), so DCG's output is byte for byte
the same. Kept apart from the models emitter, which owns how DCG is called:
when DCG changes (or another formatter is used) `apply` does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_LINE = re.compile(r"[^\r\n]*(?:\r\n|[\r\n])|[^\r\n]+\Z")


def split_lines(source: str) -> list[str]:
    """`source`'s lines with their ends, as Python's parser counts them (no form-feed split)."""
    return _LINE.findall(source)


REPLACED: dict[str, Callable[..., Any]] = {}
"""DCG's own functions that `apply` replaced, by name (the tests compare them with ours)."""


def apply() -> bool:
    """Install `split_lines` in DCG's builtin formatter; False when DCG has no such helper."""
    try:
        from datamodel_code_generator import _builtin_formatter as formatter
    except ImportError:  # pragma: no cover - DCG is a dependency; a layout change disables this
        return False
    original = getattr(formatter, "_splitlines_no_ff", None)
    if not callable(original):
        return False
    if original is not split_lines:
        REPLACED["_splitlines_no_ff"] = original
        formatter._splitlines_no_ff = split_lines
    return True
