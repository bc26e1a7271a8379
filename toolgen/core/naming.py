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
