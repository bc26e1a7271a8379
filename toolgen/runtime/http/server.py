"""Build the Starlette app for the `/mcp` endpoint, and run it with uvicorn.

    from toolgen.runtime.http import serve_http
    serve_http(toolgen.load("specs/notes"), NotesHandlers(), host="127.0.0.1", port=8000)

Defaults are the safe ones: loopback only, loopback `Host` and `Origin`
only, no token (set one as soon as the port is reachable by anyone else).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, Final

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Route

from toolgen.runtime.engine import Engine, log
from toolgen.runtime.http.app import McpEndpoint
from toolgen.runtime.http.guard import ConnectionLimits, guarded_protocol
from toolgen.runtime.http.security import (
    DEFAULT_MAX_BODY,
    SecurityPolicy,
    is_loopback_host,
    parse_origins,
)
from toolgen.runtime.http.sessions import SessionStore
from toolgen.runtime.serving import log_to_stderr
from toolgen.runtime.toolset import RuntimeToolSet

if TYPE_CHECKING:
    import uvicorn

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
MCP_PATH: Final = "/mcp"
LOOPBACK_ORIGIN_REGEX: Final = r"https?://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?"
EXPOSED_HEADERS: Final = ["Mcp-Session-Id", "WWW-Authenticate"]
LISTEN_BACKLOG: Final = 2048


def create_app(
    engine: Engine,
    policy: SecurityPolicy | None = None,
    *,
    path: str = MCP_PATH,
    sessions: SessionStore | None = None,
) -> Starlette:
    """The ASGI app serving `engine` at `path` (CORS for the origins the policy allows)."""
    policy = policy or SecurityPolicy()
    endpoint = McpEndpoint(engine, policy, sessions)
    origins = sorted(policy.allowed_origins)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        endpoint.sessions.end_all()

    return Starlette(
        routes=[Route(path, endpoint.handle, methods=["GET", "POST", "DELETE"])],
        middleware=[
            Middleware(
                CORSMiddleware,
                allow_origins=origins,
                allow_origin_regex=None if "*" in origins else LOOPBACK_ORIGIN_REGEX,
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["*"],
                expose_headers=EXPOSED_HEADERS,
            )
        ],
        lifespan=lifespan,
    )


def uvicorn_config(
    app: Any, *, limits: ConnectionLimits | None = None, **options: Any
) -> uvicorn.Config:
    """uvicorn's configuration for `app` with toolgen's connection limits (see `guard`):
    a bounded number of connections, each with a deadline for its request head."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    protocol = guarded_protocol(AutoHTTPProtocol, limits or ConnectionLimits())
    return uvicorn.Config(app, http=protocol, **options)


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `[IPV6]:PORT` or `PORT` → (host, port); ValueError when malformed."""
    text = text.strip()
    host, port_text = DEFAULT_HOST, text
    if text.startswith("["):
        end = text.find("]:")
        if end == -1:
            raise ValueError(f"expected [IPV6]:PORT, got {text!r}")
        host, port_text = text[1:end], text[end + 2 :]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535 or not host:
        raise ValueError(f"expected HOST:PORT with a port from 0 to 65535, got {text!r}")
    return host, int(port_text)


def serve_http(
    tools: RuntimeToolSet,
    handlers: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    allowed_origins: Iterable[str] = (),
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    timeout: float | None = None,
    page_size: int | None = None,
    inline_sync: bool = False,
    log_level: int = logging.WARNING,
    limits: ConnectionLimits | None = None,
) -> None:
    """Serve `tools` with `handlers` over Streamable HTTP at `http://host:port/mcp`.

    Blocks until interrupted (Ctrl-C / SIGTERM). Port 0 picks a free port; the
    address actually bound is logged to stderr (`toolgen: serving ... at URL`).
    """
    import uvicorn

    options: dict[str, Any] = {"timeout": timeout, "inline_sync": inline_sync}
    if page_size is not None:
        options["page_size"] = page_size
    engine = Engine(tools, handlers, **options)
    policy = SecurityPolicy(
        allowed_origins=parse_origins(allowed_origins),
        token=token or None,
        max_body=max_body,
        check_host=is_loopback_host(host),
    )
    log_to_stderr(log_level)
    for name in engine.missing_handlers:
        log.warning("no handler for tool %r: its calls will answer with an error", name)
    if not is_loopback_host(host) and policy.token is None:
        log.warning(
            "listening on %s without a token: anyone who can reach this port can call the tools",
            host,
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say
    # they are TCP; without it every response waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)  # before announcing the address: clients may connect at once
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(
        f"toolgen: serving {tools.server.name} at http://{shown}:{bound_port}{MCP_PATH}",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn_config(
        create_app(engine, policy),
        limits=limits,
        log_level=logging.WARNING if log_level <= logging.WARNING else log_level,
        access_log=log_level <= logging.INFO,
        server_header=False,
        backlog=LISTEN_BACKLOG,
        timeout_graceful_shutdown=2,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
