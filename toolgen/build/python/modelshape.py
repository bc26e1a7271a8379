"""Shape datamodel-code-generator's module where its options stop, before it is formatted.

DCG already writes what a person would: `Annotated` fields with constraints in
`Field`, defaults by `=`, type aliases for scalar defs, every class derived
from one base (`modelprelude.BASE_CLASS`). Three things it cannot be told, done here as
edits of its unformatted text at the places its syntax tree names (the build formats
the module afterwards, with DCG's own formatter, as DCG would have):

- its `X | MISSING` (a property left out) becomes the prelude's `Omittable[X]`: an `X`,
  or toolgen's falsy typed sentinel (`toolgen.client.OMITTED`), which every dump leaves
  out; its `MISSING` default becomes `OMITTED`. `None` stays last in a union
  (`Omittable[str | None]`, as ruff's RUF036 asks);
- its `StrictInt` becomes the prelude's `IntNumber`, which also takes a float without
  fractional part, as JSON Schema's `integer` does; an integer with a `Field`
  (`Annotated[StrictInt, Field(ge=1)]`) keeps its `StrictInt` and gets the prelude's
  `Integral` after it, so that pydantic-core checks its constraints, not Python functions;
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

from toolgen.build.python.modelprelude import DCG_INTEGER, INTEGER, INTEGRAL, OMITTABLE, SENTINEL
from toolgen.build.python.modelsplice import ModelGenerationError

DCG_SENTINEL: Final = "MISSING"
_NEWLINE = re.compile(rb"\r\n|\r|\n")  # the line breaks the parser counts


@dataclass(frozen=True)
class _Edit:
    """Replace the text from `start` to `end` (line, UTF-8 column: as the parser counts)
    with `text`."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def reshape(code: str) -> str:
    """DCG's module with `Omittable`, the sentinel, the integer type and the base config
    in place."""
    module = ast.parse(code)
    constrained = [args for node in ast.walk(module) if (args := _constrained_integer(node))]
    kept = {id(args[0]) for args in constrained}
    edits = [
        _replace(node, INTEGER)
        for node in ast.walk(module)
        if isinstance(node, ast.Name) and node.id == DCG_INTEGER and id(node) not in kept
    ]
    edits += [_Edit(_end(args[-1]), _end(args[-1]), f", {INTEGRAL}") for args in constrained]
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
        keep_one = bool(configs) and len(configs) == len(node.body)
        for index, stmt in enumerate(configs):
            start = (stmt.lineno, 0)  # whole lines, so no blank line is left behind
            end = ((stmt.end_lineno or stmt.lineno) + 1, 0)
            text = " " * stmt.col_offset + "pass\n" if keep_one and index == 0 else ""
            edits.append(_Edit(start, end, text))
    return _apply(code, edits)


def _constrained_integer(node: ast.AST) -> list[ast.expr]:
    """The arguments of `node` when it is `Annotated[StrictInt, ...]`, else none."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Annotated"
        and isinstance(node.slice, ast.Tuple)
    ):
        return []
    args = node.slice.elts
    first = args[0]
    return args if isinstance(first, ast.Name) and first.id == DCG_INTEGER else []


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
    """`X | MISSING` in `annotation` → `Omittable[X]` (DCG appends `MISSING` to the whole
    hint, so `X` may be a union itself: `X | None | MISSING` → `Omittable[X | None]`)."""
    edits: list[_Edit] = []
    handled: set[int] = set()
    for node in _typing_nodes(annotation):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if _is_sentinel(node.right):
                left_end = (node.left.end_lineno or node.lineno, node.left.end_col_offset or 0)
                edits += [
                    _Edit(_start(node), _start(node), f"{OMITTABLE}["),
                    _Edit(left_end, _end(node), "]"),
                ]
                handled.add(id(node.right))
        elif _is_sentinel(node) and id(node) not in handled:
            raise ModelGenerationError(f"unexpected {DCG_SENTINEL} in {ast.unparse(annotation)}")
    return edits


def _is_sentinel(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == DCG_SENTINEL


def _start(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.expr) -> tuple[int, int]:
    return node.end_lineno or node.lineno, node.end_col_offset or node.col_offset


def _replace(node: ast.expr, text: str) -> _Edit:
    return _Edit(_start(node), _end(node), text)


def _apply(code: str, edits: list[_Edit]) -> str:
    """`code` with `edits` made (none overlap)."""
    raw = code.encode()
    starts = [0, *(m.end() for m in _NEWLINE.finditer(raw)), len(raw)]

    def offset(position: tuple[int, int]) -> int:
        line, column = position
        return starts[min(line - 1, len(starts) - 1)] + column

    out: list[bytes] = []
    done = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):  # an insertion first
        begin = offset(edit.start)
        out += (raw[done:begin], edit.text.encode())
        done = offset(edit.end)
    out.append(raw[done:])
    return b"".join(out).decode()


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
