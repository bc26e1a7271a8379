"""The only module that writes generated files: all-or-nothing, never touching others' files.

A build renders everything in memory first; the writer then compares it with
the disk through each package's manifest (`.toolgen-manifest.json`, content
hashes of what toolgen wrote last time). It refuses to overwrite a file that
toolgen did not write, deletes only files its manifest lists (and only when
unchanged since), writes every new file to a temporary sibling first and
renames them into place only when all writes succeeded.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.source import display_path

MANIFEST = ".toolgen-manifest.json"


def _file_mode() -> int:
    """The mode `open(path, "w")` would give a new file: 0o666 less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class PackageOutput:
    """Everything one spec set renders: files relative to `OUT/<package>/`."""

    package: str
    files: Mapping[str, str]
    input_hash: str
    scaffolds: Mapping[str, str] = field(default_factory=dict)
    """Files for the user, relative to OUT: written once when missing, never listed,
    overwritten, deleted or diffed (e.g. the handler scaffold)."""

    def manifest_text(self) -> str:
        """The manifest recording what was generated from which input (deterministic)."""
        hashes = {path: sha256(text.encode()) for path, text in sorted(self.files.items())}
        return (
            json.dumps(
                {"generator": "toolgen", "input": self.input_hash, "files": hashes}, indent=2
            )
            + "\n"
        )

    def all_files(self) -> dict[str, str]:
        return {**self.files, MANIFEST: self.manifest_text()}


def read_manifest(package_dir: Path) -> dict[str, Any] | None:
    """`{"input": ..., "files": {...}}` of the last build, or None."""
    try:
        data = json.loads((package_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return None
    return data


def is_up_to_date(package_dir: Path, input_hash: str) -> bool:
    """Whether the package was built from this exact input and nobody changed its files."""
    manifest = read_manifest(package_dir)
    if manifest is None or manifest.get("input") != input_hash:
        return False
    files: dict[str, str] = manifest["files"]
    for rel, digest in files.items():
        try:
            if sha256((package_dir / rel).read_bytes()) != digest:
                return False
        except OSError:
            return False
    return True


def find_fresh(out: Path, input_hash: str) -> str | None:
    """The package under `out` built from exactly this input and untouched since, if any."""
    try:
        candidates = sorted(p for p in out.iterdir() if (p / MANIFEST).is_file())
    except OSError:
        return None
    for package_dir in candidates:
        if is_up_to_date(package_dir, input_hash):
            return package_dir.name
    return None


@dataclass
class Plan:
    """What a build changes on disk."""

    writes: dict[Path, bytes] = field(default_factory=dict)
    creates: dict[Path, bytes] = field(default_factory=dict)
    """Files written only if they do not exist yet (scaffolds)."""
    deletes: list[Path] = field(default_factory=list)
    unchanged: int = 0
    conflicts: list[Diagnostic] = field(default_factory=list)


def plan(out: Path, outputs: Sequence[PackageOutput]) -> Plan:
    """Compare rendered output with the disk; report files we must not overwrite."""
    result = Plan()
    for output in outputs:
        package_dir = out / output.package
        manifest = read_manifest(package_dir)
        owned: dict[str, str] = manifest["files"] if manifest else {}
        rendered = output.all_files()
        for rel, text in rendered.items():
            target = package_dir / rel
            data = text.encode()
            existing = _read(target)
            if existing == data:
                result.unchanged += 1
                continue
            if existing is not None and rel != MANIFEST and rel not in owned:
                result.conflicts.append(
                    Diagnostic(
                        ErrorCode.IO,
                        "refusing to overwrite a file toolgen did not generate; move it away or choose another output directory",
                        Location(display_path(target), 1, 1),
                    )
                )
                continue
            result.writes[target] = data
        for rel, digest in owned.items():
            target = package_dir / rel
            existing = _read(target)
            if rel not in rendered and existing is not None and sha256(existing) == digest:
                result.deletes.append(target)
        for rel, text in output.scaffolds.items():
            if not (out / rel).exists():
                result.creates[out / rel] = text.encode()
    return result


def apply(plan: Plan) -> None:
    """Carry out a plan: all temporary files first, then renames; nothing half-written."""
    if plan.conflicts:
        raise SpecError(plan.conflicts)
    staged: list[tuple[Path, Path]] = []
    created: list[Path] = []
    try:
        for target, data in [*plan.writes.items(), *plan.creates.items()]:
            created.extend(_make_dirs(target.parent))
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(name, FILE_MODE)  # mkstemp makes owner-only files
            staged.append((Path(name), target))
    except OSError as exc:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                temporary.unlink()
        for directory in reversed(created):
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise SpecError([Diagnostic(ErrorCode.IO, f"cannot write output: {exc}")]) from None
    # Manifests last: if anything fails before, the next build sees stale hashes and rewrites.
    staged.sort(key=lambda pair: pair[1].name == MANIFEST)
    for tmp, target in staged:
        if target in plan.creates and target.exists():  # appeared meanwhile: it is the user's
            tmp.unlink()
            continue
        os.replace(tmp, target)
    for target in plan.deletes:
        with contextlib.suppress(OSError):
            target.unlink()


def _make_dirs(directory: Path) -> list[Path]:
    """Create `directory` and missing parents; return those created, outermost first."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir()
    return list(reversed(missing))


def drift(out: Path, outputs: Sequence[PackageOutput]) -> str:
    """A unified diff from the disk to the rendered output; empty when fresh."""
    chunks: list[str] = []
    for output in outputs:
        package_dir = out / output.package
        rendered = output.all_files()
        manifest = read_manifest(package_dir)
        stale = [rel for rel in (manifest or {}).get("files", {}) if rel not in rendered]
        for rel in sorted(rendered):
            chunks.append(_diff(package_dir / rel, rendered[rel]))
        for rel in sorted(stale):
            chunks.append(_diff(package_dir / rel, None))
    return "".join(chunks)


def _diff(target: Path, expected: str | None) -> str:
    existing = _read(target)
    current = existing.decode("utf-8", "replace") if existing is not None else None
    if current == expected:
        return ""
    name = display_path(target)
    return (
        "".join(
            difflib.unified_diff(
                (current or "").splitlines(keepends=True),
                (expected or "").splitlines(keepends=True),
                fromfile=name if current is not None else "/dev/null",
                tofile=name if expected is not None else "/dev/null",
            )
        )
        or f"--- {name}\n+++ {name}\n(differs)\n"
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
