"""What every transport's server does at start-up: load its spec set, set up logging."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolgen.runtime.toolset import RuntimeToolSet


def load_spec_set(paths: Sequence[str | Path]) -> RuntimeToolSet:
    """The spec set named by `paths`; `ValueError` when they name several (a server serves one).

    Raises `SpecError` for bad input, like the compiler.
    """
    from toolgen.loader import load_files, spec_sets
    from toolgen.resolver import resolve

    sets = spec_sets(paths)
    if len(sets) > 1:
        names = ", ".join(str(s.root) for s in sets)
        raise ValueError(f"a server serves one spec set; {paths[0]} holds several: {names}")
    return RuntimeToolSet(resolve(load_files(sets[0].files)))


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
    import argparse

    from toolgen.runtime.handlers import import_object, instantiate

    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("handlers", help="MODULE:OBJECT naming a Handlers subclass or instance")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call (0: none)")
    options = parser.parse_args(argv)
    try:
        handlers: Any = instantiate(import_object(options.handlers))
    except ValueError as exc:
        parser.error(str(exc))
    serve(handlers, timeout=options.timeout or None)
