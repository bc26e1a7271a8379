"""A stand-in MCP server over stdio for the Rust client's safety test: it lists the notes tools
of a build's `tools/2025-11-25.json` (argv[1]) with `count_notes` once per annotations object
given as JSON in argv[2], and answers `count_notes` with 1."""

import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:
    listing = json.load(file)
hints = json.loads(sys.argv[2])
tools = []
for tool in listing["tools"]:
    if tool["name"] == "count_notes":
        tools += [{**tool, "annotations": annotations} for annotations in hints]
    else:
        tools.append(tool)
answers = {
    "initialize": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "stand-in", "version": "0"},
    },
    "tools/list": {"tools": tools},
    "tools/call": {
        "content": [{"type": "text", "text": '{"result":1}'}],
        "structuredContent": {"result": 1},
        "isError": False,
    },
}
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message and message.get("method") in answers:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": answers[message["method"]]}
        print(json.dumps(reply), flush=True)
