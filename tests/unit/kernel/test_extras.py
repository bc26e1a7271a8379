"""The command a missing extra's message prints names the source toolgen came from and the
installer of its environment, so it works as written (`.ci/user-install` runs one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolgen.extras import command, requirement

SOURCES: list[tuple[dict[str, Any] | None, list[str]]] = [
    (None, ["toolgen[verify]"]),
    (
        {"url": "https://example.com/o/toolgen", "vcs_info": {"vcs": "git", "commit_id": "abc1"}},
        ["toolgen[verify] @ git+https://example.com/o/toolgen@abc1"],
    ),
    (
        {
            "url": "https://example.com/o/toolgen",
            "vcs_info": {"vcs": "git", "requested_revision": "v1", "commit_id": "abc1"},
        },
        ["toolgen[verify] @ git+https://example.com/o/toolgen@v1"],
    ),
    ({"url": "file:///src/tool%20gen", "dir_info": {}}, ["/src/tool gen[verify]"]),
    (
        {"url": "file:///src/toolgen", "dir_info": {"editable": True}},
        ["-e", "/src/toolgen[verify]"],
    ),
    (
        {"url": "file:///d/toolgen-0.1.0-py3-none-any.whl", "archive_info": {}},
        ["/d/toolgen-0.1.0-py3-none-any.whl[verify]"],
    ),
    (
        {"url": "https://example.com/toolgen-0.1.0-py3-none-any.whl", "archive_info": {}},
        ["toolgen[verify] @ https://example.com/toolgen-0.1.0-py3-none-any.whl"],
    ),
]


@pytest.mark.parametrize(("origin", "expected"), SOURCES)
def test_the_requirement_names_the_source_toolgen_came_from(
    origin: dict[str, Any] | None, expected: list[str]
) -> None:
    assert requirement("verify", origin) == expected


def test_a_pipx_environment_gets_pipx_runpip(tmp_path: Path) -> None:
    prefix = tmp_path / "toolgen"
    prefix.mkdir()
    (prefix / "pipx_metadata.json").write_text("{}")
    hint = command(["/src/toolgen[verify]"], prefix, prefix / "bin" / "python")
    assert hint == "pipx runpip toolgen install '/src/toolgen[verify]'"


def test_another_environment_gets_its_own_pip(tmp_path: Path) -> None:
    hint = command(["toolgen[http]"], tmp_path, tmp_path / "no such dir" / "python")
    assert hint == f"'{tmp_path}/no such dir/python' -m pip install 'toolgen[http]'"
