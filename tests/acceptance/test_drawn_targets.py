"""Spec sets drawn from every keyword the format allows build, for Go, Rust and TypeScript,
into code each language's strict tools accept: `go vet` and gofmt; `cargo clippy -D warnings`
and rustfmt; tsc with every stricter check the TypeScript tests turn on. The vectors
(`test_targets.py`) hold the printers to behaviour on chosen schemas; these hold them to
compiling on any.

The suite draws a few sets, the same each run; `.ci/run` draws more, new ones each run
(`TOOLGEN_DRAWN_SETS`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import golang_support
import pytest
import rust_support
import typescript_support
from hypothesis import HealthCheck, Phase, given, settings
from schema_strategies import load_spec_files, spec_sets
from targets_support import build

from toolgen.spec.errors import SpecError

COUNT = int(os.environ.get("TOOLGEN_DRAWN_SETS", "6"))


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`COUNT` drawn spec sets that load: package name → folder (server `drawn_<n>`)."""
    root = tmp_path_factory.mktemp("drawn")
    found: dict[str, Path] = {}

    @settings(
        max_examples=COUNT * 20,
        derandomize="TOOLGEN_DRAWN_SETS" not in os.environ,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(files=spec_sets())
    def keep(files: dict[str, dict[str, object]]) -> None:
        if len(found) == COUNT:
            return
        name = f"drawn_{len(found)}"
        folder = root / name
        folder.mkdir()
        files["drawn.yaml"]["server"] = {"name": name, "version": "1.0.0"}
        try:
            load_spec_files(folder, files)
        except SpecError:  # a schema the format refuses (test_drawn_schemas checks how)
            shutil.rmtree(folder)
            return
        found[name] = folder

    keep()
    assert len(found) == COUNT
    return found


def test_drawn_spec_sets_build_into_go_that_go_vet_and_gofmt_accept(
    drawn: dict[str, Path], tmp_path: Path
) -> None:
    golang_support.require()
    workspace = golang_support.Workspace(tmp_path / "go")
    for folder in drawn.values():
        assert workspace.add(folder, "--option", "go.module=drawn.example/{package}"), (
            workspace.failed
        )
    workspace.use()
    vetted = workspace.go("vet", *(f"drawn.example/{package}" for package in drawn))
    assert vetted.returncode == 0, vetted.stderr[-6000:]
    formatted = workspace.gofmt("-l", *drawn)
    assert formatted.returncode == 0 and formatted.stdout == "", formatted.stdout


def test_drawn_spec_sets_build_into_crates_clippy_and_rustfmt_accept(
    drawn: dict[str, Path], tmp_path: Path
) -> None:
    """In the one workspace of the Rust tests, as members for the length of this test."""
    rust_support.require()
    rust_support.assemble_fixed()
    manifest = rust_support.WORKSPACE / "Cargo.toml"
    try:
        for package, folder in drawn.items():
            done = build(folder, tmp_path, "rust")
            assert done.returncode == 0, done.stderr
            rust_support.add_crate(tmp_path / package, package)
        members = ", ".join(json.dumps(package) for package in drawn)
        text = manifest.read_text(encoding="utf-8")
        manifest.write_text(text.replace("members = [", f"members = [{members}, ", 1))
        crates = [f"-p={package}" for package in drawn]
        clippy = rust_support.cargo("clippy", *crates, "--", "-D", "warnings")
        assert clippy.returncode == 0, clippy.stderr[-6000:]
        formatted = rust_support.cargo("fmt", "--check", *crates)
        assert formatted.returncode == 0, formatted.stdout[-6000:]
    finally:  # the workspace as the other tests lay it out: its manifest and lock restored
        for package in drawn:
            shutil.rmtree(rust_support.WORKSPACE / package, ignore_errors=True)
        rust_support.assemble_fixed()


def test_drawn_spec_sets_build_into_typescript_that_tsc_accepts_with_every_strict_check(
    drawn: dict[str, Path], tmp_path: Path
) -> None:
    typescript_support.require()
    project = tmp_path / "ts"
    for folder in drawn.values():
        done = build(folder, project, "typescript")
        assert done.returncode == 0, done.stderr
    (project / "node_modules").symlink_to(typescript_support.MODULES, target_is_directory=True)
    config = json.loads((typescript_support.SUPPORT / "tsconfig.json").read_text())
    config["compilerOptions"]["noEmit"] = True
    config["include"] = ["*/index.ts"]
    (project / "tsconfig.json").write_text(json.dumps(config))
    done = typescript_support.run(
        [str(typescript_support.NODE), str(typescript_support.TSC), "-p", "tsconfig.json"], project
    )
    assert done.returncode == 0, done.stdout[-6000:]
