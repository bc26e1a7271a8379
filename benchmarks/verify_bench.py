"""`toolgen verify`'s speed: calls per second, a sequence step against a plain call, and a
default run on a 20-tool server.

- **call path**: one `toolgen serve specs/notes --mock` process over stdio; each
  round sends 1,000 `tools/call`s (the spec examples' inputs, round robin) the way
  verify does (raw frame asking for progress, wait for the reply, judge it: result
  shape, output schema, text fallback). Target: >= 5,000 calls/s.
- **sequence step**: one `toolgen serve specs/notes --handlers ...NotesHandlers`
  process (SQLite in memory); each round runs the inferred sequence (create_note ->
  get_note -> delete_note -> get_note) 100 times, and makes as many judged plain calls
  (the examples' inputs) on the same server. Reported: time per step over time per
  plain call. Target: <= 2.
- **whole run, notes**: `toolgen verify specs/notes --server "toolgen serve specs/notes
  --mock" --allow-destructive` in process: every probe, both eras, explicit and
  generated inputs; tools/call requests over the run's wall time.
- **20-tool server**: the first 20 tools of `make_specs.py`'s spec set (real GitHub
  MCP server input schemas, outputs by verb) served by `toolgen serve --mock`;
  `toolgen verify` as a whole process with default options (`--cases 20`, both eras),
  and again with `--allow-destructive` (every tool called). Target: <= 30 s.

Rounds alternate; medians with min-max. Nothing here is a test assertion.

    python benchmarks/verify_bench.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from build_bench import run_timed, toolgen_argv
from make_specs import WORK, load_corpus, spec_tools, write_spec_set

from toolgen.spec.pipeline import load_spec_set
from toolgen.verify.judge import Judge
from toolgen.verify.results import Report
from toolgen.verify.revision import verify
from toolgen.verify.runner import Connection, Options
from toolgen.verify.sequences import Sequences, infer
from toolgen.verify.session import Session
from toolgen.verify.stdio import StdioTarget
from toolgen.verify.toolcalls import LONG_RUNNING, ToolCalls

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "specs" / "notes"
HANDLERS = ROOT / "examples" / "notes_handlers.py"
CALLS = 1000
SEQUENCES = 100
TIMEOUT = 30.0


def call_path_rate(rounds: int, calls: int = CALLS) -> list[float]:
    """calls/s of verify's call path against one mock server, per round."""
    toolset = load_spec_set(NOTES)
    cases = [(t, e.input) for t in toolset.tools for e in t.examples if e.has_input]
    target = StdioTarget([*toolgen_argv("serve", str(NOTES), "--mock")])
    transport = target.connect()
    session = Session(transport, "2025-11-25", TIMEOUT)
    session.open()
    judges = {t.name: Judge(t, "2025-11-25", TIMEOUT) for t, _ in cases}
    longest = TIMEOUT * LONG_RUNNING
    rates = []
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            for index in range(calls):
                tool, arguments = cases[index % len(cases)]
                exchange = session.call_tool(tool.name, arguments, None, TIMEOUT, longest)
                failure = judges[tool.name].valid_input(exchange)
                assert failure is None, failure
            rates.append(calls / (time.perf_counter() - started))
    finally:
        transport.close()
    return rates


def sequence_step_ratio(rounds: int, runs: int = SEQUENCES) -> list[float]:
    """(time per sequence step) / (time per judged plain call), per round, on one server."""
    toolset = load_spec_set(NOTES)
    server = [*toolgen_argv("serve", str(NOTES), "--handlers", f"{HANDLERS}:NotesHandlers")]
    connection = Connection(StdioTarget(server), "2025-11-25", TIMEOUT)
    connection.open()
    options = Options(protocol="2025-11-25", timeout=TIMEOUT, allow_destructive=True)
    report = Report()
    listed = {t["name"]: t for t in connection.current().list_tools()[0]}
    calls = {
        t.name: ToolCalls(
            t, listed[t.name], connection, options, report, options.fixtures.of(t.name)
        )
        for t in toolset.tools
    }
    (sequence,) = infer(toolset.tools)
    sequences = Sequences(calls, "2025-11-25")
    plain = [(calls[t.name], e.input) for t in toolset.tools for e in t.examples if e.has_input]
    ratios = []
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            for _ in range(runs):
                run = sequences._run(sequence.key, list(sequence.steps))
                assert not run.failures and run.stopped is None, run
            step = (time.perf_counter() - started) / (runs * len(sequence.steps))
            started = time.perf_counter()
            for index in range(runs * len(sequence.steps)):
                tool_calls, arguments = plain[index % len(plain)]
                tool_calls._check_valid(arguments)
            call = (time.perf_counter() - started) / (runs * len(sequence.steps))
            ratios.append(step / call)
    finally:
        connection.close()
    return ratios


def whole_run(rounds: int) -> list[tuple[float, int, float]]:
    """(calls/s, calls, seconds) of a whole in-process verify run of the notes mock server."""
    toolset = load_spec_set(NOTES)
    target = StdioTarget([*toolgen_argv("serve", str(NOTES), "--mock")])
    out = []
    for _ in range(rounds):
        report = verify(toolset, target, Options(allow_destructive=True, sequences="off"))
        assert report.ok, [r for r in report.results if r.fails()]
        out.append((report.calls / report.seconds, report.calls, report.seconds))
    return out


def twenty_tools(rounds: int) -> dict[str, list[float]]:
    specs = WORK / "verify20"
    write_spec_set(specs, spec_tools(20, load_corpus()), "verify20")
    server = " ".join(toolgen_argv("serve", str(specs), "--mock"))
    timings: dict[str, list[float]] = {"default": [], "--allow-destructive": []}
    for _ in range(rounds):
        for name, extra in (("default", []), ("--allow-destructive", ["--allow-destructive"])):
            argv = toolgen_argv("verify", str(specs), "--server", server, *extra)
            timings[name].append(run_timed(argv, ROOT, ok=(0, 1)).wall)
    return timings


def _line(label: str, values: list[float], unit: str) -> str:
    return (
        f"| {label} | {statistics.median(values):.1f} {unit} "
        f"({min(values):.1f}-{max(values):.1f}) |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    print("| measure | median (min-max) |")
    print("| --- | --- |", flush=True)
    rates = call_path_rate(rounds)
    print(_line(f"call path, {CALLS} calls vs serve --mock", rates, "calls/s"), flush=True)
    ratios = sequence_step_ratio(rounds)
    print(_line("sequence step / plain call (notes handlers)", ratios, "x"), flush=True)
    runs = whole_run(rounds)
    print(_line("whole notes run (both eras, all inputs)", [r for r, _, _ in runs], "calls/s"))
    print(
        f"| (notes run: {runs[0][1]} calls in "
        f"{statistics.median([s for _, _, s in runs]):.1f} s) | |",
        flush=True,
    )
    for name, values in twenty_tools(rounds).items():
        print(_line(f"20-tool server, toolgen verify {name}", values, "s"))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
