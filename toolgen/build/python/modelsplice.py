"""Cut a generated models module into per-unit fragments, and splice fragments into a module.

datamodel-code-generator (DCG) writes one module: imports, then one top-level
class per model, then `X.model_rebuild()` calls. `split` cuts that text into
the statements of each unit of the plan (see `toolgen.build.python.modelplan`), with
the imports each unit's statements use; `splice` joins fragments back into a
module: a merged import block, every unit's classes in unit order, then every
unit's rebuild calls. A fragment depends only on its unit's schemas (and the
defs they refer to), so fragments made in different DCG runs splice into the
same text as fragments made in one run.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)

FUTURE = "from __future__ import annotations"
LINE_LENGTH = 100  # as the formatter of `modelshape` (ruff's setting for generated code)
_NEWLINE = re.compile(r"\r\n|\r|\n")


class ModelGenerationError(RuntimeError):
    """DCG produced a module that breaks the naming contract (a bug, never bad input)."""


@dataclass(frozen=True)
class Import:
    """One imported name: `from module import name as alias` (module None: `import name`)."""

    module: str | None
    name: str
    alias: str | None = None

    @property
    def bound(self) -> str:
        return self.alias or self.name.split(".")[0]


@dataclass(frozen=True)
class Fragment:
    """One unit's share of a module: class statements, rebuild calls, the imports they use."""

    blocks: tuple[str, ...]
    rebuilds: tuple[str, ...]
    imports: tuple[Import, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "blocks": list(self.blocks),
            "rebuilds": list(self.rebuilds),
            "imports": [[i.module, i.name, i.alias] for i in self.imports],
        }

    @classmethod
    def from_json(cls, data: Any) -> Fragment:
        """The fragment `to_json` gave; ValueError when `data` is not one."""
        try:
            return cls(
                tuple(str(b) for b in data["blocks"]),
                tuple(str(r) for r in data["rebuilds"]),
                tuple(Import(m, str(n), a) for m, n, a in data["imports"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a fragment: {exc}") from None


def split(code: str, unit_of: Mapping[str, K]) -> tuple[dict[K, Fragment], set[str]]:
    """The fragment of every unit with statements in `code` (`unit_of`: class name → unit),
    and the names `code` defines. Within a fragment a name is defined before the statements
    that read it as they run (DCG writes aliases after the classes using them)."""
    module = ast.parse(code)
    lines = _Lines(code)
    imports: dict[str, Import] = {}
    parts: dict[K, tuple[list[_Block], list[str], set[str]]] = {}
    defined: set[str] = set()
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue  # `splice` always writes FUTURE
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                item = Import(node.module, alias.name, alias.asname)
                imports[item.bound] = item
        elif isinstance(node, ast.Import):
            for alias in node.names:
                item = Import(None, alias.name, alias.asname)
                imports[item.bound] = item
        elif _is_docstring(node):
            continue
        else:
            name, rebuild = _statement_name(node)
            if name not in unit_of:
                raise ModelGenerationError(f"generated models define an unplanned name {name!r}")
            if not rebuild:
                defined.add(name)
            blocks, rebuilds, used = parts.setdefault(unit_of[name], ([], [], set()))
            first = min([node.lineno, *(d.lineno for d in _decorators(node))])
            text = lines.cut(first, node.end_lineno or node.lineno)
            names = _loaded(node)
            if rebuild:
                rebuilds.append(text)
            else:
                blocks.append(_Block(name, text, frozenset(names), frozenset(_eager(node))))
            used.update(names)
    fragments = {
        unit: Fragment(
            tuple(block.text for block in _uses_first(_uses_first(blocks), eager=True)),
            tuple(rebuilds),
            tuple(sorted((imports[n] for n in used if n in imports), key=_import_key)),
        )
        for unit, (blocks, rebuilds, used) in parts.items()
    }
    return fragments, defined


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _eager(node: ast.stmt) -> set[str]:
    """The names a top-level statement reads as it runs: all but a class's annotations,
    which `from __future__ import annotations` leaves unread until the rebuild calls."""
    if not isinstance(node, ast.ClassDef):
        return _loaded(node)
    read: list[ast.AST] = [*node.bases, *node.keywords, *node.decorator_list]
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign):
            read += [stmt.value] if stmt.value is not None else []
        else:
            read.append(stmt)
    return set().union(*map(_loaded, read))


@dataclass(frozen=True)
class _Block:
    """One top-level statement: the name it defines, its text, the names it reads, and
    those it reads as it runs (`eager`)."""

    name: str
    text: str
    uses: frozenset[str]
    eager: frozenset[str]


def _uses_first(blocks: Sequence[_Block], *, eager: bool = False) -> list[_Block]:
    """`blocks` in their order, except that a block comes after the blocks it uses (with
    `eager`: those it reads as it runs, which no cycle of uses may leave after it)."""
    by_name = {block.name: block for block in blocks}
    placed: set[str] = set()
    visiting: set[str] = set()
    out: list[_Block] = []

    def place(block: _Block) -> None:
        if block.name in placed or block.name in visiting:
            return  # placed, or a cycle (the rebuild calls resolve it)
        visiting.add(block.name)
        uses = block.eager if eager else block.uses
        for name in sorted(uses & by_name.keys(), key=list(by_name).index):
            place(by_name[name])
        visiting.discard(block.name)
        placed.add(block.name)
        out.append(block)

    for block in blocks:
        place(block)
    return out


def splice(header: str, fragments: Sequence[Fragment], prelude: Fragment | None = None) -> str:
    """The module of `fragments` in order: header, imports, `prelude`'s blocks, classes,
    rebuild calls."""
    every = [*([prelude] if prelude else []), *fragments]
    imports = {item for fragment in every for item in fragment.imports}
    blocks = [block for fragment in every for block in fragment.blocks]
    rebuilds = [line for fragment in every for line in fragment.rebuilds]
    text = "\n\n".join([header.rstrip("\n"), FUTURE, *_import_groups(imports)])
    text += "\n\n\n" + "\n\n\n".join(blocks)
    if rebuilds:
        text += "\n\n\n" + "\n".join(rebuilds)
    return text + "\n"


class _Lines:
    """Line positions as the parser counts them (`\r\n`, `\r`, `\n`; not `\u2028` & co.)."""

    def __init__(self, code: str) -> None:
        self.code = code
        breaks = list(_NEWLINE.finditer(code))
        self.starts = [0, *(m.end() for m in breaks)]
        self.ends = [*(m.start() for m in breaks), len(code)]

    def cut(self, first: int, last: int) -> str:
        """The exact text of lines `first` to `last` (1-based, without the final break)."""
        return self.code[self.starts[first - 1] : self.ends[last - 1]]


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _statement_name(node: ast.stmt) -> tuple[str, bool]:
    """The model a top-level statement defines or rebuilds, and whether it is a rebuild."""
    if isinstance(node, ast.ClassDef):
        return node.name, False
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target: ast.expr | None = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "model_rebuild"
            and isinstance(func.value, ast.Name)
        ):
            return func.value.id, True
        target = None
    else:
        target = None
    if isinstance(target, ast.Name):
        return target.id, False
    raise ModelGenerationError(f"unexpected statement in generated models: {ast.dump(node)}")


def _decorators(node: ast.stmt) -> list[ast.expr]:
    return list(node.decorator_list) if isinstance(node, ast.ClassDef) else []


def _import_key(item: Import) -> tuple[str, int, str, str]:
    """isort's order: by module; then constants, classes, functions; then by name."""
    name = item.name
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (item.module or "", kind, name, item.alias or "")


def _import_groups(imports: Iterable[Import]) -> list[str]:
    """Standard-library imports, then third-party ones, then toolgen's, each group sorted
    (isort style, toolgen's own code being first-party where it is generated)."""
    groups: list[dict[str | None, list[Import]]] = [{}, {}, {}]
    for item in sorted(imports, key=_import_key):
        top = (item.module or item.name).split(".")[0]
        group = 0 if top in sys.stdlib_module_names else 2 if top == "toolgen" else 1
        groups[group].setdefault(item.module, []).append(item)
    return [
        "\n".join(_import_lines(module, items) for module, items in group.items())
        for group in groups
        if group
    ]


def _import_lines(module: str | None, items: list[Import]) -> str:
    """The import statements of `items` (sorted), as isort writes them: one statement per
    aliased name, one for the rest, statements in the order of their first names."""
    if module is None:
        return "\n".join(
            f"import {i.name} as {i.alias}" if i.alias else f"import {i.name}" for i in items
        )
    plain = [i for i in items if not i.alias]
    statements = [[i] for i in items if i.alias] + ([plain] if plain else [])
    return "\n".join(
        _from_import(module, group) for group in sorted(statements, key=lambda g: _import_key(g[0]))
    )


def _from_import(module: str, items: list[Import]) -> str:
    names = [f"{i.name} as {i.alias}" if i.alias else i.name for i in items]
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"    {name},\n" for name in names) + ")"
