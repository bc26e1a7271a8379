"""The generated models type-check like hand-written ones, with pyright and mypy --strict.

A user file builds tool inputs from plain values (`CancelOrderInput(id="o_000001")`),
reads outputs, narrows optional fields (`OMITTED` is falsy) and uses ids as dict
keys; both checkers must report nothing, over the user file and the models. Before
the models were shaped (constr(...) fields, RootModel ids, a truthy MISSING), pyright
reported errors on this file and mypy needed a `disable-error-code` header.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import SPECS

from toolgen import load_toolset
from toolgen.build.python.models import render_models

USER_FILE = """
from notes_models import (
    OMITTED, CountNotesOutput, CreateNoteInput, CreateNoteOutput, GetNoteInput, ListNotesInput,
    ListNotesOutput, TagTree,
)
from shop_models import (
    Address, CancelOrderInput, CancelOrderOutput, GetOrderOutput, PlaceOrderInput,
    PlaceOrderInputLinesItem, PlaceOrderInputPayment, SearchProductsInput, Money,
)

args = CreateNoteInput(title="Groceries", tags=["home"])
title: str = args.title
tags: list[str] = args.tags
if args.body:
    shout: str = args.body.upper()
if args.body is not OMITTED:
    size: int = len(args.body)
limit: int = ListNotesInput(tag="home").limit
by_id = {GetNoteInput(id="n_0000abcd").id: "note"}

cancel = CancelOrderInput(id="o_000001", reason="too_slow")
cancelled = {cancel.id: cancel}
order = PlaceOrderInput(
    lines=[PlaceOrderInputLinesItem(sku="ABC-1234", quantity=2)],
    ship_to=Address(name="A", street="S 1", city="C", postcode="123", country="NL"),
    payment=PlaceOrderInputPayment(method="voucher", voucher_code="ABCD1234"),
    note=None,
)
search = SearchProductsInput(query="mug", max_price=Money(amount=5, currency="EUR"))

note = CreateNoteOutput.model_validate({"id": "n_0000abcd", "title": "T"})
note_id: str = note.id
first_tag: str | None = note.tags[0] if note.tags else None
notes: ListNotesOutput = [note]
count: CountNotesOutput = 3
outcome: CancelOrderOutput = "cancelled"
tree = TagTree(tag="a", children=[TagTree(tag="b")])
placed = GetOrderOutput.model_validate_json("{}")
amount: float = placed.total.amount
currency: str = placed.total.currency
courier_note: str = placed.note.upper() if placed.note else ""
data: dict[str, object] = placed.model_dump(mode="json")
"""

FILES = ("user.py", "notes_models.py", "shop_models.py")

MYPY_CONFIG = """
[mypy]
strict = True
plugins = pydantic.mypy

[pydantic-mypy]
init_forbid_extra = True
init_typed = True
warn_required_dynamic_aliases = True
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The notes and shop models beside the user file."""
    root = tmp_path_factory.mktemp("typecheck")
    for name in ("notes", "shop"):
        code = render_models(load_toolset(SPECS / name), source_note=f"specs/{name}")
        (root / f"{name}_models.py").write_text(code, encoding="utf-8")
    (root / "user.py").write_text(textwrap.dedent(USER_FILE), encoding="utf-8")
    (root / "mypy.ini").write_text(MYPY_CONFIG, encoding="utf-8")
    (root / "pyrightconfig.json").write_text(
        json.dumps({"typeCheckingMode": "standard", "pythonVersion": "3.11"}), encoding="utf-8"
    )
    return root


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def test_pyright_finds_no_error_in_a_user_file_or_the_models(project: Path) -> None:
    result = run(
        [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, "--outputjson", *FILES],
        project,
    )
    report = json.loads(result.stdout)
    problems = [d for d in report["generalDiagnostics"] if d["severity"] != "information"]
    assert problems == [], json.dumps(problems, indent=1)
    assert report["summary"]["filesAnalyzed"] == 3


def test_pyright_strict_sees_no_unknown_type_in_what_the_user_file_reads(project: Path) -> None:
    strict = project / "strict"
    strict.mkdir(exist_ok=True)
    for name in ("notes_models.py", "shop_models.py"):
        (strict / name).write_text((project / name).read_text(encoding="utf-8"), encoding="utf-8")
    (strict / "user.py").write_text(
        "# pyright: strict\n" + (project / "user.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    result = run(
        [
            sys.executable,
            "-m",
            "pyright",
            "--pythonpath",
            sys.executable,
            "--outputjson",
            "user.py",
        ],
        strict,
    )
    report = json.loads(result.stdout)
    unknown = [d for d in report["generalDiagnostics"] if "Unknown" in d["message"]]
    assert unknown == [], json.dumps(unknown, indent=1)


def test_mypy_strict_with_the_pydantic_plugin_finds_no_error(project: Path) -> None:
    result = run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", *FILES],
        project,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_field_of_a_generated_model_is_typed_any(project: Path) -> None:
    for name in ("notes_models.py", "shop_models.py"):
        module = ast.parse((project / name).read_text(encoding="utf-8"))
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef) and node.name not in ("Omitted", "ToolModel"):
                for field in node.body:
                    if isinstance(field, ast.AnnAssign):
                        assert "Any" not in ast.unparse(field.annotation), ast.unparse(field)
