"""The Rust target's test workspace: one cargo workspace, built once per run outside the repo.

`tests/rust/` holds the workspace's own files (its `Cargo.toml` naming every member, the
committed `Cargo.lock`, a notes server and client written on the printed `notes` crate and the
compile-fail crate). The crates `toolgen build --target rust` prints (one per vector set, and
one of a real server's imported spec set) and the tests' binaries printed by the Rust row of
the shared vectors (`targets_support.RustRow`) join them, with the benchmark's hand-written
rmcp server. Everything is laid out in a per-user cache folder, files written only when they
change, and built with `--locked` in debug; the target folder and cargo's registry cache stay
between runs, so a second run only re-checks. Nothing is vendored: cargo fetches from
crates.io the first time. The docs' Rust page builds its crate with the same lock and target
folder (`docs_cargo.py`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import ROOT, TESTS

SOURCES = TESTS / "rust"
CONTENDER = ROOT / "benchmarks" / "contenders" / "rmcp_notes"
GUARD = 1800.0
"""Seconds before a hung cargo fails: a guard (a cold build fetches and compiles ~150 crates)."""


def cache_dir() -> Path:
    """Where the workspace and its target folder live: the user's cache, never the repo."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolgen" / "rust"


WORKSPACE = cache_dir() / "workspace"
TARGET = cache_dir() / "target"
DEBUG = TARGET / "debug"
RELEASE = TARGET / "release"
TIMES: dict[str, float] = {}
"""Seconds each cargo command of this run took (`build`, `clippy`, ...): the suite prints them."""


def missing() -> str | None:
    """Why the Rust tests cannot run (None: cargo, clippy and rustfmt are there)."""
    for tool, how in (("cargo", "rustup"), ("cargo-clippy", "rustup component add clippy"),
                      ("rustfmt", "rustup component add rustfmt")):  # fmt: skip
        if shutil.which(tool) is None:
            return f"{tool} is not installed: the Rust target's tests need it ({how})"
    return None


def require() -> None:
    """Skip the calling test with the reason when a Rust tool is missing (`.ci/run` installs
    them, so CI never skips)."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)


def cargo(*args: str, timed: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run cargo in the workspace with its target folder in the cache (its time kept under
    `timed`)."""
    env = {**os.environ, "CARGO_TARGET_DIR": str(TARGET), "CARGO_TERM_COLOR": "never"}
    started = time.perf_counter()
    done = subprocess.run(
        ["nice", "cargo", *args],
        cwd=WORKSPACE,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )
    if timed:
        TIMES[timed] = time.perf_counter() - started
    return done


def write(path: Path, data: bytes | str) -> None:
    """Write `data` unless `path` already holds it (cargo rebuilds on a newer mtime)."""
    data = data.encode() if isinstance(data, str) else data
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def copy_tree(source: Path, target: Path, parts: Iterable[str] = ()) -> None:
    """Copy the files under `source` (only its `parts` when given) to `target`, each written
    only when it changed; files under `target` that `source` lacks are removed."""
    wanted = {}
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if not path.is_file() or "target" in relative.parts:
            continue
        if parts and relative.parts[0] not in parts:
            continue
        wanted[relative] = path
        write(target / relative, path.read_bytes())
    for path in sorted(target.rglob("*")) if target.exists() else []:
        relative = path.relative_to(target)
        if path.is_file() and relative not in wanted and (not parts or relative.parts[0] in parts):
            path.unlink()


def assemble_fixed() -> None:
    """The workspace's own files and the benchmark's contender."""
    copy_tree(SOURCES, WORKSPACE, ("Cargo.toml", "Cargo.lock", "notes_server", "notes_client",
                                   "compile_fail", "stand_in_server.py"))  # fmt: skip
    copy_tree(CONTENDER, WORKSPACE / "rmcp_notes")


def add_crate(built: Path, name: str) -> None:
    """A crate `toolgen build` wrote (`built`) as the workspace member `name`: its manifest,
    sources and listings."""
    copy_tree(built, WORKSPACE / name, ("Cargo.toml", "src", "tools"))
