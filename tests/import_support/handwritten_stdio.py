"""A hand-written MCP server over stdio (no SDK): JSON-RPC lines, `tools/list` in two pages.

Written for `toolgen import` tests: a draft-07 schema as zod-to-json-schema emits
it, `execution`, `_meta`, a `serverInfo` whose name is no spec server name, and
`instructions`. With `--hostile`, what a hostile server sends instead: control characters,
a newline and YAML in `serverInfo`, a lone surrogate, a tool name with a trailing newline,
an escape sequence in a property name and definitions that include themselves.
With `--flood BYTES`, `tools/list` answers one tool whose description is BYTES long
(one valid message, larger than a client's read limit in the tests).
"""

from __future__ import annotations

import json
import sys
from typing import Any

DRAFT7 = "http://json-schema.org/draft-07/schema#"
PAGES: list[list[dict[str, Any]]] = [
    [
        {
            "name": "search_docs",
            "title": "Search the docs",
            "description": "Search the documentation.\nReturns matching pages.",
            "inputSchema": {
                "$schema": DRAFT7,
                "type": "object",
                "properties": {"query": {"type": "string", "minLength": 1}},
                "required": ["query"],
                "additionalProperties": False,
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
            "execution": {"taskSupport": "optional"},
            "_meta": {"com.example/source": "handwritten"},
        }
    ],
    [
        {
            "name": "rebuild_index",
            "description": "Rebuild the search index.",
            "inputSchema": {"$schema": DRAFT7, "type": "object", "properties": {}},
            "annotations": {"destructiveHint": False, "idempotentHint": True},
        }
    ],
]


OSC = "\x1b]0;owned\x07\x1b[2J"
HOSTILE: list[dict[str, Any]] = [
    {"name": "ok", "description": "Fine\ud800.", "inputSchema": {"type": "object"}},
    {"name": "newline\n", "description": "x", "inputSchema": {"type": "object"}},
    {
        "name": "keys",
        "description": OSC,
        "inputSchema": {
            "type": "object",
            "properties": {OSC: {"type": "string"}, "a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}},
        },
    },
]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "Hand Written Docs", "version": "2.1.0"},
            "instructions": "Search before you rebuild.",
        }
        if "--hostile" in sys.argv:
            result["serverInfo"] = {"name": "x\r" + OSC, "version": "1.0\nx-injected: 1\n#\r"}
    elif method == "tools/list" and "--flood" in sys.argv:
        result = {"tools": [flood_tool(int(sys.argv[sys.argv.index("--flood") + 1]))]}
    elif method == "tools/list":
        page = 1 if params.get("cursor") == "page-2" else 0
        result = {"tools": HOSTILE if "--hostile" in sys.argv else PAGES[page]}
        hostile = "--hostile" in sys.argv
        if (page == 0 and not hostile) or "--circular-cursor" in sys.argv:  # pages that loop
            result["nextCursor"] = "page-2"
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"called {params.get('name')}"}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"unknown method {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def flood_tool(size: int) -> dict[str, Any]:
    tool = {"name": "big", "description": "x" * size, "inputSchema": {"type": "object"}}
    return {**tool, "annotations": {"readOnlyHint": True}}


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
