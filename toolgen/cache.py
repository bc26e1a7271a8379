"""toolgen's one cache: bytes stored under a key made from the input and toolgen itself.

An entry is never stale, only unused: its key hashes everything the stored value depends
on (the caller's input bytes and options) together with toolgen's version and the files of
the installed package, so editing or upgrading toolgen simply misses. Entries live outside
the project, under `$TOOLGEN_CACHE_DIR` (`off` turns the cache off), else
`$XDG_CACHE_HOME/toolgen` or `~/.cache/toolgen`. A missing, damaged or unwritable entry
is a miss, never an error. Past `MAX_ENTRIES` entries of one kind, the older half goes.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
from functools import cache
from pathlib import Path

from toolgen.version import __version__

ENV = "TOOLGEN_CACHE_DIR"
MAX_ENTRIES = 1024
"""Entries of one kind kept at most (each edit of an input adds one)."""
_PACKAGE = Path(__file__).resolve().parent
_WRITES = itertools.count()


def cache_root() -> Path | None:
    """Where entries live; None when the cache is turned off."""
    configured = os.environ.get(ENV)
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolgen"


@cache
def toolgen_fingerprint() -> str:
    """toolgen's identity for cache keys: its version, Python's, and the package's files
    (path, size, modification time), so an edited or reinstalled toolgen misses."""
    digest = hashlib.sha256(f"{__version__}\n{sys.version}\n".encode())
    for path in sorted(_PACKAGE.rglob("*")):  # code, templates, the targets' runtime text
        if path.is_file() and "__pycache__" not in path.parts:
            stat = path.stat()
            digest.update(
                f"{path.relative_to(_PACKAGE)} {stat.st_size} {stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()


def make_key(kind: str, *parts: bytes | str) -> str:
    """The key of `kind`'s entry for `parts` (each hashed with its length, so no two
    different sequences of parts share a key)."""
    digest = hashlib.sha256(f"{kind}\n{toolgen_fingerprint()}\n".encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(f"{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def load(kind: str, key: str) -> bytes | None:
    """The bytes stored under `key`, or None (a miss, the cache off, or unreadable)."""
    root = cache_root()
    if root is None:
        return None
    try:
        return (root / kind / key).read_bytes()
    except OSError:
        return None


def store(kind: str, key: str, data: bytes) -> None:
    """Store `data` under `key` (readers see the old entry or the new, never half of one);
    a cache that cannot be written is silently skipped."""
    root = cache_root()
    if root is None:
        return
    folder = root / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(folder / key, data)
        _prune(folder)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    """Keep the newer half of `folder`'s entries once there are more than `MAX_ENTRIES`."""
    entries = list(folder.iterdir())
    if len(entries) > MAX_ENTRIES:
        entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
        for entry in entries[: len(entries) - MAX_ENTRIES // 2]:
            entry.unlink(missing_ok=True)


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`; the
    temporary file never outlives a failure. OSError when it cannot be written."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}-{next(_WRITES)}.tmp")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
