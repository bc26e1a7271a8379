"""Where values stand in a source file: the one location mechanism of toolgen.

Every value read from a spec or definitions file is recorded under its path
(`("tools", 0, "name")`); later stages report problems by path, and
`SourceFile.locate` turns a path into `file:line:col` once.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolgen.schema.pointer import JsonPath as JsonPath  # re-exported: paths index positions
from toolgen.spec.errors import Diagnostic, Location

Position = tuple[int, int]  # 1-based line, column


@dataclass(eq=False)
class SourceFile:
    """One parsed file: its data and where each value and key stands in the text."""

    path: Path
    display: str
    data: Any
    positions: dict[JsonPath, Position] = field(repr=False)
    key_positions: dict[JsonPath, Position] = field(repr=False)
    problems: tuple[Diagnostic, ...] = ()
    """What the reader could step over (a duplicate key is dropped): reported with the
    file's other problems, so one run shows them all."""

    def renamed(self, path: Path, display: str) -> SourceFile:
        """The same parse, read from another place (data and positions are shared)."""
        return replace(self, path=path, display=display)

    def locate(self, path: JsonPath, *, key: bool = False) -> Location:
        """The position of the value at `path` (or of its key), else of its nearest ancestor."""
        table = self.key_positions if key else self.positions
        probe = path
        while True:
            pos = table.get(probe)
            if pos is None and table is self.key_positions:
                pos = self.positions.get(probe)
            if pos is not None:
                return Location(self.display, pos[0], pos[1])
            if not probe:
                return Location(self.display, 1, 1)
            probe = probe[:-1]


def display_path(path: Path) -> str:
    """The path as users should see it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(_resolved_cwd(os.getcwd())))
    except ValueError:
        return str(path)


@functools.lru_cache(maxsize=8)
def _resolved_cwd(cwd: str) -> Path:
    """The working directory `cwd`, resolved (once per directory: every file of a spec set
    is shown relative to it, several times per run)."""
    return Path(cwd).resolve()
