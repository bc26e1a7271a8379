"""A hand-written MCP server over stdio (no SDK): JSON-RPC lines, `tools/list` in two pages.

Written for `toolgen import` tests: a draft-07 schema as zod-to-json-schema emits
it, `execution`, `_meta`, a `serverInfo` whose name is no spec server name, and
`instructions`.
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
    elif method == "tools/list":
        page = 1 if params.get("cursor") == "page-2" else 0
        result = {"tools": PAGES[page]}
        if page == 0 or "--circular-cursor" in sys.argv:  # a broken server's pages loop
            result["nextCursor"] = "page-2"
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"unknown method {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
