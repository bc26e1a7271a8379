"""Schema file names stay distinct where file systems ignore case (macOS, Windows)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolgen import load_toolset
from toolgen.build.schemas import render_schemas

CASES = {
    "two names that differ in case": (["Report", "report"], ["Report", "report~2"]),
    "three, beside a name like a suffix": (["a", "A", "a-2", "A_2"], ["a", "A~2", "a-2", "A_2"]),
    "distinct names keep theirs": (["get", "put"], ["get", "put"]),
}


@pytest.mark.parametrize(("names", "stems"), CASES.values(), ids=list(CASES))
def test_schema_files_differ_even_ignoring_case(
    names: list[str], stems: list[str], write_specs: Callable[..., Path]
) -> None:
    tools = "".join(f"  - name: {name!r}\n" for name in names)
    toolset = load_toolset(write_specs({"main.yaml": "tools:\n" + tools}))
    paths = [path for path, _ in render_schemas(toolset, source_note="specs")]
    assert paths == [f"schemas/{stem}.input.schema.json" for stem in stems]
    assert len({path.casefold() for path in paths}) == len(paths)
