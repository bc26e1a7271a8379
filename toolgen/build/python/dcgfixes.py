"""Faster stand-ins for three helpers of datamodel-code-generator's builtin formatter.

A workaround, until DCG itself is faster (the issue for DCG: benchmarks/upstream/
datamodel-code-generator.md): `faster()` puts them in place for the length of
toolgen's own DCG call and puts DCG's back after it, so no other use of DCG in the
process sees them outside that call. Each returns what DCG's own returns, so DCG's
output is byte for byte the same (tests compare them on DCG's real output and on
generated code). When DCG changes (it lacks one of the helpers) `faster` does nothing.

- `split_lines` replaces `_splitlines_no_ff`, a character-by-character loop that
  appends one character at a time to the current line: quadratic on a line of
  megabytes (a tool with a huge enum: a 128,000-value enum spent 60 of its 70 s
  there). One regular expression returns the same lines (they end at `\\r\\n`,
  `\\r` or `\\n`; a form feed does not end a line; a last line without an end is
  kept).
- `normalize_string_quotes` and `string_tokens` replace `_normalize_string_quotes`
  and `_string_tokens`, which run Python's pure-Python `tokenize` over the whole
  module (twice) only to find its string literals: 15% of a big build's models
  step. One regular expression finds the same literals. Code it cannot vouch for
  (tabs, form feeds, carriage returns, backslash continuations, f-strings, a quote
  that starts no literal) goes to DCG's own functions.
"""

from __future__ import annotations

import contextlib
import re
import tokenize
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

formatter: ModuleType | None
try:
    from datamodel_code_generator import _builtin_formatter as formatter
except ImportError:  # pragma: no cover - DCG moved its formatter: `faster` does nothing
    formatter = None

_LINE = re.compile(r"[^\r\n]*(?:\r\n|[\r\n])|[^\r\n]+\Z")

_LEXEME = re.compile(
    r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>
        (?P<prefix>(?<!\w)[rRbBuUfF]{1,2})?
        (?: '''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''
          | \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
          | '[^'\\\n]*(?:\\.[^'\\\n]*)*'
          | "[^"\\\n]*(?:\\.[^"\\\n]*)*"
        )
    )
  | (?P<stray>['"])
    """,
    re.VERBOSE | re.DOTALL,
)
"""A comment, a string literal (with its prefix), or a quote that starts neither. Each body
is an unrolled loop (a run of plain characters, then an escape or a lone quote and another
run): one way to match any text, so a literal that does not close fails in linear time
without possessive quantifiers, which Python before 3.11.4 matches wrongly (no triple-quoted
literal at all)."""

_UNSURE = ("\t", "\f", "\r", "\\\n")
"""Text in which `tokenize` and `untokenize` may read or rebuild a module differently."""

_QUOTED = re.compile(r"(?i)^([rubf]*)('''|')")


def split_lines(source: str) -> list[str]:
    """`source`'s lines with their ends, as Python's parser counts them (no form-feed split)."""
    return _LINE.findall(source)


def string_literals(code: str) -> list[re.Match[str]] | None:
    """Every string literal of `code`, in order; None when only `tokenize` can tell."""
    if any(text in code for text in _UNSURE):
        return None
    found = []
    for match in _LEXEME.finditer(code):
        if match.lastgroup == "stray" or "f" in (match["prefix"] or "").lower():
            return None
        if match["string"] is not None:
            found.append(match)
    return found


def double_quoted(literal: str) -> str:
    """`literal` in double quotes when that needs no new escape (as black normalizes)."""
    quoted = _QUOTED.match(literal)
    if quoted is None or quoted[2] != "'":
        return literal
    body = literal[quoted.end() : -1]
    if '"' in body or body.endswith("\\"):
        return literal
    return f'{quoted[1]}"{body}"'


def normalize_string_quotes(code: str) -> str:
    """DCG's `_normalize_string_quotes`: single-quoted literals in double quotes."""
    literals = string_literals(code)
    if literals is None:  # DCG's own tokenizes: our `string_tokens` gives it every token here
        return str(_DCG["_normalize_string_quotes"](code))
    parts: list[str] = []
    done = 0
    for match in literals:
        literal = match.group()
        quoted = double_quoted(literal)
        if quoted is not literal:
            parts += (code[done : match.start()], quoted)
            done = match.end()
    parts.append(code[done:])
    return "".join(parts)


def string_tokens(code: str) -> Iterator[tokenize.TokenInfo]:
    """DCG's `_string_tokens` as its one other caller reads it: the string tokens, positioned."""
    literals = string_literals(code)
    if literals is None:
        yield from _DCG["_string_tokens"](code)
        return
    row, row_start, done = 1, 0, 0
    for match in literals:
        start, end = match.span()
        row, row_start = _advance(code, row, row_start, done, start)
        begins = (row, start - row_start)
        row, row_start = _advance(code, row, row_start, start, end)
        yield tokenize.TokenInfo(tokenize.STRING, match.group(), begins, (row, end - row_start), "")
        done = end


def _advance(code: str, row: int, row_start: int, begin: int, end: int) -> tuple[int, int]:
    """The row (1-based) and the offset where it starts, moved from `begin` to `end`."""
    newlines = code.count("\n", begin, end)
    if newlines:
        return row + newlines, code.rindex("\n", begin, end) + 1
    return row, row_start


_OURS: dict[str, Callable[..., Any]] = {
    "_splitlines_no_ff": split_lines,
    "_normalize_string_quotes": normalize_string_quotes,
    "_string_tokens": string_tokens,
}
_DCG: dict[str, Callable[..., Any]] = {
    name: getattr(formatter, name) for name in _OURS if callable(getattr(formatter, name, None))
}
"""DCG's own helpers (the fallbacks, and the tests' reference)."""


@contextlib.contextmanager
def faster() -> Iterator[None]:
    """DCG's builtin formatter with the stand-ins inside the block, its own helpers after.
    (Another thread running DCG meanwhile gets the stand-ins too: the same output.)"""
    if formatter is None or len(_DCG) < len(_OURS):  # DCG changed: leave it alone
        yield
        return
    for name, ours in _OURS.items():
        setattr(formatter, name, ours)
    try:
        yield
    finally:
        for name, helper in _DCG.items():
            setattr(formatter, name, helper)
