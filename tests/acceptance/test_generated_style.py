"""Generated Python reads like code the project's own formatter and linter accept."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GENERATED, ROOT, SPECS, TESTS

from toolgen import load_toolset
from toolgen.build.run import render_package

SETS = [SPECS / "notes", SPECS / "shop", SPECS / "conformance"]
"""Not the golden `edge` set: in its models datamodel-code-generator quotes a string holding
both quote kinds with single quotes, where ruff wants double (a known difference)."""


GOLDEN = TESTS / "golden" / "expected" / "edge"


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    config = ["--config", str(ROOT / "pyproject.toml")]
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *config],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("spec_set", SETS, ids=lambda p: p.name)
def test_every_generated_python_file_is_ruff_format_and_ruff_check_clean(
    spec_set: Path, tmp_path: Path
) -> None:
    files = render_package(load_toolset(spec_set), source_note=spec_set.name)
    for name, text in files.items():
        if name.endswith(".py"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text, encoding="utf-8")
    for command in (["format", "--check", "--diff"], ["check", "--no-cache"]):
        run = _ruff(*command, str(tmp_path))
        assert run.returncode == 0, run.stdout + run.stderr


PUBLIC = {"toolgen", "toolgen.runtime", "toolgen.client"}


@pytest.mark.parametrize(
    "package",
    [*sorted(p for p in GENERATED.iterdir() if p.is_dir()), GOLDEN],
    ids=lambda p: p.name,
)
def test_generated_modules_import_only_toolgens_public_modules(package: Path) -> None:
    imported: set[str] = set()
    for module in package.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert {name for name in imported if name.split(".")[0] == "toolgen"} <= PUBLIC


def python(code: str) -> None:
    """Run `code` in a fresh interpreter, which must succeed."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr


def test_a_client_says_absent_with_its_models_value() -> None:
    code = (
        "import inspect, sys\n"
        f"sys.path.insert(0, {str(GENERATED)!r})\n"
        "from notes import client, models\n"
        "default = inspect.signature(client.Client.create_note).parameters['body'].default\n"
        "assert default is models.OMITTED, default\n"
        "assert not models.CreateNoteInput(title='t').body\n"
    )
    python(code)


def test_generated_models_import_pydantic_and_nothing_of_toolgen() -> None:
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(GENERATED)!r})\n"
        "sys.modules['toolgen'] = None  # an application with pydantic and no toolgen\n"
        "from notes import models\n"
        "models.CreateNoteInput.model_validate({'title': 't'})\n"
    )
    python(code)


def test_generated_models_load_neither_jinja2_nor_the_model_generator() -> None:
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(GENERATED)!r})\n"
        "from notes import models\n"
        "models.CreateNoteInput.model_validate({'title': 't'})\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('jinja2', 'datamodel_code_generator')]\n"
        "assert not loaded, loaded\n"
    )
    python(code)
