"""Find the files of a spec set and parse each into a validated `SpecFile`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import SourceFile, display_path

if TYPE_CHECKING:
    from toolgen.spec.model import SpecFile

SPEC_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIX = ".json"


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """The spec files named by `paths`: files as given, directories searched recursively."""
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.suffix in SPEC_SUFFIXES and p.is_file() and not _hidden(p, path)
                )
            )
        elif path.is_file():
            found.append(path)
        else:
            problems.append(
                Diagnostic(
                    ErrorCode.IO,
                    "no such file or directory; expected a spec file (*.yaml, *.yml) "
                    "or a directory of them",
                    Location(display_path(path), 1, 1),
                )
            )
    if problems:
        raise SpecError(problems)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if not unique:
        shown = ", ".join(str(p) for p in paths) or "(nothing)"
        raise SpecError(
            [Diagnostic(ErrorCode.NO_SPECS, f"no spec files (*.yaml, *.yml) found in {shown}")]
        )
    return unique


def is_published(path: Path) -> bool:
    """Whether `path` names published definitions rather than a spec set.

    A `.json` file, or a directory that holds `.json` files and no spec files
    (`*.yaml`, `*.yml`); other files (a README) are ignored.
    """
    if path.is_file():
        return path.suffix == JSON_SUFFIX
    if not path.is_dir():
        return False
    files = [p for p in path.rglob("*") if p.is_file() and not _hidden(p, path)]
    return any(p.suffix == JSON_SUFFIX for p in files) and not any(
        p.suffix in SPEC_SUFFIXES for p in files
    )


_SERVER_LINE = re.compile(rb"^server\s*:", re.MULTILINE)


@dataclass(frozen=True)
class SpecSetFiles:
    """The files of one spec set, and the path it was named by (for headers and messages)."""

    root: Path
    files: tuple[Path, ...]


def spec_sets(paths: Sequence[str | Path]) -> list[SpecSetFiles]:
    """Group `paths` into spec sets.

    Per the format, the paths together are one spec set. One extension: a single
    directory with no spec files of its own whose subdirectories declare two or
    more `server` blocks is a directory *of* spec sets (like `specs/`), and
    each immediate subdirectory is one spec set. (Read as one spec set, such a
    directory would be an error: a spec set has one `server` block.)
    """
    if len(paths) == 1 and Path(paths[0]).is_dir():
        root = Path(paths[0])
        files = discover([root])
        if not any(f.parent == root.resolve() for f in files):
            groups: dict[Path, list[Path]] = {}
            for f in files:
                groups.setdefault(
                    root.resolve() / f.relative_to(root.resolve()).parts[0], []
                ).append(f)
            with_server = [g for g, fs in groups.items() if any(_declares_server(f) for f in fs)]
            if len(with_server) >= 2:
                return [SpecSetFiles(root / g.name, tuple(fs)) for g, fs in sorted(groups.items())]
        return [SpecSetFiles(root, tuple(files))]
    root = Path(paths[0]) if len(paths) == 1 else Path(".")
    return [SpecSetFiles(root, tuple(discover(paths)))]


def _declares_server(path: Path) -> bool:
    try:
        return _SERVER_LINE.search(path.read_bytes()) is not None
    except OSError:
        return False


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def parse_each(
    files: Sequence[Path], read: Callable[[Path], SourceFile] | None = None
) -> tuple[list[SpecFile], list[Diagnostic], set[Path]]:
    """Parse (with `read`, by default `read_source`) and validate every file: (the files
    that passed, the problems of the others, the paths of the others)."""
    # YAML and the spec model load only when files are read: finding spec sets (a lint
    # answered from its cache) needs neither.
    from toolgen.spec.model import parse_spec_file
    from toolgen.spec.source import read_source

    read = read or read_source
    specs: list[SpecFile] = []
    problems: list[Diagnostic] = []
    failed: set[Path] = set()
    for path in files:
        try:
            specs.append(parse_spec_file(read(path)))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
            failed.add(path)
    return specs, problems, failed
