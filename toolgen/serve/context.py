"""What a tool handler can do while it runs: report progress, send log messages, and
(legacy-era sessions over Streamable HTTP) ask the client for a sampled message or
for user input.

    from toolgen.runtime import current_call

    def import_rows(args):
        call = current_call()
        call.progress(0, 100)
        call.log("info", "import started")
        ...

A transport that can deliver notifications during a call gives it a
`CallContext` (`PendingCall.context`, or `use_call_context` around the
request); the call installs it where its handler runs (its task, or the
thread of a sync handler). Without one,
`current_call()` is a context that sends nothing, so handlers run
unchanged in tests, over transports without notifications, or when the
client asked for neither progress nor log messages.

`send` is called from whichever thread the handler runs on: transports give
a thread-safe one (e.g. `loop.call_soon_threadsafe`). Requests to the client
(`sample`, `elicit`, `list_roots`, `request`) are async and only for async
handlers: in the stateless 2026-07-28 era they become an `InputRequiredResult`
and a retry (any transport, see `toolgen.serve.inputs`); in a 2025 session
they go out on the call's event stream (Streamable HTTP). Where neither is
possible (a 2025 session over stdio, a client that accepts no event stream,
a capability the client did not declare) they raise `ToolError`, which
answers the call with `isError`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Protocol

from toolgen.serve.inputs import INPUT_METHODS, current_round
from toolgen.serve.results import ToolError
from toolgen.serve.tasks import current_slot, current_task

LOG_LEVELS: Final = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""The MCP (syslog) levels, least severe first."""
DEFAULT_LEGACY_LOG_LEVEL: Final = "info"
"""Least severe level sent on a legacy connection that never sent `logging/setLevel`."""
PROGRESS_TOKEN_KEY: Final = "progressToken"
LOG_LEVEL_META: Final = "io.modelcontextprotocol/logLevel"
CLIENT_CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
"""2026-07-28: the request-scoped opt-in to log messages (absent: none are sent)."""

Send = Callable[[dict[str, Any]], None]
Ask = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""Send a request to the client and return its `result` (raises ToolError on an error)."""


_RANKS: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}


def level_rank(level: str) -> int:
    """Position of `level` in `LOG_LEVELS`; ValueError for an unknown level."""
    rank = _RANKS.get(level)
    if rank is None:
        raise ValueError(f"unknown log level {level!r}; expected one of {LOG_LEVELS}")
    return rank


class CallContext:
    """The notifications one running call may send, and to where."""

    __slots__ = (
        "_ask",
        "_cancelled",
        "_min_rank",
        "_send",
        "client_capabilities",
        "log_level",
        "progress_token",
    )

    def __init__(
        self,
        send: Send | None = None,
        *,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        ask: Ask | None = None,
        client_capabilities: Mapping[str, Any] | None = None,
    ) -> None:
        """`progress_token`: from the request's `_meta` (None: no progress wanted);
        `log_level`: least severe level the client wants (None: no log messages);
        `ask`: how to send a request to the client (None: not possible here);
        `client_capabilities`: what the client declared (None: unknown)."""
        self._send = send
        self._ask = ask
        self._cancelled = False
        self.client_capabilities = client_capabilities
        self.progress_token = progress_token
        self.log_level = log_level
        self._min_rank = level_rank(log_level) if log_level is not None else len(LOG_LEVELS)

    @property
    def cancelled(self) -> bool:
        """True once nobody waits for this call's result any more: it was cancelled
        (`notifications/cancelled`), timed out, or its client disconnected. Python cannot
        stop a thread, so a long-running sync handler should check this and return."""
        return self._cancelled

    def cancel(self) -> None:
        """Mark the call as no longer wanted (transports and the call runner do this)."""
        self._cancelled = True

    @property
    def wants_progress(self) -> bool:
        return self._send is not None and self.progress_token is not None

    def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send `notifications/progress` (only when the request carried a progress token)."""
        if self._send is None or self.progress_token is None:
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self._send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send `notifications/message` when `level` is at least the level the client asked for.

        `data` is any JSON value (usually a string). Raises ValueError for an unknown level.
        """
        if level_rank(level) < self._min_rank or self._send is None:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self._send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})

    def supports(self, capability: str) -> bool:
        """Whether the client declared `capability` (`sampling`, `elicitation`, `roots`);
        True when unknown (a transport that does not say)."""
        return self.client_capabilities is None or capability in self.client_capabilities

    async def request(self, method: str, params: dict[str, Any], *, key: str | None = None) -> Any:
        """Send the JSON-RPC request `method` to the client and return its result.

        In the stateless 2026-07-28 era the request goes out in an
        `InputRequiredResult` under `key` (default: `elicitation-1`, ...) and the
        handler runs again with the answer (see `toolgen.serve.inputs`); in a
        call running as a task, in the task's `inputRequests` until the client's
        `tasks/update` answers it (see `toolgen.serve.tasks`).
        Raises ToolError when requests to the client are not possible here, or
        when the client answers with an error.
        """
        task = current_task()
        if task is not None and method in INPUT_METHODS:
            return await task.ask(method, params, key)
        inputs = current_round()
        if inputs is not None and method in INPUT_METHODS:
            return await inputs.ask(method, params, key)
        if self._ask is None:
            raise ToolError(
                f"This tool needs to send {method} to the client, which this connection "
                "does not allow (it needs a 2025 session over Streamable HTTP)"
            )
        return await self._ask(method, params)

    async def sample(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int,
        key: str | None = None,
        **options: Any,
    ) -> Any:
        """Ask the client's model for a message (`sampling/createMessage`); its result."""
        self._require("sampling")
        params = {"messages": messages, "maxTokens": max_tokens, **options}
        return await self.request("sampling/createMessage", params, key=key)

    async def elicit(
        self, message: str, requested_schema: dict[str, Any], *, key: str | None = None
    ) -> Any:
        """Ask the user for input (`elicitation/create`); the result (`action`, `content`)."""
        self._require("elicitation")
        params = {"message": message, "requestedSchema": requested_schema}
        return await self.request("elicitation/create", params, key=key)

    async def list_roots(self, *, key: str | None = None) -> Any:
        """Ask the client for its roots (`roots/list`); the result (`roots`)."""
        self._require("roots")
        return await self.request("roots/list", {}, key=key)

    def start_task(self) -> bool:
        """From here on, run this call as a task (`io.modelcontextprotocol/tasks`): its
        request is answered with the task's handle while the handler goes on. For a
        handler marked `@starts_task`, whose questions before this point are asked with
        `InputRequiredResult` (multi round-trip) and after it through the task. Returns
        whether the call is a task now (False: the client cannot take one, the tool
        declares no task support, or the call is not in the 2026-07-28 era)."""
        slot = current_slot()
        return slot is not None and slot.start()

    def _require(self, capability: str) -> None:
        if not self.supports(capability):
            raise ToolError(f"This tool needs the client's {capability} capability")


class HasContext(Protocol):
    """A running call whose context is built on first use (`toolgen.serve.calls.PendingCall`)."""

    @property
    def context(self) -> CallContext: ...


_SILENT: Final = CallContext()
_current: contextvars.ContextVar[CallContext | HasContext] = contextvars.ContextVar(
    "toolgen_call", default=_SILENT
)


def current_call() -> CallContext:
    """The context of the call running in this task or worker thread (a silent one if none)."""
    found = _current.get()
    return found if isinstance(found, CallContext) else found.context


def context_for_call() -> CallContext:
    """The context a new call starts with: the one a transport installed around it, else a
    silent one of its own (so that cancelling it touches no other call)."""
    found = current_call()
    return CallContext() if found is _SILENT else found


def install_call_context(context: CallContext | HasContext) -> None:
    """Make `context` (or the context of this call, built when first asked for) the current
    call's for the rest of this task (or `Context.run`)."""
    _current.set(context)


class use_call_context:  # (lower case: used like the function it replaced)
    """Install `context` for the code (and the tasks it starts) inside the `with` block.

    A class, not a `@contextmanager` generator: every call enters it (an HTTP call
    twice), and this form is cheaper."""

    __slots__ = ("_context", "_token")

    def __init__(self, context: CallContext) -> None:
        self._context = context

    def __enter__(self) -> CallContext:
        self._token = _current.set(self._context)
        return self._context

    def __exit__(self, *exc_info: object) -> None:
        _current.reset(self._token)


def for_request(
    params: Any,
    send: Send | None,
    *,
    legacy_log_level: str | None = None,
    ask: Ask | None = None,
    client_capabilities: Mapping[str, Any] | None = None,
) -> CallContext:
    """The context for a request with these `params`: its progress token, and the log level
    from its `_meta` (modern era) or the connection's `logging/setLevel` (legacy era)."""
    if type(params) is dict:  # (the common case, without an ABC check: once per call)
        meta = params.get("_meta")
    else:
        meta = params.get("_meta") if isinstance(params, Mapping) else None
    token = None
    level = legacy_log_level
    if meta is not None and isinstance(meta, Mapping):
        raw_token = meta.get(PROGRESS_TOKEN_KEY)
        if type(raw_token) in (str, int):
            token = raw_token
        if LOG_LEVEL_META in meta or "io.modelcontextprotocol/protocolVersion" in meta:
            raw_level = meta.get(LOG_LEVEL_META)
            level = raw_level if raw_level in LOG_LEVELS else None
        declared = meta.get(CLIENT_CAPABILITIES_META)
        if client_capabilities is None and isinstance(declared, Mapping):
            client_capabilities = declared  # 2026-07-28: declared per request
    return CallContext(
        send,
        progress_token=token,
        log_level=level,
        ask=ask,
        client_capabilities=client_capabilities,
    )
