"""The toolgen runtime: serve a spec set over MCP with no code generation.

    tools = toolgen.load("specs/notes")          # a RuntimeToolSet
    tools.validate_input("create_note", {"title": ""})   # -> [ValidationIssue(...)]
    tools.serve(MyHandlers())                    # stdio, until stdin closes

Nothing here imports jinja2 or datamodel-code-generator, and submodules are
imported on first use, so that a server starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolgen.core.naming import handler_name as handler_name
    from toolgen.runtime.connection import Connection as Connection
    from toolgen.runtime.connection import PendingCall as PendingCall
    from toolgen.runtime.engine import Engine as Engine
    from toolgen.runtime.results import ProtocolError as ProtocolError
    from toolgen.runtime.results import ToolError as ToolError
    from toolgen.runtime.stdio import serve_stdio as serve_stdio
    from toolgen.runtime.toolset import ResultSchemaError as ResultSchemaError
    from toolgen.runtime.toolset import RuntimeToolSet as RuntimeToolSet
    from toolgen.runtime.validation import ValidationIssue as ValidationIssue

_EXPORTS = {
    "Connection": "toolgen.runtime.connection",
    "Engine": "toolgen.runtime.engine",
    "PendingCall": "toolgen.runtime.connection",
    "handler_name": "toolgen.runtime.handlers",
    "ProtocolError": "toolgen.runtime.results",
    "ToolError": "toolgen.runtime.results",
    "serve_stdio": "toolgen.runtime.stdio",
    "ResultSchemaError": "toolgen.runtime.toolset",
    "RuntimeToolSet": "toolgen.runtime.toolset",
    "ValidationIssue": "toolgen.runtime.validation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolgen.runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
