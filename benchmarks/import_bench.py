"""`toolgen import` of 500 real tools, whole process (issue 13: at most 2 s).

The input is one `tools/list` JSON of 500 published definitions: the GitHub
corpus and the twelve servers of tests/data/servers (draft-07 and 2020-12
schemas, `$defs`, icons, `execution`, `_meta`), cycled with unique names. Each
round imports into a fresh directory (the import reads everything back
through the frontend to check it, so that is included). For scale, the same
rounds also time `toolgen lint` of the same file: reading and checking the
definitions without writing a spec.

    python benchmarks/import_bench.py [--rounds 7] [--work benchmarks/.work/import]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path
from typing import Any

from build_bench import ProcessTime, run_timed, toolgen_argv
from make_specs import CORPUS, WORK

TOOLS = 500
SERVERS = CORPUS.parent.parent / "servers"


def real_tools() -> list[dict[str, Any]]:
    """Every published definition of the test corpus: the GitHub server, then the others."""
    tools = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    for path in sorted(SERVERS.glob("*.json")):
        tools.extend(json.loads(path.read_text(encoding="utf-8"))["tools"])
    return tools


def published(count: int) -> dict[str, Any]:
    """A tools/list result of `count` real definitions, cycled, each with a unique name."""
    corpus = real_tools()
    tools = []
    seen: set[str] = set()
    for index in range(count):
        tool = dict(corpus[index % len(corpus)])
        name, n = tool["name"], 1
        while name in seen:  # servers share names (two GitHub servers), and cycling repeats them
            n += 1
            name = f"{tool['name']}_{n}"
        seen.add(name)
        tools.append({**tool, "name": name})
    return {"tools": tools}


def summary(name: str, runs: list[ProcessTime]) -> str:
    wall = [r.wall for r in runs]
    cpu = [r.cpu for r in runs]
    return (
        f"| {name} | {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}) "
        f"| {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) "
        f"| {max(r.rss_kib for r in runs) / 1024:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", type=Path, default=WORK / "import")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    source = args.work / f"tools{TOOLS}.json"
    source.write_text(json.dumps(published(TOOLS), indent=2), encoding="utf-8")
    imports: list[ProcessTime] = []
    lints: list[ProcessTime] = []
    for round_ in range(args.rounds):
        out = args.work / f"out{round_}"
        shutil.rmtree(out, ignore_errors=True)
        imports.append(run_timed(toolgen_argv("import", str(source), "-o", str(out)), args.work))
        lints.append(run_timed(toolgen_argv("lint", str(source), "--fail-on", "never"), args.work))
    print(f"{TOOLS} real tools, whole process, {args.rounds} rounds (target: import <= 2 s)")
    print("| command | wall s median (min-max) | CPU s median (min-max) | peak RSS MiB |")
    print("| --- | --- | --- | --- |")
    print(summary("toolgen import", imports))
    print(summary("toolgen lint (same file, for scale)", lints))
    print(imports[-1].stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
