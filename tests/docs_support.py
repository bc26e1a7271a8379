"""Run the docs: every fenced block of README.md and docs/*.md, as a reader would, with Sybil.

Sybil finds the blocks (fences, also indented in lists and tabs) and the `skip` directives; this
module says how each language runs. A page is read top to bottom in one fresh folder, like one
terminal session: `cd`, exported variables and an activated virtual environment carry from one
shell block to the next.

| a fence | what happens |
| --- | --- |
| `title="PATH"` (any language) | the file PATH is written into the folder, as a reader saves it |
| `sh` | runs in bash with `set -euo pipefail`; after `<!-- serve: next -->`, in the background: the page goes on at its first line of output |
| `console` | each `$ ` line runs; the lines under it are its output (a line `...` matches any lines); a command that fails must be followed by `$ echo $?` |
| `python` | runs as a program (`python -c`) in the folder, with the session's `python` |
| `typescript`, `ts` | compiled with the project's pinned tsc, `--strict` (the folder's `tsconfig.json` when a page writes one) |
| `rust` | compiled into the folder's crate as a binary of its own, `src/bin/snippet<line>.rs` (an empty `main` added when it has none), by the page's `cargo` |
| `go` | an excerpt (a file or declarations): Go as gofmt writes it; whole programs are titled files a `sh` block builds |
| `json`, `yaml`, `toml`, `text`, `diff`, ... | read, not run: data, output and excerpts (`DATA`) |

A page declares the setup a reader already has with an invisible block, an HTML comment the
site does not show (`$REPO` is this repository):

    <!-- invisible-code-block: sh
    cp -r "$REPO/specs" .
    -->

A block that cannot run as written is marked, with the reason, right above it:
`<!-- skip: next "why" -->`. A language with neither a runner nor a place in `DATA` fails the
test, so a page in a new language needs its row in `RUNNERS` first.

A page's `cargo` is `docs_cargo.py`: its crate builds with the Rust tests' committed
`Cargo.lock`, `--locked`, offline after the first fetch, in their shared target folder.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import unittest
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import rust_support
from conftest import ROOT, TESTS
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, RawFencedCodeBlockLexer
from sybil.parsers.markdown.skip import SkipParser

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GUARD = 600.0
"""Seconds before a hung block fails: a guard, not a timing assertion."""
DATA = frozenset({"json", "yaml", "toml", "text", "diff", "ini", "markdown", ""})
"""Fence languages that are read, not run (unless titled: then they are files)."""
PLACEHOLDERS = {
    "<the repository>": str(ROOT),
    "<toolgen's repository>": str(ROOT),
    "https://<host>/<owner>/toolgen": f"file://localhost{ROOT}",
    "<tag or commit>": "{commit}",
    "https://<host>/<path>": "file://localhost{folder}/dist",
}
"""What a reader fills in, and what the tests fill in for it: this repository at its commit,
and the wheel a page built into its folder's `dist/`."""
_INFO = re.compile(r'(?P<language>[\w+-]*)(?:[ \t]+title="(?P<title>[^"]+)")?[ \t]*$\n', re.M)


@dataclass
class Session:
    """One page's terminal: its folder, environment and the last command's exit status."""

    folder: Path
    env: dict[str, str]
    scratch: Path
    root: Path = Path()
    """The page's folder, where it started (`folder` follows `cd`)."""
    status: int = 0
    ran: list[str] = field(default_factory=list)
    serve_next: bool = False
    groups: list[subprocess.Popen[str]] = field(default_factory=list)
    """Every process group a block started; all are stopped when the page ends."""

    def start(self, script: str, strict: bool) -> subprocess.Popen[str]:
        for placeholder, value in PLACEHOLDERS.items():
            script = script.replace(placeholder, value.format(commit=_commit(), folder=self.root))
        state = self.scratch / "state"
        prologue = "set -euo pipefail\n" if strict else f"(exit {self.status})\n"
        shell = f"{state}.shell"  # functions and `_OLD_*` variables: an activate's `deactivate`
        trap = (
            f"[ -f {shell} ] && . {shell}\n"
            f"trap 's=$?; env -0 > {state}.env; pwd > {state}.pwd; "
            f"{{ declare -f; for v in $(compgen -v _OLD_); do declare -p $v; done; }} > {shell}; "
            'exit "$s"\' EXIT\n'
        )
        process = subprocess.Popen(
            ["bash", "-c", trap + prologue + script],
            cwd=self.folder,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, background jobs included
        )
        self.groups.append(process)
        return process

    def stop(self) -> None:
        for process in self.groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait()

    def shell(self, script: str, *, strict: bool = True) -> subprocess.CompletedProcess[str]:
        """Run `script` in bash here; keep its working directory and exported variables."""
        process = self.start(script, strict)
        output, _ = process.communicate(timeout=GUARD)
        self.status = process.returncode
        state = self.scratch / "state"
        if state.with_suffix(".env").exists():
            pairs = state.with_suffix(".env").read_text().split("\0")
            self.env = dict(p.split("=", 1) for p in pairs if "=" in p)
            for name in ("PWD", "OLDPWD", "SHLVL", "_"):
                self.env.pop(name, None)
            self.folder = Path(state.with_suffix(".pwd").read_text().strip())
            state.with_suffix(".env").unlink()
        return subprocess.CompletedProcess(script, process.returncode, output, "")


@functools.cache
def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip()


def _fail(example: Example, message: str) -> None:
    raise AssertionError(f"{Path(example.path).name}:{example.line}: {message}")


def run_sh(session: Session, source: str, example: Example) -> None:
    if session.serve_next:
        session.serve_next = False
        process = session.start(source, strict=True)
        assert process.stdout is not None
        first = process.stdout.readline()  # a server says where it listens once it does
        if process.poll() is not None:
            _fail(example, f"the server stopped: exit {process.returncode}\n{first}")
        return
    done = session.shell(source)
    if done.returncode != 0:
        _fail(example, f"exit {done.returncode}\n{done.stdout}")


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Lines equal but for trailing space; a line `...` stands for any number of lines, and
    `...` at the end of a line for the rest of it."""
    if not expected:
        return not actual
    head, rest = expected[0].rstrip(), expected[1:]
    if head.strip() == "...":
        return any(_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    line = actual[0].rstrip()
    same = line.startswith(head[:-3]) if head.endswith("...") else line == head
    return same and _matches(rest, actual[1:])


def run_console(session: Session, source: str, example: Example) -> None:
    steps: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    for index, (command, expected) in enumerate(steps):
        done = session.shell(command, strict=False)
        checked = index + 1 < len(steps) and steps[index + 1][0].strip() == "echo $?"
        if done.returncode != 0 and not checked:
            _fail(example, f"$ {command}\nexit {done.returncode}\n{done.stdout}")
        if expected and not _matches(expected, done.stdout.splitlines()):
            _fail(
                example,
                f"$ {command}\nexpected:\n" + "\n".join(expected) + f"\ngot:\n{done.stdout}",
            )


def run_python(session: Session, source: str, example: Example) -> None:
    layout = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--diff", "--config", str(ROOT / "pyproject.toml"), "-"],
        input=source, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if layout.returncode != 0:
        _fail(example, f"not Python as ruff formats it\n{layout.stdout}{layout.stderr}")
    program = session.scratch / f"line{example.line}.py"
    program.write_text(source, encoding="utf-8")
    done = session.shell(f'python -c "$(cat {shlex.quote(str(program))})"')
    if done.returncode != 0:
        _fail(example, f"python exited {done.returncode}\n{done.stdout}")


def compile_typescript(session: Session, source: str, example: Example) -> None:
    import typescript_support as ts

    ts.require()
    if not (session.folder / "node_modules").exists():
        (session.folder / "node_modules").symlink_to(ts.MODULES)
    module = session.folder / f"snippet{example.line}.ts"
    module.write_text(source, encoding="utf-8")
    tsc = f"{shlex.quote(str(ts.NODE))} {shlex.quote(str(ts.TSC))}"
    if (session.folder / "tsconfig.json").exists():
        command = f"{tsc} -p . --noEmit"
    else:
        command = f"{tsc} --strict --noEmit --module nodenext --target es2022 {module.name}"
    done = session.shell(command)
    module.unlink()
    if done.returncode != 0:
        _fail(example, f"tsc failed\n{done.stdout}")


def compile_rust(session: Session, source: str, example: Example) -> None:
    program = session.folder / "src" / "bin" / f"snippet{example.line}.rs"
    program.parent.mkdir(parents=True, exist_ok=True)
    main = "" if re.search(r"^\s*(async )?fn main\b", source, re.M) else "\nfn main() {}\n"
    program.write_text(source + main, encoding="utf-8")
    done = session.shell(f"cargo build --quiet --bin {program.stem}")
    program.unlink()
    if done.returncode != 0:
        _fail(example, f"cargo build failed\n{done.stdout}")


def check_go(session: Session, source: str, example: Example) -> None:
    import golang_support

    text = source if re.search(r"^package \w+", source, re.M) else f"package snippet\n\n{source}"
    snippet = session.scratch / f"snippet{example.line}.go"
    snippet.write_text(text, encoding="utf-8")
    done = session.shell(f"{shlex.quote(golang_support.gofmt())} -l {shlex.quote(str(snippet))}")
    if done.returncode != 0 or done.stdout.strip():
        _fail(example, f"not Go as gofmt writes it\n{done.stdout}")


Runner = Callable[[Session, str, Example], None]
RUNNERS: dict[str, Runner] = {
    "sh": run_sh,
    "console": run_console,
    "python": run_python,
    "typescript": compile_typescript,
    "ts": compile_typescript,
    "rust": compile_rust,
    "go": check_go,
}
"""Fence language → how its blocks run."""


@dataclass(frozen=True)
class Block:
    language: str
    title: str | None
    source: str


def _serve_next(example: Example) -> None:
    example.namespace["session"].serve_next = True


def _evaluate(example: Example) -> None:
    block: Block = example.parsed
    session: Session = example.namespace["session"]
    if block.title is not None:
        path = session.folder / block.title
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.source, encoding="utf-8")
    elif block.language in RUNNERS:
        RUNNERS[block.language](session, block.source, example)
    elif block.language not in DATA:
        _fail(example, f"no runner for ```{block.language} blocks: add a row to RUNNERS")
    session.ran.append(f"{example.line}:{block.language}")


class BlockParser:
    """Every fenced block, and every `<!-- invisible-code-block: LANG ... -->`."""

    def __init__(self) -> None:
        self.fences = RawFencedCodeBlockLexer(info_pattern=_INFO)
        self.invisible = DirectiveInHTMLCommentLexer("invisible-code-block", arguments=r"[\w+-]+")
        self.serve = DirectiveInHTMLCommentLexer("serve", arguments="next")

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in self.fences(document):
            lexemes = region.lexemes
            region.parsed = Block(lexemes["language"], lexemes["title"], str(lexemes["source"]))
            region.evaluator = _evaluate
            yield region
        for region in self.invisible(document):
            language = region.lexemes["arguments"]
            region.parsed = Block(language, None, str(region.lexemes["source"]))
            region.evaluator = _evaluate
            yield region
        for region in self.serve(document):
            region.evaluator = _serve_next
            yield region


SYBIL = Sybil(parsers=[BlockParser(), SkipParser()], path=str(ROOT))


def environment(scratch: Path) -> dict[str, str]:
    """A reader's shell: this checkout's `toolgen` and `python` on PATH, after what a page
    installs (pipx's commands, an activated virtual environment), and cargo as
    `docs_cargo.py` runs it. Not this checkout's pip:
    `pip` works only in a virtual environment a page makes, pinned to the lock as all of CI
    is. pipx keeps its environments in the scratch folder; no colour."""
    tools, pipx_bin = scratch / "bin", scratch / "pipx-bin"
    tools.mkdir()
    commands = {
        name: [Path(sys.executable).parent / name] for name in ("toolgen", "python", "pipx")
    }
    cargo = shutil.which("cargo")
    if cargo is not None:
        shim = [Path(sys.executable), TESTS / "docs_cargo.py", Path(cargo)]
        commands["cargo"] = [*shim, rust_support.SOURCES / "Cargo.lock", rust_support.TARGET]
    for name, argv in commands.items():
        wrapper = tools / name
        wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(map(str, argv))} "$@"\n')
        wrapper.chmod(0o755)
    ours = str(Path(sys.executable).parent)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != ours]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "PYTEST", "COV_", "COVERAGE_"))
    }
    return {
        **env,
        "PATH": os.pathsep.join([str(pipx_bin), str(tools), *path]),
        "REPO": str(ROOT),
        "PIP_CONSTRAINT": str(ROOT / "constraints.txt"),
        "PIP_REQUIRE_VIRTUALENV": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIPX_HOME": str(scratch / "pipx"),
        "PIPX_BIN_DIR": str(pipx_bin),
        "NO_COLOR": "1",
    }


@dataclass
class Outcome:
    ran: list[str]
    skipped: list[tuple[int, str]]


def run_page(page: Path, tmp: Path) -> Outcome:
    """Run every block of `page`, in order, in a fresh folder below `tmp`."""
    folder, scratch = tmp / "work", tmp / "scratch"
    folder.mkdir()
    scratch.mkdir()
    document = SYBIL.parse(page)
    session = Session(folder, environment(scratch), scratch, root=folder)
    document.namespace["session"] = session
    skipped: list[tuple[int, str]] = []
    try:
        for example in document:
            try:
                example.evaluate()
            except unittest.SkipTest as reason:
                skipped.append((example.line, str(reason)))
    finally:
        session.stop()
    return Outcome(session.ran, skipped)


def skips(page: Path) -> list[tuple[int, str]]:
    """The blocks of `page` marked not runnable, with their reasons, without running any."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1))
        for m in re.finditer(r'<!--\s*skip:\s*next\s+"([^"]*)"\s*-->', text)
    ]


def languages(page: Path) -> set[str]:
    """The fence languages of `page` (its directives have none)."""
    regions = BlockParser()(Document(page.read_text(encoding="utf-8"), str(page)))
    return {region.parsed.language for region in regions if isinstance(region.parsed, Block)}
