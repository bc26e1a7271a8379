"""The serving contenders: how to start each one, and whether it can run here.

A contender is a command line that starts an MCP stdio server for a spec set
(3 tools or 500). Each is checked before the run; one that is not available
(a toolgen command not built yet, FastMCP not installable) is skipped with a
note in the results instead of failing the run.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTENDERS = HERE / "contenders"
BIN = Path(sys.executable).parent
FASTMCP_VENV = HERE / ".work" / "fastmcp-venv"


@dataclass(frozen=True)
class ServeInputs:
    """The spec sets and their tools/list definitions (see make_specs.py)."""

    small: Path
    large: Path
    small_defs: Path
    large_defs: Path
    stub_out: Path
    """Where `toolgen build` writes the generated stub packages."""


@dataclass(frozen=True)
class Contender:
    key: str
    label: str
    toolgen: bool
    argv: Callable[[ServeInputs, bool], list[str]]
    """(inputs, large) -> the command line of the server."""
    check: Callable[[ServeInputs], str | None]
    """None when the contender can run, else why not."""


def _help_has(args: list[str], *needles: str) -> str | None:
    try:
        proc = subprocess.run(
            [str(BIN / "toolgen"), *args, "--help"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`toolgen {' '.join(args)}` did not run: {exc}"
    if proc.returncode != 0:
        return f"`toolgen {' '.join(args)}` is not available yet"
    missing = [n for n in needles if n not in proc.stdout]
    return f"`toolgen {' '.join(args)}` has no {', '.join(missing)}" if missing else None


def _always(inputs: ServeInputs) -> None:
    return None


def _python(script: str) -> Callable[[ServeInputs, bool], list[str]]:
    def argv(inputs: ServeInputs, large: bool) -> list[str]:
        defs = inputs.large_defs if large else inputs.small_defs
        return [sys.executable, str(CONTENDERS / script), str(defs)]

    return argv


def _toolgen_serve(*options: str) -> Callable[[ServeInputs, bool], list[str]]:
    def argv(inputs: ServeInputs, large: bool) -> list[str]:
        specs = inputs.large if large else inputs.small
        return [str(BIN / "toolgen"), "serve", *options, str(specs)]

    return argv


HANDLERS_REF = f"{CONTENDERS / 'toolgen_handlers.py'}:Handlers"


def _fastmcp_python() -> Path:
    return FASTMCP_VENV / "bin" / "python"


def _fastmcp_argv(inputs: ServeInputs, large: bool) -> list[str]:
    defs = inputs.large_defs if large else inputs.small_defs
    return [str(_fastmcp_python()), str(CONTENDERS / "fastmcp_server.py"), str(defs)]


def _fastmcp_check(inputs: ServeInputs) -> str | None:
    if not _fastmcp_python().exists():
        return f"FastMCP venv not found at {FASTMCP_VENV} (a full run creates it)"
    proc = subprocess.run(
        [str(_fastmcp_python()), "-c", "import fastmcp"], capture_output=True, text=True
    )
    return None if proc.returncode == 0 else "fastmcp does not import in its venv"


def install_fastmcp() -> str | None:
    """Create the separate FastMCP venv (it pins its own mcp); None on success, else why not.

    uvicorn runs its app on uvloop when uvloop is installed (`loop="auto"`): toolgen
    (the `http` extra) and the SDK's MCPServer share this venv and get it, so FastMCP's
    venv gets it too, and every HTTP contender runs on the same event loop."""
    pip = str(FASTMCP_VENV / "bin" / "pip")
    try:
        if not _fastmcp_python().exists():
            subprocess.run(
                [sys.executable, "-m", "venv", str(FASTMCP_VENV)], check=True, capture_output=True
            )
            subprocess.run(
                [pip, "install", "-q", "fastmcp"], check=True, capture_output=True, timeout=600
            )
        if importlib.util.find_spec("uvloop") is not None and not _fastmcp_has("uvloop"):
            subprocess.run(
                [pip, "install", "-q", "uvloop"], check=True, capture_output=True, timeout=600
            )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"FastMCP could not be installed: {exc}"
    return None


def _fastmcp_has(module: str) -> bool:
    found = subprocess.run(
        [str(_fastmcp_python()), "-c", f"import {module}"], capture_output=True, timeout=60
    )
    return found.returncode == 0


def _stub_package(inputs: ServeInputs, large: bool) -> Path:
    return inputs.stub_out / ("large" if large else "small") / "bench_serve"


def _stub_argv(inputs: ServeInputs, large: bool) -> list[str]:
    package = _stub_package(inputs, large)
    return [sys.executable, str(CONTENDERS / "toolgen_stub.py"), str(package)]


def _stub_check(inputs: ServeInputs) -> str | None:
    """The generated stub contender needs `toolgen build` to emit a runnable server module."""
    for large in (False, True):
        specs = inputs.large if large else inputs.small
        out = _stub_package(inputs, large).parent
        shutil.rmtree(out, ignore_errors=True)  # fresh: a manifest may predate the stub emitter
        proc = subprocess.run(
            [str(BIN / "toolgen"), "build", "-q", str(specs), "-o", str(out)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            return f"`toolgen build` of the serve spec set failed: {proc.stderr.strip()[-300:]}"
    proc = subprocess.run(
        [
            sys.executable,
            str(CONTENDERS / "toolgen_stub.py"),
            "--check",
            str(_stub_package(inputs, False)),
        ],
        capture_output=True,
        text=True,
    )
    return None if proc.returncode == 0 else proc.stdout.strip() or proc.stderr.strip()[-300:]


CONTENDER_LIST: tuple[Contender, ...] = (
    Contender(
        "toolgen_mock",
        "toolgen serve --mock",
        True,
        _toolgen_serve("--mock"),
        lambda inputs: _help_has(["serve"], "--mock"),
    ),
    Contender(
        "toolgen_handlers",
        "toolgen serve --handlers",
        True,
        _toolgen_serve("--handlers", HANDLERS_REF),
        lambda inputs: _help_has(["serve"], "--handlers"),
    ),
    Contender(
        "toolgen_inline",
        "toolgen serve --handlers --inline-sync",
        True,
        _toolgen_serve("--handlers", HANDLERS_REF, "--inline-sync"),
        lambda inputs: _help_has(["serve"], "--handlers", "--inline-sync"),
    ),
    Contender("toolgen_stub", "toolgen generated stub", True, _stub_argv, _stub_check),
    Contender("mcpserver", "SDK MCPServer", False, _python("sdk_mcpserver.py"), _always),
    Contender("lowlevel", "SDK low-level Server", False, _python("sdk_lowlevel.py"), _always),
    Contender("fastmcp", "FastMCP", False, _fastmcp_argv, _fastmcp_check),
    Contender("handwritten", "hand-written loop", False, _python("handwritten.py"), _always),
)
