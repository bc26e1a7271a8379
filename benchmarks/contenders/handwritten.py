"""The practical floor: a minimal hand-written MCP stdio loop (stdlib json + pydantic).

No framework, no event loop: read a line, dispatch, write a line. It still
does what a correct server must: validates arguments and the result (pydantic
models), answers with `structuredContent` plus the text fallback, and maps
errors to the MCP codes. The tool list is serialized once.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from common import BENCH_TOOL, GetIssueInput, get_issue_result, tool_definitions
from pydantic import ValidationError

SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26")


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def call_tool(params: dict[str, Any], known: set[str]) -> dict[str, Any] | None:
    """The `tools/call` result, or None for an unknown tool."""
    name = params.get("name")
    if name not in known:
        return None
    if name != BENCH_TOOL:
        return {
            "content": [{"type": "text", "text": f"{name} is not implemented"}],
            "isError": True,
        }
    try:
        arguments = GetIssueInput.model_validate(params.get("arguments") or {})
    except ValidationError as exc:
        return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
    structured = get_issue_result(**arguments.model_dump()).model_dump(mode="json")
    text = json.dumps(structured)
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


def main() -> None:
    definitions = tool_definitions()
    known = {d["name"] for d in definitions}
    listing = json.dumps({"tools": definitions}).encode()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            out.write(json.dumps(error(None, -32700, "parse error")).encode() + b"\n")
            out.flush()
            continue
        if not isinstance(message, dict) or "method" not in message:
            reply: dict[str, Any] | None = error(None, -32600, "invalid request")
        elif "id" not in message:
            continue  # a notification: never answered
        else:
            request_id, method = message["id"], message["method"]
            params = message.get("params") or {}
            if method == "tools/list":
                head = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode()
                out.write(head + b',"result":' + listing + b"}\n")
                out.flush()
                continue
            if method == "tools/call":
                result = call_tool(params, known)
                reply = (
                    error(request_id, -32602, f"unknown tool: {params.get('name')}")
                    if result is None
                    else {"jsonrpc": "2.0", "id": request_id, "result": result}
                )
            elif method == "initialize":
                asked = params.get("protocolVersion")
                result = {
                    "protocolVersion": asked if asked in SUPPORTED else SUPPORTED[0],
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "handwritten", "version": "1.0.0"},
                }
                reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
            elif method == "ping":
                reply = {"jsonrpc": "2.0", "id": request_id, "result": {}}
            else:
                reply = error(request_id, -32601, f"method not found: {method}")
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
