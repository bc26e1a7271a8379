"""The conformance handlers, but `test_simple_text` answers with the pid of the process
that ran it: how the worker tests see which worker served a call."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from examples.conformance_handlers import HANDLERS as CONFORMANCE


def whoami() -> str:
    return str(os.getpid())


HANDLERS: dict[str, Callable[..., Any]] = {**CONFORMANCE, "test_simple_text": whoami}


class PidHandlers:
    """A handlers class: `toolgen serve --workers N` creates one in each worker, so the
    pid it was created in is the pid that serves its calls."""

    def __init__(self) -> None:
        self.created_in = os.getpid()

    def test_simple_text(self) -> str:
        return f"{self.created_in} {os.getpid()}"


class BrokenHandlers:
    """A handlers class that cannot be created (its database is missing)."""

    def __init__(self) -> None:
        raise RuntimeError("no database")
