"""Bounded fuzzing for CI and for longer runs by hand (issue 10).

Three parts, each bounded in count and time, each failing loudly (exit 1) with the
input that broke the contract:

1. mutate: the repo's spec files, mutated at random (bytes flipped, deleted and
   repeated; control characters, deep nesting, huge numbers and YAML tags spliced
   in), and chains of defs of random shapes and lengths around the limits, go
   through the whole load pipeline: a `ToolSet` or a `SpecError`, nothing else. A
   spec that loads is then linted, converted to every provider view and diffed
   against its original (these walk the schemas through their `$ref`s).
2. kill: `toolgen build` of the notes specs is SIGKILLed at a random moment while it
   rebuilds after an edit; the next build must leave exactly what a clean build
   gives, and `toolgen check` must then pass.
3. names: spec sets whose tool and property names are drawn at random from the
   generated code's own names (keywords, builtins, the client's members and imports,
   dunders, letters Python folds) are built; a build ends in a package that imports,
   or in a located spec error (exit 1), nothing else.
4. properties: the hypothesis properties of `tests/acceptance/test_fuzz.py` (spec loader, engine,
   HTTP app, the JSON-RPC codec at the 64-bit edges, field names Python folds) with
   `--examples` examples each instead of the suite's few.

    python benchmarks/fuzz.py --seconds 20 --kills 5 --names 4 --examples 300   # what CI runs
    python benchmarks/fuzz.py --seconds 600 --kills 100 --names 100 --examples 5000
"""

from __future__ import annotations

import argparse
import builtins
import json
import keyword
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"

SPLICES = [
    b"\x00", b"\x07", b"\xff", b"\xc3(", b"[" * 300, b"{a: " * 200, b"9" * 5000, b"0x" + b"f" * 5000,
    b"!!python/object/apply:os.system [id]", b"&a [*a, *a]", b"$ref: '#/defs/Nope'",
    b"pattern: '[\\w\\W]{50000}'", b"$dynamicRef: '#nope'", b"\t", b"\r", b"\ufeff".decode("utf-8").encode(),
    b".nan", b"- ", b": ", b"'", b'"',
]  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few random edits of `data`."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        where = rng.randrange(len(out) + 1)
        choice = rng.random()
        if choice < 0.4:
            out[where:where] = rng.choice(SPLICES)
        elif choice < 0.6 and out:
            del out[where : where + rng.randint(1, 40)]
        elif choice < 0.8 and out:
            start = rng.randrange(len(out))
            out[where:where] = out[start : start + rng.randint(1, 200)]
        elif out:
            out[min(where, len(out) - 1)] = rng.randrange(256)
    return bytes(out)


CHAIN_SHAPES = [
    "{{type: array, items: {ref}}}", "{{type: object, properties: {{x: {ref}}}}}", "{ref}",
    "{{anyOf: [{ref}, {{type: string}}]}}", "{{oneOf: [{{type: 'null'}}, {ref}]}}",
    "{{type: [array, 'null'], items: {{anyOf: [{ref}, {{type: 'null'}}]}}}}",
    "{{allOf: [{{type: object, properties: {{y: {{type: string}}}}}}, {{properties: {{x: {ref}}}}}]}}",
    "{{type: object, properties: {{a: {ref}, b: {ref}}}}}", "{{not: {ref}}}",
    "{{type: object, additionalProperties: {ref}, propertyNames: {{maxLength: 3}}}}",
]  # fmt: skip


def chain(rng: random.Random) -> bytes:
    """A spec whose tool reaches a chain of defs of one random shape, of a length around
    the depth and size limits, sometimes looping back to its start."""
    shape, length = rng.choice(CHAIN_SHAPES), rng.choice([1, 2, 10, 11, 12, 40, 41, 62, 63, 130])
    end = "{$ref: '#/defs/A0'}" if rng.random() < 0.2 else "{type: string}"
    defs = [
        f"  A{i}: " + shape.format(ref=f"{{$ref: '#/defs/A{i + 1}'}}" if i + 1 < length else end)
        for i in range(length)
    ]
    return (
        "toolgen: 1\nserver: {name: chain, version: '1.0.0'}\ndefs:\n" + "\n".join(defs)
        + "\ntools:\n  - name: a\n    input: {type: object, properties: {p: {$ref: '#/defs/A0'}}}\n"
        + "    output: {type: object, properties: {p: {$ref: '#/defs/A0'}}}\n"
    ).encode()  # fmt: skip


def past_the_loader(toolset: Any, original: Any) -> None:
    """What else reads a loaded spec set: lint, the provider views, the diff."""
    from toolgen.build.views import render_views
    from toolgen.diff.sets import diff_toolsets
    from toolgen.lint.engine import lint_toolset

    lint_toolset(toolset)
    render_views(toolset, source_note="fuzz")
    if original is not None:
        diff_toolsets(original, toolset, False, False)


def fuzz_loader(seconds: float, rng: random.Random) -> int:
    """Mutated spec files and chains of defs through the load pipeline (and, when they
    load, lint, views and diff) until `seconds` pass; the count."""
    from toolgen.spec.errors import SpecError
    from toolgen.spec.pipeline import load_spec_set

    originals = {path: _loaded(path) for path in sorted(SPECS.rglob("*.yaml"))}
    signal.signal(signal.SIGALRM, _wedged)
    deadline = time.monotonic() + seconds
    count = 0
    with tempfile.TemporaryDirectory() as work:
        target = Path(work) / "spec.yaml"
        while time.monotonic() < deadline:
            path = rng.choice(sorted(originals))
            from_chain = rng.random() < 0.25
            data = chain(rng) if from_chain else mutate(path.read_bytes(), rng)
            target.write_bytes(data)
            signal.setitimer(signal.ITIMER_REAL, WEDGED)
            try:
                past_the_loader(load_spec_set(target), None if from_chain else originals[path])
            except SpecError:
                pass
            except BaseException:
                keep = Path(tempfile.gettempdir()) / "toolgen-fuzz-crash.yaml"
                keep.write_bytes(data)
                print(
                    f"fuzz: toolgen crashed or wedged on an input kept at {keep}", file=sys.stderr
                )
                raise
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            count += 1
    return count


WEDGED = 30.0
"""Seconds one input may take (a few hundred milliseconds each): past it, toolgen is wedged."""


def _wedged(signum: int, frame: object) -> None:
    raise TimeoutError(f"one input took more than {WEDGED:.0f} s")


def _loaded(path: Path) -> Any:
    """The tool set of one spec file loaded alone (None: it needs the other files of its set)."""
    from toolgen.spec.errors import SpecError
    from toolgen.spec.pipeline import load_spec_set

    try:
        return load_spec_set(path)
    except SpecError:
        return None


def tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and not p.name.endswith("_handlers.py")
    }


def toolgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolgen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def fuzz_kills(kills: int, rng: random.Random) -> None:
    """SIGKILL builds at random moments; each next build must converge to the clean tree."""
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        shutil.copytree(SPECS / "notes", root / "specs")
        notes = root / "specs" / "notes.yaml"
        original = notes.read_text(encoding="utf-8")
        edited = original[: original.index("  - name: delete_note")].replace(
            "Create a new note and return it.", "Make a note."
        )
        clean: dict[bool, dict[str, bytes]] = {}
        for is_edited, text in ((False, original), (True, edited)):
            notes.write_text(text, encoding="utf-8")
            out = root / f"clean-{is_edited}"
            assert toolgen("build", "specs", "-o", out.name, "-q", cwd=root).returncode == 0
            clean[is_edited] = tree(out)
        full = time.monotonic()
        toolgen("build", "specs", "-o", "timing", "-q", cwd=root)
        duration = time.monotonic() - full
        for kill in range(kills):
            is_edited = kill % 2 == 0
            notes.write_text(edited if is_edited else original, encoding="utf-8")
            process = subprocess.Popen(
                [sys.executable, "-m", "toolgen", "build", "specs", "-o", "out", "-q"],
                cwd=root,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(0, duration * 1.2))
            process.send_signal(signal.SIGKILL)
            process.wait()
            done = toolgen("build", "specs", "-o", "out", "-q", cwd=root)
            if done.returncode != 0 or tree(root / "out") != clean[is_edited]:
                print(f"fuzz: kill {kill} did not converge:\n{done.stderr}", file=sys.stderr)
                raise SystemExit(1)
            checked = toolgen("check", "specs", "-o", "out", cwd=root)
            if checked.returncode != 0:
                print(f"fuzz: check after kill {kill}:\n{checked.stderr}", file=sys.stderr)
                raise SystemExit(1)


def name_pool() -> tuple[list[str], list[str]]:
    """Tool names and property names aimed at the generated code's own namespace."""
    from toolgen.build.python.client import RESERVED_METHODS

    own = [*sorted(RESERVED_METHODS), "abc", "models", "typing", "pydantic", "toolgen", "os"]
    own += ["server", "client", "load", "serve", "_call_model", "_value", "_client", "T"]
    own += ["__init__", "__class__", "__dict__", "_abc_impl", "Report", "report", "self"]
    python = keyword.kwlist + keyword.softkwlist + sorted(dir(builtins))[-60:]
    tools = sorted({name for name in own + python if len(name) <= 64})
    folded = ["\uff41", "\u212a", "\u017f", "\ufb01", "a", "K", "s", "fi", "class_", "arguments"]
    return tools, tools + folded


def fuzz_names(rounds: int, rng: random.Random) -> int:
    """Build spec sets of hostile names: a package that imports, or a located error.
    Returns how many built (the others were refused)."""
    tools, properties = name_pool()
    built = 0
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for round_ in range(rounds):
            names = rng.sample(properties, 6)
            schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}}
            entries = [
                {"name": name, "description": "d", "input": schema, "output": schema}
                for name in rng.sample(tools, 6)
            ]
            spec = {
                "toolgen": 1,
                "server": {"name": "fuzzed", "version": "1.0.0"},
                "tools": entries,
            }
            specs = root / f"specs{round_}"
            specs.mkdir()
            (specs / "fuzzed.yaml").write_text(json.dumps(spec), encoding="utf-8")
            out = root / f"out{round_}"
            done = toolgen("build", specs.name, "-o", out.name, "-q", cwd=root)
            if done.returncode == 1 and "error[" in done.stderr:  # a located spec error
                continue
            if done.returncode == 0:
                done = subprocess.run(
                    [sys.executable, "-c", "import fuzzed.server, fuzzed.client, fuzzed.models"],
                    cwd=out,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
            if done.returncode != 0:
                print(f"fuzz: names {json.dumps(spec)}:\n{done.stderr}", file=sys.stderr)
                raise SystemExit(1)
            built += 1
    return built


def run_properties(examples: int) -> None:
    env = {**os.environ, "TOOLGEN_FUZZ_EXAMPLES": str(examples)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/acceptance/test_fuzz.py",
        ],
        cwd=ROOT,
        env=env,
        timeout=3600,
    )
    if done.returncode != 0:
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20, help="time for the mutation fuzzer")
    parser.add_argument("--kills", type=int, default=5, help="builds to SIGKILL")
    parser.add_argument("--names", type=int, default=4, help="spec sets of hostile names to build")
    parser.add_argument("--examples", type=int, default=300, help="examples per property")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzz: seed {seed}", flush=True)
    rng = random.Random(seed)
    started = time.monotonic()
    count = fuzz_loader(args.seconds, rng)
    print(f"fuzz: {count} mutated spec files loaded or refused cleanly", flush=True)
    fuzz_kills(args.kills, rng)
    print(f"fuzz: {args.kills} killed builds converged to the clean output", flush=True)
    built = fuzz_names(args.names, rng)
    print(
        f"fuzz: {args.names} spec sets of hostile names: {built} built and imported, the rest refused at their line",
        flush=True,
    )
    run_properties(args.examples)
    print(f"fuzz: done in {time.monotonic() - started:.0f}s", flush=True)


if __name__ == "__main__":
    main()
