"""A blocking facade over a typed client, for scripts, notebooks and shells without `async`.

    from notes.client import Client
    from toolgen.client import blocking

    with blocking(Client.stdio(["python", "-m", "notes.server", "app:Handlers"])) as notes:
        note = notes.call(lambda c: c.create_note(title="Milk"))   # a CreateNoteOutput
        count = notes.call(lambda c: c.count_notes())                # an int

The async client keeps running on an event loop in a background thread (anyio's
blocking portal): `blocking` enters the connection there, and `call` runs one
coroutine of the client there and hands back its result, or raises its error
(`ToolCallError`, pydantic's `ValidationError`, `DriftError`) in the calling thread.
Types flow through: `call` returns what the client's method returns, so pyright and
mypy check the arguments and the result as they do for the async client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

C = TypeVar("C")
T = TypeVar("T")


class Blocking(Generic[C]):
    """A connected client driven from synchronous code (see `blocking`)."""

    def __init__(self, portal: BlockingPortal, client: C) -> None:
        self._portal = portal
        self.client = client
        """The async client itself (use it only through `call`: it lives on another loop)."""

    def call(self, method: Callable[[C], Awaitable[T]]) -> T:
        """Run `method(client)` on the client's event loop and wait for its result."""
        return self._portal.call(method, self.client)


@contextmanager
def blocking(connect: AbstractAsyncContextManager[C]) -> Iterator[Blocking[C]]:
    """Enter `connect` (e.g. `Client.stdio(argv)` or `Client.http(url)`) on a background
    event loop, yield it for synchronous calls, and close it (and the loop) on exit."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(connect) as client:
        yield Blocking(portal, client)
