"""How to add an extra to the toolgen that is running: the command a message prints when a
feature's optional dependencies are missing, as the user can type it where they are.

toolgen is installed from a clone, a wheel, a git URL (or, once published, an index), with
pip into an environment or with pipx as a command of its own; the installer records where
from (PEP 610 `direct_url.json`). `pip install 'toolgen[verify]'` works only from an index,
so the hint names the same source again, and the installer of this environment.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse


def install_hint(extra: str) -> str:
    """The shell command that adds `extra` to this toolgen (`pip install ...`, or
    `pipx runpip NAME install ...` for a pipx install)."""
    try:
        recorded = metadata.distribution("toolgen").read_text("direct_url.json")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        recorded = None
    origin = json.loads(recorded) if recorded else None
    return command(requirement(extra, origin), Path(sys.prefix), Path(sys.executable))


def requirement(extra: str, origin: dict[str, Any] | None) -> list[str]:
    """pip's arguments for toolgen with `extra`, from where it was installed (`origin`:
    the parsed `direct_url.json`, None for an index)."""
    url = origin.get("url") if origin else None
    if not isinstance(url, str) or origin is None:
        return [f"toolgen[{extra}]"]
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("requested_revision") or vcs.get("commit_id")
        return [
            f"toolgen[{extra}] @ {vcs.get('vcs', 'git')}+{url}" + (f"@{commit}" if commit else "")
        ]
    parsed = urlparse(url)
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        editable = isinstance(origin.get("dir_info"), dict) and origin["dir_info"].get("editable")
        return ["-e", f"{path}[{extra}]"] if editable else [f"{path}[{extra}]"]
    return [f"toolgen[{extra}] @ {url}"]


def command(arguments: list[str], prefix: Path, executable: Path) -> str:
    """`arguments` as an install into the environment at `prefix`: through pipx when pipx
    made it, else with its pip (as `pip` when that is the `pip` on PATH)."""
    words = " ".join(shlex.quote(a) for a in arguments)
    if (prefix / "pipx_metadata.json").is_file():
        return f"pipx runpip {shlex.quote(prefix.name)} install {words}"
    pip = shutil.which("pip")
    if pip is not None and Path(pip).parent == executable.parent:
        return f"pip install {words}"
    return f"{shlex.quote(str(executable))} -m pip install {words}"
