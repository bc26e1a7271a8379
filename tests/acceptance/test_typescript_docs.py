"""`docs/typescript.md` as a reader runs it: every block of the page, in order, in an empty
folder. A `sh` block runs as a shell script; a block whose first line names a file
(`// src/server.ts`) is written there; any other TypeScript block is compiled on its own with
`tsc --strict`. Then the project compiles with everything the page wrote (`npx tsc`).

npm installs from its registry as the page says; the packages are kept in a cache under
`.tools/` (`npm_config_cache`), so a second run needs no network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from typescript_support import DOCS, NODE, TOOLS, require

from toolgen.build.typescript.module import TESTED_WITH

GUARD = 600.0
"""Seconds before a hung block fails: a guard, not a timing assertion."""
_BLOCK = re.compile(r"^```(?P<lang>\w+)\n(?P<body>.*?)^```$", re.M | re.S)
_FILE = re.compile(r"^// (?P<path>[\w./-]+\.\w+)$")


def blocks() -> list[tuple[str, str]]:
    """(language, text) of every fenced block of the page, in order."""
    text = DOCS.read_text(encoding="utf-8")
    return [(m["lang"], m["body"]) for m in _BLOCK.finditer(text)]


def environment() -> dict[str, str]:
    """Node 22 and this checkout's toolgen first on PATH; npm quiet, with a lasting cache."""
    path = os.pathsep.join([str(NODE.parent), str(Path(sys.executable).parent), os.environ["PATH"]])
    return {
        **os.environ,
        "PATH": path,
        "npm_config_cache": str(TOOLS / "npm-cache"),
        "npm_config_prefer_offline": "true",
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
        "NODE_NO_WARNINGS": "1",
    }


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
        cwd=cwd,
        env=environment(),
    )


def test_the_page_pins_the_versions_the_module_is_tested_with() -> None:
    commands = "\n".join(body for lang, body in blocks() if lang == "sh")
    pinned = dict(re.findall(r"(@?[\w/-]+)@(\d[\w.]*)", commands))
    tested = {k: v for k, v in TESTED_WITH.items() if k not in ("node", "zod")}
    assert {k: pinned.get(k) for k in tested} == tested
    assert pinned["@types/node"] == TESTED_WITH["node"]


def test_the_recipe_runs_as_written_from_an_empty_folder(tmp_path: Path) -> None:
    require()
    folder = tmp_path / "hello-app"
    folder.mkdir()
    outputs: list[str] = []
    excerpts = 0
    for lang, body in blocks():
        named = _FILE.match(body.split("\n", 1)[0])
        if lang == "sh":
            done = shell(body, folder)
            assert done.returncode == 0, f"{body}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            outputs.append(done.stdout)
        elif named:
            path = folder / named["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        elif lang == "ts":
            excerpts += 1
            (folder / "excerpts").mkdir(exist_ok=True)
            (folder / "excerpts" / f"block{excerpts}.ts").write_text(body, encoding="utf-8")
    ran = "".join(outputs)
    assert "Bonjour, Ada! 3\nget_greeting refused the call\n" in ran  # the client, which exited
    assert "toolgen verify: passed (fails on should)" in ran
    done = shell("npx tsc", folder)  # with every file the page wrote since the recipe's own
    assert done.returncode == 0, done.stdout[-3000:]
    assert (folder / "dist" / "server-extras.js").exists()
    assert excerpts > 0
    done = shell("npx tsc --strict --noEmit excerpts/*.ts", folder)
    assert done.returncode == 0, done.stdout[-3000:]
