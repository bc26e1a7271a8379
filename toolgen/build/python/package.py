"""Emit the generated package's `__init__.py`, after checking that its name is usable; and
say where the server's one handler file is.

`__init__.py` holds what the package's modules share: the server's identity (`SERVER`,
the spec's `server` block) and the tool definitions file (`TOOLS_FILE`) that `server.py`
serves and `client.py` compares a server's tools with.
"""

from __future__ import annotations

import keyword
import sys
from pathlib import Path

from toolgen.build.common import python_header, server_block
from toolgen.build.templating import py_literal
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.layout import TOOLS_DIR
from toolgen.spec.protocol import LATEST_REVISION

TOOLS_FILE = f"{LATEST_REVISION}.json"
"""The definitions file (under the package's `tools/`) the generated server loads."""

COMMON_PACKAGES = frozenset(
    {
        "anyio", "attr", "attrs", "click", "datamodel_code_generator", "fastmcp", "httpx",
        "jinja2", "jsonschema", "jsonschema_rs", "mcp", "numpy", "orjson", "pandas", "pydantic",
        "pydantic_core", "pytest", "requests", "setuptools", "starlette", "toolgen",
        "typing_extensions", "uvicorn", "yaml",
    }
)  # fmt: skip
"""Third-party modules a generated server or its users import: a package of the same name
would hide them (stdlib names are checked from `sys.stdlib_module_names`)."""


def package_name_problem(package: str) -> str | None:
    """Why `package` cannot be the name of a generated package, or None when it can."""
    if keyword.iskeyword(package) or keyword.issoftkeyword(package):
        return "is a Python keyword"
    if package in sys.stdlib_module_names:
        return "is a standard-library module"
    if package in COMMON_PACKAGES:
        return "is a package toolgen or its users import"
    return None


def check_package_name(toolset: ToolSet) -> None:
    """Refuse a package name that would shadow another module, at the name that chose it."""
    server = toolset.server
    problem = package_name_problem(server.package)
    if problem is None:
        return
    key = "package" if server.python_package else "name"
    where = server.origin.locate(key) if server.origin else None
    fix = (
        "choose another `server.package`"
        if server.python_package
        else f"give the server a `package:` (e.g. `package: {server.package}_mcp`)"
    )
    message = f"the generated package {server.package!r} {problem}: importing it would hide that module; {fix}"
    raise SpecError([Diagnostic(ErrorCode.SHADOWED_PACKAGE, message, where)])


def render_init(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
    """`__init__.py` with the server identity as literals (escaped by `py_literal`), and
    the `py.typed` marker (PEP 561): type checkers read the package's types (the models,
    the typed client) also where it is installed, not only beside the user's code. The
    marker holds only the header comment (not `partial`: the package is fully typed)."""
    check_package_name(toolset)
    server = toolset.server
    names = tuple(tool.name for tool in toolset.tools)
    entries = "".join(
        f"    {py_literal(key)}: {py_literal(value)},\n"
        for key, value in server_block(server).items()
    )
    text = (
        python_header(source_note)
        + f'"""Generated MCP tool package for server {server.name}."""\n\n'
        + "from pathlib import Path\n\n"
        + f"SERVER: dict[str, str] = {{\n{entries}}}\n"
        + '"""The spec\'s `server` block: identity and instructions sent to clients."""\n'
        + 'SERVER_NAME = SERVER["name"]\n'
        + 'SERVER_VERSION = SERVER["version"]\n'
        + f"TOOL_NAMES = {_tuple(names)}\n"
        + "SPEC_DIR = Path(__file__).parent\n"
        + 'SCHEMA_DIR = SPEC_DIR / "schemas"\n'
        + f"TOOLS_DIR = SPEC_DIR / {py_literal(TOOLS_DIR)}\n"
        + f"TOOLS_FILE = TOOLS_DIR.resolve() / {py_literal(TOOLS_FILE)}\n"
        + '"""The tool definitions the server lists and the client checks (written by the same build)."""\n'
    )
    return [("__init__.py", text), ("py.typed", python_header(source_note))]


def _tuple(names: tuple[str, ...]) -> str:
    """A tuple literal laid out as `ruff format` would: one line when it fits in 100
    columns, else one name per line with a trailing comma."""
    items = [py_literal(name) for name in names]
    line = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if len("TOOL_NAMES = ") + len(line) <= 100:
        return line
    return "(\n" + "".join(f"    {item},\n" for item in items) + ")"


INIT_HANDLERS = "handlers.py"
"""The handler file `toolgen init --handlers` writes into the spec set's directory."""


def scaffold_path(package: str) -> str:
    """Where `toolgen build` writes a handler scaffold, relative to its output directory.

    Beside the generated package, never inside it: the package is regenerated,
    the scaffold is the user's code (written once when missing, never overwritten).
    """
    return f"{package}_handlers.py"


def existing_handlers(spec_root: Path, out: Path, package: str) -> Path | None:
    """The server's handler file, when a command already wrote one: `init --handlers` into the
    spec set's directory, or `build` beside the package in `out`. A server has one handler
    file, whichever command wrote it first; the other command then writes none."""
    for path in (spec_root / INIT_HANDLERS, out / scaffold_path(package)):
        if path.is_file():
            return path
    return None
