"""Emit the generated package's `__init__.py`: where the files are, what they hold."""

from __future__ import annotations

from toolgen.compiler.emit.common import python_header
from toolgen.core.ir import ToolSet


def render_init(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
    """`__init__.py` with the server identity as literals (escaped with repr)."""
    server = toolset.server
    names = tuple(tool.name for tool in toolset.tools)
    text = (
        python_header(source_note)
        + f'"""Generated MCP tool package for server {server.name}."""\n\n'
        + "from pathlib import Path\n\n"
        + f"SERVER_NAME = {server.name!r}\n"
        + f"SERVER_VERSION = {server.version!r}\n"
        + f"TOOL_NAMES = {names!r}\n"
        + "SPEC_DIR = Path(__file__).parent\n"
        + 'SCHEMA_DIR = SPEC_DIR / "schemas"\n'
        + 'TOOLS_DIR = SPEC_DIR / "tools"\n'
    )
    return [("__init__.py", text)]
