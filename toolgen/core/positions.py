"""Where values stand in a source file: the one location mechanism of toolgen.

Every value read from a spec or definitions file is recorded under its path
(`("tools", 0, "name")`); later stages report problems by path, and
`SourceFile.locate` turns a path into `file:line:col` once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.core.errors import Diagnostic, Location

JsonPath = tuple[str | int, ...]
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

    def parsed(self) -> tuple[Any, dict[JsonPath, Position], dict[JsonPath, Position]]:
        """What a cache keeps of the parse, plain data only: (data, positions, key positions)."""
        return (self.data, self.positions, self.key_positions)

    @classmethod
    def from_parsed(cls, path: Path, display: str, parsed: Any) -> SourceFile | None:
        """The file whose `parsed()` is `parsed`, read from `path`; None when `parsed` is not
        such a triple (a damaged or foreign cache entry: the caller parses again)."""
        if not (isinstance(parsed, tuple) and len(parsed) == 3):
            return None
        data, positions, key_positions = parsed
        if not (isinstance(positions, dict) and isinstance(key_positions, dict)):
            return None
        return cls(path, display, data, positions, key_positions)

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
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
