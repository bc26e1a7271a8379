"""Round trip on real servers: published tools → `toolgen import` → `toolgen tools`.

The corpus is the GitHub MCP server's 117 tools and the `tools/list` results of
22 other public servers: tests/data/servers (12, sources in its README) and the
lint corpus's other servers (tests/data/corpus/*.json, sources in its README; a
capture identical to one in tests/data/servers is counted once). A tool
is identical when `toolgen tools --refs keep` gives back exactly the published
definition (object key order aside), but for a declared older dialect (`$schema`
draft-07...) that was converted to 2020-12. At least 98% must be identical,
and every other one must be named by a warning of the import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result
from conftest import CORPUS, DATA

from toolgen.cli import cli
from toolgen.spec.model import FORMAT_SCHEMA

SERVERS = DATA / "servers"


def distinct_captures() -> list[Path]:
    """tests/data/servers, then the lint corpus's servers that are not already among them."""
    captures = sorted(SERVERS.glob("*.json"))
    seen = [json.loads(p.read_text(encoding="utf-8")) for p in captures]
    for path in sorted(CORPUS.parent.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["tools"] not in [s["tools"] for s in seen]:
            captures.append(path)
            seen.append(data)
    return captures


SOURCES = [CORPUS, *distinct_captures()]
REVISION = "2025-11-25"  # the revision these servers were listed in
OLDER_DIALECTS = ("draft-04/", "draft-06/", "draft-07/", "draft/2019-09/")


@dataclass(frozen=True)
class RoundTrip:
    source: str
    published: list[dict[str, Any]]
    emitted: list[dict[str, Any]]
    warned: frozenset[str]
    spec_text: str


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def published_tools(source: Path) -> list[dict[str, Any]]:
    if source.is_dir():
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(source.glob("*.json"))]
    tools: list[dict[str, Any]] = json.loads(source.read_text(encoding="utf-8"))["tools"]
    return tools


@cache
def round_trip(source: Path, out: Path) -> RoundTrip:
    imported = run("import", str(source), "-o", str(out))
    assert imported.exit_code == 0, imported.output
    warned = frozenset(
        line.split(": ", 2)[1]
        for line in imported.stderr.splitlines()
        if line.startswith("warning: ") and line.count(": ") >= 2
    )
    # refs as published: a build inlines them by default, which changes no tool's meaning
    listed = run("tools", str(out), "--protocol", REVISION, "--refs", "keep")
    assert listed.exit_code == 0, listed.output
    (spec,) = out.glob("*.yaml")
    emitted = json.loads(listed.stdout)["tools"]
    return RoundTrip(source.name, published_tools(source), emitted, warned, spec.read_text())


@pytest.fixture(scope="module")
def trips(tmp_path_factory: pytest.TempPathFactory) -> list[RoundTrip]:
    base = tmp_path_factory.mktemp("imports")
    return [round_trip(source, base / source.stem) for source in SOURCES]


def without_older_dialect(tool: dict[str, Any]) -> dict[str, Any]:
    out = dict(tool)
    for part in ("inputSchema", "outputSchema"):
        schema = out.get(part)
        declared = schema.get("$schema", "") if isinstance(schema, dict) else ""
        if any(f"json-schema.org/{d}" in declared for d in OLDER_DIALECTS):
            out[part] = {k: v for k, v in schema.items() if k != "$schema"}
    return out


def identical(published: dict[str, Any], emitted: dict[str, Any]) -> bool:
    return without_older_dialect(published) == emitted


def test_the_corpus_is_real_and_large(trips: list[RoundTrip]) -> None:
    assert len(trips) >= 20
    assert sum(len(t.published) for t in trips) >= 390


def test_at_least_98_percent_of_real_tools_read_back_identical(trips: list[RoundTrip]) -> None:
    pairs = [(p, e) for t in trips for p, e in zip(t.published, t.emitted, strict=True)]
    same = sum(identical(p, e) for p, e in pairs)
    assert same / len(pairs) >= 0.98, f"{same} of {len(pairs)} identical"


def test_every_tool_that_differs_is_named_by_a_warning(trips: list[RoundTrip]) -> None:
    for trip in trips:
        for published, emitted in zip(trip.published, trip.emitted, strict=True):
            if not identical(published, emitted):
                assert emitted["name"] in trip.warned, (trip.source, emitted["name"])


def test_descriptions_come_back_byte_for_byte(trips: list[RoundTrip]) -> None:
    for trip in trips:
        for published, emitted in zip(trip.published, trip.emitted, strict=True):
            assert emitted.get("description") == published.get("description"), emitted["name"]


def test_an_import_is_deterministic(trips: list[RoundTrip], tmp_path: Path) -> None:
    again = run("import", str(SOURCES[1]), "-o", str(tmp_path / "again"))
    assert again.exit_code == 0
    (spec,) = (tmp_path / "again").glob("*.yaml")
    first = next(t for t in trips if t.source == SOURCES[1].name)
    assert spec.read_text() == first.spec_text


def test_imported_corpus_lints_without_spec_errors(trips: list[RoundTrip], tmp_path: Path) -> None:
    out = tmp_path / "github"
    assert run("import", str(CORPUS), "-o", str(out)).exit_code == 0
    result = run("lint", str(out), "--format", "json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert not {c for c in codes if not c.startswith("TG")}


def test_every_imported_spec_is_valid_against_the_packaged_format_schema(
    trips: list[RoundTrip],
) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(FORMAT_SCHEMA.read_text()))
    for trip in trips:
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(trip.spec_text))]
        assert errors == [], trip.source
