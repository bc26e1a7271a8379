"""Tasks: the `io.modelcontextprotocol/tasks` extension of MCP 2026-07-28 (SEP-2663).

A tool whose spec declares `execution: {taskSupport: optional | required}` may
answer a stateless `tools/call` with a *task handle* instead of its result,
when the request's `_meta` client capabilities name the extension:

    → tools/call {name: "export_report", ...}
    ← {resultType: "task", taskId, status: "working", createdAt, lastUpdatedAt,
       ttlMs, pollIntervalMs}

The handler goes on running in the server; the client polls `tasks/get`, which
answers the task (`resultType: "complete"`) with, by status:

- `working`: nothing more;
- `input_required`: `inputRequests`, the questions the handler is waiting on
  (`call.elicit(...)`, `call.sample(...)`, `call.list_roots()`), keyed by ids
  unique over the task's life; the client answers with `tasks/update`
  (`inputResponses`, all at once or some at a time) and the handler resumes;
- `completed`: `result`, the `CallToolResult` (a tool error too: `isError`);
- `failed`: `error`, the JSON-RPC error a handler raised (`ProtocolError`);
- `cancelled`: after `tasks/cancel` (which cancels the handler).

`tasks/update` and `tasks/cancel` answer an empty `{resultType: "complete"}`; an
unknown (or expired) `taskId` is -32602; a request whose client capabilities
lack the extension is -32021. A task is kept `ttlMs` after its creation, then
dropped (a handler still running then is cancelled). Tasks live in this
process: behind several processes, route on the `Mcp-Name` header (the task id),
which clients must send with these methods (`serve --http --workers N` does).
"""

from __future__ import annotations

import asyncio
import contextvars
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from toolgen.serve.inputs import INPUT_METHODS, InvalidInput, fits

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
TASK_SUPPORT: Final = ("optional", "required")
"""`execution.taskSupport` values that let a tool's calls run as tasks."""
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
DEFAULT_TTL_MS: Final = 3_600_000
DEFAULT_POLL_MS: Final = 500
DEFAULT_LIMIT: Final = 1000
"""Live tasks one process keeps at most (a new call beyond it runs without a task)."""


def _timestamp(seconds: float) -> str:
    """ISO 8601 in UTC with milliseconds, as the extension's `createdAt` wants."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def declares_tasks(capabilities: Any) -> bool:
    """Whether a `ClientCapabilities` object names the tasks extension."""
    if not isinstance(capabilities, Mapping):
        return False
    extensions = capabilities.get("extensions")
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


def required_capability() -> dict[str, Any]:
    """The `data` of the -32021 error for a client without the extension."""
    return {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}


class Task:
    """One task: its status, and what the handler waits for or produced."""

    def __init__(
        self, task_id: str, ttl_ms: int, poll_ms: int, clock: Callable[[], float] = time.time
    ) -> None:
        self.id = task_id
        self._clock = clock
        self.created = self.updated = clock()
        self.ttl_ms = ttl_ms
        self.poll_ms = poll_ms
        self.status = "working"
        self.status_message: str | None = None
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.requests: dict[str, dict[str, Any]] = {}
        """Questions the handler waits on, by key (`inputRequests`)."""
        self.runner: asyncio.Future[Any] | None = None
        """The handler's asyncio task (cancelled by `tasks/cancel`)."""
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._keys: set[str] = set()
        self._counts: dict[str, int] = {}

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expired(self, now: float) -> bool:
        return now >= self.created + self.ttl_ms / 1000

    def handle(self) -> dict[str, Any]:
        """The `Task` fields every answer about this task carries."""
        shown: dict[str, Any] = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": _timestamp(self.created),
            "lastUpdatedAt": _timestamp(self.updated),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        }
        if self.status_message is not None:
            shown["statusMessage"] = self.status_message
        return shown

    def detailed(self) -> dict[str, Any]:
        """The `DetailedTask` of `tasks/get`: the handle and its status's payload."""
        shown = self.handle()
        if self.status == "input_required":
            shown["inputRequests"] = dict(self.requests)
        elif self.status == "completed":
            shown["result"] = self.result
        elif self.status == "failed":
            shown["error"] = self.error
        return shown

    # -- transitions ------------------------------------------------------------------

    def _move(self, status: str, message: str | None = None) -> None:
        self.status = status
        self.status_message = message
        self.updated = self._clock()

    def complete(self, result: dict[str, Any]) -> None:
        """The handler returned (a tool error too): `completed` with its result."""
        if not self.terminal:
            self.result = result
            self._move("completed")

    def fail(self, code: int, message: str, data: Any = None) -> None:
        """The call ended in a JSON-RPC error: `failed` with it."""
        if not self.terminal:
            self.error = {"code": code, "message": message}
            if data is not None:
                self.error["data"] = data
            self._move("failed", message)

    def cancel(self, reason: str = "Cancelled by the client") -> None:
        """Stop the handler (if it still runs) and settle as `cancelled`."""
        if self.terminal:
            return
        self._move("cancelled", reason)
        self.requests.clear()
        if self.runner is not None and not self.runner.done():
            self.runner.cancel()

    # -- questions --------------------------------------------------------------------

    async def ask(self, method: str, params: dict[str, Any], key: str | None) -> Any:
        """Put a question in `inputRequests` (status `input_required`) and wait for the
        client's `tasks/update` answer."""
        kind = INPUT_METHODS[method]
        if key is None or key in self._keys:
            while key is None or key in self._keys:  # keys are never reused in a task
                self._counts[kind] = count = self._counts.get(kind, 0) + 1
                key = f"{kind}-{count}"
        self._keys.add(key)
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.requests[key] = {"method": method, "params": params}
        self._waiting[key] = waiter
        if self.status == "working":
            self._move("input_required")
        try:
            return await waiter
        finally:
            self._waiting.pop(key, None)
            asked = self.requests.pop(key, None) is not None
            if asked and not self.requests and self.status == "input_required":
                self._move("working")

    def answer(self, responses: Any) -> None:
        """Deliver `tasks/update` `inputResponses`: answers to outstanding questions wake
        their handler; other keys are ignored. `InvalidInput` for a malformed object or
        an answer that does not fit its question."""
        if not isinstance(responses, Mapping):
            raise InvalidInput("inputResponses must be an object")
        for key, value in responses.items():
            request = self.requests.get(key)
            if request is not None and not fits(request["method"], value):
                raise InvalidInput(
                    f"inputResponses[{key[:64]!r}] does not answer a {request['method']} request"
                )
        for key, value in responses.items():
            waiter = self._waiting.get(key)
            if waiter is not None and not waiter.done():
                self.requests.pop(key, None)
                waiter.set_result(value)
        if self.status == "input_required" and not self.requests:
            self._move("working")


class TaskStore:
    """The tasks of one engine, by id: created on demand, dropped `ttlMs` after creation."""

    def __init__(
        self,
        *,
        ttl_ms: int = DEFAULT_TTL_MS,
        poll_ms: int = DEFAULT_POLL_MS,
        limit: int = DEFAULT_LIMIT,
        clock: Callable[[], float] = time.time,
        prefix: str = "",
    ) -> None:
        """`prefix` starts every task id: a worker's name, so that a front process can
        route `tasks/*` (their `Mcp-Name`) to the worker holding the task
        (`toolgen.serve.http.forward`)."""
        self.ttl_ms = ttl_ms
        self.prefix = prefix
        self.poll_ms = poll_ms
        self.limit = limit
        self._clock = clock
        self._tasks: dict[str, Task] = {}

    def __len__(self) -> int:
        return len(self._tasks)

    def create(self) -> Task | None:
        """A new `working` task with an unguessable id (None: the store is full)."""
        self._sweep()
        if len(self._tasks) >= self.limit:
            return None
        task = Task(self.prefix + secrets.token_urlsafe(24), self.ttl_ms, self.poll_ms, self._clock)
        self._tasks[task.id] = task
        return task

    def get(self, task_id: Any) -> Task | None:
        """The live task with this id (None: unknown or expired)."""
        task = self._tasks.get(task_id) if type(task_id) is str else None
        if task is not None and task.expired(self._clock()):
            self._drop(task)
            return None
        return task

    def _sweep(self) -> None:
        """Drop expired tasks: the oldest first (one TTL for all, so creation order is
        expiry order), stopping at the first live one."""
        now = self._clock()
        while self._tasks:
            oldest = next(iter(self._tasks.values()))
            if not oldest.expired(now):
                break
            self._drop(oldest)

    def _drop(self, task: Task) -> None:
        task.cancel("The task outlived its ttlMs")
        self._tasks.pop(task.id, None)


class TaskSlot:
    """Where a call's task is, or will be once the handler starts it (`start_task`)."""

    __slots__ = ("_make", "started", "task")

    def __init__(self, make: Callable[[], Task | None], task: Task | None = None) -> None:
        self._make = make
        self.task = task
        self.started: asyncio.Future[Task] = asyncio.get_running_loop().create_future()
        if task is not None:
            self.started.set_result(task)

    def start(self) -> bool:
        """Make the call a task now (if it is not yet one); whether it is one."""
        if self.task is None:
            self.task = self._make()
            if self.task is None:
                return False
            if not self.started.done():
                self.started.set_result(self.task)
        return True


_slot: contextvars.ContextVar[TaskSlot | None] = contextvars.ContextVar(
    "toolgen_task_slot", default=None
)


def current_slot() -> TaskSlot | None:
    """The task slot of the call running in this asyncio task (None: not a task call)."""
    return _slot.get()


def current_task() -> Task | None:
    """The task the running call is (None: not a task, or not started yet)."""
    slot = _slot.get()
    return slot.task if slot is not None else None


def enter_slot(slot: TaskSlot) -> None:
    """Make `slot` this asyncio task's (tasks it starts afterwards inherit it)."""
    _slot.set(slot)
