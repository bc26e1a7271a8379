"""The build cache: a rebuild after an edit regenerates only what changed, byte for byte the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import snapshot

from toolgen import load_toolset
from toolgen.compiler.build import build, check, render_package
from toolgen.compiler.cache import CACHE_DIR, Cache
from toolgen.compiler.writer import MANIFEST
from toolgen.core.errors import SpecError

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


def test_rebuild_after_edit_add_and_remove_matches_a_full_build(
    project: Path, tmp_path: Path
) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    edit_add_remove(specs)
    build([specs], project / "generated")
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


def test_an_edit_that_changes_no_schema_leaves_models_unchanged(project: Path) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    models_py = project / "generated" / "notes" / "models.py"
    before = models_py.read_bytes()
    notes = specs / "notes.yaml"
    notes.write_text(notes.read_text().replace("Count notes", "Count the notes"))
    report = build([specs], project / "generated")
    assert report.packages == ["notes"] and report.written > 0
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


def test_damaged_cache_is_ignored_and_replaced(project: Path) -> None:
    specs = project / "specs" / "notes"
    build([specs], project / "generated")
    before = snapshot(project / "generated" / "notes")
    (cache_file,) = (project / "generated" / CACHE_DIR).glob("*.bin")
    cache_file.write_bytes(b"\x00not a cache")
    (project / "generated" / "notes" / MANIFEST).unlink()  # force a render
    build([specs], project / "generated")
    assert snapshot(project / "generated" / "notes") == before
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


def test_generated_files_get_the_mode_of_a_plain_file_write(project: Path) -> None:
    probe = project / "probe"
    probe.write_text("x")
    build([project / "specs" / "notes"], project / "generated")
    for path in (project / "generated" / "notes").rglob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777, path
