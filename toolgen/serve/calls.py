"""Running one `tools/call` once its arguments are valid: where the handler runs and
what the call answers.

Async handlers run as tasks on the event loop; sync handlers run on a worker
thread (the default: they may block), or inline when marked `@inline` or with
`inline_sync`. A worker thread may answer its own call through the transport's
`DirectReply` hook (see `toolgen.serve.engine`). A handler that raises, times
out or returns a result that breaks its output schema gives an `isError` result
the model can act on; the details only go to the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import threading
from collections.abc import Coroutine
from typing import Any

from toolgen.serve import jsonrpc
from toolgen.serve.connection import DIRECT_REPLY, PendingCall, Response
from toolgen.serve.context import CallContext, install_call_context, own_call_context
from toolgen.serve.handlers import MAX_STUCK_WORKERS, BoundHandler, DaemonThreadPool, Job
from toolgen.serve.inputs import InputRound, StateSigner, arguments_digest, enter_round
from toolgen.serve.jsonrpc import RequestId
from toolgen.serve.results import ProtocolError, ToolError, error_result
from toolgen.serve.tasks import Task, TaskSlot, TaskStore, enter_slot
from toolgen.serve.toolset import ResultSchemaError, RuntimeToolSet
from toolgen.spec.protocol import is_modern

log = logging.getLogger("toolgen.runtime")


class CallRunner:
    """Runs the calls of one engine: its tools, handlers and per-call timeout."""

    def __init__(
        self,
        tools: RuntimeToolSet,
        handlers: dict[str, BoundHandler],
        *,
        timeout: float | None,
        inline_sync: bool,
        meta: dict[str, Any],
        signer: StateSigner | None = None,
    ) -> None:
        """`signer` seals the `requestState` of stateless calls that ask for input."""
        self.tools = tools
        self.signer = signer or StateSigner()
        self.handlers = handlers
        self.timeout = timeout
        self.inline_sync = inline_sync
        self._meta = meta
        self._pool: DaemonThreadPool | None = None
        self._stuck_elsewhere = 0
        """Handlers on a transport's own threads still running after their call ended."""
        self._stuck_lock = threading.Lock()

    @property
    def runs_threads(self) -> bool:
        """Whether some tool's calls run a sync handler off the event loop (a worker thread,
        or a `PendingCall.blocking` run on a transport's thread)."""
        return not self.inline_sync and any(
            not h.is_async and not h.inline for h in self.handlers.values()
        )

    def start(
        self,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        version: str,
        inputs: InputRound | None = None,
    ) -> Response | PendingCall:
        """The response of an inline call, else the `PendingCall` the transport runs.

        `inputs`: a stateless call's answers so far (see `toolgen.serve.inputs`); an
        async handler that asks for more makes the call answer `InputRequiredResult`.
        """
        handler = self.handlers.get(name)
        if inputs is not None and handler is not None and handler.is_async and not handler.inline:
            asking = self._call_for_input(request_id, name, arguments, version, inputs)
            return PendingCall(request_id, asking)
        if handler is not None and (handler.inline or (self.inline_sync and not handler.is_async)):
            return self._call_blocking(request_id, handler, name, arguments, version)
        if handler is not None and not handler.is_async:
            blocking = SyncCall(self, request_id, handler, name, arguments, version)
            return PendingCall(request_id, None, blocking)
        return PendingCall(request_id, self._call(request_id, name, arguments, version))

    def timed_out(self, request_id: RequestId, name: str, version: str) -> Response:
        """The response of a call that ran over the per-call timeout."""
        return self.result(request_id, error_result(self._timeout_message(name)), version)

    async def run(self, name: str, arguments: dict[str, Any], version: str) -> dict[str, Any]:
        """The `CallToolResult` of one call whose arguments are valid, without JSON-RPC.

        For hosts that frame responses themselves (`toolgen.sdk`): the same handler
        conventions, worker threads, timeout and failure results as `start`.
        """
        handler = self.handlers.get(name)
        if handler is not None and (handler.inline or (self.inline_sync and not handler.is_async)):
            return self._call_inline(handler, name, arguments, version)
        if handler is not None and not handler.is_async:
            return await self._run_in_thread(handler, name, arguments, version)
        try:
            result: dict[str, Any] = await self._run_handler(name, arguments, version)
        except BaseException as exc:
            if _really_cancelled(exc):
                raise
            result = self._failure(name, exc)
        return result

    async def _run_in_thread(
        self,
        handler: BoundHandler,
        name: str,
        arguments: dict[str, Any],
        version: str,
        *,
        bounded: bool = True,
    ) -> dict[str, Any]:
        """A sync handler's result, computed on a worker thread (with the call's context).

        `bounded` False (a task): no timeout, and a `ProtocolError` propagates."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[dict[str, Any]] = loop.create_future()
        own = own_call_context()
        context = contextvars.copy_context()

        def work() -> None:
            result, error = None, None
            try:
                result = context.run(
                    self._call_inline, handler, name, arguments, version, not bounded
                )
            except ProtocolError as exc:
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server ended
                loop.call_soon_threadsafe(_settle, done, result, error)

        job = self._workers().run(work)
        try:
            async with asyncio.timeout(self.timeout if bounded else None):
                return await asyncio.shield(done)
        except TimeoutError:
            self._give_up(job, own, name)
            return error_result(self._timeout_message(name))
        except asyncio.CancelledError:
            self._give_up(job, own, name)
            raise

    async def _call_in_thread(
        self,
        request_id: RequestId,
        handler: BoundHandler,
        name: str,
        arguments: dict[str, Any],
        version: str,
    ) -> Response | None:
        """A sync handler's whole call (handler, result check, response) on a worker thread.

        One hand-off each way and no executor futures: the cheapest way to keep the
        event loop free while a blocking handler runs. The call context (progress, logs)
        goes along. With a `DirectReply` the worker also sends the response (None here).
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Response | None] = loop.create_future()
        own = own_call_context()
        context = contextvars.copy_context()
        direct = DIRECT_REPLY.get()
        task = asyncio.current_task()

        def work() -> None:
            try:
                response = context.run(
                    self._call_blocking, request_id, handler, name, arguments, version
                )
            except BaseException as exc:  # pragma: no cover - _call_inline catches everything
                loop.call_soon_threadsafe(_settle, done, None, exc)
                return
            handled = (  # answered here, or cancelled or timed out meanwhile
                direct is not None
                and task is not None
                and (not direct.connection.claim(request_id, task) or direct.send(response, False))
            )
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server ended
                loop.call_soon_threadsafe(_settle, done, None if handled else response, None)

        job = self._workers().run(work)
        try:
            async with asyncio.timeout(self.timeout):
                return await asyncio.shield(done)
        except TimeoutError:
            if done.done():
                return done.result()
            if (
                direct is not None
                and task is not None
                and not direct.connection.claim(request_id, task)
            ):
                return await done  # the worker claimed the call just now: it answers
            self._give_up(job, own, name)
            return self.timed_out(request_id, name, version)
        except asyncio.CancelledError:  # notifications/cancelled, a client gone, shutdown
            self._give_up(job, own, name)
            raise

    def _workers(self) -> DaemonThreadPool:
        if self._pool is None:
            self._pool = DaemonThreadPool()
        return self._pool

    @property
    def stuck_calls(self) -> int:
        """Sync handlers still running although their call ended (timed out, cancelled)."""
        return (self._pool.stuck if self._pool is not None else 0) + self._stuck_elsewhere

    @property
    def may_block_elsewhere(self) -> bool:
        """Whether a transport may run one more call on a thread of its own: fewer than
        `MAX_STUCK_WORKERS` of those are stuck (else it uses the worker pool)."""
        return self._stuck_elsewhere < MAX_STUCK_WORKERS

    def stuck_elsewhere(self, name: str, stuck: bool) -> None:
        """A handler on a transport's thread became stuck (True: its call ended first, see
        `_give_up`) or returned after being stuck (False)."""
        with self._stuck_lock:
            self._stuck_elsewhere += 1 if stuck else -1
        if stuck:
            self._warn_stuck(name)

    def _give_up(self, job: Job, own: CallContext, name: str) -> None:
        """The call ended before its worker: tell the handler (`current_call().cancelled`)
        and, if it still runs, count its worker as stuck so new calls get other threads."""
        own.cancel()
        if self._workers().abandon(job):
            self._warn_stuck(name)

    def _warn_stuck(self, name: str) -> None:
        log.warning(
            "tool %r is still running after its call ended; Python cannot stop a thread, "
            "so it keeps its worker (%d stuck; the pool adds up to %d threads for them)",
            name,
            self.stuck_calls,
            MAX_STUCK_WORKERS,
        )

    def _call_blocking(
        self,
        request_id: RequestId,
        handler: BoundHandler,
        name: str,
        arguments: dict[str, Any],
        version: str,
    ) -> Response:
        """A sync handler's whole call, right here: the response to send."""
        try:
            result = self._call_inline(handler, name, arguments, version, True)
        except ProtocolError as exc:
            return _error_response(request_id, exc)
        return self.result(request_id, result, version)

    def _timeout_message(self, name: str) -> str:
        unit = "second" if self.timeout == 1 else "seconds"
        return f"Tool {name!r} did not finish within {self.timeout:g} {unit}"

    def _call_inline(
        self,
        handler: BoundHandler,
        name: str,
        arguments: dict[str, Any],
        version: str,
        protocol_errors: bool = False,
    ) -> dict[str, Any]:
        """Run a sync handler right here (no task, no thread): the fast path.

        `protocol_errors`: let a `ProtocolError` through (else it is an `isError` result)."""
        try:
            value = handler.func(*self._handler_args(handler, name, arguments))
            return self.tools.call_result(name, value, version)
        except ProtocolError as exc:
            if protocol_errors:
                raise
            return self._failure(name, exc)
        except BaseException as exc:  # KeyboardInterrupt, SystemExit too: the server goes on
            return self._failure(name, exc)

    async def _call(
        self, request_id: RequestId, name: str, arguments: dict[str, Any], version: str
    ) -> Response:
        try:
            result = await self._run_handler(name, arguments, version)
        except ProtocolError as exc:
            return _error_response(request_id, exc)
        except BaseException as exc:
            if _really_cancelled(exc):
                raise
            result = self._failure(name, exc)
        return self.result(request_id, result, version)

    async def _call_for_input(
        self,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        version: str,
        inputs: InputRound,
    ) -> Response:
        """A stateless call whose handler may ask the client for input (one round)."""
        task = asyncio.current_task()
        assert task is not None
        enter_round(inputs)
        watcher = asyncio.ensure_future(inputs.interrupt_when_asked(task))
        try:
            result = await self._run_handler(name, arguments, version)
        except BaseException as exc:
            asked = isinstance(exc, asyncio.CancelledError) and inputs.interrupted
            if asked and task.cancelling() == 1:  # cancelled by the question alone
                task.uncancel()
                return self._input_required(request_id, name, arguments, inputs)
            if isinstance(exc, ProtocolError):
                return _error_response(request_id, exc)
            if _really_cancelled(exc):
                raise
            result = self._failure(name, exc)
        finally:
            watcher.cancel()
        return self.result(request_id, result, version)

    def _input_required(
        self, request_id: RequestId, name: str, arguments: dict[str, Any], inputs: InputRound
    ) -> Response:
        """The `InputRequiredResult` of an attempt that asked (with its sealed state)."""
        state = {"call": arguments_digest(name, arguments), "answers": inputs.used}
        return jsonrpc.response(request_id, inputs.result(self.signer.seal(state), self._meta))

    # -- tasks (see toolgen.serve.tasks) ----------------------------------------------

    def start_task(
        self,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        version: str,
        inputs: InputRound,
        store: TaskStore,
        capabilities: Any,
    ) -> Response | PendingCall:
        """A call that may run as a task: its `CreateTaskResult`, started at once, or (a
        handler marked `@starts_task`) the `PendingCall` that runs it until it starts its
        task, asks for input (`InputRequiredResult`) or returns (a plain result)."""
        handler = self.handlers.get(name)
        context = CallContext(
            client_capabilities=capabilities if type(capabilities) is dict else {}
        )
        if handler is not None and handler.is_async and handler.starts_task:
            slot = TaskSlot(store.create)
            waiting = self._call_then_task(
                request_id, name, arguments, version, inputs, slot, context
            )
            return PendingCall(request_id, waiting)
        task = store.create()
        if task is None:  # too many live tasks: this call runs without one
            return self.start(request_id, name, arguments, version, inputs)
        task.runner = self._spawn(name, arguments, version, TaskSlot(store.create, task), context)
        return self.task_created(request_id, task)

    def task_created(self, request_id: RequestId, task: Task) -> Response:
        """The `CreateTaskResult` response: the task's handle, `resultType: "task"`."""
        return jsonrpc.response(
            request_id, {"resultType": "task", **task.handle(), "_meta": self._meta}
        )

    def _spawn(
        self,
        name: str,
        arguments: dict[str, Any],
        version: str,
        slot: TaskSlot,
        context: CallContext,
        inputs: InputRound | None = None,
    ) -> asyncio.Task[dict[str, Any] | None]:
        """Run the handler in its own asyncio task, detached from the request that
        started it (no direct reply, no notifications: a task sends none)."""
        own = contextvars.copy_context()

        def prepare() -> None:
            DIRECT_REPLY.set(None)
            install_call_context(context)
            enter_slot(slot)
            if inputs is not None:
                enter_round(inputs)

        own.run(prepare)
        body = self._task_body(name, arguments, version, slot)
        return asyncio.get_running_loop().create_task(body, context=own)

    async def _task_body(
        self, name: str, arguments: dict[str, Any], version: str, slot: TaskSlot
    ) -> dict[str, Any] | None:
        """The handler's run; once the call is a task, its outcome settles the task
        (before that, the caller gets it: see `_call_then_task`)."""
        try:
            result: dict[str, Any] = await self._run_unbounded(name, arguments, version)
        except BaseException as exc:
            task = slot.task
            if task is None:
                raise
            if _really_cancelled(exc):
                task.cancel()
                raise
            if isinstance(exc, ProtocolError):
                task.fail(exc.code, exc.message, exc.data)
            else:
                task.complete(self._failure(name, exc))
            return None
        if slot.task is not None:
            slot.task.complete(result)
        return result

    async def _run_unbounded(self, name: str, arguments: dict[str, Any], version: str) -> Any:
        """A call's result without the per-call timeout (a task runs as long as it needs)."""
        handler = self.handlers.get(name)
        if handler is not None and not handler.is_async:
            if handler.inline or self.inline_sync:
                return self._call_inline(handler, name, arguments, version, True)
            return await self._run_in_thread(handler, name, arguments, version, bounded=False)
        return await self._run_handler(name, arguments, version, bounded=False)

    async def _call_then_task(
        self,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        version: str,
        inputs: InputRound,
        slot: TaskSlot,
        context: CallContext,
    ) -> Response:
        """Run a `@starts_task` handler until the first of: it starts its task (answer
        `CreateTaskResult`, it goes on as the task), it asks for input the request does
        not carry (`InputRequiredResult`), or it ends (its result, no task)."""
        runner = self._spawn(name, arguments, version, slot, context, inputs)
        watcher = asyncio.ensure_future(inputs.interrupt_when_asked(runner))
        try:
            await asyncio.wait((runner, slot.started), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            runner.cancel()
            raise
        finally:
            watcher.cancel()
        if slot.task is not None:
            slot.task.runner = runner
            return self.task_created(request_id, slot.task)
        if runner.cancelled():
            if inputs.interrupted:
                return self._input_required(request_id, name, arguments, inputs)
            raise asyncio.CancelledError
        exc = runner.exception()
        if isinstance(exc, ProtocolError):
            return _error_response(request_id, exc)
        result = self._failure(name, exc) if exc is not None else runner.result()
        assert result is not None
        return self.result(request_id, result, version)

    def _failure(self, name: str, exc: BaseException) -> dict[str, Any]:
        """The `isError` result for a call that raised; internals only go to the log."""
        if isinstance(exc, ToolError | ProtocolError):  # (where no JSON-RPC error can go)
            return error_result(str(exc) or f"Tool {name!r} failed")
        if isinstance(exc, ResultSchemaError):
            log.error("%s", exc)
            return error_result(
                f"Tool {name!r} produced a result that does not match its output schema; "
                "the server logged the details"
            )
        log.error("tool %r raised", name, exc_info=exc)
        return error_result(
            f"Tool {name!r} failed with an internal error; the server logged the details"
        )

    def _handler_args(
        self, handler: BoundHandler, name: str, arguments: dict[str, Any]
    ) -> tuple[Any, ...]:
        arguments = self.tools.with_defaults(name, arguments)
        try:
            return handler.call_args(arguments)
        except ValueError as exc:  # the Input model is stricter than the schema
            raise ToolError(f"Invalid arguments for tool {name!r}: {_short(exc)}") from exc

    async def _run_handler(
        self, name: str, arguments: dict[str, Any], version: str, *, bounded: bool = True
    ) -> Any:
        handler = self.handlers.get(name)
        if handler is None:
            raise ToolError(f"Tool {name!r} is not implemented by this server")
        args = self._handler_args(handler, name, arguments)
        if self.timeout is None or not bounded:
            value = await self._invoke(handler, args)
        else:
            try:
                async with asyncio.timeout(self.timeout) as scope:
                    value = await self._invoke(handler, args)
            except TimeoutError:
                if not scope.expired():
                    raise
                raise ToolError(self._timeout_message(name)) from None
        return self.tools.call_result(name, value, version)

    async def _invoke(self, handler: BoundHandler, args: tuple[Any, ...]) -> Any:
        """Await an async handler (sync ones run in `_call_in_thread` or inline)."""
        value = await handler.func(*args)
        if inspect.isawaitable(value):
            value = await value
        return value

    def result(self, request_id: RequestId, result: dict[str, Any], version: str) -> Response:
        """The JSON-RPC response carrying a `CallToolResult` (modern: with resultType)."""
        if is_modern(version):
            result["resultType"] = "complete"
            result["_meta"] = self._meta
        return jsonrpc.response(request_id, result)


class SyncCall:
    """A sync handler's call as a `connection.BlockingCall`: run it on this thread, or as
    the coroutine that runs it on a worker thread."""

    __slots__ = ("_arguments", "_handler", "_runner", "_version", "name", "request_id", "timeout")

    def __init__(
        self,
        runner: CallRunner,
        request_id: RequestId,
        handler: BoundHandler,
        name: str,
        arguments: dict[str, Any],
        version: str,
    ) -> None:
        self._runner = runner
        self.request_id = request_id
        self._handler = handler
        self.name = name
        self._arguments = arguments
        self._version = version
        self.timeout = runner.timeout

    def run(self) -> Response:
        return self._runner._call_blocking(
            self.request_id, self._handler, self.name, self._arguments, self._version
        )

    def timed_out(self) -> Response:
        return self._runner.timed_out(self.request_id, self.name, self._version)

    def coroutine(self) -> Coroutine[Any, Any, Response | None]:
        return self._runner._call_in_thread(
            self.request_id, self._handler, self.name, self._arguments, self._version
        )


def _error_response(request_id: RequestId, exc: ProtocolError) -> Response:
    """The JSON-RPC error a handler's `ProtocolError` answers."""
    return jsonrpc.error(request_id, exc.code, exc.message, exc.data)


def _really_cancelled(exc: BaseException) -> bool:
    """Whether `exc` is this task being cancelled (then it must propagate), not a handler
    that raised CancelledError itself (a failure like any other)."""
    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _settle(future: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if future.done():  # cancelled or timed out meanwhile: nobody waits for this any more
        return
    if exc is None:
        future.set_result(value)
    else:
        future.set_exception(exc)


def _short(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            parts = [
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('msg', '')}"
                for e in errors()
            ]
            return "; ".join(parts[:8])
        except Exception:
            pass
    return str(exc).splitlines()[0][:300]
