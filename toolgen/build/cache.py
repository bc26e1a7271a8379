"""The build cache: content-addressed entries that let a rebuild skip work it did before.

One file per spec set, `OUT/.toolgen-cache/<hash of the spec set's path>.bin`:
beside the generated packages but in none of them, so no manifest lists it,
`toolgen check` never reads it and its own `.gitignore` keeps it out of
version control. Each key is a hash of everything its value depends on (input
bytes, toolgen's version and the code that makes the value), so an entry is
never stale, only unused. It holds per-tool model code
(`toolgen.build.python.models`); parsed spec files are kept in the parse cache
that `lint` and `diff` share (`toolgen.spec.parsecache`), so a lint or diff
after a build reads what the build parsed.

`save` keeps exactly the entries this build used, so the file does not grow
with every edit, and runs only after the output was written: a failed build
changes nothing on disk. A missing or damaged file is an empty cache and
saving is best effort: the cache can cost a rebuild, never break a build.
Entries are `marshal`led (plain data only: loading never runs code).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import sys
from pathlib import Path
from typing import Any

from toolgen.cache import write_atomically

CACHE_DIR = ".toolgen-cache"
FORMAT = f"toolgen-cache-3 marshal-{marshal.version} python-{sys.version_info[:2]}"


class Cache:
    """Entries of one file, loaded on first use; `save` writes the used ones back."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        """The file of the entries; None: held in memory only (`scratch`)."""
        self._stored: dict[str, Any] | None = None
        self._used: dict[str, Any] = {}

    @classmethod
    def scratch(cls) -> Cache:
        """An empty cache held in memory only and never saved (for builds without a cache
        whose models are made by child processes, which hand them over through it)."""
        return cls(None)

    @classmethod
    def for_spec_set(cls, out: Path, source_note: str) -> Cache:
        """The cache of the spec set named `source_note` that builds into `out`."""
        name = hashlib.sha256(source_note.encode()).hexdigest()[:16]
        return cls(out / CACHE_DIR / f"{name}.bin")

    def get(self, key: str) -> Any | None:
        if key in self._used:
            return self._used[key]
        value = self._entries().get(key)
        if value is not None:
            self._used[key] = value
        return value

    def put(self, key: str, value: Any) -> None:
        self._used[key] = value

    def used(self) -> dict[str, Any]:
        """The entries this build used or made so far (what `save` would keep)."""
        return dict(self._used)

    def save(self) -> None:
        """Write the entries used since loading (atomically; errors are ignored)."""
        stored = self._stored if self._stored is not None else {}
        if self.path is None or stored.keys() == self._used.keys():
            return  # nothing new, nothing unused (an entry's value never changes)
        with contextlib.suppress(OSError, ValueError):
            data = marshal.dumps({"format": FORMAT, "entries": dict(sorted(self._used.items()))})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# toolgen's build cache\n*\n", encoding="utf-8")
            write_atomically(self.path, data)

    def _entries(self) -> dict[str, Any]:
        if self._stored is None:
            self._stored = self._load()
        return self._stored

    def _load(self) -> dict[str, Any]:
        """The entries in the file (none when it is missing, damaged or of another format)."""
        if self.path is None:
            return {}
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            data = marshal.loads(self.path.read_bytes())
            if isinstance(data, dict) and data.get("format") == FORMAT:
                entries = data.get("entries")
                return entries if isinstance(entries, dict) else {}
        return {}
