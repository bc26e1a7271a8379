"""The Go target end to end, with Go and the official Go SDK, beyond the shared target vectors
(`test_targets.py`): every package `toolgen build --target go` writes for the test run's spec
sets (the vectors' sets, the golden edge cases, the sets imported from public servers' listings)
is gofmt-, go vet- and staticcheck-clean, and mistakes in code using one fail to compile at
their line. The notes package, served by a Go binary with the stateful handlers of
`go_support/notes_server/`, lists exactly what the Python build and runtime list in every
revision the SDK negotiates, passes `toolgen verify --fail-on should` on every revision, answers
every line on stdin as JSON-RPC wants; its generated Client and the Python SDK's client call
every tool; its Client refuses a tool the spec calls safe that the server hints may destroy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import SPECS, UNSAFE_LISTINGS, run_process, toolgen_cli
from golang_support import GUARD, SUPPORT, Workspace, require
from targets_support import (
    GoRow,
    answered,
    assert_lists_as_python,
    built_sets,
    vector_set,
    verify_report,
)

from toolgen import load_toolset
from toolgen.build.typemodel import build_model
from toolgen.client.drift import compare
from toolgen.spec.protocol import SUPPORTED_REVISIONS, list_tools_result

NOTES = SPECS / "notes"


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    """Every package of the test run and the tests' programs, built once (`GoRow`)."""
    require()
    return GoRow().workspace()


def modules(workspace: Workspace) -> list[str]:
    return [f"./{name}/..." for name in [*workspace.packages, "support"]]


def test_every_package_and_the_test_programs_are_gofmt_and_go_vet_clean(
    workspace: Workspace,
) -> None:
    assert len(workspace.packages) == len(built_sets("go")) + 1 + 12  # + edge cases, servers
    gofmt = workspace.gofmt("-l", *workspace.packages, "support")  # the files it would change
    assert gofmt.returncode == 0 and gofmt.stdout == "", gofmt.stdout + gofmt.stderr
    vet = workspace.go("vet", *modules(workspace))
    assert vet.returncode == 0, vet.stderr


def test_every_package_and_the_test_programs_pass_staticcheck(workspace: Workspace) -> None:
    done = workspace.staticcheck(*modules(workspace))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_mistake_in_code_using_the_package_fails_to_compile_at_its_line(
    workspace: Workspace,
) -> None:
    source = SUPPORT / "testdata" / "type_errors" / "main.go"
    target = workspace.root / "support" / "testdata" / "type_errors"  # outside ./support/...
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target / "main.go")
    expected = {
        number
        for number, line in enumerate(source.read_text().splitlines(), start=1)
        if "// error: " in line
    }
    assert len(expected) == 8  # result, field, output, named, enum, union and nullable types
    done = workspace.go("build", "-o", os.devnull, "./support/testdata/type_errors")
    assert done.returncode != 0
    found = {int(m[1]) for m in re.finditer(r"type_errors/main\.go:(\d+):\d+: ", done.stderr)}
    assert found == expected, done.stderr


def test_the_go_tests_pass(workspace: Workspace, tmp_path: Path) -> None:
    """`go_support/inprocess` (tools added by hand, defaults, failures, the types' JSON) and the
    runtime's own tests (run inside the notes package's copy), with patterns judged by
    toolgen's Python runtime."""
    runtime = workspace.root / "notes" / "internal" / "toolgen"
    shutil.copy(SUPPORT / "testdata" / "runtime_test.go", runtime / "runtime_test.go")
    cases = tmp_path / "patterns.json"
    cases.write_text(json.dumps(pattern_cases()))
    done = workspace.go(
        "test", "-count=1", "-json", "./notes/...", "./support/...",
        env={"TOOLGEN_PATTERN_CASES": str(cases)},
    )  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    passed = {e["Test"] for e in events if e.get("Action") == "pass" and "Test" in e}
    failed = [e.get("Output", "") for e in events if e.get("Action") == "output"]
    assert done.returncode == 0, "".join(failed)[-5000:]
    assert {
        "TestPatternsMatchAsToolgensPythonRuntimeDoes",
        "TestToolsAddedByHandAreListedAfterTheSpecsAndAreNoDrift",
        "TestAHandlerSeesTheInputsDefaultsFilledIn",
        "TestAHandlersFailureReachesTheClientWithoutInternals",
        "TestAnUnknownToolIsAJSONRPCError",
        "TestArgumentsThatAreNoObjectAreAJSONRPCError",
        "TestTheTypesReadAndWriteTheirJSON",
        "TestIntegersWithAFractionOrAnExponentAreReadAsIntegers",
        "TestAUnionReadsTheFirstBranchAValueReadsAsAndRefusesAValueOfNone",
        "TestAnOpenObjectKeepsWhatItDoesNotDeclareAndAClosedOneRefusesIt",
        "TestATupleIsAnArrayOfItsElementsThenTheRest",
    } <= passed


PATTERNS = [
    (r"^\s$", "\u00a0"), (r"^\s$", "\ufeff"), (r"^\s$", "\x85"), (r"^\s$", "\u2003"),
    (r"^\S$", "\u00a0"), (r"^[\s]$", "\u3000"), (r"^\d$", "\u0663"), (r"^\d$", "7"),
    (r"^\D$", "7"), (r"^\w$", "é"), (r"^\w+$", "a_1"), (r"^\W$", "é"), (r"^(?!x)", "y"),
    (r"^(?!x)", "x"), (r"^(a)\1$", "aa"), (r"^(a)\1$", "ab"), (r"(?<=a)b", "ab"),
    (r"^.$", "\r"), (r"^.$", "\n"), (r"^.$", "\u2028"), (r"^a$", "a\n"), (r"^(?=a)a$", "a\n"),
    (r"^(?=a)a$", "a"), (r"\p{L}", "é"), (r"^\cJ$", "\n"), (r"^\u0041$", "A"), (r"^\x41$", "A"),
    (r"(?i)^a$", "A"), (r"\bfoo\b", "a foo b"), (r"^\/$", "/"),
]  # fmt: skip
"""(pattern, text): ECMA-262 classes, lookaround, backreferences, anchors, escapes."""


def pattern_cases() -> list[dict[str, Any]]:
    """Each pattern case with whether toolgen's Python runtime (jsonschema-rs) matches it."""
    return [
        {"pattern": p, "text": t, "matches": jsonschema_rs.Draft202012Validator({"pattern": p}).is_valid(t)}
        for p, t in PATTERNS
    ]  # fmt: skip


def test_the_go_server_lists_what_the_python_runtime_lists(
    workspace: Workspace, tmp_path: Path
) -> None:
    assert_lists_as_python(workspace.command("notes_server"), NOTES, tmp_path)


def test_the_go_server_passes_toolgen_verify_failing_on_should(workspace: Workspace) -> None:
    """Every tool, destructive ones too, is called and answered in every revision, stateful
    sequences included. (Which tools verify leaves out without --allow-destructive follows from
    the listed hints, which the listing test holds to the spec's.)"""
    server = str(workspace.root / "bin" / "notes_server")
    done = toolgen_cli(
        "verify", str(NOTES), "--server", server, "--protocol", "all", "--fail-on", "should",
        "--format", "json", "--allow-open-world", "--allow-destructive",
    )  # fmt: skip
    report = verify_report(done)
    assert report["revisions"] == list(SUPPORTED_REVISIONS)
    tools = load_toolset(NOTES).tools
    called = {(tool.name, revision) for tool in tools for revision in SUPPORTED_REVISIONS}
    assert len(called) == 30
    assert called <= answered(report)


INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}  # fmt: skip
LINES: list[tuple[bytes, Any, int]] = [
    (b"{not json", None, -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', None, -32700),
    (b"\xff\xfe", None, -32700),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', None, -32600),  # before 2025-03-26
    (b"[]", None, -32600),
    (b"42", None, -32600),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', None, -32600),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', None, -32600),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', None, -32600),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', None, -32600),
    (b'{"jsonrpc": "2.0", "id": 9007199254740993, "method": "ping"}', None, -32600),
    (b'{"id": 7, "method": "ping"}', 7, -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}' + b" " * (64 << 20), None, -32600),
    (
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": '
        b'{"io.modelcontextprotocol/protocolVersion": "1999-01-01"}}}',
        3,
        -32022,
    ),
    (b"[" * 2000 + b"]" * 2000, None, -32600),
]
"""(line, the id of the answer, its error code) for lines that are no request the server can
run; each is answered, and the server answers the next request."""


def exchange(command: list[str], *lines: bytes) -> list[Any]:
    """Send `lines` (each followed by a newline) then close stdin; every answer, in order."""
    done = subprocess.run(
        command, input=b"".join(line + b"\n" for line in lines), capture_output=True,
        timeout=GUARD, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize(("line", "answer_id", "code"), LINES, ids=range(len(LINES)))
def test_the_go_server_answers_every_line_as_json_rpc_wants(
    workspace: Workspace, line: bytes, answer_id: Any, code: int
) -> None:
    after = json.dumps({"jsonrpc": "2.0", "id": "after", "method": "ping"}).encode()
    answers = exchange(workspace.command("notes_server"), line, after)
    assert [(a["id"], a["error"]["code"]) for a in answers[:1]] == [(answer_id, code)]
    assert answers[1:] == [{"jsonrpc": "2.0", "id": "after", "result": {}}]


@pytest.mark.parametrize("count", ["3.0", "1e2", "4611686018427387904.0"])
def test_an_integer_written_with_a_fraction_or_an_exponent_reaches_the_handler(
    workspace: Workspace, count: str
) -> None:
    """JSON Schema counts 3.0 as an integer; the handler's `Count` (an int64) reads it."""
    call = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "scalars", '
        f'"arguments": {{"text": "abc", "count": {count}}}}}}}'
    )
    initialize = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-11-25"}}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    answers = exchange(
        workspace.vectors("serve", "features"),
        json.dumps(initialize).encode(), json.dumps(initialized).encode(), call.encode(),
    )  # fmt: skip
    assert answers[1]["result"]["structuredContent"] == {"ok": True, "echo": "abc"}, answers[1]


def test_a_2025_03_26_session_takes_batches_and_answers_each_request_in_one_array(
    workspace: Workspace,
) -> None:
    ping = {"jsonrpc": "2.0", "method": "ping"}
    batch = [
        {**ping, "id": 1},
        {**ping, "id": 2},
        42,
        {"jsonrpc": "2.0", "method": "notifications/x"},
    ]
    duplicate = [{**ping, "id": 5}, {**ping, "id": 5}]
    answers = exchange(
        workspace.command("notes_server"),
        json.dumps(INITIALIZE).encode(), json.dumps(batch).encode(), json.dumps(duplicate).encode(),
    )  # fmt: skip
    assert answers[0]["result"]["protocolVersion"] == "2025-03-26"
    arrays = sorted(
        (sorted((a["id"] is None, str(a["id"]), "error" in a) for a in array) for array in answers[1:]),
    )  # fmt: skip
    assert arrays == [
        [(False, "1", False), (False, "2", False), (True, "None", True)],  # 42: -32600
        [(False, "5", False), (False, "5", True)],  # the second 5 is in use
    ]


def roundtrip(workspace: Workspace, items: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Each (type name, JSON value) decoded into the notes type and written back."""
    lines = "".join(
        json.dumps({"type": f"notes.{name}", "value": value}) + "\n" for name, value in items
    )
    done = run_process(workspace.vectors("roundtrip"), stdin=lines)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_example_of_the_spec_reads_into_its_type_and_back_unchanged(
    workspace: Workspace,
) -> None:
    toolset = load_toolset(NOTES)
    names = build_model(toolset).tools  # the type names every target gives
    items = [
        (name, value)
        for tool in toolset.tools
        for example in tool.examples
        for name, value, has in (
            (names[tool.name].input, example.input, example.has_input),
            (names[tool.name].output, example.output, example.has_output),
        )
        if has
    ]
    assert len(items) == 9  # the inputs and outputs of the notes spec's examples
    assert [answer.get("value") for answer in roundtrip(workspace, items)] == [
        value for _, value in items
    ]


INVALID = [
    ("Note", {"id": "n_0000abcd", "title": "T", "colour": "red"}),  # closed: no such member
    ("Note", {"ID": "n_0000abcd", "title": "T"}),  # member names match exactly
    ("Note", {"id": "n_0000abcd", "title": 7}),  # a number is no string
    ("ListNotesInput", {"limit": "20"}),  # a string is no integer
    ("ListNotesInput", {"limit": 2**64}),  # beyond the integer type: refused, never cut
    ("DeleteNoteOutput", {"deleted": "yes"}),
    ("ListNotesOutput", {"id": "n_0000abcd"}),  # an object is no array
    ("CountNotesInput", {"x": 1}),
]


@pytest.mark.parametrize(("name", "value"), INVALID)
def test_a_value_of_the_wrong_shape_does_not_read_into_the_type(
    workspace: Workspace, name: str, value: Any
) -> None:
    [answer] = roundtrip(workspace, [(name, value)])
    assert "error" in answer, answer


@pytest.mark.parametrize("revision", SUPPORTED_REVISIONS)
def test_the_generated_client_calls_every_notes_tool_with_typed_results(
    workspace: Workspace, revision: str
) -> None:
    done = run_process(
        workspace.command("notes_client", revision, *workspace.command("notes_server"))
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report.pop("revision") == revision
    note = {"id": "n_00000000", "title": "Milk", "tags": ["shop"]}
    assert report["create"] == {"value": note}
    assert report["get"] == {"value": note}
    assert report["list"] == {"value": [note]}  # a non-object output, unwrapped
    assert report["count"] == {"value": 2}  # and the spec's example note
    assert report["tree"] == {"value": {"tag": "home", "children": [{"tag": "home-garden"}]}}
    assert report["delete"] == {"value": {"deleted": True}}
    assert report["missing"]["error"] == "ToolCallError"
    assert "no note n_0000dead" in report["missing"]["message"]  # a ToolError's own message
    assert report["invalid"]["error"] == "ToolCallError"  # the server's validator refused it
    assert report["drift"] == {"value": None}  # none


@pytest.mark.parametrize(("hints", "refused"), UNSAFE_LISTINGS)
def test_the_generated_client_does_not_call_a_tool_the_spec_calls_safe_that_may_destroy(
    workspace: Workspace, hints: list[Any], refused: bool
) -> None:
    tools = workspace.root / "notes" / "tools" / "2025-11-25.json"
    done = run_process(workspace.command("safety_client", str(tools), json.dumps(hints)))
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["called"] == ([] if refused else ["count_notes"])
    readable = all(h is None or all(isinstance(v, bool) for v in h.values()) for h in hints)
    if readable:  # the SDK refuses a listing with a hint that is not a boolean: nothing is called
        assert report["error"] == ("DriftError" if refused else None)
        assert (["count_notes", "safety"] in report["drift"]) == refused
    else:
        assert refused and report["error"] is not None and report["drift"] == []


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_python_sdk_client_calls_every_tool_with_an_example(
    workspace: Workspace, mode: str
) -> None:
    import anyio

    from toolgen.client.connect import list_all_tools, open_session

    async def main() -> None:
        toolset = load_toolset(NOTES)
        async with open_session(command=workspace.command("notes_server"), mode=mode) as session:
            revision = session.protocol_version
            assert revision == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25")
            expected = list_tools_result(toolset, revision)["tools"]
            assert compare(expected, await list_all_tools(session)) == []
            called = set()
            for tool in toolset.tools:
                for example in tool.examples:
                    arguments = example.input if example.has_input else {}
                    result = await session.call_tool(tool.name, arguments)
                    assert not result.is_error, (tool.name, result.content)
                    assert "structured_content" in result.model_fields_set, tool.name
                    called.add(tool.name)
            assert called == {t.name for t in toolset.tools if t.examples}

    anyio.run(main)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("name", built_sets("go"))
def test_the_python_sdk_client_calls_every_tool_of_every_set_served_from_go(
    workspace: Workspace, name: str, mode: str
) -> None:
    """The target vectors' servers (handlers answering canned outputs) through the official
    Python SDK's client: the listing is the spec's, every plain tool answers its valid input."""
    import anyio

    from toolgen.client.connect import list_all_tools, open_session

    vectors = vector_set(name)

    async def main() -> None:
        command = workspace.vectors("serve", name)
        async with open_session(command=command, mode=mode) as session:
            expected = list_tools_result(vectors.toolset, session.protocol_version)["tools"]
            assert compare(expected, await list_all_tools(session)) == []
            for tool in vectors.plain_tools():
                result = await session.call_tool(tool.name, vectors.tools[tool.name].valid[0])
                assert not result.is_error, (tool.name, result.content)
                if tool.output_schema is not None:
                    assert "structured_content" in result.model_fields_set, tool.name

    anyio.run(main)
