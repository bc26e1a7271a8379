"""A cache of parsed spec files on disk, shared by `build`, `lint` and `diff`: a file read
before is not parsed again (nor checked again, `known_spec`), so a lint or diff after a build
reads what the build parsed.

Parsing YAML (libyaml's events and our YAML 1.2 builder, which records
every value's position) is most of what `toolgen lint` and `toolgen diff` of
a large spec set cost. Entries are content-addressed: the key is a hash of
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
import importlib.util
import marshal
import os
import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.cache import write_atomically
from toolgen.spec.errors import SpecError
from toolgen.spec.positions import SourceFile
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
    from toolgen.spec.positions import display_path
    from toolgen.spec.source import parse_source

    shown = display if display is not None else display_path(path)
    found = lookup(text, path, shown)
    if found is not None:
        return found
    source = parse_source(text, path, shown)
    remember(text, source)
    return source


def read_source_cached(path: Path) -> SourceFile:
    """`read_source(path)` through the cache (a `Reader` for the load pipeline)."""
    from toolgen.spec.source import read_text

    text, display = read_text(path)
    return parse_source_cached(text, path, display)


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
                found = SourceFile.from_packed(
                    path, display, data, packed, functools.partial(_parse, text, path, display)
                )
                _TEXT_KEYS[found] = entry.stem
                return found
    return None


def _parse(text: str, path: Path, display: str) -> SourceFile:
    from toolgen.spec.source import parse_source

    return parse_source(text, path, display)


def remember(text: str, source: SourceFile) -> None:
    """Store `source` (the parse of `text`) unless it has problems; errors are ignored."""
    entry = _entry(text)
    if entry is None or source.problems:
        return
    with contextlib.suppress(ValueError):
        store(entry, marshal.dumps((FORMAT, source.data, source.packed_positions())))
        _TEXT_KEYS[source] = entry.stem


def _note_key(text: str, source: SourceFile) -> None:
    """Record the cache key of `source`, a clean parse of `text` stored by another process."""
    entry = _entry(text)
    if entry is not None:
        _TEXT_KEYS[source] = entry.stem


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
    from toolgen.spec import limits, source, yamlevents

    return code_salt(source.__file__ or "", yamlevents.__file__ or "", limits.__file__ or "")


_TEXT_KEYS: weakref.WeakKeyDictionary[SourceFile, str] = weakref.WeakKeyDictionary()
"""The cache key of each clean `SourceFile` this process read through the cache (what its
text and the parser's code hash to)."""


def text_key(source: SourceFile) -> str | None:
    """What `source`'s text and the parser's code hash to, when this process read it through
    the cache and it read cleanly (a later stage keys its own cache on it); else None."""
    return None if source.problems else _TEXT_KEYS.get(source)


SPEC_STAGES = ("spec", "schema")
"""The code that decides whether a parsed file is a valid spec file."""
LIBRARIES = ("yaml", "jsonschema_rs", "orjson")
"""The libraries that read and check specs (by module name)."""


def known_spec(source: SourceFile) -> bool:
    """Whether `source`'s text passed every check of a spec file before, with this code
    (`remember_spec`): the checks would find nothing again, so they can be skipped."""
    entry = _checked_entry(source)
    return entry is not None and entry.is_file()


def remember_spec(source: SourceFile) -> None:
    """Note that `source` (read through the cache) passed every check of a spec file."""
    entry = _checked_entry(source)
    if entry is not None and not entry.is_file():
        store(entry, b"")


def _checked_entry(source: SourceFile) -> Path | None:
    root = cache_root()
    parsed = text_key(source)
    if root is None or parsed is None:
        return None
    key = hashlib.sha256(f"{code_fingerprint(SPEC_STAGES)}\n{parsed}".encode()).hexdigest()
    return root / "checked" / f"{key}.bin"  # .bin: pruned like the other entries


@functools.cache
def code_fingerprint(stages: tuple[str, ...]) -> str:
    """A hash of toolgen's code and data in `stages` (every file, so a rule, a check or the
    format's schema counts), its version, Python's, and the libraries it reads specs with."""
    import unicodedata

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(
        f"toolgen {__version__}\npython {sys.version}\nunicode {unicodedata.unidata_version}\n".encode()
    )
    for library in LIBRARIES:
        digest.update(f"{library} {_installed(library)}\n".encode())
    for path in code_files(package, stages):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(package)}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def code_files(package: Path, stages: Sequence[str]) -> list[Path]:
    """Every file of the given stages (bytecode caches left out), in a stable order."""
    found: list[Path] = []
    for stage in stages:
        for folder, subfolders, files in os.walk(package / stage):
            subfolders[:] = [s for s in subfolders if s != "__pycache__"]
            found.extend(Path(folder, name) for name in files if not name.endswith(".pyc"))
    return sorted(found)


def _installed(module: str) -> str:
    """What identifies the installed copy of a library: the names, sizes and modification
    times of its top-level files (its compiled extension among them), found without
    importing it (importing `importlib.metadata` to ask for versions costs more than a lint
    read from the cache)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return "-"
    origin = Path(spec.origin)
    places = sorted(origin.parent.iterdir()) if spec.submodule_search_locations else [origin]
    out = []
    for place in places:
        with contextlib.suppress(OSError):
            info = place.stat()
            out.append(f"{place.name}:{info.st_size}:{info.st_mtime_ns}")
    return " ".join(out)


def _remember_checked(text: str, source: SourceFile) -> None:
    """Store a clean parse and, when it is a valid spec file, note that too (`known_spec`): a
    preload checks each file on the core that parsed it, and the load after it skips the checks.
    A file that fails them is left for the load to report."""
    from toolgen.spec.model import parse_spec_file

    remember(text, source)
    if text_key(source) is None:  # not stored (no cache): the load checks it
        return
    try:
        parse_spec_file(source)
    except SpecError:
        return
    remember_spec(source)


@dataclass
class SharedReader:
    """A `Reader` for the load pipeline that parses each distinct text once (a file whose
    text is the same in two spec sets or on both sides of a diff is parsed once), takes
    what an earlier run parsed from the cache, and parses many new files on two cores
    (`preload`)."""

    display: dict[Path, str] = field(default_factory=dict)
    """Names to show instead of the path (files copied out of git)."""
    _parsed: dict[str, SourceFile] = field(default_factory=dict)
    _preloaded: set[Path] = field(default_factory=set)
    """Paths a preload has read: a second preload of them (a diff's side after both sides
    were preloaded together) reads nothing again."""

    def preload(self, paths: list[Path]) -> None:
        """Take the files parsed before from the cache, and parse (and check) the others now on
        two cores when there is enough text to gain from it (`preparse`; else each is parsed
        when read). Files that do not read, parse or check cleanly are left for the ordinary
        load to report."""
        from toolgen.spec.preparse import parse_all, worth_forking
        from toolgen.spec.source import read_text

        texts: dict[str, Path] = {}
        for path in paths:
            if path in self._preloaded:
                continue
            self._preloaded.add(path)
            try:
                text, shown = read_text(path)
            except SpecError:
                continue
            if text in self._parsed or text in texts:
                continue
            cached = lookup(text, path, shown)  # parsed by an earlier lint or diff
            if cached is not None:
                self._parsed[text] = cached
            else:
                texts[text] = path
        if not worth_forking(texts):
            return
        import toolgen.spec.model  # noqa: F401 - both processes check files: import it once, before the fork

        for text, source in parse_all(texts, _remember_checked).items():  # stored where parsed
            if not source.problems:  # reported by the ordinary read, under the file's name
                if source not in _TEXT_KEYS:  # stored by the child: its key, hashed once here
                    _note_key(text, source)
                self._parsed[text] = source

    def __call__(self, path: Path) -> SourceFile:
        from toolgen.spec.source import read_text

        text, shown = read_text(path)
        shown = self.display.get(path, shown)
        known = self._parsed.get(text)
        if known is not None:
            copy = known.renamed(path, shown)
            if known in _TEXT_KEYS:
                _TEXT_KEYS[copy] = _TEXT_KEYS[known]
            return copy
        source = parse_source_cached(text, path, shown)
        self._parsed[text] = source
        return source
