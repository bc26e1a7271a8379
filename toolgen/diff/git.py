"""Read a path at a git revision (`git:REV:PATH`) without touching the working tree.

The files under PATH at REV are listed with `git ls-tree` and read with one
`git cat-file --batch` process, from the repository that contains the
working directory, then copied into a private temporary directory so the
ordinary loaders read them. Positions are then shown as git names them:
`REV:path/in/repo.yaml` (what `git show` takes).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from tempfile import TemporaryDirectory

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError

PREFIX = "git:"


@dataclass(frozen=True)
class GitPath:
    """`git:REV:PATH`: a revision and a path relative to the working directory."""

    rev: str
    path: str

    @classmethod
    def parse(cls, text: str) -> GitPath | None:
        """The git path `text` names, or None when it does not start with `git:`."""
        if not text.startswith(PREFIX):
            return None
        rev, sep, path = text[len(PREFIX) :].partition(":")
        if not sep or not rev:
            raise _error(text, "expected git:REV:PATH (e.g. git:origin/main:specs/shop)")
        return cls(rev, path or ".")

    def __str__(self) -> str:
        return f"{PREFIX}{self.rev}:{self.path}"


class NotAtRevision(SpecError):
    """PATH does not exist at REV, or REV is `HEAD` of a repository without commits."""


@dataclass(frozen=True)
class Checkout:
    """Files of a git path copied to `root`; `display` maps each copy to its git name."""

    root: Path
    """Where PATH was copied to (a file or a directory)."""
    display: dict[Path, str]


@contextmanager
def checkout(where: GitPath, cwd: Path | None = None) -> Iterator[Checkout]:
    """Copy the files of `where` into a temporary directory, for the time of the block."""
    cwd = cwd or Path.cwd()
    top = Path(_git(where, cwd, "rev-parse", "--show-toplevel").strip())
    prefix = _git(where, cwd, "rev-parse", "--show-prefix").strip()
    inside = PurePosixPath(os.path.normpath(PurePosixPath(prefix or ".") / where.path))
    if str(inside).startswith(".."):
        raise _error(str(where), f"{where.path!r} is outside the repository at {top}")
    try:
        _git(where, cwd, "rev-parse", "--verify", "--quiet", f"{where.rev}^{{commit}}")
    except SpecError as exc:
        if where.rev == "HEAD" and not _git(where, cwd, "rev-list", "-n1", "--all").strip():
            raise NotAtRevision(exc.diagnostics) from None  # no commit yet
        raise
    blobs = _list(where, top, str(inside))
    if not blobs:
        message = f"no such file or directory at revision {where.rev!r}"
        if prefix:  # PATH was read from a subdirectory: say where it was looked for
            message += f" (looked for {inside}: PATH is relative to the working directory)"
        raise NotAtRevision(_error(str(where), message).diagnostics)
    with TemporaryDirectory(prefix="toolgen-diff-") as tmp:
        base = Path(tmp).resolve()
        display: dict[Path, str] = {}
        for (name, _), content in zip(
            blobs, _read(where, top, [sha for _, sha in blobs]), strict=True
        ):
            target = base / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            display[target] = f"{where.rev}:{name}"
        yield Checkout(base / str(inside), display)


def _list(where: GitPath, top: Path, inside: str) -> list[tuple[str, str]]:
    """(path in the repository, blob id) of every file under `inside` at the revision."""
    spec = "." if inside == "." else inside
    out = _git(where, top, "ls-tree", "-r", "-z", "--full-tree", where.rev, "--", spec)
    found = []
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        _, kind, sha = meta.split()
        if kind == "blob":
            found.append((name, sha))
    return found


def _read(where: GitPath, top: Path, shas: list[str]) -> list[bytes]:
    """The contents of blobs, read by one `git cat-file --batch`."""
    result = _run(where, top, ["cat-file", "--batch"], "".join(f"{s}\n" for s in shas).encode())
    contents: list[bytes] = []
    pos = 0
    for _ in shas:
        header_end = result.index(b"\n", pos)
        size = int(result[pos:header_end].split()[2])
        start = header_end + 1
        contents.append(result[start : start + size])
        pos = start + size + 1
    return contents


def _git(where: GitPath, cwd: Path, *args: str) -> str:
    return _run(where, cwd, list(args), b"").decode("utf-8", "surrogateescape")


def _run(where: GitPath, cwd: Path, args: list[str], stdin: bytes) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise _error(str(where), f"cannot run git: {exc}") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = why[-1] if why else f"git {args[0]} failed"
        if args[:2] == ["rev-parse", "--verify"]:
            detail = f"unknown revision {where.rev!r}"
        raise _error(str(where), detail)
    return done.stdout


def _error(where: str, message: str) -> SpecError:
    return SpecError([Diagnostic(ErrorCode.IO, message, Location(where, 1, 1))])
