"""A cache of parsed spec files on disk, read by `build`: a file read before is not parsed
again.

Parsing YAML (libyaml's events and our YAML 1.2 builder, which records
every value's position) is much of what loading a large spec set costs. Entries are content-addressed: the key is a hash of
the file's text and of the parser's own code, so an entry is never stale,
only unused, and the same text under another name or in a git revision is
found too. A cached file keeps its positions: errors and findings still say
`file:line:col`. Files with problems are never stored (they are parsed again
and reported). Entries are `marshal`led plain data (loading never runs code; the
positions are a blob of their own, unpacked only when something is located:
`SourceFile.from_packed`);
a missing, damaged or unreadable entry is a miss, and a cache that cannot be
written is no cache: it can cost a parse, never change a result.

Where: `$TOOLGEN_CACHE_DIR` (`off` turns the cache off), else
`$XDG_CACHE_HOME/toolgen`, else `~/.cache/toolgen`; under it `sources/`. When
more than `MAX_ENTRIES` files accumulate, the least recently written half is
removed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.cache import write_atomically
from toolgen.spec import limits, source, yamlevents
from toolgen.spec.positions import SourceFile, display_path
from toolgen.spec.source import parse_source, read_text
from toolgen.version import __version__

ENV = "TOOLGEN_CACHE_DIR"
FORMAT = f"toolgen-sources-2 marshal-{marshal.version} python-{sys.version_info[:2]}"
MAX_ENTRIES = 4096


def cache_root() -> Path | None:
    """The directory of parsed files, or None when the cache is off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolgen"


def parse_source_cached(text: str, path: Path, display: str | None = None) -> SourceFile:
    """`parse_source(text, path, display)`, from the cache when this text was parsed before."""
    shown = display if display is not None else display_path(path)
    found = lookup(text, path, shown)
    if found is not None:
        return found
    source = parse_source(text, path, shown)
    remember(text, source)
    return source


def lookup(text: str, path: Path, display: str) -> SourceFile | None:
    """The cached parse of `text`, as a `SourceFile` for `path`; None on a miss."""
    entry = _entry(text)
    if entry is None:
        return None
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
        stored = marshal.loads(entry.read_bytes())
        if isinstance(stored, tuple) and len(stored) == 3 and stored[0] == FORMAT:
            _, data, packed = stored
            if isinstance(packed, bytes):
                return SourceFile.from_packed(
                    path, display, data, packed, functools.partial(_parse, text, path, display)
                )
    return None


def _parse(text: str, path: Path, display: str) -> SourceFile:
    return parse_source(text, path, display)


def remember(text: str, source: SourceFile) -> None:
    """Store `source` (the parse of `text`) unless it has problems; errors are ignored."""
    entry = _entry(text)
    if entry is None or source.problems:
        return
    with contextlib.suppress(ValueError):
        store(entry, marshal.dumps((FORMAT, source.data, source.packed_positions())))


def store(entry: Path, data: bytes) -> None:
    """Write one cache entry atomically (readers see the old entry or the new one, never
    half of one), then prune its directory; a cache that cannot be written is ignored."""
    with contextlib.suppress(OSError):
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(entry, data)
        _prune(entry.parent)


def _entry(text: str) -> Path | None:
    root = cache_root()
    if root is None:
        return None
    key = hashlib.sha256(parser_salt().encode() + text.encode("utf-8", "surrogatepass")).hexdigest()
    return root / "sources" / f"{key}.bin"


_COUNTS: dict[Path, int] = {}
"""How many entries each cache directory holds, as this process counts them: listed at its
first store there, then counted on. Listing the directory at every store cost about 5 ms in
a full cache: a second for a first lint of 1,000 tools, which stores some 120 entries."""


def _prune(directory: Path) -> None:
    """Keep the newest half when the directory holds more than `MAX_ENTRIES` entries (an
    entry just stored counts as new; the directory is listed again only to prune it)."""
    known = _COUNTS.get(directory)
    count = _COUNTS[directory] = _count(directory) if known is None else known + 1
    if count <= MAX_ENTRIES:
        return
    entries = list(directory.glob("*.bin"))
    if len(entries) > MAX_ENTRIES:  # else other processes pruned it, or entries were replaced
        entries.sort(key=lambda entry: entry.stat().st_mtime)
        for entry in entries[: len(entries) - MAX_ENTRIES // 2]:
            entry.unlink(missing_ok=True)
    _COUNTS[directory] = len(entries) if len(entries) <= MAX_ENTRIES else MAX_ENTRIES // 2


def _count(directory: Path) -> int:
    with os.scandir(directory) as listing:
        return sum(1 for entry in listing if entry.name.endswith(".bin"))


def code_salt(*files: str) -> str:
    """A hash of toolgen's version and the given source files: the code behind an entry."""
    digest = hashlib.sha256(f"toolgen {__version__}\n".encode())
    for file in files:
        digest.update(Path(file).read_bytes())
    return digest.hexdigest()


@functools.cache
def parser_salt() -> str:
    """toolgen's version and the parser's code: a parse made by other code is never read."""
    return code_salt(source.__file__ or "", yamlevents.__file__ or "", limits.__file__ or "")


@dataclass
class SharedReader:
    """A `Reader` for the load pipeline that parses each distinct text once and takes what
    an earlier run parsed from the cache."""

    _parsed: dict[str, SourceFile] = field(default_factory=dict)

    def __call__(self, path: Path) -> SourceFile:
        text, shown = read_text(path)
        known = self._parsed.get(text)
        if known is not None:
            return known.renamed(path, shown)
        source = parse_source_cached(text, path, shown)
        self._parsed[text] = source
        return source
