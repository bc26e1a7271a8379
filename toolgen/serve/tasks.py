"""Tasks: the `io.modelcontextprotocol/tasks` extension of MCP 2026-07-28.

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
- `failed`: `error`, the JSON-RPC error a handler raised (`ProtocolError`), or
  the one saying the instance that ran the task stopped before it finished;
- `cancelled`: after `tasks/cancel` (which cancels the handler).

`tasks/update` and `tasks/cancel` answer an empty `{resultType: "complete"}`; an
unknown (or expired) `taskId` is -32602; a request whose client capabilities
lack the extension is -32021. A task is kept `ttlMs` after its creation, then
dropped (a handler still running then is cancelled).

A task's record (status, result, questions) lives in the engine's store
(`toolgen.serve.store`), its handler in the instance that created it (the
record's `owner`). So any instance sharing the store answers `tasks/get`; an
answer or a cancellation that reaches another instance is applied to the record
there and signalled to the owner, which resumes or cancels the handler.
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
from toolgen.serve.store import Edit, MemoryStore, Record, Store

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
TASK_SUPPORT: Final = ("optional", "required")
"""`execution.taskSupport` values that let a tool's calls run as tasks."""
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
INTERNAL_ERROR: Final = -32603
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
    """A task whose handler runs in this instance: its record (a copy of the store's) and
    what the handler waits for."""

    def __init__(self, tasks: TaskStore, record: Record) -> None:
        self.tasks = tasks
        self.id: str = record["taskId"]
        self.record = record
        self.runner: asyncio.Future[Any] | None = None
        """The handler's asyncio task (cancelled by `tasks/cancel`)."""
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._keys: set[str] = set()
        self._counts: dict[str, int] = {}
        self._saving: asyncio.Future[None] | None = None

    async def saved(self) -> None:
        """Wait until the store holds the task (it is saved as it is created)."""
        if self._saving is not None:
            await asyncio.shield(self._saving)

    @property
    def status(self) -> str:
        return str(self.record["status"])

    @property
    def requests(self) -> dict[str, Any]:
        """Questions the handler waits on, by key (`inputRequests`)."""
        return dict(self.record.get("inputRequests") or {})

    def handle(self) -> dict[str, Any]:
        return handle(self.record)

    def expired(self, now: float) -> bool:
        return bool(now >= self.record["createdAt"] + self.record["ttlMs"] / 1000)

    async def _change(self, edit: Edit) -> None:
        await self.saved()
        found = await self.tasks.store.change_task(self.id, edit)
        if found is not None:
            self.record = found

    # -- transitions ------------------------------------------------------------------

    async def complete(self, result: dict[str, Any]) -> None:
        """The handler returned (a tool error too): `completed` with its result."""
        now = self.tasks.clock()
        await self._change(lambda r: _moved(r, "completed", now, result=result))

    async def fail(self, code: int, message: str, data: Any = None) -> None:
        """The call ended in a JSON-RPC error: `failed` with it."""
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        now = self.tasks.clock()
        await self._change(lambda r: _moved(r, "failed", now, message, error=error))

    def stop(self) -> None:
        """Cancel the handler, if it still runs."""
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
        asked = key
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[asked] = waiter
        now = self.tasks.clock()
        question = {"method": method, "params": params}
        await self._change(lambda r: _asked(r, asked, question, now))
        try:
            return await waiter
        finally:
            self._waiting.pop(asked, None)
            await self._change(lambda r: _answered(r, [asked], self.tasks.clock()))

    def deliver(self, responses: dict[str, Any]) -> None:
        """Answers checked against the record: wake the handler waiting on each."""
        for key, value in responses.items():
            waiter = self._waiting.get(key)
            if waiter is not None and not waiter.done():
                waiter.set_result(value)


class TaskStore:
    """The tasks of one engine: their records in `store`, their handlers (`Task`) in this
    instance, at most `limit` of them at once."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        ttl_ms: int = DEFAULT_TTL_MS,
        poll_ms: int = DEFAULT_POLL_MS,
        limit: int = DEFAULT_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store: Store = store if store is not None else MemoryStore(clock)
        self.ttl_ms = ttl_ms
        self.poll_ms = poll_ms
        self.limit = limit
        self.clock = clock
        self._tasks: dict[str, Task] = {}

    def __len__(self) -> int:
        return len(self._tasks)

    def create(self) -> Task | None:
        """A new `working` task run here, with an unguessable id (None: `limit` tasks run
        here); wait until it is `saved` before its id goes out."""
        self._sweep()
        if len(self._tasks) >= self.limit:
            return None
        now = self.clock()
        record: Record = {
            "taskId": secrets.token_urlsafe(24),
            "status": "working",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
            "owner": self.store.instance,
        }
        task = self._tasks[record["taskId"]] = Task(self, record)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: nothing to save it with (a test)
            return task
        task._saving = loop.create_task(self.store.put_task(task.id, record, self.ttl_ms / 1000))
        return task

    def running(self, task_id: str) -> Task | None:
        """The task with this id whose handler runs here (None: elsewhere, or none)."""
        task = self._tasks.get(task_id)
        if task is not None and task.expired(self.clock()):
            self._drop(task)
            return None
        return task

    async def get(self, task_id: Any) -> Record | None:
        """The record of the live task with this id (None: unknown or expired). A task whose
        owner stopped before it finished ends `failed` here."""
        if type(task_id) is not str:
            return None
        here = self.running(task_id)  # (dropped here once expired)
        record = await self.store.get_task(task_id)
        if record is None or record["status"] in TERMINAL:
            return record
        if record.get("owner") == self.store.instance:
            return record if here is not None else None
        if await self.store.alive(str(record.get("owner"))):
            return record
        now = self.clock()
        message = "The server instance running this task stopped before it finished"
        error = {"code": INTERNAL_ERROR, "message": message}
        return await self.store.change_task(
            task_id, lambda r: _moved(r, "failed", now, message, error=error)
        )

    async def answer(self, task_id: str, responses: Any) -> None:
        """`tasks/update`: check `inputResponses` against the questions, take the answered
        ones off the record and wake their handler. `InvalidInput` for a malformed
        object or an answer that does not fit its question."""
        if not isinstance(responses, Mapping):
            raise InvalidInput("inputResponses must be an object")
        record = await self.get(task_id)
        asked = (record or {}).get("inputRequests") or {}
        for key, value in responses.items():
            request = asked.get(key)
            if request is not None and not fits(request["method"], value):
                raise InvalidInput(
                    f"inputResponses[{key[:64]!r}] does not answer a {request['method']} request"
                )
        answers = {key: value for key, value in responses.items() if key in asked}
        if not answers:
            return
        now = self.clock()
        await self.store.change_task(task_id, lambda r: _answered(r, list(answers), now))
        await self._to_owner(task_id, record, {"kind": "task-answers", "answers": answers})

    async def cancel(self, task_id: str, reason: str = "Cancelled by the client") -> None:
        """`tasks/cancel`: settle the task as `cancelled` and stop its handler."""
        now = self.clock()
        record = await self.store.change_task(
            task_id, lambda r: _moved(r, "cancelled", now, reason, inputRequests=None)
        )
        await self._to_owner(task_id, record, {"kind": "task-cancel"})

    async def _to_owner(self, task_id: str, record: Record | None, signal: Record) -> None:
        task = self._tasks.get(task_id)
        if task is not None:
            self.on_signal({**signal, "task": task_id})
        elif record is not None and record.get("owner") != self.store.instance:
            await self.store.publish({**signal, "task": task_id, "to": record.get("owner")})

    def on_signal(self, signal: Record) -> None:
        """A signal for a task whose handler runs here (others are ignored)."""
        task = self._tasks.get(signal.get("task"))  # type: ignore[arg-type]
        if task is None:
            return
        if signal.get("kind") == "task-cancel":
            task.stop()
        elif signal.get("kind") == "task-answers" and type(signal.get("answers")) is dict:
            task.deliver(signal["answers"])

    def _sweep(self) -> None:
        """Drop expired tasks: the oldest first (one TTL for all, so creation order is
        expiry order), stopping at the first live one."""
        now = self.clock()
        while self._tasks:
            oldest = next(iter(self._tasks.values()))
            if not oldest.expired(now):
                break
            self._drop(oldest)

    def _drop(self, task: Task) -> None:
        task.stop()
        self._tasks.pop(task.id, None)


def handle(record: Record) -> dict[str, Any]:
    """The `Task` fields every answer about a task carries."""
    shown: dict[str, Any] = {
        "taskId": record["taskId"],
        "status": record["status"],
        "createdAt": _timestamp(record["createdAt"]),
        "lastUpdatedAt": _timestamp(record["lastUpdatedAt"]),
        "ttlMs": record["ttlMs"],
        "pollIntervalMs": record["pollIntervalMs"],
    }
    if record.get("statusMessage") is not None:
        shown["statusMessage"] = record["statusMessage"]
    return shown


def detailed(record: Record) -> dict[str, Any]:
    """The `DetailedTask` of `tasks/get`: the handle and its status's payload."""
    shown = handle(record)
    status = record["status"]
    if status == "input_required":
        shown["inputRequests"] = dict(record.get("inputRequests") or {})
    elif status == "completed":
        shown["result"] = record.get("result")
    elif status == "failed":
        shown["error"] = record.get("error")
    return shown


def _moved(
    record: Record, status: str, now: float, message: str | None = None, **fields: Any
) -> Record | None:
    """`record` moved to `status` (None: it is terminal already, and stays so)."""
    if record["status"] in TERMINAL:
        return None
    moved = {**record, **fields, "status": status, "statusMessage": message}
    moved["lastUpdatedAt"] = now
    return {key: value for key, value in moved.items() if value is not None}


def _asked(record: Record, key: str, question: Record, now: float) -> Record | None:
    if record["status"] in TERMINAL:
        return None
    requests = {**(record.get("inputRequests") or {}), key: question}
    changed = {**record, "inputRequests": requests}
    if record["status"] == "working":
        changed.update(status="input_required", lastUpdatedAt=now)
        changed.pop("statusMessage", None)
    return changed


def _answered(record: Record, keys: list[str], now: float) -> Record | None:
    requests = dict(record.get("inputRequests") or {})
    if not any(key in requests for key in keys):
        return None
    for key in keys:
        requests.pop(key, None)
    changed = {**record, "inputRequests": requests}
    if not requests:
        del changed["inputRequests"]
        if record["status"] == "input_required":
            changed.update(status="working", lastUpdatedAt=now)
    return changed


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
