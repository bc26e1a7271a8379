"""Names toolgen derives from MCP tool names, shared by the compiler and the runtime.

A generated stub's method names and the runtime's handler lookup must agree, so both
call `handler_name`; a change here changes generated code (the build fingerprint covers it).
"""

from __future__ import annotations

import keyword
import re

_NOT_IDENTIFIER = re.compile(r"\W", re.ASCII)


def handler_name(tool_name: str) -> str:
    """The Python method name of a tool's handler: a valid identifier, never a keyword."""
    name = _NOT_IDENTIFIER.sub("_", tool_name) if tool_name else "_"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name):
        name += "_"
    if name.startswith("__") and name.endswith("__"):
        name = "tool" + name  # never a special method (`__init__`)
    return name


_NOT_SERVER_CHARS = re.compile(r"[^a-z0-9_-]+")
SERVER_NAME_MAX = 64


def server_name(text: str, fallback: str = "tools") -> str:
    """A valid spec server name (`[a-z][a-z0-9_-]{0,63}`) made from any text.

    Used where no `server` block names the server: a directory or file name, or a
    live server's `serverInfo.name` ("Notion API" → "notion-api").
    """
    name = _NOT_SERVER_CHARS.sub("-", text.lower()).strip("-_") or fallback
    if not name[0].isalpha():
        name = "server-" + name
    return name[:SERVER_NAME_MAX].rstrip("-_")
