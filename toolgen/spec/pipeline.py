"""The one load pipeline: paths → spec sets → parsed, validated files → resolved `ToolSet`.

Build, lint, serve, `tools`, the library (`toolgen.load`) and every later capability
load spec sets through these functions, so they accept and refuse the same inputs
with the same diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.loader import SpecSetFiles, load_files, spec_sets
from toolgen.spec.positions import SourceFile, display_path
from toolgen.spec.published import derived_name
from toolgen.spec.resolver import resolve
from toolgen.spec.source import read_source

Reader = Callable[[Path], SourceFile]
"""Reads one file into a `SourceFile` (the build passes a caching reader)."""


def as_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """One path or many, as a list of `Path`s."""
    if isinstance(paths, (str, Path)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def load_set(
    spec_set: SpecSetFiles, read: Reader = read_source, *, name: str | None = None
) -> ToolSet:
    """Parse, validate and resolve the files of one spec set; `SpecError` on bad input.

    A set without a `server` block is named `name`, else after its directory or file.
    """
    return resolve(load_files(spec_set.files, read), name or derived_name(spec_set.root))


def one_spec_set(paths: Sequence[str | Path]) -> SpecSetFiles:
    """The single spec set named by `paths`; `SpecError` when they name several."""
    sets = spec_sets(paths)
    if len(sets) > 1:
        names = ", ".join(display_path(s.root) for s in sets)
        where = Location(display_path(Path(paths[0])), 1, 1)
        message = f"this names {len(sets)} spec sets ({names}); name one of them"
        raise SpecError([Diagnostic(ErrorCode.SEVERAL_SPEC_SETS, message, where)])
    return sets[0]


def load_spec_set(paths: str | Path | Iterable[str | Path]) -> ToolSet:
    """Load the one spec set named by `paths` (a directory, a file, or several files)."""
    return load_set(one_spec_set(as_paths(paths)))
