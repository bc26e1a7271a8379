"""The commit of a build: a journal that makes it complete or invisible, whenever it stops.

A build stages every new file as a temporary sibling (`.NAME.toolgen-XXXX.tmp`),
then writes the journal `OUT/.toolgen-journal.json` (atomically: it exists
whole or not at all) listing every rename and delete, then carries them out
and removes the journal. The journal is the decision: a process killed
before it is written changed nothing but staging files, which the next run
deletes; one killed after it has a journal that the next `build` completes
(every step is idempotent), and that `check` reports as unfinished. So after
a kill at any point, the next build converges to exactly the clean result.
This protects against a killed process, not a power cut (nothing is fsynced).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

JOURNAL: Final = ".toolgen-journal.json"
STAGING_MARK: Final = ".toolgen-"
STAGING_SUFFIX: Final = ".tmp"


def _file_mode() -> int:
    """The mode `open(path, "w")` would give a new file: 0o666 less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE: Final = _file_mode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stage(target: Path, data: bytes) -> Path:
    """Write `data` to a new staging file beside `target`; its path."""
    fd, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}{STAGING_MARK}", suffix=STAGING_SUFFIX
    )
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(name, FILE_MODE)  # mkstemp makes owner-only files
    return target.parent / os.path.basename(name)  # mkstemp answers an absolute path


@dataclass
class Commit:
    """What makes a build's staged files the output: each path relative to OUT."""

    renames: list[tuple[str, str]] = field(default_factory=list)
    """(staging file, target), in order: every generated file, manifests last."""
    creates: list[tuple[str, str]] = field(default_factory=list)
    """(staging file, target) put in place only when the target does not exist (scaffolds)."""
    deletes: list[tuple[str, str]] = field(default_factory=list)
    """(target, sha256 it must still have): files toolgen wrote and no longer generates."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "generator": "toolgen",
                "renames": self.renames,
                "creates": self.creates,
                "deletes": self.deletes,
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> Commit:
        data: Any = json.loads(text)
        if not isinstance(data, dict) or data.get("generator") != "toolgen":
            raise ValueError("not a toolgen journal")
        return cls(
            *(
                [(str(a), str(b)) for a, b in data.get(key, [])]
                for key in ("renames", "creates", "deletes")
            )
        )


def commit(out: Path, plan: Commit) -> None:
    """Decide (write the journal), carry out, and forget (remove the journal)."""
    journal = out / JOURNAL
    out.mkdir(parents=True, exist_ok=True)
    staged = stage(journal, plan.to_json().encode())
    os.replace(staged, journal)  # the decision: from here on the commit is completed
    _carry_out(out, plan)
    journal.unlink()


def recover(out: Path) -> bool:
    """Finish what a killed build decided and remove what an undecided one staged.

    True when there was anything to do. Safe to call any time no build is running
    on `out`; never touches a file that is not toolgen's.
    """
    journal = out / JOURNAL
    did = False
    try:
        text = journal.read_text(encoding="utf-8")
    except OSError:
        text = None
    if text is not None:
        with contextlib.suppress(ValueError, TypeError):
            _carry_out(out, Commit.from_json(text))
        journal.unlink()
        did = True
    for path in staging_files(out):
        with contextlib.suppress(OSError):
            path.unlink()
            did = True
    return did


def unfinished(out: Path) -> bool:
    """Whether a build on `out` was killed after it decided its commit."""
    return (out / JOURNAL).is_file()


def staging_files(out: Path) -> list[Path]:
    """Staging files left under `out` by builds that were killed (the cache is not searched)."""
    if not out.is_dir():
        return []
    return [
        path
        for path in out.rglob(f".*{STAGING_MARK}*{STAGING_SUFFIX}")
        if path.is_file() and ".toolgen-cache" not in path.relative_to(out).parts
    ]


def _carry_out(out: Path, plan: Commit) -> None:
    """Every step of the commit; each one idempotent, so a second run finishes the first."""
    for staged, target in plan.creates:
        source = out / staged
        if source.exists():
            if (out / target).exists():  # appeared meanwhile: it is the user's
                source.unlink()
            else:
                os.replace(source, out / target)
    for staged, target in plan.renames:
        source = out / staged
        if source.exists():
            os.replace(source, out / target)
    for target, digest in plan.deletes:
        path = out / target
        with contextlib.suppress(OSError):
            if sha256(path.read_bytes()) == digest:
                path.unlink()
    _remove_empty_dirs(out, {(out / target).parent for target, _ in plan.deletes})


def _remove_empty_dirs(out: Path, directories: set[Path]) -> None:
    """Remove directories under `out` that the deletes left empty (deepest first)."""
    for directory in sorted(directories, key=lambda d: len(d.parts), reverse=True):
        if directory != out:
            with contextlib.suppress(OSError):  # not empty: someone's files are in it
                directory.rmdir()
