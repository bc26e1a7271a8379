"""What `current_call()` gives a spec tool's handler inside an SDK server.

`toolgen serve` writes a handler's progress and log notifications on its own
transports; inside an SDK server they go through the SDK's session instead, tied
to the call's request (so over Streamable HTTP they ride the call's own stream).
Handlers may notify from a worker thread: each notification is handed to the
server's event loop, and the call's result is sent only after every notification
of the call, so none arrives after the result it belongs to.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolgen.serve.context import DEFAULT_LEGACY_LOG_LEVEL, for_request, use_call_context

if TYPE_CHECKING:
    from pydantic import TypeAdapter


class SdkNotifier:
    """Sends one call's notifications through the SDK session of its request."""

    def __init__(self, ctx: Any) -> None:
        self._session = ctx.session
        self._request_id = ctx.request_id
        self._loop = asyncio.get_running_loop()
        self._pending: list[Future[None]] = []

    def send(self, notification: dict[str, Any]) -> None:
        """Queue `notification` (a JSON-RPC notification) on the server's loop; any thread."""
        typed = _notification_adapter().validate_python(
            {"method": notification["method"], "params": notification.get("params")}
        )
        coroutine = self._session.send_notification(typed, related_request_id=self._request_id)
        self._pending.append(asyncio.run_coroutine_threadsafe(coroutine, self._loop))

    async def flush(self) -> None:
        """Wait until every queued notification has been sent."""
        pending, self._pending = self._pending, []
        if pending:
            await asyncio.gather(*(asyncio.wrap_future(f) for f in pending))


@contextmanager
def sdk_call_context(ctx: Any, params: Any) -> Iterator[SdkNotifier]:
    """Install the `current_call()` of a spec tool's call received by an SDK server.

    Progress is sent when the request carried a progress token; log messages at the
    level the request's `_meta` asks for (2026-07-28), else at toolgen's default
    level for sessions that never called `logging/setLevel`.
    """
    notifier = SdkNotifier(ctx)
    raw = ctx.params if ctx.params is not None else _raw(params)
    context = for_request(raw, notifier.send, legacy_log_level=DEFAULT_LEGACY_LOG_LEVEL)
    with use_call_context(context):
        yield notifier


def _raw(params: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = params.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


@functools.cache
def _notification_adapter() -> TypeAdapter[Any]:
    """The SDK's notification union, built once (building it costs milliseconds)."""
    from mcp_types import ServerNotification
    from pydantic import TypeAdapter

    return TypeAdapter(ServerNotification)
