"""`toolgen import` on published tools that need converting or repairing (tests/cases/import_cases.yaml).

Each imported spec is loaded by the real frontend; the imported input schema
must accept and reject the same arguments as the published one, judged by an
independent validator (`jsonschema`) in the published schema's own dialect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import ROOT

from toolgen.importer import Published, import_published, write_import
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.protocol import tool_definition

CASES: list[dict[str, Any]] = yaml.safe_load(
    (ROOT / "tests" / "cases" / "import_cases.yaml").read_text(encoding="utf-8")
)


def published_validator(schema: Any) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


@pytest.fixture(params=CASES, ids=[c["name"] for c in CASES])
def imported(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[dict[str, Any], Any]:
    case: dict[str, Any] = request.param
    result = import_published(Published(tuple(case["tools"])))
    write_import(result, tmp_path / "spec")
    return case, (result, load_spec_set(tmp_path / "spec"))


def test_the_imported_tools_are_named_as_expected(imported: tuple[dict[str, Any], Any]) -> None:
    case, (_, toolset) = imported
    expected = case.get("names", [t["name"] for t in case["tools"] if isinstance(t, dict)])
    assert [t.name for t in toolset.tools] == expected
    assert [d.name for d in toolset.defs] == case.get("defs", [])


def test_every_change_is_explained_by_a_warning_naming_the_tool(
    imported: tuple[dict[str, Any], Any],
) -> None:
    case, (result, _) = imported
    expected: dict[str, list[str]] = case.get("warnings", {})
    by_tool: dict[str, list[str]] = {}
    for warning in result.warnings:
        by_tool.setdefault(warning.tool or "", []).append(warning.message)
    assert set(by_tool) - {""} == set(expected)
    for tool, needles in expected.items():
        text = "\n".join(by_tool[tool])
        for needle in needles:
            assert needle in text, (tool, needle, text)


def test_the_imported_schema_accepts_exactly_what_the_published_one_accepts(
    imported: tuple[dict[str, Any], Any],
) -> None:
    case, (_, toolset) = imported
    published = {t["name"]: t for t in case["tools"] if isinstance(t, dict)}
    for verdict, table in ((True, case.get("accept", {})), (False, case.get("reject", {}))):
        for name, instances in table.items():
            schema = published[name].get("inputSchema")
            original = published_validator(schema if isinstance(schema, dict) else {})
            emitted = tool_definition(toolset.tool(name), "2025-11-25")["inputSchema"]
            imported_validator = jsonschema.Draft202012Validator(emitted)
            for instance in instances:
                assert original.is_valid(instance) is verdict, (name, instance, "case data")
                assert imported_validator.is_valid(instance) is verdict, (name, instance)
