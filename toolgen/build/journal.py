"""The commit of a build: complete or invisible, whenever it stops; one build at a time.

A build writes every new file into `OUT/.toolgen-staging/` (at its path under OUT),
then the journal `OUT/.toolgen-staging/journal.json` (by a rename: whole or absent)
naming the files to move into place and those to delete, then moves and deletes, and
removes the staging directory. The journal is the decision: a build killed before it
leaves only staging, which the next one removes; one killed after it leaves a journal
that the next build carries out again (every step is idempotent) and that `check`
reports. Everything lives in the directory being written, and `locked` keeps a second
build out of it meanwhile. This protects against a killed process, not a power cut
(nothing is fsynced).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import display_path

try:
    import fcntl
except ImportError:  # Windows: no flock, so builds into one directory are not kept apart
    fcntl = None  # type: ignore[assignment]

STAGING: Final = ".toolgen-staging"
JOURNAL: Final = "journal.json"
LOCK_WAIT: Final = 10.0
"""Seconds a build waits for another one writing the same directory before it refuses."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Commit:
    """What a build changes under OUT, each path relative to it."""

    writes: dict[str, bytes] = field(default_factory=dict)
    """Files to put in place, in order (manifests last)."""
    creates: dict[str, bytes] = field(default_factory=dict)
    """Files put in place only when absent (scaffolds)."""
    deletes: dict[str, str] = field(default_factory=dict)
    """Files toolgen wrote and no longer generates, with the sha256 they must still have."""


@contextlib.contextmanager
def locked(out: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold `out` (created when missing) for this process alone: a build already writing it
    is waited for up to `wait` seconds, then refused with an error located at `out`. The
    lock is the directory's own (`flock`), so a killed build never leaves one behind."""
    out.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    handle = os.open(out, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SpecError([_busy(out, wait)]) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(handle)  # releases the lock


def _busy(out: Path, wait: float) -> Diagnostic:
    return Diagnostic(
        ErrorCode.IO,
        f"another toolgen process is writing this directory (waited {wait:g} s); run the "
        "build again when it has finished",
        Location(display_path(out), 1, 1),
    )


def commit(out: Path, change: Commit) -> None:
    """Stage, decide (write the journal), carry out, forget. Call while `locked(out)`."""
    staging = out / STAGING
    for rel, data in {**change.writes, **change.creates}.items():
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    journal = {
        "generator": "toolgen",
        "writes": list(change.writes),
        "creates": list(change.creates),
        "deletes": sorted(change.deletes.items()),
    }
    decided = staging / JOURNAL
    undecided = decided.with_suffix(".tmp")
    staging.mkdir(parents=True, exist_ok=True)
    undecided.write_text(json.dumps(journal, indent=1), encoding="utf-8")
    os.replace(undecided, decided)  # the decision: from here on the commit is completed
    _carry_out(out, journal)
    shutil.rmtree(staging)


def recover(out: Path) -> bool:
    """Finish what a killed build decided, drop what an undecided one staged; True when there
    was anything to do. Call while `locked(out)`; never touches a file that is not toolgen's."""
    staging = out / STAGING
    if not staging.is_dir():
        return False
    try:
        decided = json.loads((staging / JOURNAL).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        decided = None  # killed before the decision: nothing happened but staging
    if isinstance(decided, dict) and decided.get("generator") == "toolgen":
        _carry_out(out, decided)  # an OSError here keeps the journal for the next build
    shutil.rmtree(staging, ignore_errors=True)
    return True


def unfinished(out: Path) -> bool:
    """Whether a build on `out` was killed after it decided its commit."""
    return (out / STAGING / JOURNAL).is_file()


def _carry_out(out: Path, journal: Mapping[str, Any]) -> None:
    """Every step of the commit; each one idempotent, so a second run finishes the first."""
    staging = out / STAGING
    for rel in journal["creates"]:
        source, target = staging / rel, out / rel
        if source.exists() and not target.exists():  # one that appeared meanwhile is the user's
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    for rel in journal["writes"]:
        source, target = staging / rel, out / rel
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    for rel, digest in journal["deletes"]:
        target = out / rel
        with contextlib.suppress(OSError):
            if sha256(target.read_bytes()) == digest:
                target.unlink()
    parents = {(out / rel).parent for rel, _ in journal["deletes"]}
    for directory in sorted(parents, key=lambda d: len(d.parts), reverse=True):
        if directory != out:
            with contextlib.suppress(OSError):  # not empty: someone's files are in it
                directory.rmdir()
