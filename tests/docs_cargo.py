"""`cargo` as the docs run it: `docs_cargo.py CARGO LOCK TARGET ARGS...` (docs_support puts it on
a page's PATH, the real cargo and the Rust tests' files filled in).

A command that builds (`build`, `run`, `check`, `test`) builds the crate with the Rust tests'
committed `Cargo.lock` and in their target folder, so a page's fresh crate reuses what they
compiled instead of building rmcp from scratch:

- the crate's first build copies `LOCK` in and re-locks only the crate itself (`cargo update
  --workspace`), so every crate from the registry keeps the version the tests pin; a crate
  `LOCK` does not pin is refused;
- `target/` is a link to `TARGET`;
- the crates are fetched offline from cargo's cache, online only when it lacks one;
- cargo then runs with `--locked --offline`, niced.

Every other command (`new`, ...) is cargo's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

BUILDS = frozenset({"build", "run", "check", "test"})


def registry(lock: Path) -> set[tuple[str, str]]:
    """The crates from a registry that `lock` pins: (name, version)."""
    packages = tomllib.loads(lock.read_text(encoding="utf-8")).get("package", [])
    return {(p["name"], p["version"]) for p in packages if "source" in p}


def offline_first(cargo: str, *args: str, cwd: Path) -> None:
    """`cargo ARGS --offline`, and online when cargo's cache lacks something."""
    done = subprocess.run([cargo, *args, "--offline"], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        subprocess.run([cargo, *args], cwd=cwd, check=True)


def main(cargo: str, lock: Path, target: Path, args: list[str]) -> None:
    if not args or args[0] not in BUILDS:
        os.execv(cargo, [cargo, *args])
    located = subprocess.run(
        [cargo, "locate-project", "--workspace", "--message-format", "plain"],
        capture_output=True,
        text=True,
        check=True,
    )
    root = Path(located.stdout.strip()).parent
    if not (root / "Cargo.lock").exists():
        shutil.copyfile(lock, root / "Cargo.lock")
        offline_first(cargo, "update", "--workspace", "--quiet", cwd=root)
        unpinned = registry(root / "Cargo.lock") - registry(lock)
        if unpinned:
            sys.exit(f"docs_cargo: {lock} does not pin {sorted(unpinned)}: add them to the tests")
    if not (root / "target").exists():
        (root / "target").symlink_to(target, target_is_directory=True)
    offline_first(cargo, "fetch", "--locked", "--quiet", cwd=root)
    os.nice(10)
    os.execv(cargo, [cargo, args[0], "--locked", "--offline", *args[1:]])


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
