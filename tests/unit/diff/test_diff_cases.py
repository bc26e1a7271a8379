"""Every diff change case in tests/diff_cases/*.yaml reports exactly the changes it expects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diff_support import case_id, describe, load_cases, matches, run_case

from toolgen.diff.codes import CODES

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_change_case(case: dict[str, Any], tmp_path: Path) -> None:
    changes = run_case(case, tmp_path)
    left = list(changes)
    for expected in case["expect"]:
        found = next((c for c in left if matches(expected, c)), None)
        assert found is not None, f"missing {expected!r}; got {[describe(c) for c in changes]}"
        left.remove(found)
    assert not left, f"unexpected {[describe(c) for c in left]}"


def test_every_change_code_has_a_case_or_a_test() -> None:
    """Codes that need more than one spec file (servers of a directory) are tested in test_diff.py."""
    covered = {e.split()[0] for case in CASES for e in case["expect"]}
    elsewhere = {"TD104", "TD105"}
    missing = {c.code for c in CODES} - covered - elsewhere
    assert not missing, sorted(missing)
