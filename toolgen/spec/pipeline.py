"""The one load pipeline: paths → spec sets → parsed, validated files → resolved `ToolSet`.

Build, lint, serve, `tools`, the library (`toolgen.load`) and every later capability
load spec sets through these functions, so they accept and refuse the same inputs
with the same diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.loader import SpecSetFiles, parse_each, spec_sets
from toolgen.spec.positions import SourceFile, display_path
from toolgen.spec.published import derived_name
from toolgen.spec.resolver import resolve
from toolgen.spec.source import read_source, walk

if TYPE_CHECKING:
    from toolgen.spec.model import SpecFile

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
    One run reports every problem: when some files do not parse, the others that do not
    depend on them (through `$ref`s) are still resolved, and their problems (refs,
    examples) are reported with the rest.
    """
    specs, problems, failed = parse_each(spec_set.files, read)
    default_name = name or derived_name(spec_set.root)
    if not problems:
        return resolve(specs, default_name)
    try:
        resolve(_independent(specs, failed), default_name)
    except SpecError as exc:
        problems.extend(exc.diagnostics)
    raise SpecError(problems)


def _independent(specs: list[SpecFile], failed: set[Path]) -> list[SpecFile]:
    """The files of `specs` whose `$ref`s lead, however indirectly, into none of `failed`
    (a file that did not parse): resolved without them, those report only their own
    problems."""
    targets = {spec.source.path.resolve(): _ref_targets(spec) for spec in specs}
    left = set(failed)
    while True:
        newly = {path for path, refs in targets.items() if path not in left and refs & left}
        if not newly:
            return [spec for spec in specs if spec.source.path.resolve() not in left]
        left |= newly


def _ref_targets(spec: SpecFile) -> set[Path]:
    """The files the `$ref`s of `spec` name (its own fragments aside)."""
    base = spec.source.path.resolve().parent
    return {
        (base / value.split("#", 1)[0]).resolve()
        for path, value in walk(spec.data)
        if path and path[-1] == "$ref" and isinstance(value, str) and not value.startswith("#")
    }


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
