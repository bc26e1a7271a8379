"""`toolgen verify` against deliberately broken servers (one defect each, caught by the right
check), a correct hand-written server whose schemas are written differently, and toolgen's own
servers (mock and handlers, stdio and HTTP, the generated stub)."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS
from http_support import http_server
from verify_support.run import DEMO_SPEC, TOOLGEN_BASELINE, demo_server, verify
from verify_support.server import COUNT_SPEC

from toolgen.cli import cli
from toolgen.serve.http import SecurityPolicy
from toolgen.serve.mock import mock_handlers
from toolgen.serve.toolset import RuntimeToolSet
from toolgen.spec.pipeline import load_spec_set

LEGACY = ("--protocol", "2025-11-25")

BROKEN = [
    # (defect, {check it fails: the level of the rule it breaks})
    ("answers-notifications", {"protocol.notification-unanswered": "must"}),
    ("parse-error-without-id", {"protocol.parse-error": "must"}),
    ("accepts-batches", {"protocol.batch": "should"}),
    ("output-breaks-schema", {"call.structured-content": "must"}),
    ("no-text-fallback", {"call.text-fallback": "should"}),
    ("annotations-differ", {"listing.annotations": "must"}),
    ("schemas-differ", {"listing.input-schema": "must"}),
    ("tool-missing", {"listing.tool-missing": "must"}),
    ("unknown-tool-is-error", {"protocol.unknown-tool": "should"}),
    ("invalid-args-protocol-error", {"call.invalid-input-error": "should"}),
    ("crashes-on-input", {"call.answers": "must"}),
    ("prints-to-stdout", {"protocol.stdout-clean": "must"}),
    # the other rules, one defect each
    ("echoes-unknown-version", {"protocol.version-negotiation": "must"}),
    ("no-ping", {"protocol.ping": "must"}),
    ("unknown-method-wrong-code", {"protocol.unknown-method": "must"}),
    ("dies-on-malformed-json", {"protocol.parse-error": "must", "protocol.survives": "must"}),
    ("extra-tool", {"listing.tool-extra": "must"}),
    ("add-listed-twice", {"listing.tool-duplicate": "must"}),
    ("output-schema-differs", {"listing.output-schema": "must"}),
    ("bad-result-shape", {"call.result-shape": "must"}),
    ("accepts-invalid-input", {"call.invalid-input": "must"}),
    ("title-differs", {"listing.title": "may"}),
]


@pytest.mark.parametrize(("defect", "levels"), BROKEN, ids=[d for d, _ in BROKEN])
def test_each_defect_is_caught_by_its_check_at_its_level(
    defect: str, levels: dict[str, str]
) -> None:
    run = verify(DEMO_SPEC, "--server", demo_server(defect), *LEGACY)
    assert run.levels() == levels
    assert run.exit_code == (1 if "must" in levels.values() else 0), run.stderr


@pytest.mark.parametrize(
    ("fail_on", "code"), [("must", 0), ("should", 1), ("may", 1)], ids=["must", "should", "may"]
)
def test_fail_on_makes_a_should_failure_fail_the_run(fail_on: str, code: int) -> None:
    run = verify(
        DEMO_SPEC, "--server", demo_server("no-text-fallback"), *LEGACY, "--fail-on", fail_on
    )
    assert run.levels() == {"call.text-fallback": "should"}
    assert (run.exit_code, run.report["ok"]) == (code, code == 0)


def test_a_crash_is_reported_with_the_shrunk_input() -> None:
    run = verify(
        DEMO_SPEC, "--server", demo_server("crashes-on-input"), *LEGACY, "--only", "search"
    )
    (result,) = run.results("call.answers", "search")
    assert "exited with code 3" in result["message"]
    assert len(result["input"]["tags"]) == 3  # the server dies from 3 tags on: shrunk to exactly 3
    query = result["input"]["query"]
    assert query == "apples" or len(query) == 1  # shrunk to the example's value or one character


def test_a_server_killed_by_a_probe_is_restarted_and_the_probe_named() -> None:
    run = verify(DEMO_SPEC, "--server", demo_server("dies-on-malformed-json"), *LEGACY)
    (survives,) = run.results("protocol.survives")[:1]
    assert "died on a probe: protocol.parse-error" in survives["message"]
    assert "exited with code 4" in survives["message"]
    for later in ("protocol.batch", "protocol.unknown-method", "protocol.unknown-tool"):
        assert run.results(later)[0]["status"] == "passed"  # judged on the restarted server


def test_a_hang_is_reported_with_the_tool_and_a_failing_input() -> None:
    run = verify(
        DEMO_SPEC, "--server", demo_server("hangs-on-input"), *LEGACY, "--only", "search",
        "--timeout", "1.5",
    )  # fmt: skip
    assert run.failed() == {"call.answers"}
    (result,) = run.results("call.answers", "search")
    assert "no reply within 1.5 s" in result["message"]
    assert len(result["input"]["tags"]) >= 3  # the server hangs from 3 tags on
    assert run.results("protocol.survives")[-1]["status"] == "passed"  # restarted, answering


def test_a_changed_title_is_a_may_failure_that_fails_only_with_fail_on_may() -> None:
    run = verify(DEMO_SPEC, "--server", demo_server("title-differs"), *LEGACY)
    assert run.exit_code == 0
    (title,) = run.results("listing.title", "search")
    assert (title["status"], title["level"]) == ("failed", "may")
    assert title["rule"]["source"] == "spec set"
    assert run.report["summary"]["levels"] == {"must": 0, "should": 0, "may": 1}
    assert (
        verify(
            DEMO_SPEC, "--server", demo_server("title-differs"), *LEGACY, "--fail-on", "may"
        ).exit_code
        == 1
    )


def test_a_correct_server_with_differently_written_schemas_passes() -> None:
    run = verify(DEMO_SPEC, "--server", demo_server(), "--protocol", "all")
    assert run.exit_code == 0, run.report
    assert run.failed() == set()
    assert [r["status"] for r in run.results("protocol.handshake")] == [
        "skipped", "passed", "passed", "passed", "skipped",  # 2025-03-26 … 2025-11-25 only
    ]  # fmt: skip
    assert run.results("protocol.batch", None)[0]["status"] == "passed"  # accepted at 2025-03-26


def test_destructive_tools_are_skipped_unless_allowed(tmp_path: Path) -> None:
    log = tmp_path / "wipe.log"
    env = {"VERIFY_WIPE_LOG": str(log)}
    run = verify(DEMO_SPEC, "--server", demo_server(), *LEGACY, env=env)
    assert {
        r["status"]
        for r in run.report["results"]
        if r["tool"] == "wipe" and r["check"].startswith("call.")
    } == {"skipped"}
    assert not log.exists()
    run = verify(DEMO_SPEC, "--server", demo_server(), *LEGACY, "--allow-destructive", env=env)
    assert run.exit_code == 0
    assert log.read_text().count("wipe") >= 1


def test_a_tool_listed_twice_is_not_called_when_any_entry_says_destructive() -> None:
    run = verify(DEMO_SPEC, "--server", demo_server("add-listed-twice"), *LEGACY)
    calls = [r for r in run.report["results"] if r["tool"] == "add" and r["check"][:5] == "call."]
    assert calls and {r["status"] for r in calls} == {"skipped"}
    (duplicate,) = run.results("listing.tool-duplicate", "add")
    assert duplicate["status"] == "failed"


def test_the_unknown_tool_probe_never_calls_a_name_the_server_lists(tmp_path: Path) -> None:
    log = tmp_path / "wipe.log"
    run = verify(
        DEMO_SPEC, "--server", demo_server("lists-probe-name"), *LEGACY,
        env={"VERIFY_WIPE_LOG": str(log)},
    )  # fmt: skip
    assert not log.exists()
    assert run.results("protocol.unknown-tool")[0]["status"] == "passed"


def test_toolgen_serve_mock_passes_over_stdio_in_both_eras() -> None:
    server = f"{sys.executable} -m toolgen serve {SPECS / 'notes'} --mock"
    run = verify(SPECS / "notes", "--server", server, "--allow-destructive")
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]
    assert run.report["revisions"] == ["2025-11-25", "2026-07-28"]


def test_toolgen_serve_handlers_passes_over_stdio() -> None:
    handlers = ROOT / "examples" / "notes_handlers.py"
    server = (
        f"{sys.executable} -m toolgen serve {SPECS / 'notes'} --handlers {handlers}:NotesHandlers"
    )
    run = verify(SPECS / "notes", "--server", server, "--allow-destructive")
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]


def test_the_generated_stub_passes(tmp_path: Path) -> None:
    server = (
        f"{sys.executable} {ROOT / 'examples' / 'notes_handlers.py'} --db {tmp_path / 'n.sqlite3'}"
    )
    run = verify(SPECS / "notes", "--server", server, "--allow-destructive")
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]


@pytest.mark.parametrize("kind", ["mock", "handlers"])
def test_toolgen_serve_passes_over_http(kind: str) -> None:
    tools = RuntimeToolSet(load_spec_set(SPECS / "notes"))
    if kind == "mock":
        handlers: object = mock_handlers(tools)
    else:
        sys.path.insert(0, str(ROOT))
        from examples.notes_handlers import NotesHandlers

        handlers = NotesHandlers()
    with http_server(tools, handlers) as url:
        run = verify(
            SPECS / "notes", "--url", url, "--allow-destructive", "--protocol", "all",
            "--baseline", str(TOOLGEN_BASELINE),
        )  # fmt: skip
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]
    (batch,) = [r for r in run.results("protocol.batch") if r["revision"] == "2025-03-26"]
    assert batch["status"] == "passed"  # accepted in 2025-03-26 sessions (issue 16)
    assert run.report["revisions"] == [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ]


def test_header_carries_the_token_an_http_server_requires() -> None:
    tools = RuntimeToolSet(load_spec_set(SPECS / "notes"))
    policy = SecurityPolicy(token="s3cret")
    with http_server(tools, mock_handlers(tools), policy) as url:
        refused = verify(SPECS / "notes", "--url", url, "--only", "get_note")
        run = verify(
            SPECS / "notes", "--url", url, "--only", "get_note",
            "--header", "Authorization: Bearer s3cret",
        )  # fmt: skip
    assert refused.exit_code == 2
    assert "HTTP 401" in refused.stderr and "--header" in refused.stderr
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]
    assert run.results("call.answers", "get_note")[0]["status"] == "passed"


def test_mirrored_header_parameters_are_sent_over_http() -> None:
    sys.path.insert(0, str(ROOT))
    from examples.conformance_handlers import HANDLERS

    tools = RuntimeToolSet(load_spec_set(SPECS / "conformance"))
    with http_server(tools, HANDLERS) as url:
        run = verify(
            SPECS / "conformance", "--url", url, "--protocol", "2026-07-28",
            "--only", "test_param_header",
        )  # fmt: skip
    assert run.exit_code == 0, [r for r in run.report["results"] if r["status"] == "failed"]
    assert run.results("call.answers", "test_param_header")[0]["status"] == "passed"


HOSTILE_QUERY = "\x1b]0;owned\x07 \x00 \x9b2J"
"""An example query the `picky` server quotes back in its refusal: OSC, NUL and a C1 CSI."""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_report_file_escapes_a_servers_control_characters_as_stdout_does(
    tmp_path: Path, fmt: str
) -> None:
    spec = tmp_path / "demo.yaml"
    text = DEMO_SPEC.joinpath("demo.yaml").read_text(encoding="utf-8")
    spec.write_text(
        text.replace("{query: apples}", json.dumps({"query": HOSTILE_QUERY})), encoding="utf-8"
    )
    report = tmp_path / "report.txt"
    args = ["verify", str(spec), "--server", demo_server("picky"), *LEGACY, "--only", "search"]
    CliRunner().invoke(cli, [*args, "--cases", "0", "--format", fmt, "-o", str(report)])
    printed = CliRunner().invoke(cli, [*args, "--cases", "0", "--format", fmt]).stdout
    written = report.read_text(encoding="utf-8")
    assert "\\u001b]0;owned" in written and "\\u009b2J" in written
    assert not [c for c in written if c not in "\n\t" and unicodedata.category(c) == "Cc"]
    seconds = re.compile(r"\d+\.\d s\)")  # the run time in the headline
    assert seconds.sub("", written) == seconds.sub("", printed)


def open_world_spec(tmp_path: Path, examples: bool) -> Path:
    """The demo spec with `search` undeclared as to the open world (the MCP default: open)."""
    text = DEMO_SPEC.joinpath("demo.yaml").read_text(encoding="utf-8")
    text = text.replace("{readOnly: true, openWorld: false}", "{readOnly: true}")
    if not examples:
        text = text.replace(
            "    examples:\n      - input: {query: apples}\n        output: {items: [apples], total: 1}\n",
            "",
        )
    spec = tmp_path / "demo.yaml"
    spec.write_text(text, encoding="utf-8")
    return spec


OPEN_WORLD = [
    # (the spec has an example, a fixture value is given, --allow-open-world: calls, and the
    # status of call.answers; the listing says openWorldHint false: listing.annotations fails)
    (True, False, False, 1, "passed"),  # the example only
    (False, True, False, 1, "passed"),  # the fixture value only
    (False, False, False, 0, "not-exercised"),  # nothing to call it with
    (True, False, True, None, "passed"),  # examples, boundaries, generated and invalid inputs
]


@pytest.mark.parametrize(("example", "fixture", "allow", "calls", "verdict"), OPEN_WORLD)
def test_an_open_world_tool_gets_only_the_examples_and_fixture_values_unless_allowed(
    tmp_path: Path, example: bool, fixture: bool, allow: bool, calls: int | None, verdict: str
) -> None:
    args = ["--server", demo_server(), *LEGACY, "--only", "search", "--sequences", "off"]
    if fixture:
        (tmp_path / "fixtures.yaml").write_text("values: {query: [kiwi]}\n", encoding="utf-8")
        args += ["--fixtures", str(tmp_path / "fixtures.yaml")]
    if allow:
        args.append("--allow-open-world")
    run = verify(open_world_spec(tmp_path, example), *args)
    (answers,) = run.results("call.answers")
    assert answers["status"] == verdict, answers
    if calls is None:
        assert run.report["calls"] > 5
        assert run.results("call.invalid-input")[0]["status"] == "passed"
    else:
        assert run.report["calls"] == calls
        assert run.results("call.invalid-input")[0]["status"] == "skipped"
        assert "--allow-open-world" in answers["message"]


def test_a_call_after_which_the_tools_that_passed_fail_is_reported_with_its_input(
    tmp_path: Path,
) -> None:
    """The first `add` call leaves the catalogue unreadable: `search`, which passed before,
    fails after it, and so does every call of `count`, called later: `add`'s call is the
    suspect, and `count` is not blamed on missing fixtures."""
    spec = tmp_path / "demo.yaml"
    spec.write_text(
        DEMO_SPEC.joinpath("demo.yaml").read_text(encoding="utf-8") + COUNT_SPEC,
        encoding="utf-8",
    )
    args = ("--server", demo_server("corrupts-state"), *LEGACY, "--sequences", "off")
    run = verify(spec, *args)
    (state,) = run.results("call.state-intact")
    assert (state["tool"], state["status"], state["level"]) == ("add", "failed", "should")
    assert set(state["input"]) == {"a", "b"}
    assert run.results("call.answers", "search")[0]["status"] == "passed"
    verdicts = {v["tool"]: v for v in run.report["tools"]}
    assert verdicts["count"]["status"] == "not-exercised"
    assert "call.state-intact" in verdicts["count"]["reason"]
    assert "fixtures file" not in verdicts["count"]["reason"]
