"""Bind user handlers to tools: which callable answers each tool, and how to call it.

A handler set is a mapping `{tool name: callable}`, an object (or a class,
instantiated without arguments) with one method per tool, named by
`handler_name` (`create_note`, `get-item` → `get_item`). A handler takes
either nothing, or one argument: the validated arguments as a dict, or as a
pydantic model when that parameter is annotated with a model class (the
generated `<Tool>Input`). It may be sync or async.

Sync handlers run off the event loop (see `toolgen.serve.calls`), so that calls
run concurrently, a per-call timeout can answer on time, and a stuck handler
never keeps the process alive. A handler marked `@inline` (or every sync
handler, with the engine's `inline_sync=True`) never blocks: a transport on
the event loop runs it right there, with no thread.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
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
    """A sync handler marked with `@inline`: it never blocks (no thread of its own)."""
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
            # JSON names only: a key spelled as a field's Python name is no property. The
            # model's validator itself (what `model_validate` calls, less a Python frame and
            # its keyword arguments): this runs on every call.
            validator = model.__pydantic_validator__
            return (validator.validate_python(arguments, by_alias=True, by_name=False),)
        return (arguments,)


INLINE_MARK = "__toolgen_inline__"

F = TypeVar("F", bound=Callable[..., Any])


def inline(func: F) -> F:
    """Mark a sync handler as never blocking: a transport on the event loop (Streamable
    HTTP) then runs it there, with no thread: the fastest way.

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


def import_object(reference: str) -> Any:
    """The object a `MODULE:OBJECT` reference names (MODULE may be a `.py` file path).

    Dotted OBJECT paths (`module:Class.attr`) are followed. Raises `ValueError`
    with a readable reason when the reference cannot be resolved.
    """
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
