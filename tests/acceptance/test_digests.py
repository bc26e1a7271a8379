"""Tool digests: RFC 8785 canonical JSON, stable across key order and formatting, written by
`build` and printed by `toolgen digest` the way a client recomputes them from `tools/list`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rfc8785
from click.testing import CliRunner
from conftest import GENERATED, SPECS, TESTS
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen.cli import cli
from toolgen.spec.digests import canonical_json, digest, set_digest
from toolgen.spec.protocol import EMITTED_REVISIONS

CORPUS = TESTS / "data" / "corpus" / "github-mcp-server"
NUMBERS = [
    0,
    -0.0,
    1.0,
    1e21,
    1e20,
    1e-7,
    1e-6,
    0.0001,
    1e-05,
    123.456,
    -0.5,
    5e-324,
    1.7976931348623157e308,
    2.0**53,
    0.1 + 0.2,
    12345678901234567890.0,
    100.0,
    1.5e300,
]


@pytest.mark.parametrize("number", NUMBERS)
def test_numbers_are_written_as_rfc_8785_writes_them(number: float) -> None:
    assert canonical_json(number) == rfc8785.dumps(number).decode()


def test_every_corpus_tool_canonicalizes_as_rfc_8785_does() -> None:
    for path in sorted(CORPUS.glob("*.json")):
        tool = json.loads(path.read_text(encoding="utf-8"))
        assert canonical_json(tool) == rfc8785.dumps(tool).decode(), path.name


def test_strings_and_keys_follow_rfc_8785() -> None:
    value = {"é": 1, "e": '\u2028\x01"\\', "\U0001f600": [True, None], "\uffff": {}}
    assert canonical_json(value) == rfc8785.dumps(value).decode()


def test_key_order_and_formatting_do_not_change_a_digest() -> None:
    tool = json.loads((CORPUS / "issue_write.json").read_text(encoding="utf-8"))
    reordered = json.loads(json.dumps(dict(reversed(list(tool.items()))), indent=4))
    assert digest(reordered) == digest(tool)
    tool["description"] += " "
    assert digest(reordered) != digest(tool)


def test_a_set_digest_changes_with_any_tool_digest() -> None:
    tools = {"a": digest({"name": "a"}), "b": digest({"name": "b"})}
    assert set_digest(tools) == set_digest(dict(reversed(list(tools.items()))))
    assert set_digest(tools) != set_digest({**tools, "b": digest({"name": "b", "title": "B"})})
    assert set_digest(tools) != set_digest({"a": tools["a"]})


@pytest.mark.parametrize("package", ["notes", "shop_orders"])
def test_built_digests_are_what_a_client_computes_from_tools_list(package: str) -> None:
    digests = json.loads(
        (GENERATED / package / "tools" / "digests.json").read_text(encoding="utf-8")
    )
    assert digests["algorithm"] == "sha256"
    for revision in EMITTED_REVISIONS:
        listed = json.loads(
            (GENERATED / package / "tools" / f"{revision}.json").read_text(encoding="utf-8")
        )
        expected = {t["name"]: "sha256:" + rfc8785_sha256(t) for t in listed["tools"]}
        assert digests["revisions"][revision]["tools"] == expected
        assert digests["revisions"][revision]["digest"] == "sha256:" + rfc8785_sha256(expected)


def rfc8785_sha256(value: object) -> str:
    import hashlib

    return hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def test_digest_command_prints_the_built_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SPECS.parent)
    result = CliRunner().invoke(
        cli, ["digest", "specs/notes", "--protocol", "2025-06-18", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)["servers"][0]
    built = json.loads((GENERATED / "notes" / "tools" / "digests.json").read_text(encoding="utf-8"))
    assert printed["tools"] == built["revisions"]["2025-06-18"]["tools"]
    assert printed["digest"] == built["revisions"]["2025-06-18"]["digest"]
    text = CliRunner().invoke(cli, ["digest", "specs/notes"]).stdout.splitlines()
    assert text[-1].endswith("(notes: 6 tools, protocol 2026-07-28)")
    assert text[0].split() == [
        built["revisions"]["2026-07-28"]["tools"]["create_note"],
        "create_note",
    ]


def test_published_definitions_are_digested_as_they_are(tmp_path: Path) -> None:
    tool = json.loads((CORPUS / "get_me.json").read_text(encoding="utf-8"))
    (tmp_path / "tools.json").write_text(json.dumps({"tools": [tool]}, indent=3), encoding="utf-8")
    result = CliRunner().invoke(cli, ["digest", str(tmp_path / "tools.json")])
    assert result.stdout.split()[:2] == [digest(tool), "get_me"]
    assert "as published" in result.stdout


def test_a_built_package_is_digested_as_its_latest_revision_publishes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its schemas, views and reports are not read as tools: only `tools/<latest>.json`."""
    monkeypatch.chdir(SPECS.parent)
    runner = CliRunner()
    built = runner.invoke(cli, ["digest", "generated/notes", "--format", "json"])
    spec = runner.invoke(cli, ["digest", "specs/notes", "--format", "json"])
    assert built.exit_code == 0, built.output
    assert (
        json.loads(built.stdout)["servers"][0]["tools"]
        == (json.loads(spec.stdout)["servers"][0]["tools"])
    )
    assert len(json.loads(built.stdout)["servers"][0]["tools"]) == 6


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1.5, "b": [1, 2]},
        {"\U0001f600": 1, "\uffff": 2},
        [1e-7, {"x": 1.0}],
        json.loads((CORPUS / "issue_write.json").read_text(encoding="utf-8")),
    ],
)
def test_the_fast_path_and_the_fallback_give_rfc_8785_bytes(value: object) -> None:
    from toolgen.spec.digests import canonical_bytes

    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_integers_beyond_2_to_the_53_are_written_as_doubles() -> None:
    from toolgen.spec.digests import canonical_bytes

    assert canonical_bytes({"n": 2**70}) == b'{"n":1.1805916207174113e+21}'
    assert canonical_bytes({"n": 2**53}) == b'{"n":9007199254740992}'


def test_a_path_that_does_not_load_is_an_error_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["digest", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert f"{tmp_path / 'missing'}:1:1: error[io]: no such file or directory" in result.stderr
    assert result.stderr.endswith("1 error; nothing was digested.\n")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=1 - 2**53, max_value=2**53 - 1)  # what rfc8785 accepts
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_canonical_bytes_are_rfc_8785_for_any_json_value(value: object) -> None:
    from toolgen.spec.digests import canonical_bytes

    assert canonical_bytes(value) == rfc8785.dumps(value)
