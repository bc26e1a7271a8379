"""Every kind of bad input fails with the right code at the right file:line:col."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from toolgen import SpecError, load_toolset

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "cases" / "spec_errors.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_spec_is_reported_at_its_position(
    case: dict[str, Any], write_specs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_specs(case["files"], raw=case.get("raw", False))
    monkeypatch.chdir(root)
    with pytest.raises(SpecError) as caught:
        load_toolset(root)
    got = [
        {
            "code": d.code,
            "file": d.location.file,
            "line": d.location.line,
            "column": d.location.column,
        }
        for d in caught.value.diagnostics
        if d.location is not None
    ]
    assert got == case["expect"], [str(d) for d in caught.value.diagnostics]
