"""Bind user handlers to tools, and run them.

A handler set is a mapping `{tool name: callable}`, an object (or a class,
instantiated without arguments) with one method per tool, named by
`handler_name` (`create_note`, `get-item` → `get_item`). A handler takes
either nothing, or one argument: the validated arguments as a dict, or as a
pydantic model when that parameter is annotated with a model class (the
generated `<Tool>Input`). It may be sync or async.

Sync handlers run in a pool of daemon threads by default, so that calls run
concurrently, a per-call timeout can answer on time, and a stuck handler
never keeps the process alive after stdin closes. A handler marked `@inline`
(or every sync handler, with the engine's `inline_sync=True`) runs on the
event loop instead: the fastest path, for handlers that never block.
"""

from __future__ import annotations

import inspect
import logging
import queue
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, get_type_hints

from toolgen.spec.naming import handler_name


@dataclass(frozen=True, slots=True)
class BoundHandler:
    """One tool's handler and how to call it."""

    func: Callable[..., Any]
    is_async: bool
    takes_arguments: bool
    find_model: Callable[[], Any] | None = None
    """Finds the pydantic model class to parse the arguments into (None: pass the dict)."""
    inline: bool = False
    """A sync handler marked with `@inline`: run on the event loop, no worker thread."""
    starts_task: bool = False
    """An async handler marked with `@starts_task`: it starts its task itself."""
    _found: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def input_model(self) -> Any:
        """The model class the arguments are parsed into, or None. Found on first use, not
        when binding: a generated server imports its models module only when a tool is
        first called, so that starting a server of hundreds of tools stays fast."""
        if self.find_model is None:
            return None
        if "model" not in self._found:
            self._found["model"] = self.find_model()
        return self._found["model"]

    def call_args(self, arguments: dict[str, Any]) -> tuple[Any, ...]:
        """The positional arguments for `func`: (), (dict,) or (model,)."""
        if not self.takes_arguments:
            return ()
        model = self.input_model
        if model is not None:
            return (model.model_validate(arguments),)
        return (arguments,)


INLINE_MARK = "__toolgen_inline__"

F = TypeVar("F", bound=Callable[..., Any])


def inline(func: F) -> F:
    """Mark a sync handler as never blocking: it then runs on the event loop, the fastest way.

    Only for handlers that finish in microseconds (no I/O, no sleeping): while one runs,
    nothing else is served, and neither the timeout nor cancellation can stop it.
    """
    setattr(func, INLINE_MARK, True)
    return func


STARTS_TASK_MARK = "__toolgen_starts_task__"


def starts_task(func: F) -> F:
    """Mark an async handler of a task-supporting tool as starting its task itself.

    Its call runs as an ordinary request until the handler calls
    `current_call().start_task()`: questions asked before that (`call.elicit(...)`)
    go to the client as `InputRequiredResult` (the handler runs again with the
    answers), then the client gets the task's handle and the rest runs as the task.
    Without the mark, a call that runs as a task is one from its start.
    """
    setattr(func, STARTS_TASK_MARK, True)
    return func


def bind(func: Callable[..., Any]) -> BoundHandler:
    """Inspect `func` once: async or not, whether it takes arguments, and as which type."""
    is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004 - callable objects with an async __call__
    )
    marked = not is_async and bool(getattr(func, INLINE_MARK, False))
    own_task = is_async and bool(getattr(func, STARTS_TASK_MARK, False))
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # builtins without a signature: assume one argument
        return BoundHandler(func, is_async, True, inline=marked, starts_task=own_task)
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    if not positional:
        return BoundHandler(func, is_async, False, inline=marked, starts_task=own_task)
    first = positional[0]
    find = None if first.kind is first.VAR_POSITIONAL else partial(_input_model, func, first.name)
    return BoundHandler(func, is_async, True, find, inline=marked, starts_task=own_task)


def _input_model(func: Callable[..., Any], parameter: str) -> Any:
    """The pydantic model class `parameter` is annotated with, on `func` or, for a method
    without annotations, on the method it overrides (a generated `Handlers` interface)."""
    candidates: list[Any] = [func]
    owner = getattr(func, "__self__", None)
    name = getattr(func, "__name__", None)
    if owner is not None and name is not None:
        candidates += [k.__dict__[name] for k in type(owner).__mro__[1:] if name in k.__dict__]
    for candidate in candidates:
        try:
            hints = get_type_hints(candidate, localns=_ModuleNames(candidate))
        except ImportError:  # a models module that does not import: say so, never pass a dict
            raise
        except Exception:  # unresolvable annotations: look further, else pass a dict
            continue
        if parameter not in hints and candidate is func:
            continue
        annotation = hints.get(parameter)
        if isinstance(annotation, type) and callable(getattr(annotation, "model_validate", None)):
            return annotation
        return None
    return None


class _ModuleNames(Mapping[str, Any]):
    """The names of `func`'s module as `get_type_hints` looks them up, through the module's
    `__getattr__` (PEP 562): a generated server's `Handlers` names its models without
    importing them, and a lookup imports them then."""

    def __init__(self, func: Any) -> None:
        self._module = sys.modules.get(getattr(func, "__module__", None) or "")

    def __getitem__(self, name: str) -> Any:
        if self._module is None:
            raise KeyError(name)
        try:
            return getattr(self._module, name)
        except AttributeError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(vars(self._module) if self._module is not None else ())

    def __len__(self) -> int:
        return len(vars(self._module)) if self._module is not None else 0


def instantiate(handlers: Any) -> Any:
    """`handlers`, or an instance when it is a class (created without arguments).

    Raises `ValueError` with a readable reason when the class cannot be created.
    """
    if not isinstance(handlers, type):
        return handlers
    try:
        return handlers()
    except Exception as exc:
        raise ValueError(
            f"cannot create {handlers.__name__}(): {type(exc).__name__}: {exc}"
        ) from exc


def unknown_handlers(tool_names: list[str], handlers: Any) -> list[str]:
    """Keys of a handler mapping that name no tool (likely typos)."""
    if not isinstance(handlers, Mapping):
        return []
    known = set(tool_names) | {handler_name(name) for name in tool_names}
    return sorted(str(key) for key in handlers if key not in known)


def bind_handlers(tool_names: list[str], handlers: Any) -> dict[str, BoundHandler]:
    """The handler of every tool that `handlers` implements (missing tools are left out)."""
    handlers = instantiate(handlers)
    found: dict[str, BoundHandler] = {}
    for name in tool_names:
        if isinstance(handlers, Mapping):
            func = handlers.get(name, handlers.get(handler_name(name)))
        else:
            func = getattr(handlers, handler_name(name), None)
        if callable(func):
            found[name] = bind(func)
    return found


MAX_STUCK_WORKERS = 256
"""How far the pool grows past `max_workers` to replace workers whose call ended (timed
out, cancelled) while their handler still runs: Python cannot stop a thread."""
IDLE_SECONDS = 30.0
"""How long a worker waits for a job before it ends: a burst of concurrent calls does not
leave its threads behind for the life of the server."""


_Queued = tuple[Future[Any] | None, Callable[..., Any], tuple[Any, ...]]
"""A queued job: its future (None for `run`'s fire-and-forget jobs), function, arguments."""


class Job:
    """A job given to `DaemonThreadPool.run`: started, finished, abandoned by its caller."""

    __slots__ = ("abandoned", "finished", "started")

    def __init__(self) -> None:
        self.started = self.finished = self.abandoned = False


class DaemonThreadPool(Executor):
    """A thread pool whose idle or stuck workers never delay interpreter exit.

    A worker whose job was abandoned while running (the call timed out) is *stuck*:
    it does not count against `max_workers`, so new calls still get threads, up
    to `max_stuck` extra ones. A job abandoned before it started never runs. A worker
    with no job for `idle_seconds` ends (the next call starts another).
    """

    def __init__(
        self,
        max_workers: int = 32,
        max_stuck: int = MAX_STUCK_WORKERS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self._max = max_workers
        self._max_stuck = max_stuck
        self._idle_seconds = idle_seconds
        self._stuck = 0
        self._queue: queue.SimpleQueue[_Queued] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        # Jobs queued and not yet taken, counted under the lock: the queue's own size drops
        # when a worker takes a job, before that worker stops counting as idle.
        self._pending = 0
        self._starting = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        call = (lambda: fn(*args, **kwargs)) if kwargs else fn
        self._enqueue((future, call, () if kwargs else args))
        return future

    def run(self, fn: Callable[[], Any]) -> Job:
        """Run `fn()` on a worker thread, fire and forget (no future: `fn` reports itself).

        The `Job` lets the caller give up on it (`abandon`)."""
        job = Job()

        def tracked() -> None:
            with self._lock:
                if job.abandoned:
                    job.finished = True
                    return
                job.started = True
            try:
                fn()
            finally:
                with self._lock:
                    job.finished = True
                    if job.abandoned:
                        self._stuck -= 1

        self._enqueue((None, tracked, ()))
        return job

    def abandon(self, job: Job) -> bool:
        """Give up on `job`: True when it is running, its worker now stuck until it returns."""
        with self._lock:
            if job.finished or job.abandoned:
                return False
            job.abandoned = True
            if not job.started:
                return False
            self._stuck += 1
        self._grow()  # calls queued behind the stuck worker get a thread of their own
        return True

    @property
    def stuck(self) -> int:
        """Workers still running a job that was abandoned."""
        return self._stuck

    def _enqueue(self, job: _Queued) -> None:
        with self._lock:
            self._pending += 1
            self._queue.put(job)
        self._grow()

    def _grow(self) -> None:
        """Start a worker when jobs wait that no idle (or starting) worker will take."""
        with self._lock:
            busy = self._threads - self._stuck
            waiting = self._pending > self._idle + self._starting
            if waiting and busy < self._max and self._threads < self._max + self._max_stuck:
                self._threads += 1
                self._starting += 1
                threading.Thread(target=self._work, name="toolgen-handler", daemon=True).start()

    def _work(self) -> None:
        with self._lock:
            self._starting -= 1
        while True:
            with self._lock:
                self._idle += 1
            try:
                future, fn, args = self._queue.get(timeout=self._idle_seconds)
            except queue.Empty:
                if self._retired():
                    return
                continue
            with self._lock:
                self._idle -= 1
                self._pending -= 1
            if future is None:
                try:
                    fn()
                except BaseException:  # pragma: no cover - `run` callers catch their errors
                    logging.getLogger("toolgen.runtime").exception("a worker job failed")
                continue
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:
                future.set_exception(exc)

    def _retired(self) -> bool:
        """Whether this idle worker may end: no job waits that it was counted on to take
        (`_grow`, under the same lock, starts a worker for a job queued after this)."""
        with self._lock:
            self._idle -= 1
            if self._pending > self._idle + self._starting:
                return False  # a job came in as the wait ended: stay (idle again next loop)
            self._threads -= 1
            return True


def import_object(reference: str) -> Any:
    """The object a `MODULE:OBJECT` reference names (MODULE may be a `.py` file path).

    Dotted OBJECT paths (`module:Class.attr`) are followed. Raises `ValueError`
    with a readable reason when the reference cannot be resolved.
    """
    import importlib
    import importlib.util
    import sys
    from pathlib import Path

    module_name, sep, attribute = reference.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"expected MODULE:OBJECT, got {reference!r}")
    try:
        if module_name.endswith(".py") or "/" in module_name:
            path = Path(module_name)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.is_file():
                raise ValueError(f"no Python file {module_name!r}")
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)  # like `python FILE`: its generated package imports
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
        else:
            if "" not in sys.path:
                sys.path.insert(0, "")  # like `python -m`: modules in the working directory
            module = importlib.import_module(module_name)
    except ValueError:
        raise
    except Exception as exc:  # ImportError, or any error raised while the module runs
        raise ValueError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc
    found: Any = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ValueError(f"{module_name!r} has no attribute {attribute!r}") from None
    return found
