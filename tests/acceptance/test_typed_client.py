"""The generated typed client (`generated/notes/client.py`) against real servers:
`toolgen serve` over stdio and Streamable HTTP, the generated stub, and an SDK
`MCPServer` with `toolgen.sdk.add_tools`; in both protocol eras."""

from __future__ import annotations

import shutil
import sys
import threading
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from conftest import GENERATED, ROOT, SPECS, UNSAFE_LISTINGS
from pydantic import ValidationError

from toolgen.client import Drift, DriftError, DriftWarning, ToolCallError, blocking
from toolgen.serve.http import SecurityPolicy

sys.path.insert(0, str(GENERATED))
sys.path.insert(0, str(ROOT / "examples"))

from notes.client import Client
from notes.models import CreateNoteOutput, Note
from notes_handlers import NotesHandlers

NOTES = SPECS / "notes"
SERVE = [sys.executable, "-m", "toolgen", "serve"]
NOTES_HANDLERS = "examples/notes_handlers.py:NotesHandlers"
SERVERS = {
    "toolgen serve": [*SERVE, str(NOTES), "--handlers", NOTES_HANDLERS],
    "generated stub": [sys.executable, "examples/notes_handlers.py", "--db", ":memory:"],
    "sdk add_tools": [sys.executable, "examples/sdk_server.py"],
}
MODES = {"modern": "auto", "legacy": "legacy"}


def run(main: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    async def bounded() -> dict[str, Any]:
        with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
            return await main()

    return anyio.run(bounded)


async def exercise(client: Client) -> dict[str, Any]:
    """Every kind of method: model output, list of models, int, isError, bad arguments."""
    created = await client.create_note(title="Milk", tags=["shop"])
    await client.create_note(title="Read")
    listed = await client.list_notes(tag="shop")
    count = await client.count_notes()
    deleted = await client.delete_note(id=created.id)
    try:
        await client.get_note(id=created.id)
        error = ""
    except ToolCallError as exc:
        error = exc.text
    try:
        await client.create_note(title="")
        invalid: list[Any] = []
    except ValidationError as exc:
        invalid = [e["loc"] for e in exc.errors()]
    return {
        "version": client.session.protocol_version,
        "drift": client.drift,
        "created": created,
        "listed": listed,
        "count": count,
        "deleted": deleted.deleted,
        "error": error,
        "invalid": invalid,
    }


def check_exercise(out: dict[str, Any], era: str) -> None:
    assert (out["version"] == "2026-07-28") == (era == "modern")
    assert out["drift"] == []
    assert isinstance(out["created"], CreateNoteOutput)
    assert out["created"].title == "Milk"
    assert [type(note) for note in out["listed"]] == [Note]
    assert out["listed"][0].id == out["created"].id
    assert out["count"] == 2
    assert out["deleted"] is True
    assert out["error"].startswith("There is no note")
    assert out["invalid"] == [("title",)]


@pytest.mark.parametrize("era", MODES)
@pytest.mark.parametrize("server", SERVERS)
def test_the_typed_client_calls_every_server_kind_over_stdio(server: str, era: str) -> None:
    async def main() -> dict[str, Any]:
        async with Client.stdio(SERVERS[server], cwd=ROOT, mode=MODES[era], drift="error") as c:
            return await exercise(c)

    check_exercise(run(main), era)


@pytest.mark.parametrize("era", MODES)
def test_the_typed_client_calls_toolgen_serve_over_http_with_a_token(era: str) -> None:
    from http_support import http_server

    import toolgen

    policy = SecurityPolicy(token="s3cret")
    with http_server(toolgen.load(NOTES), NotesHandlers(), policy) as url:

        async def main() -> dict[str, Any]:
            headers = {"Authorization": "Bearer s3cret"}
            async with Client.http(url, headers, mode=MODES[era], drift="error") as c:
                return await exercise(c)

        check_exercise(run(main), era)


def test_the_blocking_facade_drives_the_client_from_synchronous_code() -> None:
    def tour() -> dict[str, Any]:
        with blocking(Client.stdio(SERVERS["generated stub"], cwd=ROOT, drift="error")) as notes:
            created = notes.call(lambda c: c.create_note(title="Milk", tags=["shop"]))
            listed = notes.call(lambda c: c.list_notes(tag="shop"))
            count = notes.call(lambda c: c.count_notes())
            with pytest.raises(ToolCallError, match="There is no note"):
                notes.call(lambda c: c.get_note(id="n_00000000"))
            with pytest.raises(ValidationError):
                notes.call(lambda c: c.create_note(title=""))
            return {
                "created": created,
                "listed": listed,
                "count": count,
                "drift": notes.client.drift,
            }

    out: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: out.update(tour()), daemon=True)
    worker.start()
    worker.join(60)  # a guard against a hang, not a timing assertion
    assert not worker.is_alive()
    assert isinstance(out["created"], CreateNoteOutput) and out["created"].title == "Milk"
    assert [note.id for note in out["listed"]] == [out["created"].id]
    assert out["count"] == 1
    assert out["drift"] == []


class RecordingSession:
    """Stands in for a `ClientSession` to see what a client sends (nothing, here)."""

    protocol_version = "2026-07-28"

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def call_tool(self, name: str, arguments: Any) -> Any:
        self.sent.append((name, arguments))
        raise AssertionError("nothing should be sent")


@pytest.mark.parametrize(
    ("arguments", "loc"),
    [
        ({"title": ""}, ("title",)),
        ({"title": "x" * 201}, ("title",)),
        ({"title": "ok", "tags": ["Not A Tag"]}, ("tags", 0)),
    ],
)
def test_bad_arguments_raise_a_validation_error_before_anything_is_sent(
    arguments: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    session = RecordingSession()
    client = Client(session, drift="ignore")  # type: ignore[arg-type]
    client.drift = []  # checked: no tools/list needed

    with pytest.raises(ValidationError) as caught:
        anyio.run(lambda: client.create_note(**arguments))
    assert next(e["loc"] for e in caught.value.errors())[: len(loc)] == loc
    assert session.sent == []


def _changed_notes(tmp_path: Path) -> Path:
    specs = tmp_path / "notes"
    shutil.copytree(NOTES, specs)
    text = (specs / "notes.yaml").read_text(encoding="utf-8")
    changed = text.replace("Create a new note and return it.", "Create a note.")
    assert changed != text
    (specs / "notes.yaml").write_text(changed, encoding="utf-8")
    return specs


def test_drift_from_the_spec_is_an_error_at_connect_when_asked(tmp_path: Path) -> None:
    argv = [*SERVE, str(_changed_notes(tmp_path)), "--handlers", NOTES_HANDLERS]

    async def main() -> dict[str, Any]:
        async with Client.stdio(argv, cwd=ROOT, drift="error"):
            return {}

    with pytest.raises(DriftError) as caught:
        run(main)
    assert caught.value.drift == [
        Drift("create_note", "description", "`description` differs from the spec")
    ]


def test_a_server_without_the_spec_tools_is_reported_as_drift_and_warned() -> None:
    demo = ROOT / "tests" / "runtime_support" / "spec"
    argv = [*SERVE, str(demo), "--mock"]

    async def main() -> dict[str, Any]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with Client.stdio(argv, cwd=ROOT) as client:
                return {"drift": client.drift, "warnings": [w.category for w in caught]}

    out = run(main)
    assert {(d.tool, d.field) for d in out["drift"]} == {
        (tool.name, "missing") for tool in Client.toolset()
    }
    assert out["warnings"] == [DriftWarning]


class ListingSession(RecordingSession):
    """A session whose server lists the spec's definitions, with `count_notes` (read-only in
    the spec) and `delete_note` (destructive in the spec) listed as `hints` say."""

    protocol_version = "2025-11-25"

    def __init__(self, hints: list[Any]) -> None:
        super().__init__()
        definitions = Client.toolset().definitions(self.protocol_version)
        self.listed = [d for d in definitions if d["name"] not in ("count_notes", "delete_note")]
        for name in ("count_notes", "delete_note"):
            spec = next(d for d in definitions if d["name"] == name)
            self.listed += [{**spec, "annotations": entry} for entry in hints]

    async def list_tools(self, params: Any = None) -> Any:
        tools = [SimpleNamespace(model_dump=lambda tool=tool, **_: tool) for tool in self.listed]
        return SimpleNamespace(tools=tools, next_cursor=None)

    async def call_tool(self, name: str, arguments: Any) -> Any:
        self.sent.append((name, arguments))
        value = {"deleted": True} if name == "delete_note" else {"result": 1}
        return SimpleNamespace(is_error=False, content=[], structured_content=value)


@pytest.mark.parametrize(("hints", "refused"), UNSAFE_LISTINGS)
@pytest.mark.parametrize("policy", ["ignore", "warn"])
def test_a_tool_the_spec_calls_safe_is_not_called_when_the_server_hints_it_may_destroy(
    hints: list[Any], refused: bool, policy: str
) -> None:
    session = ListingSession(hints)
    client = Client(session, drift=policy)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DriftWarning)
        if refused:
            with pytest.raises(DriftError) as caught:
                anyio.run(client.count_notes)
            assert [(d.tool, d.field) for d in caught.value.drift] == [("count_notes", "safety")]
        else:
            assert anyio.run(client.count_notes) == 1
        anyio.run(
            lambda: client.delete_note(id="n_0123abcd")
        )  # destructive in the spec: consent by code
    assert [name for name, _ in session.sent] == [
        *([] if refused else ["count_notes"]),
        "delete_note",
    ]


def test_the_example_client_script_runs_its_tour() -> None:
    import subprocess

    proc = subprocess.run(
        [sys.executable, "examples/notes_client.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "no drift" in proc.stdout
    assert "2 notes in all" in proc.stdout
    assert "get_note failed as expected: There is no note" in proc.stdout
