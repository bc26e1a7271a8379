"""Every lint rule, by data: each case's input gives exactly the expected codes at line:col."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lint_support import case_id, load_cases, run_case

from toolgen.lint.config import parse_section
from toolgen.lint.docs import missing_sections
from toolgen.lint.registry import RETIRED, all_rules
from toolgen.lint.runner import lint_paths

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_rule_case_reports_expected_findings(
    case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_case(case, tmp_path / "case") == case["expect"]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_docs_and_a_failing_and_a_passing_case(rule: Any) -> None:
    assert rule.summary, rule.code
    assert missing_sections(rule) == [], rule.code
    mine = [c for c in CASES if c["rule"] == rule.code]
    assert any(c["expect"] and any(e.startswith(rule.code) for e in c["expect"]) for c in mine), (
        f"{rule.code} has no failing case"
    )
    assert any(c["expect"] == [] for c in mine), f"{rule.code} has no passing case"


def test_every_case_names_a_registered_rule() -> None:
    codes = {r.code for r in all_rules()}
    assert {c["rule"] for c in CASES} <= codes


KNOWN_CODES = [
    "TG001",
    "TG002",
    "TG003",
    "TG101",
    "TG102",
    "TG103",
    "TG104",
    "TG105",
    "TG106",
    "TG107",
    "TG108",
    "TG109",
    "TG110",
    "TG111",
    "TG201",
    "TG202",
    "TG203",
    "TG204",
    "TG205",
    "TG301",
    "TG302",
    "TG303",
    "TG304",
    "TG305",
    "TG306",
    "TG307",
    "TG308",
    "TG309",
    "TG310",
    "TG311",
    "TG312",
    "TG313",
    "TG314",
    "TG315",
    "TG316",
    "TG401",
    "TG402",
    "TG403",
    "TG404",
    "TG405",
    "TG406",
    "TG501",
    "TG502",
    "TG503",
    "TG504",
    "TG505",
    "TG317",
]
"""Every code ever given to a rule. Append new codes; a removed rule goes to RETIRED."""


def test_rule_codes_are_never_dropped_or_reused() -> None:
    registered = {r.code for r in all_rules()}
    assert registered.isdisjoint(RETIRED)
    assert set(KNOWN_CODES) <= registered | set(RETIRED), "a code vanished: add it to RETIRED"
    assert registered <= set(KNOWN_CODES), "a new code: append it to KNOWN_CODES"


def test_the_mcp_name_rule_is_the_one_spec_files_must_meet() -> None:
    from toolgen.lint.rules.names import MCP_TOOL_NAME
    from toolgen.spec.model import TOOL_NAME_PATTERN

    assert MCP_TOOL_NAME.pattern == TOOL_NAME_PATTERN


@pytest.mark.parametrize(
    ("targets", "name", "message"),
    [
        (["gemini"], "1password", "gemini rejects the name '1password'"),
        (["anthropic", "gemini"], "a.b", "anthropic, gemini reject the name 'a.b'"),
    ],
)
def test_a_provider_name_finding_says_who_rejects_it_and_the_strictest_rule(
    tmp_path: Path, targets: list[str], name: str, message: str
) -> None:
    tools = {"tools": [{"name": name, "inputSchema": {"type": "object"}}]}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    run = lint_paths([path], parse_section({"select": [], "target": targets}))
    letter_first = "1-64 characters of A-Z, a-z, 0-9, `_` and `-`, starting with a letter or `_`"
    assert [f.message for f in run.findings] == [f"{message}: it takes {letter_first}"]
