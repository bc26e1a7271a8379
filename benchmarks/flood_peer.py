"""The hostile peers of `floods.py`: each floods or starves the toolgen command it faces.

    python flood_peer.py stdout SIZE        # stdio server: answers its first request with one
                                            #   SIZE-byte line, then exits
    python flood_peer.py stderr SIZE        # stdio server: one SIZE-byte stderr line, then exits
    python flood_peer.py progress COUNT     # stdio server: lists COUNT read-only tools
                                            #   (`progress_spec`) and answers no call: each
                                            #   gets progress every 0.05 s, forever
    python flood_peer.py notices SIZE       # stdio server: answers its first request after
                                            #   NOTICES notifications of SIZE bytes each (at
                                            #   most the message limit), then exits
    python flood_peer.py json SIZE          # HTTP server (prints its URL): a SIZE-byte JSON body
    python flood_peer.py sse SIZE           # ... one SIZE-byte server-sent event
    python flood_peer.py drip-head 0        # ... a response head, one byte at a time
    python flood_peer.py drip-json 0        # ... a JSON body, one byte at a time
    python flood_peer.py drip-sse 0         # ... an event stream, one byte at a time
    python flood_peer.py heads SIZE PORT N  # HTTP client: N connections to 127.0.0.1:PORT, each
                                            #   sending a SIZE-byte request head; prints what
                                            #   came back, as JSON

An HTTP server floods or drips its answer to the first request with an id, and answers
every later request 404 (so a command gives up soon after the flood). The payload is
written in chunks, so a peer's own memory stays small whatever SIZE is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections import Counter
from typing import IO

from toolgen.limits import max_message

CHUNK = b"a" * 65536
DRIP_EVERY = 0.2
"""Seconds between two dripped bytes."""
NOTICES = 12
"""Notifications the `notices` peer sends before its answer."""
FLOODED: list[object] = []
"""The id of the request answered with the flood (once per server)."""
DRIP_FOR = 300.0
"""Seconds a drip goes on at most (the bench kills its peers earlier)."""


def filler(size: int) -> list[bytes]:
    whole, rest = divmod(size, len(CHUNK))
    return [CHUNK] * whole + [CHUNK[:rest]]


def answer_prefix(request_id: object) -> bytes:
    """The start of a valid initialize result whose last string the filler continues."""
    return (
        b'{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"'
        % json.dumps(request_id).encode()
    )


ANSWER_SUFFIX = b'"}}}'


def stdio(mode: str, size: int) -> None:
    out: IO[bytes] = sys.stderr.buffer if mode == "stderr" else sys.stdout.buffer
    line = sys.stdin.buffer.readline()
    try:
        request_id = json.loads(line).get("id", 0)
    except ValueError:
        request_id = 0
    try:
        if mode == "notices":
            notice(out, min(size, max_message() - 1024))
            size = 0
        out.write(answer_prefix(request_id) if mode != "stderr" else b"")
        for chunk in filler(size):
            out.write(chunk)
        out.write((ANSWER_SUFFIX if mode != "stderr" else b"") + b"\n")
        out.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass


def notice(out: IO[bytes], size: int) -> None:
    """`NOTICES` log notifications whose data string makes each `size` bytes long."""
    head = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
    tail = b'"}}\n'
    for _ in range(NOTICES):
        out.write(head)
        for chunk in filler(max(0, size - len(head) - len(tail))):
            out.write(chunk)
        out.write(tail)


def progress_spec(count: int) -> str:
    """The spec set of the tools the `progress` peer lists."""
    tools = "".join(
        f"  - name: slow{i}\n    description: Never answers.\n"
        "    annotations: {readOnly: true, openWorld: false}\n"
        "    input: {type: object, properties: {n: {type: integer, minimum: 0}}}\n"
        for i in range(count)
    )
    return f"toolgen: 1\nserver: {{name: flood, version: '1.0.0'}}\ntools:\n{tools}"


def progress(count: int) -> None:
    """A stdio server whose calls never end: a progress notification every 0.05 s each."""
    lock = threading.Lock()

    def send(message: dict[str, object]) -> None:
        with lock:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            sys.stdout.flush()

    def forever(token: object) -> None:
        for step in range(10**9):
            send(
                {
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": step},
                }
            )
            time.sleep(0.05)

    tools = [
        {
            "name": f"slow{i}",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
        }
        for i in range(count)
    ]
    results = {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "flood", "version": "1"},
        },
        "ping": {},
        "tools/list": {"tools": tools},
    }
    for line in sys.stdin:
        with contextlib.suppress(ValueError, AttributeError):
            message = json.loads(line)
            method, request_id = message.get("method"), message.get("id")
            if request_id is None:
                continue
            if method == "tools/call":
                token = message.get("params", {}).get("_meta", {}).get("progressToken")
                threading.Thread(target=forever, args=(token,), daemon=True).start()
            elif method in results:
                send({"id": request_id, "result": results[method]})
            else:
                send({"id": request_id, "error": {"code": -32601, "message": "no such method"}})


async def read_request(reader: asyncio.StreamReader) -> tuple[str, object] | None:
    """(method, JSON-RPC id or None) of the next request; None when the client left."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    try:
        request_id = json.loads(body).get("id") if body else None
    except (ValueError, AttributeError):
        request_id = None
    return lines[0].split(" ", 1)[0], request_id


async def drip(writer: asyncio.StreamWriter, first: bytes) -> None:
    writer.write(first)
    loop = asyncio.get_running_loop()
    end = loop.time() + DRIP_FOR
    while loop.time() < end:
        await asyncio.sleep(DRIP_EVERY)
        writer.write(b"a")
        await writer.drain()


async def serve_one(
    mode: str, size: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    try:
        while (request := await read_request(reader)) is not None:
            method, request_id = request
            if method != "POST" or request_id is None or FLOODED:  # GET, DELETE, notification
                status = "202 Accepted" if method == "POST" and not FLOODED else "404 Not Found"
                writer.write(f"HTTP/1.1 {status}\r\ncontent-length: 0\r\n\r\n".encode())
                continue
            FLOODED.append(request_id)
            prefix = answer_prefix(request_id)
            if mode == "json":
                length = len(prefix) + size + len(ANSWER_SUFFIX)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    b"content-length: %d\r\n\r\n%s" % (length, prefix)
                )
            elif mode == "sse":
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"connection: close\r\n\r\ndata: " + prefix
                )
            elif mode == "drip-head":
                await drip(writer, b"HTTP/1.1 200 OK\r\nx-drip: ")
            elif mode == "drip-json":
                await drip(
                    writer,
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    b"content-length: 1000000000\r\n\r\n" + prefix,
                )
            else:  # drip-sse
                await drip(
                    writer,
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: " + prefix,
                )
            for chunk in filler(size):
                writer.write(chunk)
                await writer.drain()
            writer.write(ANSWER_SUFFIX + (b"\n\n" if mode == "sse" else b""))
            await writer.drain()
            if mode == "sse":
                break
    except ConnectionError:
        pass
    finally:
        writer.close()


async def http_server(mode: str, size: int) -> None:
    server = await asyncio.start_server(
        lambda r, w: serve_one(mode, size, r, w), "127.0.0.1", 0, limit=1 << 20
    )
    port = server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{port}/mcp", flush=True)
    async with server:
        await server.serve_forever()


async def send_head(port: int, size: int) -> str:
    """Send one SIZE-byte request head; what the server did about it."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return "refused"
    try:
        writer.write(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Flood: ".encode())
        for chunk in filler(size):
            writer.write(chunk)
            await writer.drain()
        writer.write(b"\r\n\r\n")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(64), 60)
        return answer.split(b"\r\n", 1)[0].decode("latin-1") or "closed"
    except (ConnectionError, TimeoutError) as exc:
        return type(exc).__name__
    finally:
        writer.close()


async def heads(port: int, size: int, count: int) -> None:
    results = await asyncio.gather(*(send_head(port, size) for _ in range(count)))
    print(json.dumps(Counter(results)), flush=True)


def main() -> None:
    mode, size = sys.argv[1], int(sys.argv[2])
    if mode in ("stdout", "stderr", "notices"):
        stdio(mode, size)
    elif mode == "progress":
        progress(size)
    elif mode == "heads":
        asyncio.run(heads(int(sys.argv[3]), size, int(sys.argv[4])))
    else:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(http_server(mode, size))


if __name__ == "__main__":
    main()
