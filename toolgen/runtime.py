"""The public runtime API: serve a spec set over MCP with no code generation.

    tools = toolgen.load("specs/notes")                  # a RuntimeToolSet
    tools.validate_input("create_note", {"title": ""})   # -> [ValidationIssue(...)]
    tools.serve(MyHandlers())                            # stdio, until stdin closes

Handlers, generated servers and applications import from here (and from `toolgen` and
`toolgen.client`) only; the modules under `toolgen.serve` are internal and may move.
Names are imported on first use, so that a server starts fast and never loads jinja2 or
datamodel-code-generator.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolgen.limits import CALL_TIMEOUT as CALL_TIMEOUT
    from toolgen.schema.validation import ValidationIssue as ValidationIssue
    from toolgen.serve.calls import PendingCall as PendingCall
    from toolgen.serve.connection import Connection as Connection
    from toolgen.serve.context import CallContext as CallContext
    from toolgen.serve.context import current_call as current_call
    from toolgen.serve.definitions import load_definitions as load_definitions
    from toolgen.serve.engine import Engine as Engine
    from toolgen.serve.handlers import inline as inline
    from toolgen.serve.handlers import starts_task as starts_task
    from toolgen.serve.http import SecurityPolicy as SecurityPolicy
    from toolgen.serve.http import create_app as create_app
    from toolgen.serve.http import serve_http as serve_http
    from toolgen.serve.mock import mock_handlers as mock_handlers
    from toolgen.serve.results import Content as Content
    from toolgen.serve.results import ProtocolError as ProtocolError
    from toolgen.serve.results import ResultSchemaError as ResultSchemaError
    from toolgen.serve.results import ToolError as ToolError
    from toolgen.serve.serving import stub_main as stub_main
    from toolgen.serve.stdio import serve_stdio as serve_stdio
    from toolgen.serve.toolset import RuntimeToolSet as RuntimeToolSet
    from toolgen.spec.naming import handler_name as handler_name

_EXPORTS = {
    "CALL_TIMEOUT": "toolgen.limits",
    "CallContext": "toolgen.serve.context",
    "Connection": "toolgen.serve.connection",
    "Content": "toolgen.serve.results",
    "Engine": "toolgen.serve.engine",
    "PendingCall": "toolgen.serve.calls",
    "ProtocolError": "toolgen.serve.results",
    "ResultSchemaError": "toolgen.serve.results",
    "RuntimeToolSet": "toolgen.serve.toolset",
    "SecurityPolicy": "toolgen.serve.http",
    "ToolError": "toolgen.serve.results",
    "ValidationIssue": "toolgen.schema.validation",
    "create_app": "toolgen.serve.http",
    "current_call": "toolgen.serve.context",
    "handler_name": "toolgen.spec.naming",
    "inline": "toolgen.serve.handlers",
    "load_definitions": "toolgen.serve.definitions",
    "mock_handlers": "toolgen.serve.mock",
    "serve_http": "toolgen.serve.http",
    "serve_stdio": "toolgen.serve.stdio",
    "starts_task": "toolgen.serve.handlers",
    "stub_main": "toolgen.serve.serving",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolgen.runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value
