"""The TypeScript target end to end, with Node 22, TypeScript and the official TypeScript SDK.

Modules generated from the three example spec sets, from a spec set of every schema feature
(`ts_support/features/`), from one of names every JavaScript object has
(`ts_support/hazards/`), from one `toolgen import --server` made of a real TypeScript server
(@modelcontextprotocol/server-memory) and one made of toolgen's own server sending `$ref`s, and
those imported from the listings of twelve public servers, compile with `tsc --strict` and
every stricter check; mistakes in code using them do not; six are served from Node through
`registerTools` and the module's `serveStdio` with handlers written in `ts_support/*_server.ts`,
pass `toolgen verify --fail-on should` on every revision, list exactly what the Python build
and runtime list (and tools registered by hand beside them), and are called tool by tool by
their generated `Client` and by the Python SDK's client.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, SPECS, TESTS, UNSAFE_LISTINGS
from targets_support import answered, assert_lists_as_python, listing, verify_report
from typescript_support import (
    MEMORY_SERVER,
    NODE,
    SUPPORT,
    Project,
    require,
    run,
    toolgen,
    tsc_errors,
)

from toolgen import load_toolset
from toolgen.client.drift import compare
from toolgen.spec.protocol import SUPPORTED_REVISIONS, list_tools_result
from toolgen.verify.probes import error_code
from toolgen.verify.session import Session, result_of
from toolgen.verify.stdio import StdioTarget

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
"""The revision the TypeScript SDK client asks for in the `initialize` handshake."""
GUARD = 120.0
"""Seconds before a hung server fails a listing: a guard, not a timing assertion."""


@pytest.fixture(scope="module")
def keep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The features spec set with `refs: keep`: its server lists schemas with `$ref`s."""
    folder = tmp_path_factory.mktemp("keep")
    text = (TESTS / "targets" / "specs" / "features" / "features.yaml").read_text(encoding="utf-8")
    (folder / "features.yaml").write_text(
        text.replace("  name: features\n", "  name: features\n  refs: keep\n", 1)
    )
    return folder


def python_server(specs: Path) -> list[str]:
    """toolgen's own server of `specs`, answering from the examples."""
    return [sys.executable, "-m", "toolgen", "serve", str(specs), "--mock"]


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory, keep: Path) -> dict[str, Path]:
    """Each spec set by the name of its `ts_support` server or client; the memory server's is
    imported from the real server now, `imported` from toolgen's server of `keep`."""
    require()
    out = tmp_path_factory.mktemp("imported")
    imports = {
        "memory": ["--server", shlex.join([str(NODE), str(MEMORY_SERVER)])],  # memory_server
        "imported": ["--server", shlex.join(python_server(keep)), "--name", "imported"],
    }
    for name, args in imports.items():
        done = toolgen("import", *args, "-o", str(out / name))
        assert done.returncode == 0, done.stderr
    return {
        "notes": SPECS / "notes",
        "shop": SPECS / "shop",
        "conformance": SPECS / "conformance",
        "features": TESTS / "targets" / "specs" / "features",
        "hazards": SUPPORT / "hazards",
        "memory": out / "memory",
        "imported": out / "imported",
    }


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Spec sets imported from the listings of twelve public servers (`tests/data/servers/`),
    compiled but not served."""
    out = tmp_path_factory.mktemp("published")
    for published in sorted((DATA / "servers").glob("*.json")):
        done = toolgen("import", str(published), "-o", str(out / published.stem))
        assert done.returncode == 0, done.stderr
    return sorted(out.iterdir())


@pytest.fixture(scope="module")
def project(
    tmp_path_factory: pytest.TempPathFactory, specs: dict[str, Path], published: list[Path]
) -> Iterator[Project]:
    """Every module built into one project and compiled with the tests' TypeScript, once."""
    built = Project(tmp_path_factory.mktemp("typescript") / "project")
    for path in [*specs.values(), *published]:
        built.build(path)
    built.compile()
    yield built


def test_every_module_compiles_with_tsc_strict_and_every_stricter_check(
    project: Project, published: list[Path]
) -> None:
    done = project.compile()
    assert done.returncode == 0, done.stdout[-5000:]
    served = [
        *("notes", "shop_orders", "conformance", "features", "hazards"),
        *("memory_server", "imported"),
    ]
    modules = {p.parent.name for p in (project.root / "out").glob("*/index.js")}
    assert len(modules) == len(served) + len(published) == 19 and set(served) <= modules


def test_a_mistake_in_code_using_a_module_fails_to_compile_at_its_line(project: Project) -> None:
    config = {"extends": "./tsconfig.json", "compilerOptions": {"noEmit": True}}
    config["include"] = ["type_errors/*.ts"]
    (project.root / "tsconfig.errors.json").write_text(json.dumps(config))
    expected = {
        (f"type_errors/{path.name}", number, line.split("// error: ")[1].strip())
        for path in sorted((SUPPORT / "type_errors").glob("*.ts"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "// error: " in line
    }
    assert len(expected) == 4  # wrong argument type, missing field, wrong literal, wrong result
    done = project.tsc("-p", "tsconfig.errors.json")
    assert tsc_errors(done.stdout) == expected, done.stdout


SERVED = ["notes", "shop", "conformance", "features", "hazards", "memory"]
NOT_EXERCISED = {"test_error_handling", "failing_job", "protocol_error_job", "test_tool_with_task"}
"""Conformance tools verify cannot exercise: every call is an error by design, or (the
task) waits for an answer from the user that verify does not give."""
KEPT_AFTER_DELETE = {
    "check": "sequence.deleted",
    "reason": "cancel_order (destructive) marks an order cancelled, it does not remove it",
}
"""verify infers that a destructive tool removes what it is given; the shop's does not."""


@pytest.mark.parametrize("name", SERVED)
def test_the_node_server_passes_toolgen_verify_at_should_on_every_revision(
    project: Project, specs: dict[str, Path], name: str, tmp_path: Path
) -> None:
    server = shlex.join(project.node_command(f"{name}_server"))
    baseline = tmp_path / "baseline.json"  # JSON is YAML
    baseline.write_text(
        json.dumps({"expected-failures": [KEPT_AFTER_DELETE] if name == "shop" else []})
    )
    done = toolgen(
        "verify", str(specs[name]), "--server", server, "--protocol", "all", "--fail-on", "should",
        "--allow-destructive", "--allow-open-world", "--baseline", str(baseline), "--format", "json",
    )  # fmt: skip
    report = verify_report(done)
    assert report["revisions"] == list(SUPPORTED_REVISIONS)
    tools = load_toolset(specs[name]).tools  # every tool called, and answered, at every revision
    missing = {(t.name, rev) for t in tools for rev in SUPPORTED_REVISIONS} - answered(report)
    by_design = NOT_EXERCISED if name == "conformance" else set()
    assert {tool for tool, _ in missing} <= by_design, sorted(missing)


@pytest.mark.parametrize("name", ["notes", "shop", "conformance", "features", "hazards"])
def test_the_node_server_lists_what_the_python_runtime_lists(
    project: Project, specs: dict[str, Path], name: str, tmp_path: Path
) -> None:
    assert_lists_as_python(project.node_command(f"{name}_server"), specs[name], tmp_path)


def test_a_tool_registered_by_hand_beside_register_tools_is_listed_and_called(
    project: Project,
) -> None:
    """`hand_server.ts`: the SDK's `registerTool` before and after `registerTools`, whose handle
    of delete_note disables it."""
    command = project.node_command("hand_server")
    toolset = load_toolset(SPECS / "notes")
    for revision in SUPPORTED_REVISIONS:
        served = listing(command, revision)["tools"]
        spec = [
            t for t in list_tools_result(toolset, revision)["tools"] if t["name"] != "delete_note"
        ]
        assert served[: len(spec)] == spec, revision  # the spec's definitions, as they are
        assert [t["name"] for t in served[len(spec) :]] == ["echo_before", "echo_after"], revision
    session = Session(StdioTarget(command).connect(), LEGACY, GUARD)
    try:
        session.open()
        echoed = result_of(session.call_tool("echo_after", {"text": "hi"}))
        assert echoed is not None and echoed["content"] == [{"type": "text", "text": "HI"}]
        assert error_code(session.call_tool("delete_note", {"id": "n_00000001"}).reply) == -32602
    finally:
        session.close()


def raw_exchange(project: Project, revision: str, line: bytes, batch: bool = False) -> list[Any]:
    """What the Node notes server answers to `line` once a session at `revision` (a 2025-era
    revision) is open: every message before the reply to a ping sent after it (with `batch`,
    up to the first array, whenever it comes)."""
    process = subprocess.Popen(
        project.node_command("notes_server"), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    hello = {
        "protocolVersion": revision,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    lines = [
        json.dumps(
            {"jsonrpc": "2.0", "id": "open", "method": "initialize", "params": hello}
        ).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        line,
        b'{"jsonrpc": "2.0", "id": "after", "method": "ping"}',
    ]
    try:
        process.stdin.write(lines[0] + b"\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["result"]["protocolVersion"] == revision
        process.stdin.write(b"\n".join(lines[1:]) + b"\n")
        process.stdin.flush()
        answers = []
        for raw in iter(process.stdout.readline, b""):
            answer = json.loads(raw)
            if batch and isinstance(answer, list):
                return [answer]
            if isinstance(answer, dict) and answer.get("id") == "after":
                if not batch:
                    return answers
            else:
                answers.append(answer)
        raise AssertionError(f"the server stopped answering: {answers}")
    finally:
        process.kill()
        process.wait(GUARD)


BATCH = [
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "count_notes", "arguments": {}},
    },
    42,
]
LONG = b'"' + b"x" * (10 * 1024 * 1024) + b'"'
"""One line past the Node server's limit (the SDK's `STDIO_DEFAULT_MAX_BUFFER_SIZE`, 10 MiB)."""


@pytest.mark.parametrize(
    ("revision", "line", "answers"),
    [
        pytest.param(LEGACY, b'{"jsonrpc": "2.0", "id": 1, "method": "ping", ', [(None, -32700)], id="not-json"),
        pytest.param(LEGACY, b"42", [(None, -32600)], id="not-an-object"),
        pytest.param(LEGACY, b'{"jsonrpc": "2.0", "id": 5, "method": 7}', [(5, -32600)], id="invalid-request"),
        pytest.param(LEGACY, b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', [(None, -32600)], id="invalid-id"),
        pytest.param(LEGACY, b'{"jsonrpc": "2.0", "method": 7}', [], id="invalid-notification-unanswered"),
        pytest.param(LEGACY, b"   ", [], id="blank-line-ignored"),
        pytest.param(LEGACY, json.dumps(BATCH[:1]).encode(), [(None, -32600)], id="batch-refused"),
        pytest.param("2025-03-26", b"[]", [(None, -32600)], id="empty-batch-refused"),
        pytest.param(LEGACY, LONG, [(None, -32600)], id="line-too-long"),
    ],
)  # fmt: skip
def test_the_node_server_answers_what_the_sdk_transport_drops(
    project: Project, revision: str, line: bytes, answers: list[tuple[Any, int]]
) -> None:
    got = raw_exchange(project, revision, line)
    assert [(a.get("id"), error_code(a)) for a in got] == answers
    assert all("id" in a for a in got)  # `id: null` when it cannot be read, never absent


def test_the_node_server_answers_a_2025_03_26_batch_with_one_array(project: Project) -> None:
    [answer] = raw_exchange(project, "2025-03-26", json.dumps(BATCH).encode(), batch=True)
    assert isinstance(answer, list)
    by_id = {a.get("id"): a for a in answer}
    assert set(by_id) == {1, 2, None}  # the notification gets nothing
    assert by_id[1]["result"] == {} and error_code(by_id[None]) == -32600
    assert by_id[2]["result"]["content"][0]["text"] == "1"  # the spec's example note


@pytest.mark.parametrize(
    ("structured", "outcome"),
    [
        ('{"result": 2}', {"value": 2}),
        ('{"result": "many"}', {"error": "ToolResultError"}),
        ('{"result": 2.5}', {"error": "ToolResultError"}),
        ('{"count": 2}', {"error": "ToolResultError"}),
        ("absent", {"error": "ToolResultError"}),
    ],
)
def test_the_generated_client_hands_on_only_a_result_its_output_schema_accepts(
    project: Project, structured: str, outcome: dict[str, Any]
) -> None:
    done = run([*project.node_command("result_client"), structured], cwd=project.root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == outcome


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_the_generated_client_finds_no_drift_against_the_server_its_spec_was_imported_from(
    project: Project, keep: Path, era: str
) -> None:
    """The server lists `$ref`s, the imported spec's definitions have them inlined: the same
    tools by meaning, as toolgen's Python client judges them."""
    done = run(
        [*project.node_command("imported_client"), era, *python_server(keep)], cwd=project.root
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["drift"] == {"value": []}
    assert report["tree"] == {"value": {"label": "root", "children": [{"label": "leaf"}]}}
    assert report["combinators"] == {"value": {"kind": "circle", "radius": 1}}


def drive(project: Project, name: str, era: str) -> dict[str, Any]:
    report = project.drive(f"{name}_client", f"{name}_server", era)
    assert report.pop("revision") == (MODERN if era == MODERN else LEGACY)
    return report


ERAS = ["legacy", MODERN]


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_every_notes_tool_with_typed_results(
    project: Project, era: str
) -> None:
    report = drive(project, "notes", era)
    note = {"id": "n_00000000", "title": "Milk", "tags": ["shop"]}
    assert report["create"] == {"value": note}
    assert report["get"] == {"value": note}
    assert report["list"] == {"value": [note]}  # a non-object output, unwrapped in both eras
    assert report["count"] == {"value": 2}  # and the spec's example note
    assert report["tree"] == {"value": {"tag": "home", "children": [{"tag": "home-garden"}]}}
    assert report["delete"] == {"value": {"deleted": True}}
    assert report["missing"]["error"] == "ToolCallError"
    assert "no note n_0000dead" in report["missing"]["message"]
    assert report["drift"] == {"value": []}


@pytest.mark.parametrize(("hints", "refused"), UNSAFE_LISTINGS)
def test_the_generated_client_does_not_call_a_tool_the_spec_calls_safe_that_may_destroy(
    project: Project, hints: list[Any], refused: bool
) -> None:
    done = run([*project.node_command("safety_client"), json.dumps(hints)], cwd=project.root)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["called"] == ([] if refused else ["count_notes"])
    assert report["error"] == ("DriftError" if refused else None)
    assert (["count_notes", "safety"] in report["drift"]) == refused


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_every_shop_tool_with_typed_results(
    project: Project, era: str
) -> None:
    report = drive(project, "shop", era)
    kettle = {"sku": "KIT-0042", "name": "Steel kettle", "price": {"amount": 39.9, "currency": "EUR"}, "in_stock": True}  # fmt: skip
    assert report["search"] == {"value": [kettle]}
    order = report["place"]["value"]
    assert order["id"] == "o_000001" and order["total"] == {"amount": 79.8, "currency": "EUR"}
    assert report["get"] == {"value": order}
    assert report["cancel"] == {"value": "cancelled"}  # a string output: the string itself
    assert report["invalid"]["error"] == "ToolCallError"  # the server's validator refused it


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_every_conformance_tool(project: Project, era: str) -> None:
    report = drive(project, "conformance", era)
    assert len(report) == len(load_toolset(SPECS / "conformance").tools)
    errors = {name for name, outcome in report.items() if "error" in outcome}
    assert errors == {"testErrorHandling", "failingJob", "protocolErrorJob"}
    assert report["greet"]["value"]["content"] == [{"type": "text", "text": "Hello, Ada!"}]
    image = report["testImageContent"]["value"]["content"][0]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert "intentionally" in report["testErrorHandling"]["message"]


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_every_feature_tool(project: Project, era: str) -> None:
    report = drive(project, "features", era)
    assert report["scalars"] == {"value": {"ok": True, "echo": "abc"}}
    assert report["collections"] == {"value": ["a", "b"]}
    assert report["combinators"] == {"value": {"kind": "circle", "radius": 2}}
    assert report["combinatorsNull"] == {"value": None}  # a null output, unwrapped
    assert report["tree"] == {"value": {"label": "root", "children": [{"label": "leaf"}]}}
    assert report["oddNames"] == {"value": {"constructor": "x"}}
    assert report["toStringTool"] == {"value": "text"}
    assert report["pair"] == {"value": ["abc", 1]}  # a tuple output, unwrapped
    assert report["getX"] == {"value": 1}
    assert report["tool3dRender"] == {"value": True}
    assert report["nothing"] == {"value": None}
    assert report["pick"] == {"value": "left"}
    assert report["textOnly"]["value"]["content"] == [{"type": "text", "text": "hello"}]
    # Refused input, a result the output schema refuses, a crash and a ToolError: isError,
    # with no internals in what the client reads.
    for case in ("scalarsInvalid", "scalarsBadOutput", "crash", "refuse"):
        assert report[case]["error"] == "ToolCallError", case
    assert "does not match its output schema" in report["scalarsBadOutput"]["message"]
    assert "internal error" in report["crash"]["message"]
    assert "secret" not in report["crash"]["message"]
    assert "refused, as asked" in report["refuse"]["message"]


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_tools_named_like_members_of_every_object(
    project: Project, era: str
) -> None:
    report = drive(project, "hazards", era)  # the client was awaited: it has no `then`
    assert report["constructor"] == {"value": {"constructor": "x"}}
    assert report["toString"] == {"value": "text"}
    assert report["hasOwnProperty"] == {"value": True}
    assert report["then"] == {"value": 1}
    assert report["empty"] == {"value": {}}  # no `toString` is no `toString`
    named = {"toString": "a", "constructor": 1, "hasOwnProperty": True, "valueOf": None}
    assert report["named"] == {"value": named}
    assert report["drift"] == {"value": []}


@pytest.mark.parametrize("era", ERAS)
def test_the_generated_client_calls_every_tool_of_the_imported_memory_server(
    project: Project, era: str
) -> None:
    report = drive(project, "memory", era)
    assert report["createEntities"]["value"]["entities"][0]["name"] == "Ada"
    relation = {"from": "Ada", "to": "Engine", "relationType": "programmed"}
    assert report["createRelations"] == {"value": {"relations": [relation]}}
    added = [{"entityName": "Engine", "addedObservations": ["analytical"]}]
    assert report["addObservations"] == {"value": {"results": added}}
    engine = {"name": "Engine", "entityType": "machine", "observations": ["analytical"]}
    assert report["searchNodes"] == {"value": {"entities": [engine], "relations": []}}
    assert report["openNodes"]["value"]["entities"][0]["name"] == "Ada"
    for deleted in ("deleteObservations", "deleteRelations", "deleteEntities"):
        assert report[deleted]["value"]["success"] is True
    ada = {"name": "Ada", "entityType": "person", "observations": []}
    assert report["readGraph"] == {"value": {"entities": [ada], "relations": []}}


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_the_python_sdk_client_calls_every_tool_with_an_example(
    project: Project, specs: dict[str, Path], mode: str
) -> None:
    import anyio

    from toolgen.client.connect import list_all_tools, open_session
    from toolgen.spec.protocol import structured_value

    async def main() -> None:
        for name in ("notes", "shop", "features", "hazards"):
            toolset = load_toolset(specs[name])
            command = project.node_command(f"{name}_server")
            async with open_session(command=command, mode=mode) as session:
                revision = session.protocol_version
                assert revision == (MODERN if mode == MODERN else LEGACY)
                expected = list_tools_result(toolset, revision)["tools"]
                assert compare(expected, await list_all_tools(session)) == []
                for tool in toolset.tools:
                    for example in tool.examples:
                        arguments = example.input if example.has_input else {}
                        result = await session.call_tool(tool.name, arguments)
                        assert not result.is_error, (tool.name, result.content)
                        if (
                            tool.output_schema is not None
                        ):  # (the SDK checked it against the listing)
                            assert "structured_content" in result.model_fields_set, tool.name
                        if (
                            example.has_output and name == "features"
                        ):  # these handlers return the examples
                            want = structured_value(tool, example.output, revision)
                            assert result.structured_content == want, tool.name

    anyio.run(main)
