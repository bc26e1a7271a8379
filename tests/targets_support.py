"""The shared target vectors, and each target's line in their table.

A vector set is a spec set (`targets/specs/<set>/`, or an example spec set of the repo) with
JSON instances per tool (`targets/instances/<set>.json`): inputs the input schema accepts
(`valid`) and refuses (`invalid`), and outputs the output schema accepts (`outputs`); the
spec's own examples count as valid too. Every target is held to the same vectors:

- it builds every set (or refuses it where `REFUSED` says, by code and line);
- each valid value has the target's types (a round trip through them gives the same JSON,
  or, for TypeScript, whose types vanish at run time, the value type-checks);
- its generated server, with handlers the tests write (each returns the tool's first
  output), lists exactly the Python build's definitions for every revision, refuses every
  invalid input, answers every valid one, and passes `toolgen verify --fail-on should`;
- its generated client calls every tool.

A target's line is a `Row` below; adding a target is adding its row to `ROWS`.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import golang_support
import rust_support
import typescript_support
from conftest import SPECS, TESTS, run_process, toolgen_cli

from toolgen import load_toolset
from toolgen.build.naming import LANGUAGES
from toolgen.build.python.client import TypeNames, _tool_context, client_methods
from toolgen.build.python.server import tool_methods
from toolgen.build.typemodel import build_model
from toolgen.build.typescript.module import _json
from toolgen.build.typescript.types import ts_string
from toolgen.serve.needs import client_needs
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import EMITTED_REVISIONS, SUPPORTED_REVISIONS, list_tools_result
from toolgen.verify.session import Session, result_of
from toolgen.verify.stdio import StdioTarget

VECTORS = TESTS / "targets"
SETS: Mapping[str, Path] = {
    "features": VECTORS / "specs" / "features",
    "names": VECTORS / "specs" / "names",
    "collisions": VECTORS / "specs" / "collisions",
    "proto": VECTORS / "specs" / "proto",
    "notes": SPECS / "notes",
    "shop": SPECS / "shop",
    "conformance": SPECS / "conformance",
}
REFUSED: Mapping[tuple[str, str], tuple[str, int]] = {
    ("python", "collisions"): ("invalid-name", 20),  # get_x: the same handler method as get-x
    ("typescript", "proto"): ("invalid-name", 19),  # __proto__: the SDK's JSON parsing drops it
}
"""(target, set) → the error code and line of a set the target refuses (nothing else)."""
TEXT_RESULT = "done"
"""What the tests' handler of a tool without output schema answers."""


@dataclass(frozen=True)
class Instances:
    valid: list[Any] = field(default_factory=list)
    invalid: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class VectorSet:
    name: str
    specs: Path
    tools: Mapping[str, Instances]

    @functools.cached_property
    def toolset(self) -> ToolSet:
        return load_toolset(self.specs)

    def plain_tools(self) -> list[Tool]:
        """The tools a client without capabilities (sampling, elicitation, tasks) can call."""
        needs = client_needs(self.toolset.tools)
        return [
            tool
            for tool in self.toolset.tools
            if not needs.get(tool.name) and (tool.execution or {}).get("taskSupport") != "required"
        ]

    def canned(self) -> dict[str, Any]:
        """Tool name → what the tests' handler returns: its first output, else text."""
        return {
            tool.name: self.tools[tool.name].outputs[0]
            if tool.output_schema is not None
            else TEXT_RESULT
            for tool in self.toolset.tools
        }


@functools.cache
def vector_set(name: str) -> VectorSet:
    """The set `name`: its instances file joined with the spec's examples."""
    path = VECTORS / "instances" / f"{name}.json"
    written = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    toolset = load_toolset(SETS[name])
    tools = {}
    for tool in toolset.tools:
        given = written.get(tool.name, {})
        valid = list(given.get("valid", []))
        outputs = list(given.get("outputs", []))
        for example in tool.examples:
            if example.has_input and example.input not in valid:
                valid.append(example.input)
            if example.has_output and example.output not in outputs:
                outputs.append(example.output)
        tools[tool.name] = Instances(valid or [{}], list(given.get("invalid", [])), outputs)
    return VectorSet(name, SETS[name], tools)


def built_sets(target: str) -> list[str]:
    """The sets `target` builds (not those it refuses)."""
    return [name for name in SETS if (target, name) not in REFUSED]


toolgen = toolgen_cli


def build(specs: Path, out: Path, target: str) -> subprocess.CompletedProcess[str]:
    return toolgen("build", str(specs), "-o", str(out), "--target", target, "-q")


# -- what a target's own tests hold its servers to ----------------------------------------

LISTING_GUARD = 120.0
"""Seconds before a server that does not answer `tools/list` fails: a guard."""


def listing(command: list[str], revision: str) -> dict[str, Any]:
    """The raw `tools/list` result the server `command` answers at `revision`, over stdio."""
    session = Session(StdioTarget(command).connect(), revision, LISTING_GUARD)
    try:
        session.open()
        result = result_of(session.request("tools/list", {}))
        assert result is not None
        return result
    finally:
        session.close()


def assert_lists_as_python(command: list[str], specs: Path, tmp_path: Path) -> None:
    """The server `command` lists, at every revision toolgen supports (the vectors check the
    build's own revisions), exactly what toolgen's runtime lists for `specs`; and `toolgen diff`
    of its listing and `toolgen serve`'s finds nothing."""
    toolset = load_toolset(specs)
    for revision in SUPPORTED_REVISIONS:
        served, expected = listing(command, revision), list_tools_result(toolset, revision)
        assert served["tools"] == expected["tools"], revision
        for key in set(expected) - {"tools"}:  # resultType, ttlMs, cacheScope (2026-07-28)
            assert served[key] == expected[key], (revision, key)
    python = [sys.executable, "-m", "toolgen", "serve", str(specs), "--mock"]
    for revision in EMITTED_REVISIONS:
        sides = {}
        for side, server in (("python", python), ("target", command)):
            sides[side] = tmp_path / f"{side}-{revision}.json"
            sides[side].write_text(json.dumps({"tools": listing(server, revision)["tools"]}))
        done = toolgen("diff", str(sides["python"]), str(sides["target"]), "--format", "json")
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["changes"] == []


def verify_report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The report of `toolgen verify --format json`, held to: exit 0, no check failed that a
    baseline does not expect, verify itself never broke."""
    report: dict[str, Any] = json.loads(done.stdout)
    failed = [r for r in report["results"] if r["status"] == "failed" and not r.get("expected")]
    assert done.returncode == 0 and not failed, failed
    assert report["summary"]["error"] == 0
    return report


def answered(report: dict[str, Any]) -> set[tuple[str, str]]:
    """(tool, revision) of each call a verify report says was answered."""
    return {
        (r["tool"], r["revision"])
        for r in report["results"]
        if r["check"] == "call.answers" and r["status"] == "passed"
    }


# -- the rows ----------------------------------------------------------------------------


class Row(Protocol):
    """A target's line in the table of vectors."""

    name: str

    def missing(self) -> str | None:
        """Why this target cannot be tested here (None: it can)."""

    def build(self, out: Path) -> dict[str, str]:
        """Build every set this target builds into `out`, and compile what needs compiling
        (once, for all sets); set name → why its build failed, for those that failed."""

    def round_trips(self, out: Path, vectors: VectorSet) -> list[tuple[str, Any, Any]]:
        """(type name, value, what came back) for every valid input and output of `vectors`:
        the value read into the target's type and written back as JSON."""

    def server(self, out: Path, vectors: VectorSet) -> list[str] | None:
        """The command serving `vectors` over stdio from the generated server with the tests'
        handlers (None: this target has no server yet)."""

    def client_calls(self, out: Path, vectors: VectorSet) -> dict[str, Any] | None:
        """Tool name → what the generated client returned calling it (with its first valid
        input) against the target's own server, for every tool a client without
        capabilities can call (`VectorSet.plain_tools`); None: no client yet."""


class PythonRow:
    """The Python target: pydantic models, the generated stub, the typed client."""

    name = "python"

    def missing(self) -> str | None:
        return None

    def build(self, out: Path) -> dict[str, str]:
        failed = {}
        for name in built_sets(self.name):
            done = build(SETS[name], out, self.name)
            if done.returncode != 0:
                failed[name] = done.stderr
                continue
            vectors = vector_set(name)
            package = vectors.toolset.server.package
            (out / f"{name}.canned.json").write_text(json.dumps(vectors.canned()))
            methods = tool_methods(vectors.toolset.tools)
            (out / f"vectors_{name}.py").write_text(_PYTHON_SERVER.format(
                package=package, canned=f"{name}.canned.json", methods=json.dumps(methods)
            ))  # fmt: skip
        return failed

    def round_trips(self, out: Path, vectors: VectorSet) -> list[tuple[str, Any, Any]]:
        script = _PYTHON_ROUND_TRIP.format(package=vectors.toolset.server.package)
        pairs = _typed_values(vectors)
        done = run_process(
            [sys.executable, "-c", script], stdin=json.dumps(pairs), cwd=out, env=python_env(out)
        )
        assert done.returncode == 0, done.stderr[-3000:]
        back = json.loads(done.stdout)
        return [(name, value, again) for (name, value), again in zip(pairs, back, strict=True)]

    def server(self, out: Path, vectors: VectorSet) -> list[str] | None:
        return [sys.executable, str(out / f"vectors_{vectors.name}.py")]

    def client_calls(self, out: Path, vectors: VectorSet) -> dict[str, Any] | None:
        script = _PYTHON_CLIENT.format(package=vectors.toolset.server.package)
        model = build_model(vectors.toolset)
        types = TypeNames(model, frozenset(model.types))
        methods = client_methods(vectors.toolset.tools)
        calls = {}
        for tool in vectors.plain_tools():
            params = _tool_context(tool, methods[tool.name], types)["params"]
            arguments = vectors.tools[tool.name].valid[0]
            names = {_json_name(p["json"]): p["name"] for p in params}
            calls[tool.name] = [methods[tool.name], {names[k]: v for k, v in arguments.items()}]
        argv = [
            sys.executable,
            "-c",
            script,
            json.dumps(self.server(out, vectors)),
            json.dumps(calls),
        ]
        done = run_process(argv, cwd=out, env=python_env(out))
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, Any] = json.loads(done.stdout)
        return result


def _json_name(literal: str) -> str:
    """The JSON name a Python string literal of the client's parameters spells."""
    value = ast.literal_eval(literal)
    assert isinstance(value, str)
    return value


def python_env(out: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(out), os.environ.get("PYTHONPATH", "")]),
    }


def _typed_values(vectors: VectorSet) -> list[tuple[str, Any]]:
    """(type name, value) of every valid input and output of `vectors`."""
    model = build_model(vectors.toolset)
    pairs: list[tuple[str, Any]] = []
    for tool, instances in vectors.tools.items():
        names = model.tools[tool]
        pairs += [(names.input, value) for value in instances.valid]
        if names.output is not None:
            pairs += [(names.output, value) for value in instances.outputs]
    return pairs


_PYTHON_SERVER = """\
import json
from pathlib import Path

from {package}.server import Handlers, serve

CANNED = json.loads(Path(__file__).with_name({canned!r}).read_text())
METHODS = {methods}


def answer(tool):
    def handler(self, args):
        return CANNED[tool]

    return handler


VectorHandlers = type(
    "VectorHandlers", (Handlers,), {{method: answer(tool) for tool, method in METHODS.items()}}
)

if __name__ == "__main__":
    serve(VectorHandlers())
"""

_PYTHON_ROUND_TRIP = """\
import json, sys
from pydantic import TypeAdapter
from {package} import models

out = []
for name, value in json.load(sys.stdin):
    adapter = TypeAdapter(getattr(models, name))
    typed = adapter.validate_python(value)
    out.append(adapter.dump_python(typed, mode="json", by_alias=True, exclude_unset=True))
json.dump(out, sys.stdout)
"""

_PYTHON_CLIENT = """\
import asyncio, json, sys
from {package}.client import Client

command, calls = json.loads(sys.argv[1]), json.loads(sys.argv[2])


async def main():
    results = {{}}
    async with Client.stdio(command) as client:
        for tool, (method, kwargs) in calls.items():
            results[tool] = await getattr(client, method)(**kwargs)
    return results


def plain(value):
    if isinstance(value, list):
        return [plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_unset=True) if dump else value


print(json.dumps({{tool: plain(value) for tool, value in asyncio.run(main()).items()}}))
"""


class TypeScriptRow:
    """The TypeScript target: types checked by `tsc --strict` (they vanish at run time, so a
    valid value's round trip is its type check); the module's server from Node (`serveStdio`,
    `registerTools`) and its typed client, both compiled with the vectors."""

    name = "typescript"

    def missing(self) -> str | None:
        return typescript_support.missing()

    def build(self, out: Path) -> dict[str, str]:
        (out / "node_modules").symlink_to(typescript_support.MODULES, target_is_directory=True)
        shutil.copy(typescript_support.SUPPORT / "tsconfig.json", out / "tsconfig.json")
        (out / "package.json").write_text(json.dumps({"private": True, "type": "module"}))
        failed = {}
        for name in built_sets(self.name):
            done = build(SETS[name], out, self.name)
            if done.returncode != 0:
                failed[name] = done.stderr
                continue
            vectors = vector_set(name)
            lines = [f'import type * as T from "./{vectors.toolset.server.package}/index.js";']
            for index, (type_name, value) in enumerate(_typed_values(vectors)):
                lines.append(f"export const v{index}: T.{type_name} = {_ts_value(value)};")
            (out / f"vectors_{name}.ts").write_text("\n".join(lines) + "\n")
            (out / f"server_{name}.ts").write_text(_ts_server(vectors))
            (out / f"client_{name}.ts").write_text(_ts_client(vectors))
        self.errors = typescript_support.tsc_errors(
            typescript_support.run(
                [str(typescript_support.NODE), str(typescript_support.TSC), "-p", "tsconfig.json"],
                cwd=out,
            ).stdout
        )
        return failed

    def round_trips(self, out: Path, vectors: VectorSet) -> list[tuple[str, Any, Any]]:
        wrong = {line for file, line, _ in self.errors if file == f"vectors_{vectors.name}.ts"}
        return [
            (type_name, value, None if index + 2 in wrong else value)
            for index, (type_name, value) in enumerate(_typed_values(vectors))
        ]

    def server(self, out: Path, vectors: VectorSet) -> list[str] | None:
        self._compiled(f"server_{vectors.name}.ts")
        return [str(typescript_support.NODE), str(out / "out" / f"server_{vectors.name}.js")]

    def client_calls(self, out: Path, vectors: VectorSet) -> dict[str, Any] | None:
        self._compiled(f"client_{vectors.name}.ts")
        client = [str(typescript_support.NODE), str(out / "out" / f"client_{vectors.name}.js")]
        command = self.server(out, vectors)
        assert command is not None
        done = typescript_support.run([*client, *command], cwd=out)
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    def _compiled(self, file: str) -> None:
        wrong = [error for error in self.errors if error[0] == file]
        assert not wrong, wrong


def _ts_value(value: Any) -> str:
    """`value` as a TypeScript expression on one line (a key `__proto__` stays a member)."""
    return _json(value).replace("\n", " ")


def _ts_methods(vectors: VectorSet) -> dict[str, str]:
    return LANGUAGES["typescript"].identifiers([t.name for t in vectors.toolset.tools], "method")


def _ts_server(vectors: VectorSet) -> str:
    """A server of the set's module whose handlers each return the tool's canned answer."""
    methods, canned = _ts_methods(vectors), vectors.canned()
    handlers = "".join(
        f"  {methods[tool.name]}: () => ({_ts_value(canned[tool.name])}),\n"
        for tool in vectors.toolset.tools
    )
    return _TS_SERVER.format(package=vectors.toolset.server.package, handlers=handlers)


def _ts_client(vectors: VectorSet) -> str:
    """A client of the set's module that calls every plain tool with its first valid input
    and prints what each call resolved to, as JSON by tool name."""
    methods = _ts_methods(vectors)
    calls = "".join(
        f"results.set({ts_string(tool.name)}, await client.{methods[tool.name]}"
        f"({_ts_value(vectors.tools[tool.name].valid[0])}));\n"
        for tool in vectors.plain_tools()
    )
    return _TS_CLIENT.format(package=vectors.toolset.server.package, calls=calls)


_TS_SERVER = """\
import {{ McpServer }} from "@modelcontextprotocol/server";
import {{ registerTools, SERVER, serveStdio, type Handlers }} from "./{package}/index.js";

const handlers: Handlers = {{
{handlers}}};

serveStdio(() => {{
  const server = new McpServer({{ name: SERVER.name, version: SERVER.version }});
  registerTools(server, handlers);
  return server;
}});
"""

_TS_CLIENT = """\
import {{ Client as SdkClient }} from "@modelcontextprotocol/client";
import {{ StdioClientTransport }} from "@modelcontextprotocol/client/stdio";
import {{ Client }} from "./{package}/index.js";

const [command = "", ...args] = process.argv.slice(2);

/** Awaiting what an async function returns awaits its `then`: the client must have none. */
async function open(): Promise<Client> {{
  const sdk = new SdkClient({{ name: "vectors", version: "1.0.0" }});
  await sdk.connect(new StdioClientTransport({{ command, args }}));
  return new Client(sdk, {{ drift: "error" }});
}}

const client = await open();
const results = new Map<string, unknown>();
{calls}console.log(JSON.stringify(Object.fromEntries(results)));
await client.close();
"""


class GoRow:
    """The Go target: every set, the golden edge cases and imported real servers' sets in one
    Go workspace with the tests' programs, compiled once per run (`golang_support.shared`);
    the program `vectors` serves each set with handlers answering the canned outputs, reads
    values into its types and back, and calls its tools with the generated Client."""

    name = "go"

    def missing(self) -> str | None:
        return golang_support.missing()

    def workspace(self) -> golang_support.Workspace:
        return golang_support.shared([vector_set(name) for name in built_sets(self.name)])

    def build(self, out: Path) -> dict[str, str]:
        workspace = self.workspace()
        for package in workspace.packages:  # the build's files where the shared tests look
            (out / package).symlink_to(workspace.root / package, target_is_directory=True)
        failed = workspace.failed
        return {name: failed[str(SETS[name])] for name in SETS if str(SETS[name]) in failed}

    def round_trips(self, out: Path, vectors: VectorSet) -> list[tuple[str, Any, Any]]:
        pairs = _typed_values(vectors)
        lines = "".join(
            json.dumps({"type": f"{vectors.name}.{name}", "value": value}) + "\n"
            for name, value in pairs
        )
        done = run_process(self.workspace().vectors("roundtrip"), stdin=lines)
        assert done.returncode == 0, done.stderr[-3000:]
        back = [json.loads(line) for line in done.stdout.splitlines()]
        return [
            (name, value, answer.get("value", answer))
            for (name, value), answer in zip(pairs, back, strict=True)
        ]

    def server(self, out: Path, vectors: VectorSet) -> list[str] | None:
        return self.workspace().vectors("serve", vectors.name)

    def client_calls(self, out: Path, vectors: VectorSet) -> dict[str, Any] | None:
        workspace = self.workspace()
        server = workspace.vectors("serve", vectors.name)
        done = run_process(workspace.vectors("client", vectors.name, *server))
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, Any] = json.loads(done.stdout)
        return result


class RustRow:
    """The Rust target: every set's crate, and a binary per set (`vectors_<set>`: the tests'
    handlers serving it, round trips through its types, its client calling every tool), in
    the one cargo workspace of the Rust tests (`rust_support`), built once per run, debug."""

    name = "rust"
    IMPORTED = TESTS / "data" / "servers" / "memory.json"
    """A real server's published listing: its imported spec set must compile too."""

    def __init__(self) -> None:
        self.done: tuple[Path, dict[str, str]] | None = None

    def missing(self) -> str | None:
        return rust_support.missing()

    def build(self, out: Path) -> dict[str, str]:
        if self.done is None:
            self.done = out, self._build(out)
        first, failed = self.done
        if first != out:  # built once: the same crates, seen from `out` too
            for path in first.iterdir():
                if not (out / path.name).exists():
                    (out / path.name).symlink_to(path, target_is_directory=path.is_dir())
        return failed

    def built(self) -> tuple[Path, dict[str, str]]:
        """Where every set was built (into a folder of the first caller), and what failed."""
        assert self.done is not None, "build first"
        return self.done

    def assemble(self, out: Path) -> dict[str, str]:
        """Build every set into `out` and lay the workspace out (no cargo); set → why its
        build failed."""
        failed = {}
        crates = {}
        for name in built_sets(self.name):
            done = build(SETS[name], out, self.name)
            if done.returncode != 0:
                failed[name] = done.stderr
                continue
            vectors = vector_set(name)
            crates[name] = vectors.toolset.server.package
        imported = out / "imported" / "memory"
        done = toolgen("import", str(self.IMPORTED), "-o", str(imported))
        assert done.returncode == 0, done.stderr
        done = build(imported, out, self.name)
        assert done.returncode == 0, done.stderr
        rust_support.assemble_fixed()
        rust_support.add_crate(out / "memory", "memory")
        for name, package in crates.items():
            rust_support.add_crate(out / package, package)
            self._vectors(vector_set(name), package)
        return failed

    def _build(self, out: Path) -> dict[str, str]:
        failed = self.assemble(out)
        done = rust_support.cargo(
            "build", "--locked", "--workspace", "--all-targets", "--keep-going", timed="build"
        )
        for name in built_sets(self.name):
            package = vector_set(name).toolset.server.package
            if name not in failed and any(
                f"could not compile `{crate}`" in done.stderr
                for crate in (package, f"vectors_{name}")
            ):
                failed[name] = done.stderr[-6000:]
        assert done.returncode == 0 or failed, done.stderr[-6000:]
        return failed

    def _vectors(self, vectors: VectorSet, package: str) -> None:
        crate = rust_support.WORKSPACE / f"vectors_{vectors.name}"
        rust_support.write(
            crate / "Cargo.toml", _RUST_MANIFEST.format(name=vectors.name, package=package)
        )
        rust_support.write(crate / "src" / "canned.json", json.dumps(vectors.canned(), indent=1))
        rust_support.write(crate / "src" / "main.rs", _rust_vectors(vectors, package))

    def command(self, vectors: VectorSet, *args: str) -> list[str]:
        return [str(rust_support.DEBUG / f"vectors_{vectors.name}"), *args]

    def round_trips(self, out: Path, vectors: VectorSet) -> list[tuple[str, Any, Any]]:
        pairs = _typed_values(vectors)
        done = run_process(self.command(vectors, "round-trip"), stdin=json.dumps(pairs))
        assert done.returncode == 0, done.stderr[-3000:]
        back = json.loads(done.stdout)
        return [
            (name, value, again[1] if again[0] else None)
            for (name, value), again in zip(pairs, back, strict=True)
        ]

    def server(self, out: Path, vectors: VectorSet) -> list[str] | None:
        return self.command(vectors, "serve")

    def client_calls(self, out: Path, vectors: VectorSet) -> dict[str, Any] | None:
        calls = {tool.name: vectors.tools[tool.name].valid[0] for tool in vectors.plain_tools()}
        done = run_process(
            self.command(vectors, "client", json.dumps(calls), *self.command(vectors, "serve"))
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, Any] = json.loads(done.stdout)
        return result


_RUST_MANIFEST = """\
[package]
name = "vectors_{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{package} = {{ path = "../{package}" }}
rmcp = {{ version = "3.11.0", default-features = false, features = ["client", "transport-child-process"] }}
serde = "1.0.229"
serde_json = "1.0.154"
tokio = {{ version = "1.54.1", features = ["macros", "process", "rt"] }}
"""


def _rust_vectors(vectors: VectorSet, package: str) -> str:
    """The binary of one set: `serve` (every tool answers its canned output), `round-trip`
    ((type name, JSON) pairs on stdin, each read into its type and written back) and
    `client CALLS SERVER...` (the generated client calls each tool of CALLS with its input)."""
    model = build_model(vectors.toolset)
    methods = LANGUAGES["rust"].identifiers([t.name for t in vectors.toolset.tools], "method")
    handlers = []
    for tool in vectors.toolset.tools:
        names = model.tools[tool.name]
        output = f"set::{names.output}" if names.output else "Value"
        handlers.append(
            f"    async fn {methods[tool.name]}(&self, _input: set::{names.input}) -> Result<{output}, set::ToolError> {{\n"
            f"        self.answer({json.dumps(tool.name)})\n    }}\n"
        )
    types = "".join(
        f"        {json.dumps(name)} => round_trip::<set::{name}>(value),\n" for name in model.types
    )
    calls = []
    for tool in vectors.plain_tools():
        names = model.tools[tool.name]
        calls.append(
            f"    let input: set::{names.input} = serde_json::from_value(calls[{json.dumps(tool.name)}].clone())?;\n"
            f"    let output = serde_json::to_value(client.{methods[tool.name]}(&input).await?)?;\n"
            f"    results.insert({json.dumps(tool.name)}.to_owned(), output);\n"
        )
    return _RUST_VECTORS.format(
        package=package, handlers="\n".join(handlers), types=types, calls="".join(calls)
    )


_RUST_VECTORS = """\
//! The tests' binary of one vector set (printed by `targets_support.RustRow`).

use std::error::Error;

use {package} as set;
use rmcp::ServiceExt;
use serde_json::{{Value, json}};

struct Canned(Value);

impl Canned {{
    fn answer<T: serde::de::DeserializeOwned>(&self, tool: &str) -> Result<T, set::ToolError> {{
        serde_json::from_value(self.0[tool].clone()).map_err(set::ToolError::internal)
    }}
}}

impl set::Handlers for Canned {{
{handlers}}}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: Value) -> Value {{
    let typed: Result<T, _> = serde_json::from_value(value);
    match typed.and_then(|typed| serde_json::to_value(&typed)) {{
        Ok(back) => json!([true, back]),
        Err(error) => json!([false, error.to_string()]),
    }}
}}

fn round_trips() -> Result<(), Box<dyn Error>> {{
    let pairs: Vec<(String, Value)> = serde_json::from_reader(std::io::stdin())?;
    let mut out = Vec::new();
    for (name, value) in pairs {{
        out.push(match name.as_str() {{
{types}            _ => json!([false, "no such type"]),
        }});
    }}
    println!("{{}}", Value::Array(out));
    Ok(())
}}

async fn client(calls: &str, command: &[String]) -> Result<(), Box<dyn Error>> {{
    let calls: Value = serde_json::from_str(calls)?;
    let mut process = tokio::process::Command::new(&command[0]);
    process.args(&command[1..]);
    let service = ().serve(rmcp::transport::TokioChildProcess::new(process)?).await?;
    let client = set::Client::new(service.peer().clone(), set::DriftPolicy::Error)?;
    let mut results = serde_json::Map::new();
{calls}    println!("{{}}", Value::Object(results));
    service.cancel().await?;
    Ok(())
}}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {{
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {{
        Some("serve") => {{
            let canned: Value = serde_json::from_str(include_str!("canned.json"))?;
            set::serve_stdio(Canned(canned)).await?;
        }}
        Some("round-trip") => round_trips()?,
        Some("client") if args.len() > 2 => client(&args[1], &args[2..]).await?,
        _ => return Err("usage: serve | round-trip | client CALLS SERVER [ARGS...]".into()),
    }}
    Ok(())
}}
"""


ROWS: dict[str, Row] = {"python": PythonRow(), "typescript": TypeScriptRow(), "rust": RustRow()}
ROWS["go"] = GoRow()


def rows() -> Iterator[Row]:
    yield from ROWS.values()


def pairs(target: str) -> Sequence[tuple[str, str]]:
    """(target, set) for every set `target` builds: the parameters of the row tests."""
    return [(target, name) for name in built_sets(target)]
