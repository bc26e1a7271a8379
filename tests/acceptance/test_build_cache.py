"""The build cache: a rebuild after an edit regenerates only what changed, byte for byte the same."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, SPECS, TESTS, snapshot

from toolgen import load_toolset
from toolgen.build.cache import CACHE_DIR, Cache
from toolgen.build.python import models
from toolgen.build.python.modelplan import build_plan
from toolgen.build.python.models import generate_fragments, render_models, unit_keys
from toolgen.build.run import build, check, render_package
from toolgen.build.writer import MANIFEST
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import Annotations, Origin, Server, Tool, ToolSet
from toolgen.spec.positions import SourceFile

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


@pytest.fixture
def generated_tools(monkeypatch: pytest.MonkeyPatch) -> list[set[str | None]]:
    """The tools (None: the defs) of each datamodel-code-generator run, as runs happen."""
    runs: list[set[str | None]] = []
    real = models.generate_fragments

    def spy(plan: Any, units: Any, toolset: Any) -> Any:
        runs.append({plan.units[index].tool for index in units})
        return real(plan, units, toolset)

    monkeypatch.setattr(models, "generate_fragments", spy)
    return runs


def edit_add_remove(specs: Path) -> None:
    """Edit create_note's input, remove delete_note, add rename_tag (with a nested object)."""
    notes = specs / "notes.yaml"
    text = notes.read_text(encoding="utf-8")
    text = text.replace("Labels for the note.", "Labels, at most a few.")
    notes.write_text(text[: text.index("  - name: delete_note")], encoding="utf-8")
    tags = specs / "tags.yaml"
    tags.write_text(tags.read_text(encoding="utf-8") + NEW_TOOL, encoding="utf-8")


def test_rebuild_after_edit_add_and_remove_runs_only_changed_tools_and_matches_a_full_build(
    project: Path, tmp_path: Path, generated_tools: list[set[str | None]]
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    assert generated_tools == [
        {None, "create_note", "get_note", "list_notes", "count_notes", "delete_note", "tag_tree"}
    ]
    edit_add_remove(specs)
    build([specs], project / "generated")
    assert generated_tools[1:] == [{"create_note", "rename_tag"}]
    incremental = snapshot(project / "generated" / "notes")
    assert b"RenameTagInputOptions" in incremental["models.py"]
    assert b"DeleteNoteInput" not in incremental["models.py"]

    fresh = tmp_path / "fresh"
    shutil.copytree(specs, fresh / "specs" / "notes")
    build([fresh / "specs" / "notes"], fresh / "generated")
    assert snapshot(fresh / "generated" / "notes") == incremental
    assert render_package(load_toolset(specs), source_note="specs/notes") == {
        rel: data.decode() for rel, data in incremental.items() if rel != MANIFEST
    }
    assert check([specs], project / "generated") == ""


def test_rebuild_with_an_unchanged_models_cache_runs_no_generator(
    project: Path, generated_tools: list[set[str | None]]
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    models_py = project / "generated" / "notes" / "models.py"
    before = models_py.read_bytes()
    notes = specs / "notes.yaml"
    notes.write_text(notes.read_text().replace("Count notes", "Count the notes"))
    report = build([specs], project / "generated")
    assert report.packages == ["notes"] and report.written > 0
    assert len(generated_tools) == 1
    assert models_py.read_bytes() == before


def test_cache_lives_outside_the_packages_and_out_of_git_manifests_and_check(
    project: Path,
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    cache_dir = project / "generated" / CACHE_DIR
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.suffix for p in cache_dir.iterdir() if p.name != ".gitignore"] == [".bin"]
    manifest = json.loads((project / "generated" / "notes" / MANIFEST).read_text())
    assert not any(CACHE_DIR in rel for rel in manifest["files"])
    shutil.rmtree(cache_dir)
    assert check([specs], project / "generated") == ""


def test_damaged_cache_is_ignored_and_replaced(
    project: Path, generated_tools: list[set[str | None]]
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    before = snapshot(project / "generated" / "notes")
    (cache_file,) = (project / "generated" / CACHE_DIR).glob("*.bin")
    cache_file.write_bytes(b"\x00not a cache")
    (project / "generated" / "notes" / MANIFEST).unlink()  # force a render
    build([specs], project / "generated")
    assert snapshot(project / "generated" / "notes") == before
    assert len(generated_tools) == 2
    assert cache_file.read_bytes() != b"\x00not a cache"


def test_failed_build_writes_no_cache(project: Path) -> None:
    notes = project / "specs" / "notes" / "notes.yaml"
    notes.write_text(notes.read_text().replace("readOnlyHint: true", "readOnlyHint: yes"))
    with pytest.raises(SpecError):
        build([project / "specs" / "notes"], project / "generated")
    assert not (project / "generated").exists()


def test_cache_keeps_only_the_entries_the_last_build_used(tmp_path: Path) -> None:
    path = tmp_path / "c.bin"
    first = Cache(path)
    first.put("a", 1)
    first.put("b", [2])
    first.save()
    second = Cache(path)
    assert second.get("b") == [2]
    second.put("c", "3")
    second.save()
    third = Cache(path)
    assert (third.get("a"), third.get("b"), third.get("c")) == (None, [2], "3")


# -- fragments from separate generator runs splice into the same module ------------------


def toolset_of(*tools: tuple[str, dict[str, Any], dict[str, Any] | None]) -> ToolSet:
    origin = Origin(SourceFile(Path("dummy.json"), "dummy.json", {}, {}, {}), ())
    return ToolSet(
        Server("dummy", "1.0.0"),
        tuple(
            Tool(name, None, None, Annotations(), schema, output, (), {}, origin)
            for name, schema, output in tools
        ),
    )


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
    name: str, tmp_path: Path, generated_tools: list[set[str | None]]
) -> None:
    toolset = SPEC_SETS[name]()
    plan = build_plan(toolset)
    cache = Cache(tmp_path / "cache.bin")
    for index, key in enumerate(unit_keys(plan)):
        cache.put(key, generate_fragments(plan, [index], toolset)[index].to_json())
    runs = len(generated_tools)
    spliced = render_models(toolset, source_note=name, cache=cache)
    assert len(generated_tools) == runs  # every unit came from the cache
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


def duplicate_of_tag_tree(project: Path) -> list[tuple[str, str, int, int]]:
    """Build after notes.yaml gains a second `tag_tree`: the error is located in tags.yaml,
    a file the parse cache holds (its positions unpacked only now)."""
    notes = project / "specs" / "notes" / "notes.yaml"
    if "name: tag_tree" not in notes.read_text(encoding="utf-8"):
        notes.write_text(notes.read_text(encoding="utf-8") + "  - name: tag_tree\n")
    with pytest.raises(SpecError) as caught:
        build([project / "specs" / "notes"], project / "generated")
    return [
        (str(d.code), Path(d.location.file).name, d.location.line, d.location.column)
        for d in caught.value.diagnostics
        if d.location is not None
    ]


@pytest.mark.parametrize("damaged", [False, True], ids=["stored", "damaged positions"])
def test_a_problem_in_a_cached_file_is_located_as_in_a_fresh_parse(
    project: Path, damaged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import marshal

    from toolgen.spec import parsecache

    monkeypatch.setenv(parsecache.ENV, str(project / "parse-cache"))
    build([project / "specs" / "notes"], project / "generated")
    entries = sorted((project / "parse-cache" / "sources").glob("*.bin"))
    assert len(entries) == 2  # the build parsed both files through the shared parse cache
    if damaged:
        for entry in entries:
            form, data, _ = marshal.loads(entry.read_bytes())
            entry.write_bytes(marshal.dumps((form, data, b"\x00not positions")))
    located = duplicate_of_tag_tree(project)
    assert ("duplicate-tool", "tags.yaml", 20, 11) in located
    shutil.rmtree(project / "generated")
    monkeypatch.setenv(parsecache.ENV, "off")
    assert duplicate_of_tag_tree(project) == located  # no cache at all
