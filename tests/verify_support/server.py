"""A hand-written MCP server over stdio (legacy era) for the spec in `spec/`, no toolgen code.

It publishes the spec's schemas written differently (inlined, keys reordered,
`$defs` renamed, draft-07 declared) and is correct unless defects are named on
the command line (`python server.py DEFECT ...`); each defect breaks one rule that
`toolgen verify` must catch. Calling `wipe` appends a line to $VERIFY_WIPE_LOG.

Two modes are not defects: `newest-listing` (the server also speaks 2024-11-05 and
lists its newest tool definitions whatever version it negotiated, as SDK servers
do) and `slow-apples` (searching just "apples" takes $VERIFY_SLOW seconds, with a
progress notification every 0.2 s when the request asks for them; with `silent`
too, without). With `picky`, search knows only the query "kiwi" and answers every
other with an `isError` result, as a tool that needs a real path or id does. With
`corrupts-state` it also lists `count` (read-only; `COUNT_SPEC` describes it), and the
first `add` call leaves the catalogue unreadable: search and count answer `isError` from
then on, as a server whose shared state a call damaged.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import jsonschema

DEFECTS = set(sys.argv[1:])
VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
if "newest-listing" in DEFECTS:
    VERSIONS = ("2024-11-05", *VERSIONS)

SEARCH_INPUT: dict[str, Any] = {
    "additionalProperties": False,
    "required": ["query"],
    "properties": {
        "tags": {"items": {"$ref": "#/$defs/Label"}, "type": "array"},
        "limit": {"default": 10, "maximum": 100, "minimum": 1, "type": "integer"},
        "query": {"maxLength": 50, "type": "string", "minLength": 1, "title": "Query"},
    },
    "type": "object",
    "$defs": {"Label": {"maxLength": 20, "type": "string"}},
}
SEARCH_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["total", "items"],
    "properties": {
        "total": {"minimum": 0, "type": "integer"},
        "items": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}
ADD_INPUT: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"b": {"type": "number"}, "a": {"type": "number"}},
    "required": ["b", "a"],
    "additionalProperties": False,
}
WIPE_INPUT: dict[str, Any] = {"type": "object", "additionalProperties": False}


COUNT: dict[str, Any] = {
    "name": "count",
    "description": "Count the catalogue's items.",
    "inputSchema": {"type": "object", "additionalProperties": False},
    "annotations": {"readOnlyHint": True, "openWorldHint": False},
}
COUNT_SPEC = """
  - name: count
    description: Count the catalogue's items.
    annotations: {readOnly: true, openWorld: false}
"""


def tools(version: str) -> list[dict[str, Any]]:
    if "newest-listing" in DEFECTS:
        version = VERSIONS[-1]
    search_input = json.loads(json.dumps(SEARCH_INPUT))
    if "schemas-differ" in DEFECTS:
        del search_input["properties"]["limit"]["maximum"]
    search_hints = {"readOnlyHint": True, "openWorldHint": False}
    if "annotations-differ" in DEFECTS:
        del search_hints["readOnlyHint"]
    structured = version >= "2025-06-18"
    listed = [
        {
            "name": "search",
            "description": "Search the catalogue and return matching item names.",
            "inputSchema": search_input,
            "annotations": search_hints,
        },
        {
            "name": "add",
            "description": "Add two numbers.",
            "inputSchema": ADD_INPUT,
            "annotations": {
                "openWorldHint": False,
                "idempotentHint": True,
                "destructiveHint": False,
                "readOnlyHint": False,
            },
        },
        {
            "name": "wipe",
            "description": "Delete every item.",
            "inputSchema": WIPE_INPUT,
            "annotations": {
                "destructiveHint": True,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        },
    ]
    titles = {"search": "Search", "add": "Add", "wipe": "Wipe"}
    for tool in listed:
        if structured:
            tool["title"] = titles[tool["name"]]
        else:
            tool["annotations"]["title"] = titles[tool["name"]]
    if structured:
        listed[0]["outputSchema"] = SEARCH_OUTPUT
        listed[1]["outputSchema"] = {
            "type": "object",
            "properties": {"result": {"type": "number"}},
            "required": ["result"],
        }
    if "corrupts-state" in DEFECTS:
        listed.append(COUNT)
    if "tool-missing" in DEFECTS:
        listed = [t for t in listed if t["name"] != "add"]
    if "extra-tool" in DEFECTS:
        listed.append({"name": "debug_dump", "inputSchema": {"type": "object"}})
    if "add-listed-twice" in DEFECTS:  # first as destructive, then as the spec has it
        listed.insert(1, {**listed[1], "annotations": {"destructiveHint": True}})
    if "lists-probe-name" in DEFECTS:  # calling it appends to $VERIFY_WIPE_LOG, as wipe does
        listed.append({**listed[-1], "name": "toolgen-verify-no-such-tool"})
    if "output-schema-differs" in DEFECTS and structured:
        listed[1]["outputSchema"]["properties"]["result"]["type"] = "integer"
    if "title-differs" in DEFECTS and structured:
        listed[0]["title"] = "Find"
    return listed


def text_result(value: Any, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(value, indent=2)}]}
    if structured is not None:
        result["structuredContent"] = structured
        if "no-text-fallback" in DEFECTS:
            result["content"] = [{"type": "text", "text": "done"}]
    return result


def error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


class Server:
    def __init__(self) -> None:
        self.version = "2025-11-25"
        self.inputs = {}
        self.unreadable = False

    def call(self, name: Any, arguments: Any, meta: Any) -> dict[str, Any]:
        known = {t["name"]: t for t in tools(self.version)}
        if name not in known or (name == "add" and "tool-missing" in DEFECTS):
            if "unknown-tool-is-error" in DEFECTS:
                return {"result": error_result(f"no tool {name}")}
            return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}
        schema = dict(known[name]["inputSchema"])
        if name == "search" and "schemas-differ" in DEFECTS:
            schema = SEARCH_INPUT
        errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(arguments))
        if name == "search" and "accepts-invalid-input" in DEFECTS:
            errors = []
        if errors:
            if "invalid-args-protocol-error" in DEFECTS:
                return {
                    "error": {"code": -32602, "message": f"Invalid arguments: {errors[0].message}"}
                }
            return {"result": error_result(f"Invalid arguments: {errors[0].message}")}
        structured = self.version >= "2025-06-18" or "newest-listing" in DEFECTS
        if name in ("search", "count") and self.unreadable:
            return {"result": error_result("the catalogue is unreadable")}
        if name == "count":
            return {"result": text_result("3")}
        if name == "search":
            if "slow-apples" in DEFECTS and arguments == {"query": "apples"}:
                token = meta.get("progressToken") if isinstance(meta, dict) else None
                slow(float(os.environ.get("VERIFY_SLOW", "2")), token)
            if "crashes-on-input" in DEFECTS and len(arguments.get("tags", [])) >= 3:
                sys.exit(3)
            if "hangs-on-input" in DEFECTS and len(arguments.get("tags", [])) >= 3:
                time.sleep(3600)
            if "picky" in DEFECTS and arguments.get("query") != "kiwi":
                return {"result": error_result(f"no catalogue entry '{arguments.get('query')}'")}
            limit = arguments.get("limit", 10)
            limit = limit if isinstance(limit, int) else 10
            value = {"items": [str(arguments.get("query"))] * min(limit, 3), "total": min(limit, 3)}
            if "output-breaks-schema" in DEFECTS:
                value["total"] = -1
            return {"result": text_result(value, value if structured else None)}
        if name == "add":
            self.unreadable = "corrupts-state" in DEFECTS
            total = arguments["a"] + arguments["b"]
            result = text_result(total, {"result": total} if structured else None)
            if "bad-result-shape" in DEFECTS:
                result["content"] = {"type": "text", "text": str(total)}
            return {"result": result}
        with open(os.environ.get("VERIFY_WIPE_LOG", os.devnull), "a") as log:
            log.write("wipe\n")
        return {"result": text_result("wiped")}

    def request(self, method: Any, params: Any) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        if method == "initialize":
            asked = params.get("protocolVersion")
            self.version = asked if asked in VERSIONS else VERSIONS[-1]
            echoed = "echoes-unknown-version" in DEFECTS and isinstance(asked, str)
            return {
                "result": {
                    "protocolVersion": asked if echoed else self.version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "verify-demo", "version": "1.0.0"},
                }
            }
        if method == "ping":
            if "no-ping" in DEFECTS:
                return {"error": {"code": -32601, "message": "Method not found: ping"}}
            return {"result": {}}
        if method == "tools/list":
            return {"result": {"tools": tools(self.version)}}
        if method == "tools/call":
            return self.call(params.get("name"), params.get("arguments", {}), params.get("_meta"))
        if "unknown-method-wrong-code" in DEFECTS:
            return {"error": {"code": -32603, "message": f"Internal error: {method}"}}
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}

    def message(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict):
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid"}}
        if "id" not in message:
            if "answers-notifications" in DEFECTS:
                return {"jsonrpc": "2.0", "id": None, "result": {}}
            return None
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            **self.request(message.get("method"), message.get("params")),
        }

    def line(self, line: str) -> Any:
        try:
            message = json.loads(line)
        except ValueError:
            if "dies-on-malformed-json" in DEFECTS:
                sys.exit(4)
            error = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "Parse error"},
            }
            if "parse-error-without-id" in DEFECTS:
                del error["id"]
            return error
        if isinstance(message, list):
            if "accepts-batches" in DEFECTS or self.version == "2025-03-26":
                return [r for r in (self.message(m) for m in message) if r is not None]
            return {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "No batches"},
            }
        return self.message(message)


def slow(seconds: float, token: Any) -> None:
    """Take `seconds`, telling the client how far along every 0.2 s when it gave a token."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(0.2, left))
        if token is not None and "silent" not in DEFECTS:
            done = seconds - max(0.0, end - time.monotonic())
            note = {"progressToken": token, "progress": done, "total": seconds}
            write({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})


def write(message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    if "prints-to-stdout" in DEFECTS:
        print("demo server starting", flush=True)
    server = Server()
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = server.line(line)
        if reply is not None:
            write(reply)


if __name__ == "__main__":
    main()
