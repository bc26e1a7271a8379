"""Every build target against the shared vectors (`targets_support.py` says what they are):
the same spec sets and instances, the same expectations, one row per target."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from runtime_support.frames import FrameClient, modern_meta
from targets_support import (
    REFUSED,
    ROWS,
    SETS,
    TEXT_RESULT,
    Row,
    build,
    built_sets,
    toolgen,
    vector_set,
)

from toolgen.schema.jsonequal import same
from toolgen.spec.protocol import EMITTED_REVISIONS, is_modern


def _pair(target: str, name: str) -> Any:
    """One (target, set) case."""
    return pytest.param(target, name, id=f"{target}-{name}")


PAIRS = [_pair(target, name) for target in ROWS for name in built_sets(target)]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], tuple[Row, Path]]:
    """The row of a target and the folder its build of every set is in (built once; a set
    its build failed for fails the test)."""
    done: dict[str, tuple[Path, dict[str, str]]] = {}

    def get(target: str, name: str) -> tuple[Row, Path]:
        row = ROWS[target]
        reason = row.missing()
        if reason is not None:
            pytest.skip(reason)
        if target not in done:
            out = tmp_path_factory.mktemp(target)
            done[target] = out, row.build(out)
        out, failed = done[target]
        assert name not in failed, failed[name]
        return row, out

    return get


@pytest.fixture
def serving(
    built: Callable[[str, str], tuple[Row, Path]],
) -> Iterator[Callable[[str, str], FrameClient]]:
    """Start the generated server of a target for a set (with the tests' handlers)."""
    clients: list[FrameClient] = []

    def start(target: str, name: str) -> FrameClient:
        row, out = built(target, name)
        command = row.server(out, vector_set(name))
        if command is None:
            pytest.skip(f"the {target} target has no server yet")
        client = FrameClient(command=command, env=_env(row, out))
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()


def _env(row: Row, out: Path) -> dict[str, str] | None:
    env: Callable[[Path], dict[str, str]] | None = getattr(row, "env", None)
    return env(out) if env else None


@pytest.mark.parametrize(("target", "name"), PAIRS)
def test_every_valid_value_has_the_targets_types(
    built: Callable[[str, str], tuple[Row, Path]], target: str, name: str
) -> None:
    row, out = built(target, name)
    for type_name, value, back in row.round_trips(out, vector_set(name)):
        assert same(back, value), (type_name, value, back)


@pytest.mark.parametrize(
    ("target", "name"), sorted(REFUSED), ids=[f"{t}-{n}" for t, n in sorted(REFUSED)]
)
def test_a_target_refuses_a_set_it_cannot_carry_at_the_name_that_breaks_it(
    tmp_path: Path, target: str, name: str
) -> None:
    code, line = REFUSED[target, name]
    done = build(SETS[name], tmp_path, target)
    assert done.returncode == 1
    assert f":{line}:" in done.stderr and f"error[{code}]" in done.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("target", "name"), PAIRS)
def test_the_generated_server_lists_exactly_the_builds_definitions(
    built: Callable[[str, str], tuple[Row, Path]],
    serving: Callable[[str, str], FrameClient],
    target: str,
    name: str,
) -> None:
    _, out = built(target, name)
    package = vector_set(name).toolset.server.package
    for revision in EMITTED_REVISIONS:
        expected = json.loads((out / package / "tools" / f"{revision}.json").read_text())
        del expected["_meta"]  # the build's header; a server's result `_meta` is its own
        client = serving(target, name)
        if is_modern(revision):
            listed = client.request(1, "tools/list", {"_meta": modern_meta(revision)})
        else:
            client.initialize(revision)
            listed = client.request(1, "tools/list")
        listed["result"].pop("_meta", None)
        assert listed["result"] == expected, revision


@pytest.mark.parametrize(("target", "name"), PAIRS)
def test_the_generated_server_refuses_every_invalid_input_and_answers_every_valid_one(
    serving: Callable[[str, str], FrameClient], target: str, name: str
) -> None:
    vectors = vector_set(name)
    canned = vectors.canned()
    client = serving(target, name)
    client.initialize("2025-11-25")
    ids = iter(range(1, 1_000_000))
    for tool in vectors.toolset.tools:
        instances = vectors.tools[tool.name]
        for arguments in instances.valid:
            result = _call(client, next(ids), tool.name, arguments)
            assert result.get("isError") is not True, (tool.name, arguments, result)
            if tool.output_schema is not None:
                structured = result.get("structuredContent")
                if not tool.output_is_object:
                    structured = (structured or {}).get("result")
                assert same(structured, canned[tool.name]), (tool.name, result)
        for arguments in instances.invalid:
            result = _call(client, next(ids), tool.name, arguments)
            assert result.get("isError") is True, (tool.name, arguments, result)


def _call(client: FrameClient, request_id: int, tool: str, arguments: Any) -> dict[str, Any]:
    reply = client.request(request_id, "tools/call", {"name": tool, "arguments": arguments})
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


@pytest.mark.parametrize(("target", "name"), PAIRS)
def test_verify_passes_at_should_against_the_generated_server(
    built: Callable[[str, str], tuple[Row, Path]], target: str, name: str
) -> None:
    """Every tool is called (the tests' handlers destroy nothing); the handlers answer the
    same output whatever came before, so stateful sequences are not checked here."""
    row, out = built(target, name)
    command = row.server(out, vector_set(name))
    if command is None:
        pytest.skip(f"the {target} target has no server yet")
    options = ["--fail-on", "should", "--allow-destructive", "--sequences", "off"]
    done = toolgen("verify", str(SETS[name]), "--server", " ".join(command), *options, cwd=out)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.parametrize(("target", "name"), PAIRS)
def test_the_generated_client_calls_every_tool(
    built: Callable[[str, str], tuple[Row, Path]], target: str, name: str
) -> None:
    row, out = built(target, name)
    vectors = vector_set(name)
    results = row.client_calls(out, vectors)
    if results is None:
        pytest.skip(f"the {target} target has no client yet")
    canned = vectors.canned()
    for tool in vectors.plain_tools():
        if tool.output_schema is None:
            assert results[tool.name]["content"][0]["text"] == TEXT_RESULT
        else:
            assert same(results[tool.name], canned[tool.name]), tool.name
