"""What every transport's server does at start-up: logging, and a generated stub's command line."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from toolgen.limits import CALL_TIMEOUT
from toolgen.serve.handlers import import_object, instantiate


def log_to_stderr(level: int) -> None:
    """Send toolgen's log records to stderr (stdout may carry protocol)."""
    logger = logging.getLogger("toolgen")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("toolgen: %(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level)


def stub_main(
    prog: str,
    description: str | None,
    serve: Callable[..., None],
    argv: list[str] | None = None,
) -> None:
    """The command line of a generated `server.py`: `MODULE:OBJECT [--timeout SECONDS]`.

    Lives here, not in every generated package, so a fix reaches all of them.
    """
    import argparse  # here: 20-30 ms (gettext) that a server started by `serve()` never needs

    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("handlers", help="MODULE:OBJECT naming a Handlers subclass or instance")
    parser.add_argument(
        "--timeout", type=float, default=CALL_TIMEOUT, help="seconds per call (0: none)"
    )
    options = parser.parse_args(argv)
    try:
        handlers: Any = instantiate(import_object(options.handlers))
    except ValueError as exc:
        parser.error(str(exc))
    serve(handlers, timeout=options.timeout or None)
