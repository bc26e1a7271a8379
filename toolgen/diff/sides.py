"""Load OLD and NEW: spec sets, published definitions, or either at a git revision.

Both sides go through the one load pipeline (`toolgen.spec`), so they are
accepted and refused exactly as `build` and `lint` accept and refuse them. A
file whose text is the same on both sides (most files of a pull request) is
parsed once: the second side gets a copy of the first's `SourceFile` under
its own name.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from toolgen.diff.git import Checkout, GitPath, NotAtRevision, checkout
from toolgen.spec.errors import Diagnostic, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.loader import is_published, spec_sets
from toolgen.spec.pipeline import load_set
from toolgen.spec.positions import SourceFile, display_path
from toolgen.spec.published import load_published
from toolgen.spec.source import parse_source, read_text


@dataclass
class Reader:
    """Reads the files of both sides, parsing each distinct text once: a file unchanged by
    the change (most files of a pull request) is a copy of the other side's parse under its
    own name."""

    display: dict[Path, str] = field(default_factory=dict)
    """Names to show instead of the path (files copied out of git)."""
    _parsed: dict[str, SourceFile] = field(default_factory=dict)

    def __call__(self, path: Path) -> SourceFile:
        text, shown = read_text(path)
        shown = self.display.get(path, shown)
        known = self._parsed.get(text)
        if known is not None:
            return known.renamed(path, shown)
        source = self._parsed[text] = parse_source(text, path, shown)
        return source


@dataclass(frozen=True)
class Side:
    """One side of a diff: what the user named, and the servers it holds."""

    label: str
    toolsets: tuple[ToolSet, ...]
    published: bool
    """Published definitions carry no server version (and a made-up server name)."""
    absent: bool = False
    """A git path not at its revision yet, read as empty (`load_side(absent_ok=True)`)."""


def load_side(name: str, reader: Reader, *, absent_ok: bool = False) -> Side:
    """Load what `name` names (a path, or `git:REV:PATH`); `SpecError` when it does not load.

    `absent_ok`: a git path that is not at its revision (not committed yet, or
    no commit at all) is an empty side instead of an error.
    """
    where = GitPath.parse(name)
    if where is None:
        return _load(Path(name), name, reader)
    try:
        return _load_git(where, name, reader)
    except NotAtRevision:
        if not absent_ok:
            raise
        return Side(name, (), published=False, absent=True)


def _load_git(where: GitPath, name: str, reader: Reader) -> Side:
    with checkout(where) as copied:
        reader.display.update(copied.display)
        try:
            side = _load(copied.root, name, reader)
        except SpecError as exc:
            raise SpecError(_renamed(exc.diagnostics, copied)) from None
        for toolset in side.toolsets:
            for source in toolset.sources:
                source.display = copied.display.get(source.path, source.display)
        return side


def _load(path: Path, label: str, reader: Reader) -> Side:
    if is_published(path):
        return Side(label, (load_published(path),), published=True)
    toolsets: list[ToolSet] = []
    problems: list[Diagnostic] = []
    for spec_set in spec_sets([path]):
        try:
            toolsets.append(load_set(spec_set, reader))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SpecError(problems)
    return Side(label, tuple(toolsets), published=False)


def _renamed(diagnostics: tuple[Diagnostic, ...], copied: Checkout) -> list[Diagnostic]:
    """Diagnostics about copied files, pointing at the files' git names instead."""
    names = {display_path(path): shown for path, shown in copied.display.items()}
    out = []
    for diagnostic in diagnostics:
        loc = diagnostic.location
        if loc is not None and loc.file in names:
            diagnostic = replace(diagnostic, location=replace(loc, file=names[loc.file]))
        out.append(diagnostic)
    return out
