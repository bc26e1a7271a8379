"""Shape datamodel-code-generator's module where its options stop, keeping its layout.

DCG already writes what a person would: `Annotated` fields with constraints in
`Field`, defaults by `=`, type aliases for scalar defs, every class derived
from one base (`modelprelude.BASE_CLASS`), formatted by its own builtin
formatter as `ruff format` would. Two things it cannot be told, done here as
edits of its text at the places its syntax tree names:

- its `MISSING` (a property left out) becomes toolgen's falsy typed sentinel
  (`toolgen.client.OMITTED`): `Omitted` in annotations, `OMITTED` as a value,
  with `None` kept last in a union (`str | Omitted | None`, as ruff's RUF036
  asks). The names have the length of `MISSING`, so every line keeps its length and DCG's
  formatting stays right (formatting the module again would cost as much as
  DCG's own run);
- its `StrictInt` becomes the prelude's `IntNumber` (same length), which also takes a
  float without fractional part, as JSON Schema's `integer` does;
- a class's `model_config = ConfigDict(extra="forbid")` goes: the shared base
  says it once (classes that allow extra properties keep theirs; a class left
  without a statement gets `pass`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from toolgen.build.python.modelprelude import DCG_INTEGER, INTEGER, SENTINEL, SENTINEL_TYPE

DCG_SENTINEL: Final = "MISSING"
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line breaks the parser counts

if len(SENTINEL) != len(DCG_SENTINEL) or len(SENTINEL_TYPE) != len(DCG_SENTINEL):
    raise AssertionError("the sentinel's names must keep DCG's line lengths")  # pragma: no cover
if len(INTEGER) != len(DCG_INTEGER):
    raise AssertionError("the integer type's name must keep DCG's line lengths")  # pragma: no cover


@dataclass(frozen=True)
class _Edit:
    """Replace bytes `start:end` of line `line` (1-based) with `text`."""

    line: int
    start: int
    end: int
    text: str


def reshape(code: str) -> str:
    """DCG's formatted module with the sentinel and the base config in place."""
    module = ast.parse(code)
    edits = [
        _replace(node, INTEGER)
        for node in ast.walk(module)
        if isinstance(node, ast.Name) and node.id == DCG_INTEGER
    ]
    dropped: set[int] = set()
    passes: dict[int, str] = {}  # line -> `pass` replacing the statement there
    for node in module.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign):
                edits += _annotation_edits(stmt.annotation)
                if stmt.value is not None:
                    edits += [
                        _replace(n, SENTINEL) for n in _typing_nodes(stmt.value) if _is_sentinel(n)
                    ]
        configs = [stmt for stmt in node.body if _forbid_config(stmt)]
        for stmt in configs:
            dropped.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
        if configs and len(configs) == len(node.body):
            first = configs[0]
            passes[first.lineno] = " " * first.col_offset + "pass"
    return _apply(code, edits, dropped, passes)


def _typing_nodes(node: ast.expr) -> Iterator[ast.expr]:
    """`node` and the nodes below it that can name a type: not into calls (`Field(...)`)."""
    todo = [node]
    while todo:
        item = todo.pop()
        yield item
        if isinstance(item, ast.BinOp):
            todo += (item.left, item.right)
        elif isinstance(item, ast.Subscript):
            todo += (item.value, item.slice)
        elif isinstance(item, (ast.Tuple, ast.List)):
            todo += item.elts


def _annotation_edits(annotation: ast.expr) -> list[_Edit]:
    """`MISSING` → the sentinel's type; `None | MISSING` → `Omitted | None`."""
    edits: list[_Edit] = []
    swapped: set[int] = set()
    names: list[ast.expr] = []
    for node in _typing_nodes(annotation):
        if _is_sentinel(node):
            names.append(node)
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.BitOr)
            and _is_sentinel(node.right)
            and isinstance(node.left, ast.BinOp)
            and isinstance(node.left.op, ast.BitOr)
            and isinstance(node.left.right, ast.Constant)
            and node.left.right.value is None
        ):
            edits += [_replace(node.left.right, SENTINEL_TYPE), _replace(node.right, "None")]
            swapped.add(id(node.right))
    edits += [_replace(node, SENTINEL_TYPE) for node in names if id(node) not in swapped]
    return edits


def _is_sentinel(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == DCG_SENTINEL


def _replace(node: ast.expr, text: str) -> _Edit:
    return _Edit(node.lineno, node.col_offset, node.end_col_offset or node.col_offset, text)


def _apply(code: str, edits: list[_Edit], dropped: set[int], passes: dict[int, str]) -> str:
    """`code` with `edits` made (byte columns, as the parser counts), `dropped` lines left
    out and `passes` put in their place."""
    breaks = list(_NEWLINE.finditer(code))
    starts = [0, *(m.end() for m in breaks)]
    ends = [*(m.start() for m in breaks), len(code)]
    by_line: dict[int, list[_Edit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    out: list[str] = []
    for number, (start, end) in enumerate(zip(starts, ends, strict=True), start=1):
        newline = code[end : starts[number]] if number < len(starts) else ""
        if number in passes:
            out.append(passes[number] + newline)
            continue
        if number in dropped:
            continue
        line = code[start:end]
        if number in by_line:
            raw = line.encode()
            for edit in sorted(by_line[number], key=lambda e: e.start, reverse=True):
                raw = raw[: edit.start] + edit.text.encode() + raw[edit.end :]
            line = raw.decode()
        out.append(line + newline)
    return "".join(out)


def _forbid_config(stmt: ast.stmt) -> bool:
    """Whether `stmt` is `model_config = ConfigDict(extra="forbid")` (the base's config)."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == "model_config"
        and isinstance(stmt.value, ast.Call)
    ):
        return False
    call = stmt.value
    return (
        isinstance(call.func, ast.Name)
        and call.func.id == "ConfigDict"
        and not call.args
        and len(call.keywords) == 1
        and call.keywords[0].arg == "extra"
        and isinstance(call.keywords[0].value, ast.Constant)
        and call.keywords[0].value.value == "forbid"
    )
