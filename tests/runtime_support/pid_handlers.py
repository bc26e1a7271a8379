"""The conformance handlers, but `test_simple_text` answers with the pid of the process
that ran it: how the worker tests see which worker served a call."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from examples.conformance_handlers import HANDLERS as CONFORMANCE

STARTING = 2.0
"""Seconds `SlowToStartHandlers` takes to create."""


def whoami() -> str:
    return str(os.getpid())


HANDLERS: dict[str, Callable[..., Any]] = {**CONFORMANCE, "test_simple_text": whoami}


async def ignores_cancellation(arguments: dict[str, Any]) -> str:
    """A handler that goes on when cancelled (a bug of its own): the server must stop anyway."""
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(60)


STUBBORN: dict[str, Callable[..., Any]] = {**HANDLERS, "slow_compute": ignores_cancellation}


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


class SlowToStartHandlers(PidHandlers):
    """A handlers class that takes a while to create (it opens a slow database): a worker
    is still starting, before its server takes the stop signals, for that long."""

    def __init__(self) -> None:
        time.sleep(STARTING)
        super().__init__()
