"""The generated client type-checks for its users: pyright and `mypy --strict` accept a
user's file that calls it, and reject one that misuses it (wrong type, unknown
argument, wrong result type) at the lines of the mistakes; also when the generated
package is installed (found on the path, not beside the user's file)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GENERATED

GOOD = """\
from __future__ import annotations

from notes.client import Client
from notes.models import CreateNoteOutput, Note
from toolgen.client import ToolCallError, blocking


async def main() -> None:
    async with Client.stdio(["python", "-m", "notes.server", "app:Handlers"], drift="error") as notes:
        created: CreateNoteOutput = await notes.create_note(title="Milk", tags=["shop"])
        found: list[Note] = await notes.list_notes(tag="shop", limit=5)
        count: int = await notes.count_notes()
        deleted: bool = (await notes.delete_note(id=created.id)).deleted
        print(created.title, len(found), count, deleted)
        try:
            await notes.get_note(id=created.id)
        except ToolCallError as exc:
            print(exc.text)


def main_sync() -> None:
    with blocking(Client.stdio(["python", "-m", "notes.server", "app:Handlers"])) as notes:
        count: int = notes.call(lambda c: c.count_notes())
        found: list[Note] = notes.call(lambda c: c.list_notes(tag="shop"))
        print(count, len(found))
"""

BAD = """\
from __future__ import annotations

from notes.client import Client
from toolgen.client import Blocking


async def main(notes: Client) -> None:
    await notes.create_note(title=1)
    await notes.create_note(titel="x")
    count: str = await notes.count_notes()


def main_sync(notes: Blocking[Client]) -> None:
    notes.call(lambda c: c.create_note(title=1))
    title: int = notes.call(lambda c: c.get_note(id="n_1")).title
"""
BAD_LINES = [8, 9, 10, 14, 15]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user")
    shutil.copytree(
        GENERATED / "notes", root / "notes", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "good.py").write_text(GOOD, encoding="utf-8")
    (root / "bad.py").write_text(BAD, encoding="utf-8")
    return root


def _mypy(project: Path, name: str, env: dict[str, str] | None = None) -> tuple[int, list[int]]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", name],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = [int(line.split(":")[1]) for line in proc.stdout.splitlines() if ": error:" in line]
    return proc.returncode, lines


def _pyright(project: Path, name: str) -> tuple[int, list[int]]:
    pyright = Path(sys.executable).parent / "pyright"
    proc = subprocess.run(
        [str(pyright), "--outputjson", "--pythonpath", sys.executable, name],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(proc.stdout)
    lines = [d["range"]["start"]["line"] + 1 for d in report["generalDiagnostics"]]
    return proc.returncode, lines


CHECKERS = {"mypy --strict": _mypy, "pyright": _pyright}


@pytest.mark.parametrize("checker", CHECKERS)
def test_a_users_file_calling_the_client_type_checks(project: Path, checker: str) -> None:
    assert CHECKERS[checker](project, "good.py") == (0, [])


@pytest.mark.parametrize("checker", CHECKERS)
def test_misusing_the_client_is_a_type_error_at_each_mistake(project: Path, checker: str) -> None:
    code, lines = CHECKERS[checker](project, "bad.py")
    assert code != 0
    assert sorted(set(lines)) == BAD_LINES


def test_the_installed_client_package_type_checks_too(tmp_path: Path) -> None:
    """mypy reads an installed package's types only when it carries `py.typed` (PEP 561);
    without it every import of the client is an `import-untyped` error."""
    site = tmp_path / "site"
    shutil.copytree(
        GENERATED / "notes", site / "notes", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "good.py").write_text(GOOD, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}
    assert _mypy(tmp_path / "app", "good.py", env) == (0, [])
