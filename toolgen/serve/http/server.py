"""Build the Starlette app for the `/mcp` endpoint, and run it with uvicorn.

    from toolgen.serve.http import serve_http
    serve_http(toolgen.load("specs/notes"), NotesHandlers(), host="127.0.0.1", port=8000)

Defaults are the safe ones: loopback only, loopback `Host` and `Origin`
only, no token (set one as soon as the port is reachable by anyone else).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Route

from toolgen.serve.engine import Engine, log
from toolgen.serve.http.app import McpEndpoint
from toolgen.serve.http.asgi import McpApp
from toolgen.serve.http.guard import MAX_READ, ConnectionLimits, guarded_protocol
from toolgen.serve.http.security import (
    DEFAULT_MAX_BODY,
    SecurityPolicy,
    is_loopback_host,
    parse_origins,
)
from toolgen.serve.http.sessions import Sessions
from toolgen.serve.http.workers import (
    AllWorkersStopped,
    Supervisor,
    balanced_by_kernel,
    can_fork,
    close_all,
)
from toolgen.serve.inputs import StateSigner
from toolgen.serve.serving import log_to_stderr
from toolgen.serve.store import MemoryStore, Record, Store, StoreError
from toolgen.serve.tools import Tools

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
    sessions: Sessions | None = None,
) -> McpApp:
    """The ASGI app serving `engine` at `path` (CORS for the origins the policy allows):
    MCP clients' requests go straight to the endpoint, the rest through Starlette (see
    `asgi`). Its lifespan starts the engine's store and ends it (and the sessions)."""
    policy = policy or SecurityPolicy()
    endpoint = McpEndpoint(engine, policy, sessions)
    origins = sorted(policy.allowed_origins)
    store = endpoint.store

    def on_signal(signal: Record) -> None:
        engine.task_store.on_signal(signal)
        endpoint.sessions.on_signal(signal)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store.listener = on_signal
        await store.start()
        try:
            yield
        finally:
            endpoint.sessions.end_all()
            await store.close()

    fallback = Starlette(
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
    return McpApp(endpoint, fallback, path)


def open_store(url: str | None) -> Store:
    """The store `url` names: None or empty, this process's memory; `redis://HOST:PORT/DB`
    (or `rediss://`, `unix://`), Redis (needs `toolgen[redis]`). `StoreError` otherwise."""
    if not url:
        return MemoryStore()
    scheme = url.partition("://")[0].lower()
    if scheme not in ("redis", "rediss", "unix"):
        raise StoreError(f"{url!r}: expected redis://HOST:PORT/DB (or rediss://, unix://)")
    try:
        from toolgen.serve.redis_store import RedisStore  # (here: a server without it starts fast)
    except ImportError as exc:
        raise StoreError(
            f"a Redis store needs the redis extra ({exc.name} is missing): "
            "pip install 'toolgen[redis]'"
        ) from None
    return RedisStore(url)


def uvicorn_config(
    app: Any, *, limits: ConnectionLimits | None = None, **options: Any
) -> uvicorn.Config:
    """uvicorn's configuration for `app` with toolgen's connection limits (see `guard`):
    a bounded number of connections, each with a deadline and a size bound for its
    request head. h11's own bound on a head (16 KiB unless told) is raised past the
    guard's, so the guard answers first (431) and heads up to the limit pass."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    limits = limits or ConnectionLimits()
    protocol = guarded_protocol(AutoHTTPProtocol, limits)
    return uvicorn.Config(
        app, http=protocol, h11_max_incomplete_event_size=limits.max_head + MAX_READ, **options
    )


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
    tools: Tools,
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
    workers: int = 1,
    store: str | None = None,
) -> None:
    """Serve `tools` with `handlers` over Streamable HTTP at `http://host:port/mcp`.

    Blocks until interrupted (Ctrl-C / SIGTERM). Port 0 picks a free port; the
    address actually bound is logged to stderr (`toolgen: serving ... at URL (Ctrl-C stops it)`).
    `store` names where tasks, resumable streams and sessions are kept
    (`redis://HOST:PORT/DB`; None: this process's memory), so that several instances
    sharing it answer for each other. `workers` > 1 forks that many worker processes on
    the one port (see `workers`), which share `store` (they need one); then a `handlers`
    class is created in each worker (connections it opens stay the worker's own), while
    an instance is shared, copied by the fork.
    """
    engine_options: dict[str, Any] = {
        "timeout": timeout,
        "inline_sync": inline_sync,
        "signer": StateSigner(),  # one key: a retry may reach any worker
    }
    if page_size is not None:
        engine_options["page_size"] = page_size
    engine = (
        None if workers > 1 else Engine(tools, handlers, store=open_store(store), **engine_options)
    )
    policy = SecurityPolicy(
        allowed_origins=parse_origins(allowed_origins),
        token=token or None,
        max_body=max_body,
        check_host=is_loopback_host(host),
    )
    log_to_stderr(log_level)
    if engine is not None:
        warn_missing_handlers(engine)
    if not is_loopback_host(host) and policy.token is None:
        log.warning(
            "listening on %s without a token: anyone who can reach this port can call the tools",
            host,
        )
    if workers > 1 and not can_fork():
        raise ValueError("several workers need fork(): run one worker per process instead")
    if workers > 1 and not store:
        raise ValueError(
            "several workers share tasks, streams and sessions through a store: "
            "give one (redis://HOST:PORT/DB)"
        )
    open_store(store)  # a URL that names no store fails now, before anything listens
    listeners = listen(host, port, workers if workers > 1 and balanced_by_kernel() else 1)
    shown = f"[{host}]" if ":" in host else host
    several = f" with {workers} workers" if workers > 1 else ""
    print(
        f"toolgen: serving {tools.server.name}{several} at "
        f"http://{shown}:{listeners[0].getsockname()[1]}{MCP_PATH} (Ctrl-C stops it)",
        file=sys.stderr,
        flush=True,
    )
    options = {
        "limits": limits,
        "log_level": logging.WARNING if log_level <= logging.WARNING else log_level,
        "access_log": log_level <= logging.INFO,
    }
    if engine is not None:
        try:
            run_uvicorn(create_app(engine, policy), listeners, **options)
        finally:
            close_all(listeners)
        return

    def worker_engine(index: int) -> Engine:
        """A worker's own engine, on a store connection of its own."""
        own = Engine(tools, handlers, store=open_store(store), **engine_options)
        if index == 0:
            warn_missing_handlers(own)
        return own

    serve_workers(worker_engine, policy, listeners, workers, options)


def warn_missing_handlers(engine: Engine) -> None:
    for name in engine.missing_handlers:
        log.warning("no handler for tool %r: its calls will answer with an error", name)


def listen(host: str, port: int, count: int = 1) -> list[socket.socket]:
    """`count` listening TCP sockets on `host:port` (more than one: `SO_REUSEPORT`, the
    kernel spreading connections among them; port 0: all on the port the first got)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    bound = port
    try:
        for _ in range(count):
            # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that
            # say they are TCP; without it every response waits ~40 ms for a delayed ACK.
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if count > 1:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, bound))
            sock.listen(LISTEN_BACKLOG)  # before announcing: clients may connect at once
            bound = sock.getsockname()[1]
    except OSError as exc:
        close_all(sockets)
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sockets


def run_uvicorn(app: Any, sockets: list[socket.socket], **options: Any) -> None:
    """Serve `app` with uvicorn on `sockets` until a stop signal (see `uvicorn_config`)."""
    import uvicorn

    config = uvicorn_config(
        app, server_header=False, backlog=LISTEN_BACKLOG, timeout_graceful_shutdown=2, **options
    )
    uvicorn.Server(config).run(sockets=sockets)


def serve_workers(
    make_engine: Callable[[int], Engine],
    policy: SecurityPolicy,
    listeners: list[socket.socket],
    count: int,
    options: dict[str, Any],
) -> None:
    """Fork `count` workers serving `make_engine(index)` on `listeners` (see `workers`); they
    answer for each other through the engines' shared store. KeyboardInterrupt after
    Ctrl-C, SIGTERM raised again after SIGTERM (as uvicorn does), `AllWorkersStopped`
    when every worker stopped on its own."""

    def run(index: int) -> None:
        public = listeners[index % len(listeners)]
        close_all([sock for sock in listeners if sock is not public])
        log.info("worker %d serving", index)
        run_uvicorn(create_app(make_engine(index), policy), [public], **options)

    try:
        stopped_by = Supervisor(count, run, after_fork=lambda: close_all(listeners)).serve()
    finally:
        close_all(listeners)
    if stopped_by is None:
        raise AllWorkersStopped("every worker stopped")
    if stopped_by == signal.SIGINT:
        raise KeyboardInterrupt
    signal.raise_signal(stopped_by)  # as uvicorn does for one process: SIGTERM ends us
