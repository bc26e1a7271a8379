"""`toolgen serve`: serve a spec set over MCP (stdio) with handlers or mock data."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from toolgen.limits import CALL_TIMEOUT
from toolgen.report.terminal import print_spec_errors
from toolgen.spec.errors import SpecError

TOKEN_ENV = "TOOLGEN_TOKEN"
STORE_ENV = "TOOLGEN_STORE"
"""Where `serve --http` reads its store URL when `--store` is not given."""
"""Where `serve --http` reads its bearer token when `--token` is not given."""


def check_token(value: str | None) -> str | None:
    """`--token`, refused when empty or blank: given so, or as an empty `TOOLGEN_TOKEN`
    (which click reads as unset), it would serve without asking anyone for a token."""
    if value is None:
        value = os.environ.get(TOKEN_ENV)
        if value is None:
            return None
    if not value.strip():
        raise click.BadParameter(
            f"the token is empty, so any client would get in; give a token, or none "
            f"(and unset {TOKEN_ENV})"
        )
    return value


@click.command()
@click.argument("specs", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--handlers",
    "handlers_ref",
    metavar="MODULE:OBJECT",
    help="Handlers: an object (or class) with one method per tool, or a {tool: callable} "
    "mapping. MODULE may be a dotted module name or a path to a .py file.",
)
@click.option(
    "--mock",
    is_flag=True,
    help="Answer every call from the spec: the first example's output, else data generated "
    "from the output schema.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=CALL_TIMEOUT,
    show_default=True,
    help="Seconds a call may run before it answers with an error (0: no limit).",
)
@click.option(
    "--page-size",
    type=click.IntRange(min=1),
    default=None,
    help="Tools per tools/list page (default 256).",
)
@click.option(
    "--inline-sync",
    is_flag=True,
    help="Treat every sync handler as never blocking: over HTTP it then runs on the event "
    "loop, with no thread of its own (fastest; only for handlers that never block).",
)
@click.option(
    "--http",
    "http_address",
    metavar="HOST:PORT",
    help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (needs "
    "toolgen[http]). Use 127.0.0.1 (loopback) unless others must reach it; port 0 picks one.",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="With --http: also accept requests from this browser Origin (scheme://host[:port]); "
    "repeatable. Loopback origins are always accepted, others get 403.",
)
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    callback=lambda ctx, param, value: check_token(value),
    metavar="TOKEN",
    help="With --http: require Authorization: Bearer TOKEN (else 401). Default: $TOOLGEN_TOKEN.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --http: worker processes sharing the port (POSIX), and the --store that "
    "lets any of them answer for the others; Ctrl-C or SIGTERM stops them all.",
)
@click.option(
    "--store",
    "store_url",
    envvar=STORE_ENV,
    metavar="URL",
    help="With --http: keep tasks, resumable streams and sessions in Redis "
    "(redis://HOST:PORT/DB, needs toolgen[redis]), shared by every instance that names it. "
    "Default: $TOOLGEN_STORE, else this process's memory.",
)
@click.option("-v", "--verbose", is_flag=True, help="Log requests and cancellations to stderr.")
def serve(
    specs: tuple[Path, ...],
    handlers_ref: str | None,
    mock: bool,
    timeout: float,
    page_size: int | None,
    inline_sync: bool,
    http_address: str | None,
    allow_origins: tuple[str, ...],
    token: str | None,
    workers: int,
    store_url: str | None,
    verbose: bool,
) -> None:
    """Serve one spec set over MCP on stdin/stdout, both protocol eras
    (the 2025 initialize handshake and stateless 2026-07-28), until stdin closes.

    SPECS are the spec set's files or directory (default: specs/). Exactly one
    of --handlers and --mock. With --http HOST:PORT, serve Streamable HTTP instead. stdout carries only protocol; logs go to stderr.
    """
    if mock == (handlers_ref is not None):
        raise click.UsageError("give exactly one of --handlers MODULE:OBJECT and --mock")
    if workers > 1 and http_address is None:
        raise click.UsageError("--workers needs --http (stdio serves one client)")
    if store_url and http_address is None:
        raise click.UsageError("--store needs --http (stdio serves one client, from memory)")
    if workers > 1 and not store_url:
        raise click.UsageError(
            "--workers shares tasks, streams and sessions through a store: "
            "add --store redis://HOST:PORT/DB (or set TOOLGEN_STORE)"
        )
    from toolgen.serve.toolset import RuntimeToolSet
    from toolgen.spec.pipeline import load_spec_set

    try:
        tools = RuntimeToolSet(load_spec_set(list(specs) or [Path("specs")]))
    except SpecError as exc:
        print_spec_errors(exc.diagnostics)
        sys.exit(1)
    if mock:
        from toolgen.serve.mock import mock_handlers

        handlers: object = mock_handlers(tools)
    else:
        from toolgen.serve.handlers import import_object, instantiate

        assert handlers_ref is not None
        try:
            handlers = import_object(handlers_ref)
            if workers == 1 or not isinstance(handlers, type):  # else: one per worker
                handlers = instantiate(handlers)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--handlers") from None
    if http_address is not None:
        from toolgen.cli.serve_http import run_http

        run_http(
            tools,
            handlers,
            http_address,
            allow_origins,
            token,
            timeout=timeout or None,
            page_size=page_size,
            inline_sync=inline_sync,
            log_level=logging.INFO if verbose else logging.WARNING,
            workers=workers,
            store=store_url or None,
        )
        return
    if sys.stderr.isatty():  # a person started it: say it runs (stdout stays protocol only)
        count = f"{len(tools)} tool{'s' if len(tools) != 1 else ''}"
        click.echo(
            f"toolgen: serving {tools.server.name} ({count}{', mock' if mock else ''}) over "
            "stdio: MCP messages on stdin and stdout; Ctrl-C or end of input (Ctrl-D) stops it",
            err=True,
        )
    tools.serve(
        handlers,
        timeout=timeout or None,
        page_size=page_size,
        inline_sync=inline_sync,
        log_level=logging.INFO if verbose else logging.WARNING,
    )
