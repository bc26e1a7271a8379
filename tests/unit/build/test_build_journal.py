"""A build killed at any point converges to the clean result; edited output is never lost;
one build at a time writes a directory.

The kill is simulated exactly where it hurts: before the n-th rename or delete of
the commit (`os.replace` / `os.unlink` raise a `BaseException`, as SIGKILL would
stop the process there), for every n. Then the next build must leave exactly
the tree a clean build gives, and `check` must not call the half-done tree up
to date.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot

from toolgen.build import journal
from toolgen.build.run import build, check, render_all
from toolgen.build.writer import write
from toolgen.spec.errors import ErrorCode, SpecError


class Killed(BaseException):
    """The process stopped here."""


@contextmanager
def killed_at(step: int) -> Iterator[list[int]]:
    """Make the `step`-th `os.replace` or `os.unlink` call (1-based) stop the "process";
    yields the count of calls made so far."""
    calls = [0]
    real: dict[str, Callable[..., Any]] = {"replace": os.replace, "unlink": os.unlink}

    def counting(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if calls[0] == step:
                raise Killed
            return real[name](*args, **kwargs)

        return call

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", counting("replace"))
        patch.setattr(os, "unlink", counting("unlink"))
        yield calls


def output_tree(out: Path) -> dict[str, bytes]:
    """The generated files (not the handler scaffold: that one is the user's)."""
    return {k: v for k, v in snapshot(out).items() if not k.endswith("_handlers.py")}


@pytest.fixture
def versions(project: Path) -> tuple[list[Path], Path, dict[str, bytes]]:
    """The notes specs built once (v1), then edited (v2: a tool removed, a text changed);
    returns the specs, the v1 output and the tree a clean v2 build gives."""
    specs = [project / "specs" / "notes"]
    out = project / "generated"
    build(specs, out)
    shutil.copytree(out, project / "v1")
    notes = specs[0] / "notes.yaml"
    text = notes.read_text()
    text = text[: text.index("  - name: delete_note")]
    notes.write_text(text.replace("Create a new note and return it.", "Make a note."))
    clean = project / "clean"
    build(specs, clean)
    return specs, project / "v1", output_tree(clean)


def commit_steps(specs: list[Path], v1: Path, work: Path) -> int:
    """How many renames and deletes the v1 -> v2 commit makes."""
    shutil.copytree(v1, work)
    outputs, _ = render_all(specs, work, skip_fresh=False)
    with killed_at(0) as calls:
        write(work, outputs)
    shutil.rmtree(work)
    return calls[0]


def test_a_build_killed_at_any_step_of_its_commit_is_finished_by_the_next_build(
    versions: tuple[list[Path], Path, dict[str, bytes]], tmp_path: Path
) -> None:
    specs, v1, clean = versions
    steps = commit_steps(specs, v1, tmp_path / "count")
    assert steps > 10  # the journal, every file of the package, the deletes, the clean-up
    outputs, _ = render_all(specs, v1, skip_fresh=False)
    for step in range(1, steps + 1):
        out = tmp_path / f"kill-{step}"
        shutil.copytree(v1, out)
        with killed_at(step), pytest.raises(Killed):
            write(out, outputs)
        if journal.unfinished(out):
            assert check(specs, out).unfinished
        assert output_tree(out) == output_tree(v1) or (out / journal.STAGING).exists()
        write(out, outputs)
        assert output_tree(out) == clean, f"killed at step {step} of {steps}"
        assert not (out / journal.STAGING).exists()


def test_the_next_build_and_check_converge_after_a_kill_mid_commit(
    versions: tuple[list[Path], Path, dict[str, bytes]], tmp_path: Path
) -> None:
    specs, v1, clean = versions
    steps = commit_steps(specs, v1, tmp_path / "count")
    out = tmp_path / "out"
    shutil.copytree(v1, out)
    with killed_at(steps - 2), pytest.raises(Killed):  # between the renames and the deletes
        build(specs, out)
    assert check(specs, out)  # never "up to date" half way
    build(specs, out)
    assert output_tree(out) == clean
    assert not check(specs, out)


def test_staging_of_a_killed_build_is_removed_by_the_next_and_others_files_kept(
    project: Path,
) -> None:
    specs = [project / "specs" / "notes"]
    out = project / "generated"
    build(specs, out)
    left = out / journal.STAGING / "notes" / "models.py"
    left.parent.mkdir(parents=True)
    left.write_text("half")
    mine = out / "notes" / ".models.py.tmp"
    mine.write_text("mine")
    build(specs, out)  # nothing changed, but a killed build's staging is not "up to date"
    assert not (out / journal.STAGING).exists()
    assert mine.read_text() == "mine"
    assert not check(specs, out)


def test_an_edited_generated_file_is_refused_by_name_and_kept(project: Path) -> None:
    specs = [project / "specs" / "notes"]
    out = project / "generated"
    build(specs, out)
    models = out / "notes" / "models.py"
    edited = models.read_text() + "\n# my fix\n"
    models.write_text(edited)
    with pytest.raises(SpecError) as caught:
        build(specs, out)
    [problem] = caught.value.diagnostics
    assert problem.code == ErrorCode.EDITED_OUTPUT
    assert problem.location is not None and problem.location.file.endswith("notes/models.py")
    assert models.read_text() == edited


def test_force_replaces_an_edited_generated_file(project: Path) -> None:
    specs = [project / "specs" / "notes"]
    out = project / "generated"
    build(specs, out)
    models = out / "notes" / "models.py"
    clean = models.read_text()
    models.write_text(clean + "\n# my fix\n")
    build(specs, out, force=True)
    assert models.read_text() == clean
    assert not check(specs, out)


def test_an_edited_file_of_a_removed_tool_is_not_deleted_silently(project: Path) -> None:
    specs = [project / "specs" / "notes"]
    out = project / "generated"
    build(specs, out)
    schema = out / "notes" / "schemas" / "delete_note.input.schema.json"
    schema.write_text(schema.read_text() + " ")
    notes = specs[0] / "notes.yaml"
    text = notes.read_text()
    notes.write_text(text[: text.index("  - name: delete_note")])
    with pytest.raises(SpecError) as caught:
        build(specs, out)
    assert [d.code for d in caught.value.diagnostics] == [ErrorCode.EDITED_OUTPUT]
    assert schema.exists()
    build(specs, out, force=True)
    assert not schema.exists()


def test_a_relative_output_directory_builds_and_checks(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    build([Path("specs/notes")], Path("generated"))
    assert not check([Path("specs/notes")], Path("generated"))
    assert not Path("generated", journal.STAGING).exists()
