"""The package's folders are the pipeline's stages, and no module imports from a later stage.

A stage may import from an earlier stage and from itself, never from a later one or from a
sibling of the same rank. A new folder gets a rank here: its place in the pipeline.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "toolgen"

STAGES: dict[str, int] = {
    "core": 0,  # shared vocabulary: diagnostics, IR, protocol facts, positions, naming
    "jsonschema": 1,  # walk, refs, checks, defaults, samples
    "frontend": 2,  # inputs -> IR; the one load pipeline
    "compiler": 3,  # IR -> files
    "lint": 3,  # IR -> findings
    "runtime": 3,  # IR -> a server
    "diff": 4,  # IR x IR -> changes
    "views": 4,  # IR -> provider schemas
    "importer": 4,  # live servers and published tools -> spec files
    "sdk": 4,  # IR -> tools on the official SDK's servers
    "verify": 5,  # IR x live server -> results (may use diff's schema comparison)
    "client": 5,  # the typed client's runtime (may use views' call mapping)
    "cli": 9,  # parsing only
    "__init__": 9,  # the library facade: toolgen.load, toolgen.load_toolset
    "__main__": 10,  # python -m toolgen
}


def stage_of(module: str) -> str:
    """The stage of a dotted module name inside the package (`toolgen.core.ir` -> `core`)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    return ".".join(relative.parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every `toolgen` import in a file, at any depth (lazy imports too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "toolgen":
                found += [(node.lineno, f"toolgen.{alias.name}") for alias in node.names]
            elif node.module.startswith("toolgen."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("toolgen.")]
    return found


def layering_violations() -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = stage_of(module_name(path))
        for line, module in imported_modules(path):
            there = stage_of(module)
            if there == "__version__":
                there = "__init__"
            if there == here:
                continue
            if there not in STAGES or here not in STAGES:
                problems.append(
                    f"{path.relative_to(ROOT)}:{line}: {module}: give its folder a rank"
                )
            elif STAGES[there] >= STAGES[here]:
                problems.append(f"{path.relative_to(ROOT)}:{line}: {here} imports {module}")
    return problems


def test_every_package_folder_has_a_stage() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders <= set(STAGES), f"folders without a stage: {sorted(folders - set(STAGES))}"


def test_no_module_imports_from_a_later_stage_or_a_sibling() -> None:
    assert layering_violations() == []


@pytest.mark.parametrize(
    ("module", "stage"),
    [("toolgen.core.ir", "core"), ("toolgen.cli.lint", "cli"), ("toolgen", "__init__")],
)
def test_stage_of_names_the_folder(module: str, stage: str) -> None:
    assert stage_of(module) == stage
