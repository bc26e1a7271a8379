"""Find the files of a spec set and parse each into a validated `SpecFile`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from toolgen.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.source import display_path, read_source
from toolgen.spec import SpecFile, parse_spec_file

SPEC_SUFFIXES = (".yaml", ".yml")


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """The spec files named by `paths`: files as given, directories searched recursively."""
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(
                p for p in path.rglob("*")
                if p.suffix in SPEC_SUFFIXES and p.is_file() and not _hidden(p, path)
            ))
        elif path.is_file():
            found.append(path)
        else:
            problems.append(Diagnostic(ErrorCode.IO, "no such file or directory", Location(display_path(path), 1, 1)))
    if problems:
        raise SpecError(problems)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if not unique:
        shown = ", ".join(str(p) for p in paths) or "(nothing)"
        raise SpecError([Diagnostic(ErrorCode.NO_SPECS, f"no spec files (*.yaml, *.yml) found in {shown}")])
    return unique


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def load_files(files: Sequence[Path]) -> list[SpecFile]:
    """Parse and validate every file, reporting the problems of all files together."""
    specs: list[SpecFile] = []
    problems: list[Diagnostic] = []
    for path in files:
        try:
            specs.append(parse_spec_file(read_source(path)))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SpecError(problems)
    return specs
