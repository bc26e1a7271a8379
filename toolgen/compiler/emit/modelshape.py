"""Shape datamodel-code-generator's module where its options stop, then format it.

DCG (run unformatted) already writes what a person would: `Annotated` fields
with constraints in `Field`, defaults by `=`, type aliases for scalar defs,
every class derived from one base (`modelprelude.BASE_CLASS`). Three things it
cannot be told, done here on the syntax tree:

- its `MISSING` (a property left out) becomes the falsy typed sentinel of the
  prelude: `Absent` in annotations, `ABSENT` as a value, with `None` kept last
  in a union (`str | Absent | None`, as ruff's RUF036 asks);
- a class's `model_config = ConfigDict(extra="forbid")` goes: the shared base
  says it once (classes that allow extra properties keep theirs);
- the module is then formatted with DCG's own dependency-free formatter at
  ruff's settings (line length 100, double quotes), so the spliced module is
  `ruff format` clean.
"""

from __future__ import annotations

import ast
from typing import Final

from toolgen.compiler.emit.modelprelude import SENTINEL, SENTINEL_TYPE

DCG_SENTINEL: Final = "MISSING"
LINE_LENGTH: Final = 100
"""The generated code's line length (the project's ruff setting)."""


def reshape(code: str) -> str:
    """DCG's unformatted module with the sentinel and base config in place, formatted."""
    from datamodel_code_generator import PythonVersion
    from datamodel_code_generator.format import apply_builtin_formatter

    module = _Reshaper().visit(ast.parse(code))
    text = ast.unparse(ast.fix_missing_locations(module)) + "\n"
    return apply_builtin_formatter(
        text,
        line_length=LINE_LENGTH,
        string_normalization=True,
        python_version=PythonVersion.PY_311,
    )


class _Reshaper(ast.NodeTransformer):
    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        self.generic_visit(node)
        node.body = [stmt for stmt in node.body if not _forbid_config(stmt)] or [ast.Pass()]
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        node.annotation = _SentinelType().visit(node.annotation)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == DCG_SENTINEL:
            return ast.copy_location(ast.Name(SENTINEL, node.ctx), node)
        return node


class _SentinelType(ast.NodeTransformer):
    """An annotation with `MISSING` as the sentinel's type and `None` last in each union."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        members = _union_members(node)
        if members is None:
            self.generic_visit(node)
            return node
        members = [self.visit(m) for m in members]
        none = [m for m in members if isinstance(m, ast.Constant) and m.value is None]
        members = [m for m in members if m not in none] + none
        union: ast.expr = members[0]
        for member in members[1:]:
            union = ast.BinOp(union, ast.BitOr(), member)
        return ast.copy_location(union, node)

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == DCG_SENTINEL:
            return ast.copy_location(ast.Name(SENTINEL_TYPE, node.ctx), node)
        return node


def _union_members(node: ast.expr) -> list[ast.expr] | None:
    """The members of an `a | b | c` chain (None when `node` is not one)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)):
        return None
    return [*(_union_members(node.left) or [node.left]), node.right]


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
