"""What a build target is, and what every target renders from.

A target is a folder under `toolgen/build/` (`python/`, `typescript/`, ...) whose
`target.py` holds a `TARGET`: its name, the function that renders one spec set into files
(`(path, text)` pairs relative to `OUT/<package>/`, beside the JSON Schemas and tool
definitions every build writes), and optionally a check of the spec set that runs before any
target renders and a scaffold of user code written once beside the package. A target prints
from the `Rendering` it is given (the IR, the type model, the listings, each computed once
per spec set) plus its own fixed runtime text; targets never import one another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from toolgen.build.common import header_text
from toolgen.build.progress import Progress
from toolgen.build.typemodel import TypeModel, build_model
from toolgen.spec.ir import ToolSet
from toolgen.spec.protocol import SUPPORTED_REVISIONS, list_tools_result

Files = list[tuple[str, str]]
"""Generated files: (path relative to `OUT/<package>/`, text)."""
Finish = Callable[[], Files]
T = TypeVar("T")


@dataclass
class Rendering:
    """One spec set being rendered: what every target prints from."""

    toolset: ToolSet
    source_note: str
    """How the output names its specs (the header of every generated file)."""
    progress: Progress | None = field(default=None, compare=False)
    options: Mapping[str, str] = field(default_factory=dict)
    """The targets' options the user set, by `<target>.<name>` (see `Target.options`)."""
    _made: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def header(self) -> str:
        """The one-line notice that a file is generated, naming its source."""
        return header_text(self.source_note)

    @cached_property
    def model(self) -> TypeModel:
        """The spec set's types (`toolgen.build.typemodel`), read once for every target."""
        return build_model(self.toolset)

    @cached_property
    def listings(self) -> Mapping[str, Mapping[str, Any]]:
        """The `tools/list` result of every supported protocol revision, made once."""
        return {rev: list_tools_result(self.toolset, rev) for rev in SUPPORTED_REVISIONS}

    def once(self, key: str, make: Callable[[], T]) -> T:
        """What `make` returns, made once for this spec set (a target's own plan, say)."""
        if key not in self._made:
            self._made[key] = make()
        made: T = self._made[key]
        return made


@dataclass(frozen=True)
class Option:
    """A setting a target takes: what it is, and whether a value will do."""

    help: str
    valid: Callable[[str], bool]


def _nothing(_rendering: Rendering) -> None:
    return None


@dataclass(frozen=True)
class Target:
    """A language the build writes code for."""

    name: str
    render: Callable[[Rendering], AbstractContextManager[Finish]]
    """Starts rendering; the context gives the function that finishes and returns the files.
    A target that works in other processes (the Python models) works on while the build
    renders the others; on the way out of the context its workers stop."""
    check: Callable[[Rendering], None] = _nothing
    """Raises the spec set's input errors for this target (`SpecError`), before any work."""
    scaffold: Callable[[Rendering, Path, Path], Mapping[str, str]] | None = None
    """User code to write once, relative to the output directory, given the spec set's
    directory and the output directory (empty when the user has it already)."""
    options: Mapping[str, Option] = field(default_factory=dict)
    """The settings the target takes, by name (`Rendering.options` has them as
    `<target>.<name>`)."""


def at_once(
    render: Callable[[Rendering], Files],
) -> Callable[[Rendering], AbstractContextManager[Finish]]:
    """A target's `render` from a function that makes all its files in this process."""

    @contextmanager
    def rendering(job: Rendering) -> Iterator[Finish]:
        yield lambda: render(job)

    return rendering
