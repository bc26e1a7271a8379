"""`toolgen lint` of 1,000 tools, whole process, on both kinds of input.

- a spec set: the 1,000-tool spec set of `make_specs.py` (the corpus's input
  schemas cycled, output schemas added);
- published definitions: one `tools/list` JSON file of 1,000 tools, the 117
  real corpus definitions cycled with unique names.

Each round runs both (in alternating order); the report gives the median and
min-max of wall and CPU seconds. Target (issue 4): under 1.5 s.

    python benchmarks/lint_bench.py [--rounds 7] [--work benchmarks/.work/lint]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from build_bench import ProcessTime, run_timed, toolgen_argv
from make_specs import CORPUS, WORK, load_corpus, spec_tools, write_spec_set

TOOLS = 1000


def published_tools(count: int) -> dict[str, object]:
    """A tools/list result of `count` real definitions, cycled, each with a unique name."""
    corpus = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    tools = []
    for index in range(count):
        tool = dict(corpus[index % len(corpus)])
        round_ = index // len(corpus)
        tool["name"] = tool["name"] if round_ == 0 else f"{tool['name']}_{round_}"
        tools.append(tool)
    return {"tools": tools}


def inputs(work: Path) -> dict[str, Path]:
    work.mkdir(parents=True, exist_ok=True)
    specs = work / f"specs{TOOLS}"
    if not specs.is_dir():
        write_spec_set(specs, spec_tools(TOOLS, load_corpus()), "bench_lint")
    published = work / f"tools{TOOLS}.json"
    if not published.is_file():
        published.write_text(json.dumps(published_tools(TOOLS), indent=2), encoding="utf-8")
    return {"spec set": specs, "tools/list JSON": published}


def lint(path: Path, work: Path) -> ProcessTime:
    return run_timed(toolgen_argv("lint", str(path), "--statistics"), work, ok=(0, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", type=Path, default=WORK / "lint")
    args = parser.parse_args()
    paths = inputs(args.work)
    times: dict[str, list[ProcessTime]] = {name: [] for name in paths}
    for round_ in range(args.rounds):
        order = list(paths) if round_ % 2 == 0 else list(reversed(paths))
        for name in order:
            times[name].append(lint(paths[name], args.work))
    print(f"toolgen lint of {TOOLS} tools, whole process, {args.rounds} rounds")
    print("| input | wall s median (min-max) | CPU s median (min-max) | findings |")
    print("| --- | --- | --- | --- |")
    for name, runs in times.items():
        wall = [r.wall for r in runs]
        cpu = [r.cpu for r in runs]
        summary = runs[-1].stderr.strip().splitlines()[-1]
        print(
            f"| {name} | {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}) "
            f"| {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | {summary} |"
        )


if __name__ == "__main__":
    main()
