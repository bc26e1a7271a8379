"""A rebuild after edits writes what a fresh build writes; models made unit by unit, as the
build's workers make them, splice into the module of one run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CORPUS, SPECS, TESTS, snapshot, toolset_of

from toolgen import cache, load_toolset
from toolgen.build.python.modelplan import build_plan
from toolgen.build.python.models import generate_fragments, render_models
from toolgen.build.run import CACHE_KIND, build, check, render_package
from toolgen.build.writer import MANIFEST
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import ToolSet

GOLDEN_EDGE = TESTS / "golden" / "specs" / "edge"

NEW_TOOL = """
  - name: rename_tag
    description: Rename a tag on every note.
    input:
      type: object
      properties:
        old: {$ref: "#/defs/Tag"}
        new: {$ref: "#/defs/Tag"}
        options: {type: object, properties: {dry_run: {type: boolean}}}
      required: [old, new]
    output: {type: object, properties: {renamed: {type: integer, minimum: 0}}}
"""


def edit_add_remove(specs: Path) -> None:
    """Edit create_note's input, remove delete_note, add rename_tag (with a nested object)."""
    notes = specs / "notes.yaml"
    text = notes.read_text(encoding="utf-8")
    text = text.replace("Labels for the note.", "Labels, at most a few.")
    notes.write_text(text[: text.index("  - name: delete_note")], encoding="utf-8")
    tags = specs / "tags.yaml"
    tags.write_text(tags.read_text(encoding="utf-8") + NEW_TOOL, encoding="utf-8")


def test_a_rebuild_after_an_edit_an_addition_and_a_removal_matches_a_fresh_build(
    project: Path, tmp_path: Path
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    edit_add_remove(specs)
    build([specs], project / "generated")
    rebuilt = snapshot(project / "generated" / "notes")
    assert b"RenameTagInputOptions" in rebuilt["models.py"]
    assert b"DeleteNoteInput" not in rebuilt["models.py"]

    fresh = tmp_path / "fresh"
    shutil.copytree(specs, fresh / "specs" / "notes")
    build([fresh / "specs" / "notes"], fresh / "generated")
    assert snapshot(fresh / "generated" / "notes") == rebuilt
    assert render_package(load_toolset(specs), source_note="specs/notes") == {
        rel: data.decode() for rel, data in rebuilt.items() if rel != MANIFEST
    }
    assert not check([specs], project / "generated")


def test_a_failed_build_writes_nothing_and_remembers_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    notes = project / "specs" / "notes" / "notes.yaml"
    notes.write_text(notes.read_text().replace("readOnlyHint: true", "readOnlyHint: yes"))
    with pytest.raises(SpecError):
        build([project / "specs" / "notes"], project / "generated")
    assert not (project / "generated").exists()
    assert not (tmp_path / "cache" / CACHE_KIND).exists()


# -- fragments from separate generator runs splice into the same module ------------------


def corpus() -> ToolSet:
    raw = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    return toolset_of(*((t["name"], t["inputSchema"], t.get("outputSchema")) for t in raw))


def import_name_collisions() -> ToolSet:
    """Fields named like the types they or other tools use: DCG aliases those imports."""
    date = {"type": "string", "format": "date"}
    return toolset_of(
        ("a_dated", {"type": "object", "properties": {"date": date, "when": date}}, None),
        ("b_dated", {"type": "object", "properties": {"when": date}}, None),
        (
            "c_typed",
            {
                "type": "object",
                "properties": {
                    "Any": {},
                    "Literal": {"enum": ["x"]},
                    "constr": {"type": "string", "minLength": 1},
                },
            },
            None,
        ),
        (
            "d_typed",
            {
                "type": "object",
                "properties": {
                    "y": {},
                    "z": {"enum": ["q"]},
                    "s": {"type": "string", "minLength": 2},
                },
            },
            {"type": "object", "properties": {"on": date}},
        ),
    )


SPEC_SETS: dict[str, Callable[[], ToolSet]] = {
    "notes": lambda: load_toolset(SPECS / "notes"),
    "golden edge cases": lambda: load_toolset(GOLDEN_EDGE),
    "github corpus": corpus,
    "import name collisions": import_name_collisions,
}


@pytest.mark.parametrize("name", sorted(SPEC_SETS))
def test_each_unit_generated_alone_splices_into_the_module_of_one_run(
    name: str, tmp_path: Path
) -> None:
    toolset = SPEC_SETS[name]()
    plan = build_plan(toolset)
    alone = {i: generate_fragments(plan, [i], None)[i] for i in range(len(plan.units))}
    spliced = render_models(toolset, source_note=name, plan=plan, fragments=alone)
    assert spliced == render_models(toolset, source_note=name)
    assert spliced.endswith("\n") and not spliced.endswith("\n\n")
    (tmp_path / "spliced_models.py").write_text(spliced, encoding="utf-8")
    probe = "import spliced_models as m; print(len(m.__dict__))"
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr


def test_generated_files_get_the_mode_of_a_plain_file_write(project: Path) -> None:
    probe = project / "probe"
    probe.write_text("x")
    build([project / "specs" / "notes"], project / "generated")
    for path in (project / "generated" / "notes").rglob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777, path


def test_a_problem_in_a_second_file_is_located_in_it(project: Path) -> None:
    notes = project / "specs" / "notes" / "notes.yaml"
    notes.write_text(notes.read_text(encoding="utf-8") + "  - name: tag_tree\n")
    with pytest.raises(SpecError) as caught:
        build([project / "specs" / "notes"], project / "generated")
    located = [
        (str(d.code), Path(d.location.file).name, d.location.line, d.location.column)
        for d in caught.value.diagnostics
        if d.location is not None
    ]
    assert ("duplicate-tool", "tags.yaml", 20, 11) in located
