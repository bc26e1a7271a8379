"""Bounded fuzzing for CI and for longer runs by hand (issue 10).

Three parts, each bounded in count and time, each failing loudly (exit 1) with the
input that broke the contract:

1. mutate: the repo's spec files, mutated at random (bytes flipped, deleted and
   repeated; control characters, deep nesting, huge numbers and YAML tags spliced
   in), go through the whole load pipeline: a `ToolSet` or a `SpecError`, nothing else.
2. kill: `toolgen build` of the notes specs is SIGKILLed at a random moment while it
   rebuilds after an edit; the next build must leave exactly what a clean build
   gives, and `toolgen check` must then pass.
3. properties: the hypothesis properties of `tests/test_fuzz.py` (spec loader, engine,
   HTTP app) with `--examples` examples each instead of the suite's few.

    python benchmarks/fuzz.py --seconds 20 --kills 5 --examples 300     # what CI runs
    python benchmarks/fuzz.py --seconds 600 --kills 100 --examples 5000 # a long run
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def fuzz_loader(seconds: float, rng: random.Random) -> int:
    """Mutated spec files through the load pipeline until `seconds` pass; the count."""
    from toolgen.core.errors import SpecError
    from toolgen.frontend.pipeline import load_spec_set

    originals = sorted(SPECS.rglob("*.yaml"))
    deadline = time.monotonic() + seconds
    count = 0
    with tempfile.TemporaryDirectory() as work:
        target = Path(work) / "spec.yaml"
        while time.monotonic() < deadline:
            data = mutate(rng.choice(originals).read_bytes(), rng)
            target.write_bytes(data)
            try:
                load_spec_set(target)
            except SpecError:
                pass
            except BaseException:
                keep = Path(tempfile.gettempdir()) / "toolgen-fuzz-crash.yaml"
                keep.write_bytes(data)
                print(f"fuzz: the loader crashed on an input kept at {keep}", file=sys.stderr)
                raise
            count += 1
    return count


def tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and ".toolgen-cache" not in p.parts and not p.name.endswith("_handlers.py")
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


def run_properties(examples: int) -> None:
    env = {**os.environ, "TOOLGEN_FUZZ_EXAMPLES": str(examples)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz.py"],
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
    run_properties(args.examples)
    print(f"fuzz: done in {time.monotonic() - started:.0f}s", flush=True)


if __name__ == "__main__":
    main()
