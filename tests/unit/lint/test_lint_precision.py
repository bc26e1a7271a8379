"""Lint precision on real servers: no known false positive fires by default, error rules
stay at or below 1%, the held-out corpus is real and apart, and the published table is
what `scripts/lint_precision.py` measures."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest
from conftest import ROOT

PAGES = [ROOT / "docs" / "lint.md"]
"""Where the precision table is published (between its markers)."""


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
def findings() -> dict[str, list[Any]]:
    return precision.all_findings()


@pytest.mark.parametrize("label", list(precision.CORPORA))
def test_no_known_false_positive_fires_by_default(label: str) -> None:
    corpus = precision.CORPORA[label]
    fired = {precision.finding_key(f) for f in precision.corpus_findings(corpus, select="default")}
    known = [e for e in precision.reviewed(corpus) if (e["code"], e["server"], e["tool"]) in fired]
    assert known == []


@pytest.mark.parametrize("label", list(precision.CORPORA))
def test_every_known_false_positive_names_a_tool_and_says_why(label: str) -> None:
    corpus = precision.CORPORA[label]
    tools = set(precision.tools(corpus))
    for entry in precision.reviewed(corpus):
        assert entry["reason"].strip(), entry
        assert entry["tool"] in tools, entry
        assert (corpus / entry["server"]).exists(), entry


def test_error_rules_have_at_most_one_percent_false_positives(
    findings: dict[str, list[Any]],
) -> None:
    for label, corpus in precision.CORPORA.items():
        for measure in precision.measure(findings[label], corpus):
            if measure.severity == "error":
                assert measure.rate <= 0.01, (label, measure)


HELD_OUT_PRECISION = 0.97
"""The least precision of the rules that read names and descriptions, together, on servers
they were not written on."""


def test_the_name_and_description_rules_keep_their_precision_on_the_held_out_corpus(
    findings: dict[str, list[Any]],
) -> None:
    together = precision.heuristic(precision.measure(findings["held out"], precision.HELDOUT))
    assert together.findings >= 20, together
    assert 1 - together.rate >= HELD_OUT_PRECISION, together


def test_each_corpus_holds_several_real_servers_and_none_is_in_both() -> None:
    tuned, held = (precision.corpus_paths(c) for c in precision.CORPORA.values())
    assert len(tuned) >= 15 and len(precision.tools(precision.CORPUS)) >= 300
    assert len(held) >= 8 and len(precision.tools(precision.HELDOUT)) >= 150
    assert not {p.name for p in tuned} & {p.name for p in held}


def test_the_published_table_is_the_measured_one(findings: dict[str, list[Any]]) -> None:
    texts = [p.read_text(encoding="utf-8") for p in PAGES if p.exists()]
    published = [t for t in texts if "<!-- precision:start -->" in t]
    assert published, "no page publishes the precision table"
    for text in published:
        begin = text.index("<!-- precision:start -->\n") + len("<!-- precision:start -->\n")
        end = text.index("<!-- precision:end -->")
        assert text[begin:end] == precision.table(findings)
