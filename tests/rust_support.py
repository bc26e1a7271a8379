"""The Rust target's test workspace, built once per run outside the repository.

`tests/rust/` holds the workspace's own files: the crate the Rust printer must produce for
`specs/notes` (`notes/`, hand-written for now), a server and a client written on it. It is
assembled in a per-user cache folder with what a build puts beside that crate (the Python
build's `tools/<revision>.json` and `schemas/`), the runtime every generated crate carries
(`src/runtime.rs`) and the benchmark's hand-written rmcp server, then built with the
committed `Cargo.lock`. Files are written only when they change, and the target folder and
cargo's registry cache stay between runs, so a second run only re-checks. Nothing is
vendored: cargo fetches from crates.io the first time.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, SPECS, TESTS

SOURCES = TESTS / "rust"
RUNTIME = ROOT / "toolgen" / "build" / "rust" / "runtime.rs"
CONTENDER = ROOT / "benchmarks" / "contenders" / "rmcp_notes"
REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
"""The revisions a build writes listings for: those the generated server offers."""
GUARD = 1800.0
"""Seconds before a hung cargo fails: a guard (a cold build fetches and compiles ~150 crates)."""


def cache_dir() -> Path:
    """Where the workspace and its target folder live: the user's cache, never the repo."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolgen" / "rust"


WORKSPACE = cache_dir() / "workspace"
TARGET = cache_dir() / "target"
BIN = TARGET / "release"


def missing() -> str | None:
    """Why the Rust tests cannot run (None: cargo is there)."""
    if shutil.which("cargo") is None:
        return "cargo is not installed: the Rust target's tests need a Rust toolchain (rustup)"
    return None


def require() -> None:
    """Skip the calling test with the reason when cargo is missing."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)


def cargo(*args: str) -> subprocess.CompletedProcess[str]:
    """Run cargo in the workspace with its target folder in the cache."""
    env = {**os.environ, "CARGO_TARGET_DIR": str(TARGET), "CARGO_TERM_COLOR": "never"}
    return subprocess.run(
        ["nice", "cargo", *args],
        cwd=WORKSPACE,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )


def _write(path: Path, data: bytes) -> None:
    """Write `data` unless `path` already holds it (cargo rebuilds on a newer mtime)."""
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _copy_tree(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_file() and "target" not in path.relative_to(source).parts:
            _write(target / path.relative_to(source), path.read_bytes())


def assemble() -> Path:
    """Lay the workspace out in the cache (only what changed) and return it."""
    _copy_tree(SOURCES, WORKSPACE)
    _copy_tree(CONTENDER, WORKSPACE / "rmcp_notes")
    crate = WORKSPACE / "notes"
    _write(crate / "src" / "runtime.rs", RUNTIME.read_bytes())
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [sys.executable, "-m", "toolgen", "build", str(SPECS / "notes"), "-o", out, "-q"],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        package = Path(out) / "notes"
        for revision in REVISIONS:
            name = f"tools/{revision}.json"
            _write(crate / name, (package / name).read_bytes())
        for schema in sorted((package / "schemas").glob("*.json")):
            _write(crate / "schemas" / schema.name, schema.read_bytes())
    return WORKSPACE


@functools.cache
def build() -> Path:
    """Assemble and build every binary of the workspace (release), once per run; the folder
    holding them."""
    require()
    assemble()
    done = cargo("build", "--release", "--locked", "--workspace")
    assert done.returncode == 0, done.stderr[-6000:]
    return BIN
