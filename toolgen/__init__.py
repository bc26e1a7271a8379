"""toolgen: compile declarative MCP tool specs; lint them; serve them.

`toolgen.load(...)` is the library entry point: it reads a spec set (a
directory, a file, or a list of them) for use at run time (a
`RuntimeToolSet` around the `ToolSet` IR); `toolgen.load_toolset(...)`
gives the IR itself, which the compiler, the linter and the runtime share.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.spec.errors import Diagnostic, Location, SpecError
from toolgen.spec.ir import Annotations, Tool, ToolSet
from toolgen.version import __version__

if TYPE_CHECKING:
    from toolgen.serve.toolset import RuntimeToolSet

__all__ = [
    "Annotations",
    "Diagnostic",
    "Location",
    "SpecError",
    "Tool",
    "ToolSet",
    "__version__",
    "load",
    "load_toolset",
]


def load_toolset(paths: str | Path | Iterable[str | Path]) -> ToolSet:
    """Load and resolve a spec set into the IR; raise `SpecError` on bad input."""
    from toolgen.spec.pipeline import load_spec_set

    return load_spec_set(paths)


def load(paths: str | Path | Iterable[str | Path]) -> RuntimeToolSet:
    """Load a spec set for use at run time: definitions, validation, results, serving.

    The returned `RuntimeToolSet` wraps the IR (`.toolset`); see `toolgen.runtime`.
    """
    from toolgen.serve.toolset import RuntimeToolSet

    return RuntimeToolSet(load_toolset(paths))
