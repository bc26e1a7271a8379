"""The opening request waits for a server's start-up only when verify started it (stdio):
a server reached by URL is already running, and `--timeout` holds from its first request."""

from __future__ import annotations

from typing import Any

import pytest

from toolgen.verify.session import STARTUP, Session
from toolgen.verify.transport import Exchange


class Silent:
    """A transport that never answers, and records how long each wait was."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.waits: list[float] = []
        self.refused: list[str] = []

    def exchange(self, payload: bytes, wanted: Any, timeout: float, *_: Any, **__: Any) -> Exchange:
        self.waits.append(timeout)
        found = Exchange()
        found.timed_out = True
        return found


@pytest.mark.parametrize(("kind", "first_wait"), [("stdio", STARTUP), ("http", 2.0)])
@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_first_request_waits_for_start_up_only_over_stdio(
    kind: str, first_wait: float, revision: str
) -> None:
    transport = Silent(kind)
    Session(transport, revision, 2.0).open()  # type: ignore[arg-type]
    assert transport.waits[0] == first_wait
