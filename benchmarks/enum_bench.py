"""Builds of tools with huge enums (issue 17): one tool whose input has a 128,000-value
enum, and a 5 MB spec whose one tool has a 580,000-value enum.

`toolgen build` of each into a fresh directory, whole process, with a time cap
(a build still running at the cap is stopped and reported as "> cap"). Long
builds must show progress: the stderr of each build is kept, and the report
says whether it printed progress lines before finishing.

    python benchmarks/enum_bench.py [--rounds 3] [--work benchmarks/.work/enum]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

from build_bench import ProcessTime, run_timed, toolgen_argv
from make_specs import WORK

CASES = {"enum128k": 128_000, "enum580k": 580_000}
"""Case key -> number of enum values."""
LIMITS = {"enum128k": 3.0, "enum580k": 15.0}
"""Issue 17's goals (seconds)."""
CAPS = {"enum128k": 120.0, "enum580k": 240.0}
"""A build still running after this many seconds is stopped (issue 17: the 580k build
took more than 300 s)."""


def write_enum_spec(root: Path, values: int) -> Path:
    """A one-tool spec set whose input's `choice` property allows `values` strings."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    enum = ", ".join(f"v{i:06d}" for i in range(values))
    text = f"""toolgen: 1

server:
  name: enum_{values}
  version: 1.0.0

tools:
  - name: pick
    description: Pick one of many values.
    annotations: {{readOnly: true, destructive: false, idempotent: true, openWorld: false}}
    input:
      type: object
      properties:
        choice:
          type: string
          description: One value.
          enum: [{enum}]
      required: [choice]
    output:
      type: object
      properties:
        picked: {{type: string}}
      required: [picked]
"""
    (root / "pick.yaml").write_text(text, encoding="utf-8")
    return root


@dataclass(frozen=True)
class EnumBuild:
    """One build: its time (None when stopped at the cap) and whether it showed progress."""

    wall: float | None
    cpu: float | None
    rss_kib: int | None
    progress: bool
    spec_bytes: int


def inputs(work: Path) -> dict[str, Path]:
    """Case key -> spec directory (written once)."""
    paths = {}
    for key, values in CASES.items():
        root = work / key
        if not (root / "pick.yaml").is_file():
            write_enum_spec(root, values)
        paths[key] = root
    return paths


def build_once(key: str, specs: Path, work: Path) -> EnumBuild:
    out = work / f"{key}-out"
    shutil.rmtree(out, ignore_errors=True)
    size = (specs / "pick.yaml").stat().st_size
    try:
        run: ProcessTime = run_timed(
            toolgen_argv("build", str(specs), "-o", str(out)), work, timeout=CAPS[key]
        )
    except TimeoutError as exc:
        return EnumBuild(None, None, None, _shows_progress(str(exc)), size)
    return EnumBuild(run.wall, run.cpu, run.rss_kib, _shows_progress(run.stderr), size)


PROGRESS = re.compile(r"^\s+\S.*(\bstill\b|\bdone in\b)", re.M)
"""A progress line of `toolgen build`: a step still running, or how long a slow one took."""


def _shows_progress(stderr: str) -> bool:
    """Whether the build said how far it was while it ran (beyond its first and last lines)."""
    return PROGRESS.search(stderr) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=WORK / "enum")
    args = parser.parse_args()
    paths = inputs(args.work)
    for key, specs in paths.items():
        runs = [build_once(key, specs, args.work) for _ in range(args.rounds)]
        walls = [r.wall for r in runs if r.wall is not None]
        median = f"{statistics.median(walls):.2f} s" if walls else f"> {CAPS[key]:g} s"
        print(f"{key}: {median} (limit {LIMITS[key]:g} s), progress: {runs[-1].progress}")


if __name__ == "__main__":
    main()
