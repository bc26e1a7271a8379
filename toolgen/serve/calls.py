"""Running one `tools/call` whose arguments are valid: where its handler runs, the per-call
timeout, cancellation, and the response it answers.

The engine makes a `PendingCall` for each `tools/call` it accepts and puts it among the
connection's calls in flight (`toolgen.serve.connection`). The transport sets where the
call's notifications go (`context`, or `new_context`, which builds it only if the handler
asks for it) and where its response goes (`reply`), then hands it to `start`, the one
place that decides how a handler runs, for every transport:

- a call that runs as a task (`io.modelcontextprotocol/tasks`): in an asyncio task of
  its own, detached from its request, which is answered with the task's handle;
- an async handler: in an asyncio task on the event loop, within the per-call timeout;
- a sync handler marked `@inline` (or every sync handler, `inline_sync`) called on the
  event loop: right there, at once;
- any other sync handler: on a handler thread. Called on one (stdio reads its input on
  a handler thread), right there; called on the event loop, on an idle handler thread,
  else a new one (`Workers`: a handler that never returns neither holds up other calls
  nor keeps the process alive), awaited within the per-call timeout.

`reply` gets the JSON-RPC response, or None when the call was cancelled or answered
meanwhile (timed out): only the first to take the call off the connection (`claim`)
answers it. A handler that raises, times out or returns a result that breaks its output
schema gives an `isError` result the model can act on; the details only go to the log. A
handler that raises `ProtocolError` gives that JSON-RPC error instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Final

from toolgen.serve import jsonrpc
from toolgen.serve.connection import Connection, Response
from toolgen.serve.context import CallContext, context_for_call, install_call_context
from toolgen.serve.handlers import BoundHandler
from toolgen.serve.inputs import InputRound, StateSigner, arguments_digest, enter_round
from toolgen.serve.jsonrpc import RequestId
from toolgen.serve.results import ProtocolError, ResultSchemaError, ToolError, error_result
from toolgen.serve.tasks import Task, TaskSlot, TaskStore, enter_slot
from toolgen.serve.tools import Tools
from toolgen.spec.protocol import is_modern

MAX_RUNNING: Final = 256
"""Sync handlers running at once, those still running after their call ended included
(Python cannot stop a thread); a call beyond it answers `isError` at once."""
IDLE_SECONDS: Final = 30.0
"""How long a worker thread waits for its next job before it ends."""

_NEW, _RUNNING, _DONE = 0, 1, 2

log = logging.getLogger("toolgen.runtime")


class Calls:
    """What the calls of one engine share: its tools, handlers and per-call timeout, and
    the count of sync handlers running."""

    def __init__(
        self,
        tools: Tools,
        handlers: dict[str, BoundHandler],
        *,
        timeout: float | None,
        inline_sync: bool = False,
        meta: dict[str, Any] | None = None,
        signer: StateSigner | None = None,
    ) -> None:
        """`inline_sync`: run every sync handler as if marked `@inline`; `meta`: the `_meta`
        of modern results; `signer` seals the `requestState` of stateless calls that ask
        for input."""
        self.tools = tools
        self.handlers = handlers
        self.timeout = timeout
        self.inline_sync = inline_sync
        self.meta = meta or {}
        self.signer = signer or StateSigner()
        self.workers = Workers()
        self.lock = threading.Lock()
        """Taken twice on every call: with `acquire`/`release` there, not `with`, which costs
        more per use (CPython 3.11)."""
        self.running = 0
        """Sync handlers running now, on any thread."""
        self.stuck_calls = 0
        """Sync handlers still running although their call ended (timed out, cancelled)."""

    async def result(self, name: str, arguments: dict[str, Any], version: str) -> dict[str, Any]:
        """The `CallToolResult` of one call whose arguments are valid, without JSON-RPC.

        For hosts that frame responses themselves (`toolgen.sdk`): the same handler
        conventions, threads, timeout and failure results as a served call."""
        call = PendingCall(self, Connection(), 0, name, arguments, version)
        try:
            return await call.result()
        except ProtocolError as exc:  # no JSON-RPC error can go there
            return self.failure(name, exc)

    def response(self, request_id: RequestId, result: dict[str, Any], version: str) -> Response:
        """The JSON-RPC response carrying a `CallToolResult` (modern: with resultType)."""
        if is_modern(version):
            result["resultType"] = "complete"
            result["_meta"] = self.meta
        return jsonrpc.response(request_id, result)

    def timeout_message(self, name: str) -> str:
        unit = "second" if self.timeout == 1 else "seconds"
        return f"Tool {name!r} did not finish within {self.timeout:g} {unit}"

    def failure(self, name: str, exc: BaseException) -> dict[str, Any]:
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


class Workers:
    """The threads that run sync handlers for the event loop: a job goes to an idle thread,
    else to a new one, so a handler that never returns never holds up another call; they
    are daemon threads, so it never keeps the process alive either. A thread idle for
    `IDLE_SECONDS` ends. (`ThreadPoolExecutor` has neither property: it joins its threads
    at exit and caps their number.)"""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], object]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        """Threads waiting for a job, less the jobs queued for them."""

    def run(self, job: Callable[[], object]) -> None:
        """Run `job()` on a thread (it reports its own outcome, and never raises)."""
        with self._lock:
            waiting = self._idle > 0
            if waiting:
                self._idle -= 1
        self._jobs.put(job)
        if not waiting:
            threading.Thread(target=self._work, name="toolgen-handler", daemon=True).start()

    def _work(self) -> None:
        job = self._jobs.get()
        while True:
            job()
            with self._lock:
                self._idle += 1
            try:
                job = self._jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # no job is on its way to this thread: end
                        self._idle -= 1
                        return
                job = self._jobs.get()  # one was queued for it as the wait ended


class PendingCall:
    """One accepted `tools/call`, in flight until answered (see the module docs)."""

    __slots__ = (
        "__weakref__",
        "_abandoned",
        "_context",
        "_state",
        "arguments",
        "calls",
        "capabilities",
        "connection",
        "handler",
        "inputs",
        "log_level",
        "name",
        "new_context",
        "params",
        "reply",
        "request_id",
        "store",
        "task",
        "version",
    )

    def __init__(
        self,
        calls: Calls,
        connection: Connection,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        version: str,
        inputs: InputRound | None = None,
        store: TaskStore | None = None,
        capabilities: Any = None,
        params: Any = None,
    ) -> None:
        """`inputs`: a stateless call's answers so far (see `toolgen.serve.inputs`); `store`:
        run the call as a task there (the client declared `capabilities`); `params`: the
        request's (what `new_context` reads)."""
        self.calls = calls
        self.connection = connection
        self.request_id = request_id
        self.name = name
        self.arguments = arguments
        self.version = version
        self.inputs = inputs
        self.store = store
        self.capabilities = capabilities
        self.params = params
        self.handler = calls.handlers.get(name)
        self._context: CallContext | None = None
        self.new_context: Callable[[PendingCall], CallContext] | None = None
        """How the transport builds the call's context, on first use (None: `context` is set
        before the call starts, or is the one installed around it)."""
        self.log_level: str | None = None
        """The connection's log level when the call came, for `new_context` (legacy era)."""
        self.reply: Callable[[Response | None], None] = _nowhere
        """Where the call's response goes once it ends (None: cancelled, or answered already)."""
        self.task: asyncio.Task[Any] | None = None
        self._state = _NEW
        self._abandoned = False

    @property
    def context(self) -> CallContext:
        """What the handler reports progress and log messages to: the one the transport set
        or builds (`new_context`), else the one installed around the call, else a silent one
        of its own."""
        context = self._context
        if context is None:
            with self.calls.lock:  # built once: the handler and a canceller may ask at once
                context = self._context
                if context is None:
                    new = self.new_context
                    context = self._context = new(self) if new is not None else context_for_call()
        return context

    @context.setter
    def context(self, context: CallContext) -> None:
        self._context = context

    @property
    def sync(self) -> bool:
        """Whether the handler is sync (or missing) and the call is no task: it runs on the
        thread that starts it, or on a handler thread (see `start`)."""
        handler = self.handler
        return self.store is None and (handler is None or not handler.is_async)

    @property
    def inline(self) -> bool:
        """Whether the handler is sync and never blocks (`@inline`, or `inline_sync`): it runs
        on the event loop, with no thread (see `start`)."""
        handler = self.handler
        return self.sync and (handler is None or handler.inline or self.calls.inline_sync)

    # -- running --------------------------------------------------------------------------

    def run_here(self) -> Response | None:
        """Run the sync handler on this thread: the response to send, or None."""
        self._install()
        try:
            response = self.response(self._result_here())
        except ProtocolError as exc:
            response = _error_response(self.request_id, exc)
        return self._answer(response)

    async def run(self) -> Response | None:
        """Run the call in this asyncio task: the response to send, or None."""
        if self._abandoned:  # cancelled before it started
            return None
        self.task = asyncio.current_task()
        self._install()
        try:
            if self.store is not None:
                response = await self._as_task(self.store)
            else:
                response = await self._plain()
        finally:
            self.task = None
        return self._answer(response)

    def _install(self) -> None:
        """Make this call the current one where its handler runs (`current_call()`); a
        context the transport builds is built only if the handler asks for it."""
        if self._context is None and self.new_context is not None:
            install_call_context(self)
        else:
            install_call_context(self.context)

    async def result(self, *, bounded: bool = True) -> dict[str, Any]:
        """The `CallToolResult`: the handler's, or the `isError` of a failure or a timeout
        (`bounded` False: no timeout). Raises the handler's `ProtocolError`, and
        `CancelledError` when this task is cancelled."""
        handler = self.handler
        if handler is None or not handler.is_async:
            if self.inline:
                return self._result_here()
            return await self._in_thread(bounded)
        try:
            args = self._args(handler)
            async with asyncio.timeout(self.calls.timeout if bounded else None) as scope:
                value = await handler.func(*args)
                if inspect.isawaitable(value):
                    value = await value
            return self.calls.tools.call_result(self.name, value, self.version)
        except ProtocolError:
            raise
        except BaseException as exc:  # KeyboardInterrupt, SystemExit too: the server goes on
            if _really_cancelled(exc):
                raise
            if isinstance(exc, TimeoutError) and scope.expired():
                return error_result(self.calls.timeout_message(self.name))
            return self.calls.failure(self.name, exc)

    def _result_here(self) -> dict[str, Any]:
        """A sync handler's result, computed on this thread (raises its `ProtocolError`)."""
        calls = self.calls
        calls.lock.acquire()
        try:
            if self._abandoned:  # the call ended before a thread got to it: never run it
                return error_result(f"Tool {self.name!r} was cancelled")
            if calls.running >= MAX_RUNNING:
                return error_result(
                    f"Tool {self.name!r} cannot run now: {MAX_RUNNING} handlers are still "
                    "running; try again later"
                )
            calls.running += 1
            self._state = _RUNNING
        finally:
            calls.lock.release()
        try:
            if self.handler is None:
                raise ToolError(f"Tool {self.name!r} is not implemented by this server")
            value = self.handler.func(*self._args(self.handler))
            return calls.tools.call_result(self.name, value, self.version)
        except ProtocolError:
            raise
        except BaseException as exc:  # KeyboardInterrupt, SystemExit too: the server goes on
            return calls.failure(self.name, exc)
        finally:
            calls.lock.acquire()
            try:
                calls.running -= 1
                self._state = _DONE
                if self._abandoned:
                    calls.stuck_calls -= 1
            finally:
                calls.lock.release()

    async def _in_thread(self, bounded: bool) -> dict[str, Any]:
        """`_result_here` on a worker thread, awaited within the timeout."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        context = contextvars.copy_context()  # the call's context goes along

        def work() -> None:
            outcome: Any
            try:
                outcome = context.run(self._result_here)
            except ProtocolError as exc:
                outcome = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server ended
                loop.call_soon_threadsafe(_settle, done, outcome)

        self.calls.workers.run(work)
        try:
            async with asyncio.timeout(self.calls.timeout if bounded else None):
                outcome = await done
        except TimeoutError:
            self.abandon()
            return error_result(self.calls.timeout_message(self.name))
        except asyncio.CancelledError:  # notifications/cancelled, a client gone, shutdown
            self.abandon()
            raise
        if isinstance(outcome, ProtocolError):
            raise outcome
        return outcome  # type: ignore[no-any-return]

    def _args(self, handler: BoundHandler) -> tuple[Any, ...]:
        arguments = self.calls.tools.with_defaults(self.name, self.arguments)
        try:
            return handler.call_args(arguments)
        except ValueError as exc:  # the Input model is stricter than the schema
            raise ToolError(f"Invalid arguments for tool {self.name!r}: {_short(exc)}") from exc

    async def _plain(self) -> Response:
        """The call's response; a stateless call whose async handler asks for input the
        request does not carry answers `InputRequiredResult` (see `toolgen.serve.inputs`)."""
        task, inputs = self.task, self.inputs
        asking = inputs is not None and self.handler is not None and self.handler.is_async
        watcher = None
        if asking:
            assert inputs is not None and task is not None
            enter_round(inputs)
            watcher = asyncio.ensure_future(inputs.interrupt_when_asked(task))
        try:
            return self.response(await self.result())
        except ProtocolError as exc:
            return _error_response(self.request_id, exc)
        except asyncio.CancelledError:
            asked = watcher is not None and inputs is not None and inputs.interrupted
            if not asked or task is None or task.cancelling() != 1:
                raise
            task.uncancel()  # cancelled by the question alone
            return self._input_required()
        finally:
            if watcher is not None:
                watcher.cancel()

    # -- the end of a call ----------------------------------------------------------------

    def response(self, result: dict[str, Any]) -> Response:
        return self.calls.response(self.request_id, result, self.version)

    def timed_out(self) -> Response:
        """The response of this call when it ran over the per-call timeout."""
        return self.response(error_result(self.calls.timeout_message(self.name)))

    def _answer(self, response: Response) -> Response | None:
        return response if self.connection.claim(self.request_id, self) else None

    def ended(self, task: asyncio.Future[Response | None]) -> None:
        """The call's asyncio task is done: pass its response on (see `start`)."""
        if task.cancelled():
            self.reply(None)
            return
        exc = task.exception()
        if exc is not None:
            log.error("a call failed unexpectedly", exc_info=exc)
        self.reply(None if exc is not None else task.result())

    def cancel(self) -> None:
        """Cancel the call, from any thread: its task, or (a sync handler on a transport's
        thread, a call not started) the handler is told (`abandon`)."""
        task = self.task
        if task is None:
            self.abandon()
            return
        loop = task.get_loop()
        if _running_loop() is loop:
            task.cancel()
        else:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server ended
                loop.call_soon_threadsafe(task.cancel)

    def abandon(self) -> None:
        """The call ended before its handler (timed out, cancelled, the server stopping):
        tell the handler (`current_call().cancelled`), and count it stuck while it runs on."""
        self.context.cancel()
        with self.calls.lock:
            if self._abandoned:
                return
            self._abandoned = True
            if self._state != _RUNNING:
                return
            self.calls.stuck_calls += 1
        log.warning(
            "tool %r is still running after its call ended; Python cannot stop a thread, "
            "so it keeps its thread (%d stuck)",
            self.name,
            self.calls.stuck_calls,
        )

    def _input_required(self) -> Response:
        """The `InputRequiredResult` of an attempt that asked (with its sealed state)."""
        inputs = self.inputs
        assert inputs is not None
        state = {"call": arguments_digest(self.name, self.arguments), "answers": inputs.used}
        result = inputs.result(self.calls.signer.seal(state), self.calls.meta)
        return jsonrpc.response(self.request_id, result)

    # -- tasks (see toolgen.serve.tasks) --------------------------------------------------

    async def _as_task(self, store: TaskStore) -> Response:
        """Its `CreateTaskResult`, the handler going on as the task; or (a handler marked
        `@starts_task`) whatever comes first of: it starts its task, it asks for input
        (`InputRequiredResult`), it returns (a plain result)."""
        handler = self.handler
        if handler is not None and handler.is_async and handler.starts_task:
            return await self._until_task(TaskSlot(store.create))
        task = store.create()
        if task is None:  # too many live tasks: this call runs without one
            return await self._plain()
        await task.saved()
        task.runner = self._spawn(TaskSlot(store.create, task))
        return self._task_created(task)

    def _spawn(self, slot: TaskSlot) -> asyncio.Task[dict[str, Any] | None]:
        """Run the handler in an asyncio task of its own, detached from the request (so it
        sends no notifications)."""
        capabilities = self.capabilities
        self.context = CallContext(
            client_capabilities=capabilities if type(capabilities) is dict else {}
        )
        own = contextvars.copy_context()

        def prepare() -> None:
            install_call_context(self.context)
            enter_slot(slot)
            if self.inputs is not None:
                enter_round(self.inputs)

        own.run(prepare)
        return asyncio.get_running_loop().create_task(self._task_body(slot), context=own)

    async def _task_body(self, slot: TaskSlot) -> dict[str, Any] | None:
        """The handler's run; once the call is a task, its outcome settles the task
        (before that, the request gets it: see `_until_task`)."""
        try:
            result = await self.result(bounded=False)  # a task runs as long as it needs
        except BaseException as exc:
            task = slot.task
            if task is None or _really_cancelled(exc):  # (cancelled: tasks/cancel settled it)
                raise
            if isinstance(exc, ProtocolError):
                await task.fail(exc.code, exc.message, exc.data)
            else:
                await task.complete(self.calls.failure(self.name, exc))
            return None
        if slot.task is not None:
            await slot.task.complete(result)
        return result

    async def _until_task(self, slot: TaskSlot) -> Response:
        inputs = self.inputs
        assert inputs is not None  # a task is a stateless call
        runner = self._spawn(slot)
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
            await slot.task.saved()
            return self._task_created(slot.task)
        if runner.cancelled():
            if inputs.interrupted:
                return self._input_required()
            raise asyncio.CancelledError
        exc = runner.exception()
        if isinstance(exc, ProtocolError):
            return _error_response(self.request_id, exc)
        result = self.calls.failure(self.name, exc) if exc is not None else runner.result()
        assert result is not None
        return self.response(result)

    def _task_created(self, task: Task) -> Response:
        """The `CreateTaskResult` response: the task's handle, `resultType: "task"`."""
        body = {"resultType": "task", **task.handle(), "_meta": self.calls.meta}
        return jsonrpc.response(self.request_id, body)


def start(call: PendingCall, loop: asyncio.AbstractEventLoop) -> asyncio.Task[Any] | None:
    """Run `call` where its handler belongs (see the module docs): the one place that
    decides, for every transport. Called on `loop` (the event loop) or on a handler thread;
    `call.reply` gets the response. Returns the asyncio task the call runs in when it
    started one from the loop (cancel it to cancel the call), else None."""
    on_loop = _running_loop() is loop
    if call.sync and (call.inline if on_loop else True):
        call.reply(call.run_here())
        return None
    if not on_loop:
        loop.call_soon_threadsafe(start, call, loop)
        return None
    task = loop.create_task(call.run())
    task.add_done_callback(call.ended)
    return task


async def answer(call: PendingCall) -> Response | None:
    """`start` `call` from the event loop and wait for its response (None: cancelled by
    `notifications/cancelled`, or answered already). Cancelling the waiting task cancels
    the call."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Response | None] = loop.create_future()
    call.reply = lambda response: _settle(done, response)
    task = start(call, loop)
    try:
        return await done
    except asyncio.CancelledError:
        if task is not None:
            task.cancel()
        raise


def _nowhere(response: Response | None) -> None:
    """The `reply` of a call nobody asked to answer: its response is dropped."""


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


_running_loop: Final = asyncio.events._get_running_loop
"""The event loop running on this thread, or None (without raising: once per call)."""


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():  # else cancelled or timed out meanwhile: nobody waits any more
        future.set_result(value)


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
