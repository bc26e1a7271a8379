"""`toolgen serve --http`: turn the HTTP options into a `serve_http` call (parsing only)."""

from __future__ import annotations

import sys
from typing import Any

import click

from toolgen.cli.common import echo
from toolgen.extras import install_hint
from toolgen.serve.toolset import RuntimeToolSet


def run_http(
    tools: RuntimeToolSet,
    handlers: Any,
    address: str,
    allow_origins: tuple[str, ...],
    token: str | None,
    **options: Any,
) -> None:
    """Serve over Streamable HTTP; usage errors exit 2, a port that cannot be bound (or every
    worker stopping) exits 1, Ctrl-C exits 130."""
    from toolgen.cli import EXIT_INTERRUPTED

    try:
        from toolgen.serve.http import serve_http
        from toolgen.serve.http.security import parse_origins
        from toolgen.serve.http.server import open_store, parse_address
        from toolgen.serve.http.workers import AllWorkersStopped, can_fork
        from toolgen.serve.store import StoreError
    except ImportError as exc:
        raise click.UsageError(
            f"--http needs the http extra ({exc.name} is missing); add it with: "
            + install_hint("http")
        ) from None
    try:
        host, port = parse_address(address)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--http") from None
    try:
        parse_origins(allow_origins)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--allow-origin") from None
    if options.get("workers", 1) > 1 and not can_fork():
        raise click.BadParameter("several workers need fork(), which this platform lacks")
    try:
        open_store(options.get("store"))
    except StoreError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    try:
        serve_http(
            tools,
            handlers,
            host=host,
            port=port,
            allowed_origins=allow_origins,
            token=token,
            **options,
        )
    except OSError as exc:
        echo(f"toolgen: error: {exc}", err=True)
        sys.exit(1)
    except AllWorkersStopped:  # each worker's end was reported as it happened
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
