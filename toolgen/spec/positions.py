"""Where values stand in a source file: the one location mechanism of toolgen.

Every value read from a spec or definitions file is recorded under its path
(`("tools", 0, "name")`); later stages report problems by path, and
`SourceFile.locate` turns a path into `file:line:col` once.
"""

from __future__ import annotations

import functools
import marshal
import os
from collections.abc import Callable
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

    def packed_positions(self) -> bytes:
        """The positions as one `marshal`led blob, for `from_packed`."""
        return marshal.dumps((self.positions, self.key_positions))

    @classmethod
    def from_packed(
        cls, path: Path, display: str, data: Any, packed: bytes, again: Callable[[], SourceFile]
    ) -> SourceFile:
        """A file whose positions are `packed` (`packed_positions`) and unpacked only when
        first asked for: most runs (a diff, a clean lint) locate little, and unpacking the
        positions of every value costs more than reading the data. `again` parses the file
        anew, should the blob be damaged."""
        return _PackedSourceFile(path, display, data, packed, again)

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


class _PackedSourceFile(SourceFile):
    """A `SourceFile` whose positions are unpacked on first use (`SourceFile.from_packed`)."""

    def __init__(
        self, path: Path, display: str, data: Any, packed: bytes, again: Callable[[], SourceFile]
    ) -> None:
        self.path = path
        self.display = display
        self.data = data
        self.problems = ()
        self._packed = packed
        self._again = again
        self._tables: tuple[dict[JsonPath, Position], dict[JsonPath, Position]] | None = None

    def _unpacked(self) -> tuple[dict[JsonPath, Position], dict[JsonPath, Position]]:
        if self._tables is None:
            try:
                positions, key_positions = marshal.loads(self._packed)
                if not (isinstance(positions, dict) and isinstance(key_positions, dict)):
                    raise ValueError("not two tables")
            except (ValueError, EOFError, TypeError):
                fresh = self._again()
                positions, key_positions = fresh.positions, fresh.key_positions
            self._tables = (positions, key_positions)
        return self._tables

    @property
    def positions(self) -> dict[JsonPath, Position]:
        return self._unpacked()[0]

    @positions.setter
    def positions(self, table: dict[JsonPath, Position]) -> None:
        self._tables = (table, self._unpacked()[1])

    @property
    def key_positions(self) -> dict[JsonPath, Position]:
        return self._unpacked()[1]

    @key_positions.setter
    def key_positions(self, table: dict[JsonPath, Position]) -> None:
        self._tables = (self._unpacked()[0], table)

    def renamed(self, path: Path, display: str) -> SourceFile:
        copy = _PackedSourceFile(path, display, self.data, self._packed, self._again)
        copy._tables = self._tables
        return copy

    def packed_positions(self) -> bytes:
        return self._packed if self._tables is None else super().packed_positions()


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
