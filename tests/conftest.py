"""Shared fixtures: paths to the repo's data and a spec-set writer."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolgen.spec.ir import Annotations, Origin, Server, Tool, ToolSet
from toolgen.spec.positions import SourceFile

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
"""Shared test data and helpers stay here; tests live in `unit/<feature>/` and `acceptance/`."""
DATA = TESTS / "data"
CORPUS = DATA / "corpus" / "github-mcp-server"
"""117 real tool definitions of the GitHub MCP server, vendored (source in its README.md)."""
SPECS = ROOT / "specs"
GENERATED = ROOT / "generated"

os.environ.setdefault("TOOLGEN_CACHE_DIR", tempfile.mkdtemp(prefix="toolgen-test-cache-"))
"""toolgen caches results (`toolgen.cache`): never in the user's ~/.cache."""

signal.signal(signal.SIGINT, signal.default_int_handler)
"""Commands the tests start take Ctrl-C as they would from a terminal, also when the tests
themselves were started in the background (`cmd &` in a script ignores SIGINT, and the
children of this process would inherit that)."""

VALID_SERVER = "toolgen: 1\nserver: {name: demo, version: '1.0.0'}\n"
UNSAFE_LISTINGS: list[tuple[list[Any], bool]] = [
    ([{"readOnlyHint": True}], False),
    ([{"readOnlyHint": False}], True),
    ([{"readOnlyHint": "true"}], True),
    ([None], True),
    ([{"readOnlyHint": True}, {"readOnlyHint": False, "destructiveHint": True}], True),
    ([{"destructiveHint": False}], False),
]
"""How a server lists a tool its spec calls read-only (one annotations object per listing
entry), and whether a typed client must then refuse to call it."""


@pytest.fixture
def write_specs(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write {filename: text} into a fresh spec directory and return it."""

    def write(files: dict[str, str], *, raw: bool = False) -> Path:
        root = tmp_path / "specs"
        root.mkdir(exist_ok=True)
        for name, text in files.items():
            prefix = VALID_SERVER if name == "main.yaml" and not raw else ""
            (root / name).write_text(prefix + text, encoding="utf-8")
        return root

    return write


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="Rewrite the golden files under tests/golden/expected from the current output.",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def assert_matches_goldens(files: dict[str, str], directory: Path, update: bool, what: str) -> None:
    """`files` (relative path -> text) are exactly the files below `directory`; with
    `--update-goldens` they become them first (files no longer printed are removed)."""
    if update:
        directory.mkdir(parents=True, exist_ok=True)
        for old in (p for p in directory.rglob("*") if p.is_file()):
            old.unlink()
        for rel, text in files.items():
            (directory / rel).parent.mkdir(parents=True, exist_ok=True)
            (directory / rel).write_text(text, encoding="utf-8")
    expected = {rel: data.decode("utf-8") for rel, data in snapshot(directory).items()}
    assert files == expected, f"the {what} differs from its goldens (run with --update-goldens)"


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below `directory`, by relative path: to compare trees byte for byte."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the repo's notes specs in a fresh project directory."""
    shutil.copytree(SPECS / "notes", tmp_path / "specs" / "notes")
    return tmp_path


def wait_until(condition: Callable[[], bool], seconds: float = 10.0, step: float = 0.01) -> bool:
    """Whether `condition()` came true within `seconds` (asked every `step` seconds)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def toolset_of(*tools: tuple[str, dict[str, Any], dict[str, Any] | None]) -> ToolSet:
    """A ToolSet built straight from (name, input, output) schemas, with a dummy origin."""
    origin = Origin(SourceFile(Path("dummy.json"), "dummy.json", {}, {}, {}), ())
    return ToolSet(
        Server("dummy", "1.0.0"),
        tuple(
            Tool(name, None, None, Annotations(), schema, output, (), {}, origin)
            for name, schema, output in tools
        ),
    )


PROCESS_GUARD = 600.0
"""Seconds before a hung child process fails a test: a guard, not a timing assertion."""


def run_process(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` to its end: its exit code and its output as text."""
    return subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=PROCESS_GUARD,
        check=False,
        cwd=cwd,
        env=env,
    )


def toolgen_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the toolgen command line of this checkout."""
    return run_process([sys.executable, "-m", "toolgen", *args], cwd=cwd)


def import_module(code: str, directory: Path, name: str) -> ModuleType:
    """Write `code` as `<name>.py` under `directory` and import it."""
    path = directory / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves forward references through sys.modules
    spec.loader.exec_module(module)
    return module
