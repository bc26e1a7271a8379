"""Go and the one Go workspace of a test run: every spec set the Go tests use, built by
`toolgen build --target go`, beside the tests' own module (`go_support/`, with the programs the
target vectors' row prints into it), compiled once.

Modules come from the Go module proxy into the default per-user caches (GOMODCACHE, GOCACHE),
which later runs reuse; nothing is vendored, and every module builds `-mod=readonly` against
the committed go.sum files. The tests are skipped, with the reason, when Go (1.25 or later,
what the SDK needs) is not installed.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import DATA, TESTS, run_process, toolgen_cli

from toolgen import load_toolset
from toolgen.build.golang.types import go_string
from toolgen.build.naming import LANGUAGES
from toolgen.build.typemodel import build_model

if TYPE_CHECKING:
    from targets_support import VectorSet

SUPPORT = TESTS / "go_support"
EDGE = TESTS / "golden" / "specs" / "edge"
GUARD = 900.0
"""Seconds before a hung download, build or run fails: a guard, not a timing assertion."""
GO_VERSION = (1, 25)
STATICCHECK = ("honnef.co/go/tools/cmd/staticcheck", "0.8.2")
"""From the Go module proxy, installed into the per-user cache (`tools_bin`): `.ci/run` does
it first (`install_staticcheck`), a test run without it too."""


@functools.cache
def go() -> str | None:
    """The `go` command, when it is Go 1.25 or later."""
    found = shutil.which("go")
    if found is None:
        return None
    done = subprocess.run([found, "env", "GOVERSION"], capture_output=True, text=True, check=False)
    version = re.match(r"go(\d+)\.(\d+)", done.stdout.strip())
    if version is None or (int(version[1]), int(version[2])) < GO_VERSION:
        return None
    return found


def missing() -> str | None:
    """Why the Go tests cannot run here (None: they can)."""
    return None if go() else "Go 1.25 or later is not installed: the Go target's tests need it"


def require() -> str:
    """The `go` command; skip the calling test (with the reason) without one."""
    found = go()
    if found is None:
        pytest.skip(missing() or "")
    return found


@functools.cache
def gofmt() -> str:
    """The `gofmt` beside `go`."""
    root = subprocess.run([require(), "env", "GOROOT"], capture_output=True, text=True, check=True)
    return str(Path(root.stdout.strip()) / "bin" / "gofmt")


def tools_bin() -> Path:
    """Where the tests install Go tools (staticcheck): a per-user cache, reused by later runs."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "toolgen-go" / "bin"


def install_staticcheck() -> Path:
    """staticcheck at the pinned version in `tools_bin()` (installed unless it is there)."""
    binary = tools_bin() / "staticcheck"
    package, version = STATICCHECK
    if binary.exists():
        done = subprocess.run([binary, "-version"], capture_output=True, text=True, check=False)
        if f"({version})" in done.stdout:
            return binary
    done = subprocess.run(
        [require(), "install", f"{package}@v{version}"], capture_output=True, text=True,
        timeout=GUARD, check=False, env={**os.environ, "GOBIN": str(tools_bin())},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return binary


class Workspace:
    """A Go workspace (`go.work`) of generated packages (`<package>/`) and the tests' module
    (`support/`, a copy of `go_support/` plus printed programs), its programs built into `bin/`."""

    def __init__(self, root: Path, **programs: Path) -> None:
        """`programs`: name → a module of programs, copied as `<name>/` (default: the tests'
        own module as `support/`)."""
        self.root = root
        self.packages: list[str] = []
        self.programs = programs or {"support": SUPPORT}
        self.failed: dict[str, str] = {}
        """Spec set → why its build failed."""
        for name, module in self.programs.items():
            shutil.copytree(module, root / name, ignore=shutil.ignore_patterns("testdata"))

    def add(self, specs: Path, *options: str) -> str | None:
        """`toolgen build SPECS --target go` into the workspace: the package's name, or None
        when the build failed (its error in `self.failed`)."""
        done = toolgen_cli(
            "build", str(specs), "-o", str(self.root), "--target", "go", "-q", *options
        )
        if done.returncode != 0:
            self.failed[str(specs)] = done.stderr
            return None
        package = load_toolset(specs).server.package
        self.packages.append(package)
        return package

    def write(self, files: dict[str, str]) -> None:
        """Write files (relative to the workspace)."""
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def go(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`go ARGS` in the workspace, niced (the machine is shared), modules read-only."""
        flags = " ".join([os.environ.get("GOFLAGS", ""), "-mod=readonly"]).strip()
        return subprocess.run(
            ["nice", "-n", "10", require(), *args],
            capture_output=True,
            text=True,
            timeout=GUARD,
            check=False,
            cwd=self.root,
            env={**os.environ, "GOFLAGS": flags, **(env or {})},
        )

    def gofmt(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`gofmt ARGS` (the one beside `go`) in the workspace."""
        return run_process([gofmt(), *args], cwd=self.root)

    def staticcheck(self, *patterns: str) -> subprocess.CompletedProcess[str]:
        """staticcheck (pinned; installed into `tools_bin()` when it is not there) on packages."""
        binary = install_staticcheck()
        flags = " ".join([os.environ.get("GOFLAGS", ""), "-mod=readonly"]).strip()
        return subprocess.run(
            ["nice", "-n", "10", str(binary), *patterns],
            capture_output=True, text=True, timeout=GUARD, check=False, cwd=self.root,
            env={**os.environ, "GOFLAGS": flags},
        )  # fmt: skip

    def build(self) -> subprocess.CompletedProcess[str]:
        """Write `go.work` and build every program into `bin/`."""
        modules = "".join(f"\t./{name}\n" for name in [*self.packages, *self.programs])
        (self.root / "go.work").write_text(f"go 1.25.0\n\nuse (\n{modules})\n")
        return self.go("build", "-o", "bin/", *(f"./{name}/..." for name in self.programs))

    def command(self, program: str) -> list[str]:
        """The command that runs a built program."""
        return [str(self.root / "bin" / program)]

    def run(self, program: str, *args: str, stdin: str = "") -> Any:
        """Run a built program; what it printed, as JSON."""
        done = run_process([*self.command(program), *args], stdin=stdin)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)


_SHARED: dict[str, Workspace] = {}


def shared(sets: Sequence[VectorSet]) -> Workspace:
    """The one workspace of this test run, built on first use: the target vectors' sets (with
    a server per set, a round-trip program and a client program), the golden edge cases, the
    spec sets imported from the listings of public servers, and the tests' own programs."""
    if "workspace" in _SHARED:
        return _SHARED["workspace"]
    require()
    root = Path(tempfile.mkdtemp(prefix="toolgen-go-"))
    atexit.register(shutil.rmtree, root, True)
    workspace = Workspace(root)
    built = [vectors for vectors in sets if workspace.add(vectors.specs)]
    workspace.add(EDGE)
    for specs in published(root / "published"):  # `time`, say, would be a standard package
        assert workspace.add(specs, "--option", "go.module=published.example/{package}")
    workspace.write(vector_programs(built))
    done = workspace.build()
    assert done.returncode == 0, done.stderr[-5000:]
    _SHARED["workspace"] = workspace
    return workspace


def published(out: Path) -> list[Path]:
    """Spec sets imported from the listings of public servers (`data/servers/`)."""
    found = []
    for listing in sorted((DATA / "servers").glob("*.json")):
        done = toolgen_cli("import", str(listing), "-o", str(out / listing.stem))
        assert done.returncode == 0, done.stderr
        found.append(out / listing.stem)
    return found


# -- the programs of the target vectors --------------------------------------------------------


def methods(vectors: VectorSet) -> dict[str, str]:
    """Tool name → its method in `Handlers` and `Client` (as the printer names it)."""
    return LANGUAGES["go"].identifiers([t.name for t in vectors.toolset.tools], "method")


def vector_programs(sets: Sequence[VectorSet]) -> dict[str, str]:
    """The Go programs of the vectors, relative to the workspace: `vectors_<set>` serves a set
    with handlers answering each tool's canned output; `vectors_roundtrip` reads (type, JSON)
    lines into the types and writes them back; `vectors_client` calls a set's tools."""
    files = {f"support/vectors_{v.name}/main.go": _server(v) for v in sets}
    files["support/vectors_roundtrip/main.go"] = _roundtrip(sets)
    files["support/vectors_client/main.go"] = _client(sets)
    return files


def _package(vectors: VectorSet) -> str:
    return vectors.toolset.server.package


def _server(vectors: VectorSet) -> str:
    package = _package(vectors)
    model = build_model(vectors.toolset)
    canned = vectors.canned()
    handlers = []
    for tool, method in methods(vectors).items():
        types = model.tools[tool]
        if types.output is None:
            handlers.append(
                f"func (handlers) {method}(context.Context, {package}.{types.input}) (any, error) {{\n"
                f"\treturn {go_string(str(canned[tool]))}, nil\n}}\n"
            )
            continue
        handlers.append(
            f"func (handlers) {method}(_ context.Context, _ {package}.{types.input}) (out {package}.{types.output}, err error) {{\n"
            f"\treturn out, json.Unmarshal([]byte({go_string(json.dumps(canned[tool]))}), &out)\n}}\n"
        )
    uses_json = "json." in "".join(handlers)
    return (
        f"// Command vectors_{vectors.name} serves the tools of {package}; each answers its first\n"
        '// output of the target vectors.\npackage main\n\nimport (\n\t"context"\n'
        + ('\t"encoding/json"\n' if uses_json else "")
        + f'\t"log"\n\n\t"{package}"\n)\n\ntype handlers struct{{}}\n\n'
        + "\n".join(handlers)
        + "\nfunc main() {\n"
        f"\tif err := {package}.ServeStdio(context.Background(), handlers{{}}); err != nil {{\n"
        "\t\tlog.Fatal(err)\n\t}\n}\n"
    )


def _roundtrip(sets: Sequence[VectorSet]) -> str:
    entries = []
    for vectors in sets:
        package = _package(vectors)
        for name in build_model(vectors.toolset).types:
            key = go_string(f"{vectors.name}.{name}")
            entries.append(f"\tregister[{package}.{name}]({key})\n")
    imports = "".join(f'\t"{_package(v)}"\n' for v in sorted(sets, key=_package))
    return (
        '// Command vectors_roundtrip reads JSON lines {"type": SET.NAME, "value": VALUE}, reads\n'
        "// each value into the type NAME of the package of SET and writes it back: one line\n"
        '// {"value": ...} or {"error": ...} each.\npackage main\n\nimport (\n'
        '\t"bufio"\n\t"encoding/json"\n\t"log"\n\t"os"\n\n'
        f"{imports})\n\n"
        "// types makes a value of each type by its name.\nvar types = map[string]func() any{}\n\n"
        "func register[T any](name string) {\n\ttypes[name] = func() any { return new(T) }\n}\n\n"
        f"func init() {{\n{''.join(entries)}}}\n\n" + _ROUNDTRIP_MAIN
    )


_ROUNDTRIP_MAIN = """\
func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(nil, 1<<24)
	out := json.NewEncoder(os.Stdout)
	for lines.Scan() {
		var item struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(lines.Bytes(), &item); err != nil {
			log.Fatal(err)
		}
		make, ok := types[item.Type]
		if !ok {
			log.Fatalf("no type %s", item.Type)
		}
		value := make()
		answer := map[string]any{}
		if err := json.Unmarshal(item.Value, value); err != nil {
			answer["error"] = err.Error()
		} else {
			answer["value"] = value
		}
		if err := out.Encode(answer); err != nil {
			log.Fatal(err)
		}
	}
	if err := lines.Err(); err != nil {
		log.Fatal(err)
	}
}
"""


def _client(sets: Sequence[VectorSet]) -> str:
    functions, cases = [], []
    for vectors in sets:
        package = _package(vectors)
        plain = {tool.name for tool in vectors.plain_tools()}
        calls = "".join(
            f"\t\tcall(ctx, results, {go_string(tool)}, "
            f"{go_string(json.dumps(vectors.tools[tool].valid[0]))}, c.{method}),\n"
            for tool, method in methods(vectors).items()
            if tool in plain
        )
        function = "call" + "".join(part.title() for part in vectors.name.split("_"))
        functions.append(
            f"func {function}(ctx context.Context, session *mcp.ClientSession, results map[string]any) error {{\n"
            f"\tc := {package}.NewClient(session, {package}.ClientOptions{{Drift: {package}.DriftFail}})\n"
            f"\treturn errors.Join(\n{calls}\t)\n}}\n"
        )
        cases.append(
            f"\tcase {go_string(vectors.name)}:\n\t\terr = {function}(ctx, session, results)\n"
        )
    imports = "".join(f'\t"{_package(v)}"\n' for v in sorted(sets, key=_package))
    return (
        "// Command vectors_client calls every tool of a set (each with its first valid input)\n"
        "// through the generated Client against a server started over stdio, and prints what\n"
        "// each call returned as one JSON object.\n//\n"
        "//\tvectors_client SET COMMAND ARGS...\npackage main\n\nimport (\n"
        '\t"context"\n\t"encoding/json"\n\t"errors"\n\t"fmt"\n\t"log"\n\t"os"\n\t"os/exec"\n\n'
        '\t"github.com/modelcontextprotocol/go-sdk/mcp"\n\n'
        f"{imports})\n\n"
        + _CLIENT_CALL
        + "\n"
        + "\n".join(functions)
        + "\n"
        + _CLIENT_MAIN.replace("CASES", "".join(cases))
    )


_CLIENT_CALL = """\
// call reads arguments into In, calls method with them and keeps its result under tool.
func call[In, Out any](ctx context.Context, results map[string]any, tool, arguments string, method func(context.Context, In) (Out, error)) error {
	var in In
	if err := json.Unmarshal([]byte(arguments), &in); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	out, err := method(ctx, in)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	results[tool] = out
	return nil
}
"""

_CLIENT_MAIN = """\
func main() {
	if len(os.Args) < 3 {
		log.Fatal("usage: vectors_client SET COMMAND ARGS...")
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgen-go-vectors", Version: "1.0.0"}, nil)
	transport := &mcp.CommandTransport{Command: exec.Command(os.Args[2], os.Args[3:]...)}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	results := map[string]any{}
	switch os.Args[1] {
CASES\tdefault:
		err = fmt.Errorf("no set %s", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		log.Fatal(err)
	}
}
"""
