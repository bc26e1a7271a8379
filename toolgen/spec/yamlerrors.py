"""YAML syntax errors in words a spec author can act on, at the place to fix.

PyYAML reports where the parser gave up, which is often far from the mistake: an
unclosed quote runs on until the next quote character, a tab is "a character that
cannot start any token". Here each error is located where it can be fixed and given
a hint when the cause is a common one (unclosed quote, tab indentation).
"""

from __future__ import annotations

import re

import yaml

from toolgen.spec.errors import Diagnostic, ErrorCode, Location

_VALUE_QUOTE = re.compile(r"(?:^|[:\-\[{,])\s+([\"'])")
"""A quote that opens a value: after `key:`, a list dash, or a flow bracket or comma."""


def syntax_error(exc: yaml.MarkedYAMLError, text: str, display: str) -> Diagnostic:
    """The diagnostic for a YAML syntax error, located and explained."""
    context, problem = exc.context or "", exc.problem or ""
    start = exc.context_mark
    if "quoted scalar" in context and "end of stream" in problem and start is not None:
        where = Location(display, start.line + 1, start.column + 1)
        return Diagnostic(
            ErrorCode.YAML_SYNTAX, "invalid YAML: unclosed quote: this string never ends", where
        )
    mark = exc.problem_mark or start
    line = mark.line + 1 if mark else 1
    where = Location(display, line, mark.column + 1 if mark else 1)
    message = "invalid YAML: " + " ".join(p for p in (context, problem) if p)
    if "flow mapping" in context and "expected ','" in problem:
        message += "; in a `{...}` mapping, quote a value that holds `: ` or `, `"
    return Diagnostic(ErrorCode.YAML_SYNTAX, message + _hint(text, line), where)


def _hint(text: str, line: int) -> str:
    lines = text.splitlines()
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    if "\t" in current[: len(current) - len(current.lstrip())]:
        return "; this line is indented with a tab: YAML indents with spaces only"
    for number in range(min(line, len(lines)), 0, -1):
        column = _unclosed_quote(lines[number - 1])
        if column is not None:
            return f" (is the quote at line {number}, column {column} closed?)"
    return ""


def _unclosed_quote(line: str) -> int | None:
    """The 1-based column of a value's opening quote that is not closed on `line`."""
    if line.lstrip().startswith("#"):
        return None
    match = _VALUE_QUOTE.search(line)
    if match is None:
        return None
    quote, start = match.group(1), match.end()
    rest = line[start:]
    if quote == '"':
        closed = re.search(r'(?<!\\)(?:\\\\)*"', rest) is not None
    else:
        closed = re.search(r"'(?!')", rest.replace("''", "")) is not None
    return None if closed else start
