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
from typing import TYPE_CHECKING

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

    def __init__(self, root: Path) -> None:
        self.root = root
        self.packages: list[str] = []
        self.failed: dict[str, str] = {}
        """Spec set → why its build failed."""
        shutil.copytree(SUPPORT, root / "support", ignore=shutil.ignore_patterns("testdata"))

    def add(self, specs: Path, *options: str) -> bool:
        """`toolgen build SPECS --target go` into the workspace: whether it built (when not,
        its error is in `self.failed`)."""
        done = toolgen_cli(
            "build", str(specs), "-o", str(self.root), "--target", "go", "-q", *options
        )
        if done.returncode != 0:
            self.failed[str(specs)] = done.stderr
            return False
        self.packages.append(load_toolset(specs).server.package)
        return True

    def write(self, files: dict[str, str]) -> None:
        """Write files (relative to the workspace)."""
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def go(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`go ARGS` in the workspace (see `run_go`)."""
        return self.run_go(require(), *args, env=env)

    def run_go(
        self, *argv: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """A Go tool in the workspace, niced (the machine is shared), modules read-only and
        paths trimmed: what Go caches (builds, vet's and staticcheck's findings) is then the
        same whatever temporary folder the workspace is in, and later runs reuse it."""
        flags = " ".join([os.environ.get("GOFLAGS", ""), "-mod=readonly", "-trimpath"]).strip()
        return subprocess.run(
            ["nice", "-n", "10", *argv],
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
        return self.run_go(str(install_staticcheck()), *patterns)

    def use(self, *modules: str) -> None:
        """Write `go.work`: the generated packages and `modules` (`support`)."""
        lines = "".join(f"\t./{name}\n" for name in [*self.packages, *modules])
        (self.root / "go.work").write_text(f"go 1.25.0\n\nuse (\n{lines})\n")

    def build(self) -> subprocess.CompletedProcess[str]:
        """Write `go.work` and build every program into `bin/`."""
        self.use("support")
        return self.go("build", "-o", "bin/", "./support/...")

    def command(self, program: str, *args: str) -> list[str]:
        """The command that runs a built program with `args`."""
        return [str(self.root / "bin" / program), *args]

    def vectors(self, *args: str) -> list[str]:
        """The command of the program `vectors` (`go_support/vectors/`) with `args`."""
        return self.command("vectors", *args)


_SHARED: dict[str, Workspace] = {}


def shared(sets: Sequence[VectorSet]) -> Workspace:
    """The one workspace of this test run, built on first use: the target vectors' sets (each
    with its file in the program `vectors`), the golden edge cases, the spec sets imported from
    the listings of public servers, and the tests' own programs."""
    if "workspace" in _SHARED:
        return _SHARED["workspace"]
    require()
    base = Path(tempfile.mkdtemp(prefix="toolgen-go-"))
    atexit.register(shutil.rmtree, base, True)
    workspace = Workspace(base / "go")  # headers name `published/<set>`: the same text each run
    built = [vectors for vectors in sets if workspace.add(vectors.specs)]
    assert workspace.add(EDGE), workspace.failed
    for specs in published(base / "published"):  # `time`, say, would be a standard package
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
    """The file of each set in the program `vectors` (`go_support/vectors/`), relative to the
    workspace: handlers answering each tool's canned output, the generated Client calling each
    plain tool with its first valid input, and every type of the set for `vectors roundtrip`."""
    return {f"support/vectors/set_{vectors.name}.go": _vector_file(vectors) for vectors in sets}


def _vector_file(vectors: VectorSet) -> str:
    model = build_model(vectors.toolset)
    canned = vectors.canned()
    plain = {tool.name for tool in vectors.plain_tools()}
    name = go_string(vectors.name)
    handlers = "handlers" + "".join(part.title() for part in vectors.name.split("_"))
    answers, calls = [], []
    for tool, method in methods(vectors).items():
        types = model.tools[tool]
        if types.output is None:
            answers.append(
                f"func ({handlers}) {method}(context.Context, pkg.{types.input}) (any, error) {{\n"
                f"\treturn {go_string(str(canned[tool]))}, nil\n}}\n"
            )
        else:
            answers.append(
                f"func ({handlers}) {method}(_ context.Context, _ pkg.{types.input}) (out pkg.{types.output}, err error) {{\n"
                f"\treturn out, json.Unmarshal([]byte({go_string(json.dumps(canned[tool]))}), &out)\n}}\n"
            )
        if tool in plain:
            arguments = go_string(json.dumps(vectors.tools[tool].valid[0]))
            calls.append(
                f"\t\t\t\tcall(ctx, results, {go_string(tool)}, {arguments}, c.{method}),\n"
            )
    registered = "".join(
        f"\tregister[pkg.{type_name}]({go_string(f'{vectors.name}.{type_name}')})\n"
        for type_name in model.types
    )
    uses_json = any("json." in answer for answer in answers)
    return (
        "package main\n\nimport (\n\t\"context\"\n"
        + ('\t"encoding/json"\n' if uses_json else "")
        + '\t"errors"\n\n\t"github.com/modelcontextprotocol/go-sdk/mcp"\n\n'
        f'\tpkg "{vectors.toolset.server.package}"\n)\n\n'
        f"// {handlers} answers each tool of the set {vectors.name} with its first output.\n"
        f"type {handlers} struct{{}}\n\n"
        + "\n".join(answers)
        + "\nfunc init() {\n"
        f"\tsets[{name}] = set{{\n"
        f"\t\tserve: func(ctx context.Context) error {{ return pkg.ServeStdio(ctx, {handlers}{{}}) }},\n"
        "\t\tcalls: func(ctx context.Context, session *mcp.ClientSession, results map[string]any) error {\n"
        "\t\t\tc := pkg.NewClient(session, pkg.ClientOptions{Drift: pkg.DriftFail})\n"
        f"\t\t\treturn errors.Join(\n{''.join(calls)}\t\t\t)\n\t\t}},\n\t}}\n"
        f"{registered}}}\n"
    )  # fmt: skip
