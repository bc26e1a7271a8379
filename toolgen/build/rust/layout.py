"""Rust text laid out as rustfmt lays it out, so a generated crate passes `cargo fmt --check`.

rustfmt puts a construct on one line when it fits in 100 columns and breaks it in a fixed
way when it does not; the printer makes the same choice for the few constructs it writes
whose width depends on the spec's names (type expressions in fields and aliases, attribute
arguments, parenthesized lists). Spec text lands only in string literals (`rust_string`) and
doc comments (`doc_comment`), never in code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

WIDTH: Final = 100
"""rustfmt's default `max_width`."""
CALL_WIDTH: Final = 60
"""rustfmt's `fn_call_width` (also its `chain_width`): longer arguments go one a line."""
ATTRIBUTE_WIDTH: Final = 70
"""rustfmt's `attr_fn_like_width`."""
INDENT: Final = "    "


def width(text: str) -> int:
    """Columns `text` takes (East Asian wide characters take two, as rustfmt counts them)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fits(line: str) -> bool:
    return width(line) <= WIDTH


_ESCAPES: Final = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def rust_string(text: str) -> str:
    """A Rust string literal of `text`: quotes, backslashes and control characters escaped
    (no spec text can end the literal). `text` holds no lone surrogate (the target refuses
    such names before it prints)."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def doc_comment(lines: Iterable[str], indent: str, marker: str = "///") -> str:
    """`///` lines (`marker`: `//!` for the crate's) at `indent`, none when there is no text:
    every line break of the text starts a new comment line, blank lines at either end go, and
    no character can end or escape the comment."""
    text = [_inert(line).rstrip() for part in lines for line in (part.splitlines() or [""])]
    while text and not text[-1]:
        text.pop()
    while text and not text[0]:
        text.pop(0)
    return "".join(f"{indent}{marker}{' ' + line if line else ''}\n" for line in text)


def doc_line(text: str) -> str:
    """`text` within one line of a doc comment: each run of whitespace (line breaks too) one
    space, control and format characters spaces."""
    return _inert(" ".join(text.split()))


def _inert(line: str) -> str:
    """`line` with its control and format characters spaces: none can end or bend a comment."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in line)


# -- type expressions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Generic:
    """`name<args>`, or a tuple `(args)` when `name` is empty."""

    name: str
    args: tuple[TypeText, ...]


TypeText = str | Generic
"""A type as Rust text: a path (`String`, `Note`) or a generic or tuple of types."""


def generic(name: str, *args: TypeText) -> Generic:
    return Generic(name, args)


def flat(type_: TypeText) -> str:
    """The type on one line."""
    if isinstance(type_, str):
        return type_
    inner = ", ".join(flat(arg) for arg in type_.args)
    if not type_.name:
        return f"({inner},)" if len(type_.args) == 1 else f"({inner})"
    return f"{type_.name}<{inner}>"


def broken(type_: TypeText, indent: str) -> str:
    """The type from the current column (at `indent`), its arguments one a line where the
    whole does not fit, as rustfmt breaks a long type."""
    if isinstance(type_, str) or not type_.args:
        return flat(type_)
    inner = indent + INDENT
    args = "".join(f"{inner}{typed(arg, inner, ',')},\n" for arg in type_.args)
    opening, closing = ("(", ")") if not type_.name else (f"{type_.name}<", ">")
    return f"{opening}\n{args}{indent}{closing}"


def typed(type_: TypeText, indent: str, after: str, before: str = "") -> str:
    """`type_` written at `indent` after `before` and followed by `after`: flat when that fits
    on the line, else broken."""
    text = flat(type_)
    if fits(indent + before + text + after):
        return text
    return broken(type_, indent)


def member(head: str, type_: TypeText, indent: str, end: str) -> str:
    """`head type_end` (`pub name: T,`, `pub type N = T;`): on one line when it fits, else the
    type alone on the next line (indented once more) when it fits there, else broken."""
    text = flat(type_)
    if fits(f"{indent}{head} {text}{end}"):
        return f"{indent}{head} {text}{end}\n"
    inner = indent + INDENT
    if fits(f"{inner}{text}{end}"):
        return f"{indent}{head}\n{inner}{text}{end}\n"
    return f"{indent}{head} {broken(type_, indent)}{end}\n"


def listed(head: str, items: Sequence[str], tail: str, indent: str, *, call: bool = False) -> str:
    """`head(items)tail` on one line when it fits, else one item a line with trailing commas.
    The arguments of a `call` (or the fields of a tuple struct) also go one a line when there
    are several and they are longer than `CALL_WIDTH`."""
    line = f"{indent}{head}({', '.join(items)}){tail}"
    crowded = call and len(items) > 1 and width(", ".join(items)) > CALL_WIDTH
    if (fits(line) and not crowded) or not items:
        return line + "\n"
    inner = indent + INDENT
    body = "".join(f"{inner}{item},\n" for item in items)
    return f"{indent}{head}(\n{body}{indent}){tail}\n"


def awaited(
    receiver: str, method: str, args: Sequence[str], indent: str, lead: str = "", end: str = ""
) -> str:
    """`lead receiver.method(args).await end` at `indent`, without a final line break, as
    rustfmt lays out the chain: on one line when it fits and the chain is at most `CALL_WIDTH`
    wide, else `receiver`, `.method(args)` and `.await` on lines of their own."""
    chain = f"{receiver}.{method}({', '.join(args)}).await"
    line = f"{indent}{lead}{chain}{end}"
    if fits(line) and width(chain) <= CALL_WIDTH:
        return line
    inner = indent + INDENT
    call = listed(f".{method}", args, "", inner, call=True)
    return f"{indent}{lead}{receiver}\n{call}{inner}.await{end}"


def function(head: str, params: Sequence[str], returns: TypeText, tail: str, indent: str) -> str:
    """`head(params) -> returns tail` (`tail`: ending in `;` for a trait method's declaration,
    ` {` to open a body), as rustfmt lays it out: on one line when it fits (a declaration
    exactly filling the line has its return type on a line of its own), else one parameter a
    line and a closing line `) -> returns tail`. A long closing line is kept by rustfmt past
    the width by a column or two, or has its tail on a line of its own, before the return type
    is broken; the thresholds below are rustfmt's, found by sweeping the length of names
    (tests/acceptance/test_rust.py)."""
    returned = flat(returns)
    line = f"{indent}{head}({', '.join(params)}) -> {returned}{tail}"
    if tail.endswith(";") and width(line) == WIDTH:
        return f"{indent}{head}({', '.join(params)})\n{indent}-> {returned}{tail}\n"
    if fits(line):
        return line + "\n"
    lines = f"{indent}{head}(\n" + "".join(f"{indent}{INDENT}{param},\n" for param in params)
    closing = f"{indent}) -> {returned}"
    body = tail == " {"
    if width(closing) <= (WIDTH - len(indent) - 2 if body else WIDTH):
        return f"{lines}{closing}{tail}\n"
    if width(closing) <= (WIDTH + 2 if body else WIDTH + 1):
        return f"{lines}{closing}\n{indent}{tail.lstrip()}\n"
    return f"{lines}{indent}) -> {broken(returns, indent)}{tail}\n"


def opening(head: str) -> str:
    """`head {` opening an item's body, the brace on a line of its own when the line is full
    (an `impl ... for T` then has `for T` on a line of its own too)."""
    if fits(f"{head} {{"):
        return f"{head} {{\n"
    trait, found, type_ = head.partition(" for ")
    if head.startswith("impl") and found:
        return f"{trait}\n{INDENT}for {type_}\n{{\n"
    return f"{head}\n{{\n"


def attribute(name: str, items: Sequence[str], indent: str) -> str:
    """`#[name(items)]`; where that is too long for its line, or several items are together
    longer than `ATTRIBUTE_WIDTH`, the items go one a line."""
    inside = ", ".join(items)
    line = f"{indent}#[{name}({inside})]"
    if fits(line) and (len(items) == 1 or width(inside) <= ATTRIBUTE_WIDTH):
        return line + "\n"
    inner = indent + INDENT
    body = ",\n".join(inner + item for item in items)
    return f"{indent}#[{name}(\n{body}\n{indent})]\n"
