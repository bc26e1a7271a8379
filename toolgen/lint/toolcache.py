"""A cache of what the tool and node rules report about the tools of each spec file: after
one file of a large spec set is edited, lint checks that file's tools again and reads the
other files' hits back (`resultcache` answers only when nothing changed at all).

What a tool's hits depend on, and so what the key of a file's entry hashes (an entry is
never stale, only unused):

- the rules: toolgen's code and the configuration, as `resultcache` fingerprints them;
- the file: its resolved path (relative `$ref`s follow it), the name findings show for it
  and its parsed text (`parsecache.text_key`: the text and the parser's code), which fix
  its tools, their raw data and every position in it;
- every file of the spec set that holds defs, the same three ways: a tool's bundled
  schemas, the names its defs are bundled under (which depend on every def name of the
  set) and what its `$ref`s point at come from those files and nothing else, since a
  `$ref` names a def (or the load fails, and nothing is stored).

Tool and node rules read nothing else (`Context.options`, the tool, its file and the defs;
the set-wide views, `input_defs` and the server, serve only def nodes and set rules,
which always run, as do suppressions, ignores and severities, applied to the hits
afterwards). A file read without the parse cache (no text key) is neither looked up nor
stored. Entries are `marshal`led plain data under `lint-tools/` beside the other caches.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.lint.config import LintConfig
from toolgen.lint.model import Hit
from toolgen.spec.errors import Location
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.parsecache import cache_root, store, text_key
from toolgen.spec.positions import SourceFile

FORMAT = f"toolgen-lint-tools-1 marshal-{marshal.version}"

ToolHits = list[tuple[str, Hit]]
"""(rule code, hit) of the tool and node rules about one tool, in the order they ran."""
_Row = tuple[str, str, str | None, int, int, str | None]


@dataclass
class ToolHitCache:
    """The entries of one lint run: looked up per file, stored for the files checked anew."""

    prefix: str
    """What every key shares: the format, the rules, and the files that hold defs."""
    _keys: dict[int, str | None] = field(default_factory=dict)
    _entries: dict[int, dict[str, ToolHits] | None] = field(default_factory=dict)
    _fresh: dict[int, tuple[SourceFile, dict[str, ToolHits]]] = field(default_factory=dict)

    def hits(self, tool: Tool) -> ToolHits | None:
        """The stored hits about `tool`, None when its file has no valid entry."""
        source = tool.origin.source
        if id(source) not in self._entries:
            self._entries[id(source)] = self._load(source)
        entry = self._entries[id(source)]
        return None if entry is None else entry.get(tool.name)

    def add(self, tool: Tool, hits: ToolHits) -> None:
        """The hits about `tool`, found now (stored by `save` with its file's other tools)."""
        source = tool.origin.source
        self._fresh.setdefault(id(source), (source, {}))[1][tool.name] = hits

    def save(self) -> None:
        """Store an entry for every file whose tools were checked anew."""
        for source, tools in self._fresh.values():
            entry = _entry(self._key(source))
            if entry is None:
                continue
            rows = [(name, hit_rows(hits)) for name, hits in tools.items()]
            with contextlib.suppress(ValueError):
                store(entry, marshal.dumps((FORMAT, rows)))

    def _key(self, source: SourceFile) -> str | None:
        if id(source) not in self._keys:
            identity = _identity(source)
            self._keys[id(source)] = (
                None
                if identity is None
                else hashlib.sha256(f"{self.prefix}\n{identity}".encode()).hexdigest()
            )
        return self._keys[id(source)]

    def _load(self, source: SourceFile) -> dict[str, ToolHits] | None:
        entry = _entry(self._key(source))
        if entry is None:
            return None
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError, IndexError):
            stored = marshal.loads(entry.read_bytes())
            if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == FORMAT:
                return {name: hits_of(rows) for name, rows in stored[1]}
        return None


def for_toolset(toolset: ToolSet, config: LintConfig) -> ToolHitCache | None:
    """The cache for linting `toolset` with `config`; None when the cache is off or a file
    that holds defs was not read through the parse cache."""
    if cache_root() is None:
        return None
    from toolgen.lint.resultcache import code_fingerprint, config_fingerprint

    def_files = _def_files(d.origin.source for d in toolset.defs)
    identities = [_identity(source) for source in def_files]
    if any(identity is None for identity in identities):
        return None
    prefix = "\n".join(
        [FORMAT, code_fingerprint(), config_fingerprint(config), *map(str, identities)]
    )
    return ToolHitCache(hashlib.sha256(prefix.encode()).hexdigest())


def _def_files(sources: Iterable[SourceFile]) -> list[SourceFile]:
    unique = {id(source): source for source in sources}
    return sorted(unique.values(), key=lambda s: (str(s.path.resolve()), s.display))


def _identity(source: SourceFile) -> str | None:
    key = text_key(source)
    if key is None:
        return None
    return repr((str(source.path.resolve()), source.display, key))


def _entry(entry_key: str | None) -> Path | None:
    root = cache_root()
    if entry_key is None or root is None:
        return None
    return root / "lint-tools" / f"{entry_key}.bin"


def hit_rows(hits: ToolHits) -> list[_Row]:
    """`hits` as plain data (for `marshal`): what `hits_of` reads back."""
    return [_row(code, hit) for code, hit in hits]


def hits_of(rows: Iterable[_Row]) -> ToolHits:
    """The hits that `hit_rows` gave `rows` for."""
    return [_hit(row) for row in rows]


def _row(code: str, hit: Hit) -> _Row:
    loc = hit.location
    return (
        code,
        hit.message,
        loc.file if loc else None,
        loc.line if loc else 0,
        loc.column if loc else 0,
        hit.tool,
    )


def _hit(row: _Row) -> tuple[str, Hit]:
    code, message, file, line, column, tool = row
    return code, Hit(message, Location(file, line, column) if file is not None else None, tool)
