"""A minimal MCP server (legacy era) that misbehaves in one way, for verify's bounds.

`python hostile.py MODE` serves over stdio; `python hostile.py --http MODE` serves
Streamable HTTP on a free loopback port and prints the port. It lists no tools (but in
`progress-calls`), and everything is answered correctly except `tools/list` (and, in
`flood-stderr`, what goes to stderr; in `progress-calls`, `tools/call`):

- `flood-line`: the answer is one line (or HTTP body) of $HOSTILE_SIZE bytes;
- `flood-event` (HTTP): the answer is one server-sent event of $HOSTILE_SIZE bytes;
- `flood-notices` (stdio): $HOSTILE_SIZE bytes of log notifications come before the answer;
- `big-notices` (stdio; HTTP: as server-sent events): $HOSTILE_COUNT log notifications of
  $HOSTILE_SIZE bytes each come before the answer;
- `deep`: the answer is valid JSON nested 2000 levels deep;
- `pages-forever`: every page gives a new `nextCursor`;
- `pages-slow`: every page gives a new `nextCursor` after 0.2 s;
- `cursor-loop`: page 2's `nextCursor` is page 1's;
- `drip-header`, `drip-body`, `drip-event` (HTTP): the answer's header, JSON body or
  event stream comes one byte every 0.1 s for $HOSTILE_DRIP seconds;
- `flood-header` (HTTP): the answer has a header line of 100 000 bytes;
- `progress-event` (HTTP): a progress notification every 0.1 s, never the answer;
- `flood-stderr` (stdio): a stderr line of $HOSTILE_SIZE bytes, then a short one;
- `progress-calls` (stdio): lists $HOSTILE_COUNT read-only tools `slow0`, `slow1`, ...
  (`SLOW_SPEC` is their spec set), and answers no call: each gets a progress
  notification every 0.05 s, forever.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HTTP = "--http" in sys.argv[1:]
MODE = sys.argv[-1]
SIZE = int(os.environ.get("HOSTILE_SIZE", str(4 * 1024 * 1024)))
DRIP = float(os.environ.get("HOSTILE_DRIP", "30"))
COUNT = int(os.environ.get("HOSTILE_COUNT", "12"))
VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")


def answer(message: Any) -> Any:
    """The response to a request (None for a notification), tools/list aside."""
    if not isinstance(message, dict) or "method" not in message:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid"}}
    if "id" not in message:
        return None
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: Any = {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = listing(params.get("cursor"))
    else:
        error = {"code": -32601 if method != "tools/call" else -32602, "message": "no"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


SLOW_INPUT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}
SLOW_HINTS = {"readOnlyHint": True, "openWorldHint": False}


def slow_spec(count: int) -> str:
    """The spec set of the tools `progress-calls` lists."""
    tools = "".join(
        f"  - name: slow{i}\n    description: Never answers.\n"
        f"    annotations: {{readOnly: true, openWorld: false}}\n"
        f"    input: {json.dumps(SLOW_INPUT)}\n"
        for i in range(count)
    )
    return f"toolgen: 1\nserver: {{name: hostile, version: '1.0.0'}}\ntools:\n{tools}"


def listing(cursor: Any) -> dict[str, Any]:
    if MODE == "progress-calls":
        return {
            "tools": [
                {"name": f"slow{i}", "description": "Never answers.", "inputSchema": SLOW_INPUT}
                | {"annotations": SLOW_HINTS}
                for i in range(COUNT)
            ]
        }
    page = int(cursor or 0) + 1
    if MODE in ("pages-forever", "pages-slow"):
        time.sleep(0.2 if MODE == "pages-slow" and cursor else 0)
        return {"tools": [], "nextCursor": str(page)}
    if MODE == "cursor-loop":
        return {"tools": [], "nextCursor": str(page % 2)}
    return {"tools": []}


def encoded(response: Any, method: str) -> bytes:
    """The response as one line, flooded or nested when `tools/list` is to misbehave."""
    if method == "tools/list" and MODE in ("flood-line", "flood-event"):
        response["result"]["padding"] = "x" * SIZE
    text = json.dumps(response)
    if method == "tools/list" and MODE == "deep":
        text = text[:-2] + ', "deep": ' + "[" * 2000 + "]" * 2000 + "}}"
    return text.encode()


def notice(size: int) -> str:
    """A log notification of about `size` bytes."""
    data = "x" * max(0, size - 80)
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": data},
        }
    )


WRITING = threading.Lock()


def write(line: str) -> None:
    with WRITING:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def progress_forever(token: Any) -> None:
    for step in range(1_000_000):
        params = {"progressToken": token, "progress": step}
        write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
        time.sleep(0.05)


def serve_stdio() -> None:
    if MODE == "flood-stderr":
        sys.stderr.write("e" * SIZE + "\nthe last words\n")
        sys.stderr.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            message = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}
            write(json.dumps(message))
            continue
        method = message.get("method", "") if isinstance(message, dict) else ""
        if method == "tools/call" and MODE == "progress-calls":
            token = (message["params"].get("_meta") or {}).get("progressToken")
            threading.Thread(target=progress_forever, args=(token,), daemon=True).start()
            continue
        response = answer(message)
        if response is not None:
            if method == "tools/list" and MODE == "flood-notices":
                line = notice(40) + "\n"
                sys.stdout.write(line * (SIZE // len(line)))
            if method == "tools/list" and MODE == "big-notices":
                for _ in range(COUNT):
                    sys.stdout.write(notice(SIZE) + "\n")
            write(encoded(response, method).decode())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        response = answer(message) if message is not None else None
        if response is None:
            self.send_response(202 if message is not None else 400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        method = message.get("method", "") if isinstance(message, dict) else ""
        data = encoded(response, method)
        if method != "tools/list" or MODE in ("flood-line", "deep", "pages-forever", "cursor-loop"):
            self.send_json(data)
        elif MODE == "flood-event":
            self.send_events(b"event: message\ndata: " + data + b"\n\n")
        elif MODE == "big-notices":
            self.send_events(b"")
            for _ in range(COUNT):
                self.wfile.write(b"data: " + notice(SIZE).encode() + b"\n\n")
            self.wfile.write(b"data: " + data + b"\n\n")
        elif MODE == "drip-header":
            self.send_response(200)
            self.flush_headers()
            self.drip(b"X-Slow: " + b"x" * 10_000)
        elif MODE == "flood-header":
            self.send_response(200)
            self.send_header("X-Big", "x" * 100_000)
            self.end_headers()
        elif MODE == "drip-body":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.drip(b" " * 100_000)
        elif MODE == "drip-event":
            self.send_events(b"")
            self.drip(b"data: " + b" " * 100_000)
        elif MODE == "progress-event":
            self.send_events(b"")
            token = message["params"].get("_meta", {}).get("progressToken", 0)
            progress = {"method": "notifications/progress", "jsonrpc": "2.0"}
            for step in range(int(DRIP * 10)):
                progress["params"] = {"progressToken": token, "progress": step}
                self.wfile.write(b"data: " + json.dumps(progress).encode() + b"\n\n")
                self.wfile.flush()
                time.sleep(0.1)

    def send_json(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def drip(self, data: bytes) -> None:
        end = time.monotonic() + DRIP
        for byte in data:
            if time.monotonic() > end:
                break
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.1)
        self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up on a flood or a drip: expected


def serve_http() -> None:
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve_http() if HTTP else serve_stdio()
