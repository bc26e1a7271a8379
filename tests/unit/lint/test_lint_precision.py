"""Lint precision on real servers: the reviewed false positives still exist, error rules
stay at or below 1%, and docs/lint.md's table is what `scripts/lint_precision.py` measures."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest
from conftest import ROOT

LINT_DOC = ROOT / "docs" / "lint.md"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "lint_precision", ROOT / "scripts" / "lint_precision.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lint_precision"] = module
    spec.loader.exec_module(module)
    return module


precision = _script()


@pytest.fixture(scope="module")
def findings() -> list[Any]:
    return list(precision.corpus_findings())


def test_every_reviewed_false_positive_is_a_current_finding(findings: list[Any]) -> None:
    current = {precision.finding_key(f) for f in findings}
    for entry in precision.reviewed():
        assert entry["reason"].strip(), entry
        assert (entry["code"], entry["server"], entry["tool"]) in current, entry


def test_error_rules_have_at_most_one_percent_false_positives(findings: list[Any]) -> None:
    for measure in precision.measure(findings):
        if measure.severity == "error":
            assert measure.rate <= 0.01, measure


def test_the_corpus_holds_several_real_servers(findings: list[Any]) -> None:
    assert len(precision.corpus_paths()) >= 15
    assert len(precision._tools()) >= 300


def test_the_lint_page_publishes_the_measured_rates(findings: list[Any]) -> None:
    text = LINT_DOC.read_text(encoding="utf-8")
    begin = text.index("<!-- precision:start -->\n") + len("<!-- precision:start -->\n")
    end = text.index("<!-- precision:end -->")
    assert text[begin:end] == precision.table(findings)
