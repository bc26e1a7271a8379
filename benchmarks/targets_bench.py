"""What each build target adds to a build: `toolgen build` of 1,000 tools for `python` alone
vs `python,X` for every other registered target X (toolgen's time, not a compiler's).

Every build is a whole process into a fresh output folder with an empty cache; rounds rotate
the order of the configurations; figures are medians over rounds (min-max) and the ratio of
each configuration's median wall time to python's.

    python benchmarks/targets_bench.py [--rounds 5] [--tools 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

import make_specs
from build_bench import compile_bytecode, run_timed, toolgen_argv

from toolgen.build.targets import TARGETS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", type=int, default=1000)
    args = parser.parse_args()
    compile_bytecode()
    configs = ["python", *(f"python,{name}" for name in TARGETS if name != "python")]
    walls: dict[str, list[float]] = {config: [] for config in configs}
    cpus: dict[str, list[float]] = {config: [] for config in configs}
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        specs = make_specs.generate(work, args.tools, 3)["specs"]
        for index in range(args.rounds):
            shift = index % len(configs)
            for config in configs[shift:] + configs[:shift]:
                out, cache = work / "out", work / "cache"
                shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(cache, ignore_errors=True)
                env = {**os.environ, "TOOLGEN_CACHE_DIR": str(cache)}
                argv = toolgen_argv("build", str(specs), "-o", str(out), "--target", config, "-q")
                timed = run_timed(argv, work, env=env)
                walls[config].append(timed.wall)
                cpus[config].append(timed.cpu)
    base = statistics.median(walls["python"])
    print(f"| build of {args.tools} tools, {args.rounds} rounds | wall s, median (min-max) "
          "| CPU s, median | wall vs python (goal <= 1.3x) |")  # fmt: skip
    print("| --- | --- | --- | --- |")
    for config in configs:
        wall = walls[config]
        print(
            f"| `--target {config}` | {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}) "
            f"| {statistics.median(cpus[config]):.2f} | {statistics.median(wall) / base:.2f}x |"
        )


if __name__ == "__main__":
    main()
