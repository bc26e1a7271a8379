"""Peak memory and wall time of toolgen's commands under hostile peers (`flood_peer.py`).

Each case runs the real command (`python -m toolgen ...`) against a peer started
here that floods it (one huge stdout or stderr line, JSON body, server-sent
event, twelve notifications of up to the message limit each before an answer; for
`serve --http`, many connections each sending a huge request head) or
starves it (a response head, JSON body or event stream dripped one byte at a
time; a call's progress, forever), or reads a hostile file (a few hundred bytes of YAML aliases expanding to
billions of values, two million numbers). The command's peak resident memory is its `VmHWM` (/proc/PID/status,
polled) or, when larger, what `wait4` reports at its exit; for `serve --http` it
is the server's `VmHWM` after the flood. Each flood case also runs once with a
1 KiB payload: its peak is the case's baseline.

    python benchmarks/floods.py                      # 300 MB floods, a markdown table
    python benchmarks/floods.py --only serve-heads   # one case (fnmatch on the keys)
    python benchmarks/floods.py --small              # 16 MB floods, TOOLGEN_MAX_MESSAGE=65536
    python benchmarks/floods.py --check              # --small, and exit 1 past a bound (CI)

`--check` fails when a command exits 3 (internal error) or is killed by the
guard, when a flood costs more than its baseline plus 4 messages
(`TOOLGEN_MAX_MESSAGE`) and 8 MiB of slack (a file: 16 times its size and the
slack; its baseline is a small file of the same shape), when the flooded server holds
more than its baseline plus one bounded head (`max_head` and one read) per
connection, when a drip keeps `verify --timeout 5` past two timeouts and 5 s, or
when tools whose calls progress forever keep verify past one call of six timeouts
each and 20 s.
"""

from __future__ import annotations

import argparse
import fnmatch
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template

import flood_peer

from toolgen.limits import MESSAGE_ENV, max_message
from toolgen.serve.http.guard import DEFAULT_MAX_HEAD, MAX_READ
from toolgen.verify.toolcalls import LONG_RUNNING

ROOT = Path(__file__).resolve().parent.parent
PEER = Path(__file__).resolve().parent / "flood_peer.py"
SPECS = str(ROOT / "specs" / "notes")
TOOL = "get_note"
MB = 1_000_000
MIB = 1024 * 1024
BASELINE_SIZE = 1024
SLACK = 8 * MIB
"""Memory a command may vary by between runs besides what it reads (allocator, code paths)."""
TIMEOUT = 5
"""`verify --timeout` of the drip cases."""
GUARD = {"full": 120.0, "check": 60.0}
"""Seconds before a command is killed: a guard against a hang, reported as a failure."""
CONNECTIONS = 300

VERIFY_STDIO = ["verify", SPECS, "--server", "$server", "--timeout", str(TIMEOUT)]
VERIFY_URL = ["verify", SPECS, "--url", "$url", "--timeout", str(TIMEOUT)]
IMPORT_ARGS = ["-o", "$out", "--timeout", "30"]
CALL_ARGS = ["--timeout", "30", TOOL, "{}"]


@dataclass(frozen=True)
class Case:
    key: str
    label: str
    peer: str
    """`flood_peer.py`'s mode: stdout, stderr and notices are stdio servers, the rest HTTP
    servers."""
    args: list[str]
    """The toolgen arguments: `$server` (the peer's command), `$url`, `$out` filled in."""

    @property
    def drip(self) -> bool:
        return self.peer.startswith("drip")


CASES = [
    Case("verify-stdout", "verify --server, one huge stdout line", "stdout", VERIFY_STDIO),
    Case("verify-stderr", "verify --server, one huge stderr line", "stderr", VERIFY_STDIO),
    Case("verify-notices", "verify --server, 12 notifications of up to the limit before the answer", "notices", VERIFY_STDIO),
    Case("verify-json", "verify --url, a huge JSON body", "json", VERIFY_URL),
    Case("verify-sse", "verify --url, one huge SSE event", "sse", VERIFY_URL),
    Case("import-json", "import --url, a huge JSON body", "json", ["import", "--url", "$url", *IMPORT_ARGS]),
    Case("call-json", "call --url, a huge JSON body", "json", ["call", "--url", "$url", *CALL_ARGS]),
    Case("import-stdout", "import --server, one huge stdout line", "stdout", ["import", "--server", "$server", *IMPORT_ARGS]),
    Case("call-stdout", "call --server, one huge stdout line", "stdout", ["call", "--server", "$server", *CALL_ARGS]),
    Case("drip-head", f"verify --url --timeout {TIMEOUT}, a dripped response head", "drip-head", VERIFY_URL),
    Case("drip-json", f"verify --url --timeout {TIMEOUT}, a dripped JSON body", "drip-json", VERIFY_URL),
    Case("drip-sse", f"verify --url --timeout {TIMEOUT}, a dripped SSE stream", "drip-sse", VERIFY_URL),
]  # fmt: skip
PROGRESS_TOOLS = 4
PROGRESS_TIMEOUT = 0.5
PROGRESS = Case(
    "verify-progress",
    f"verify --timeout {PROGRESS_TIMEOUT:g}, {PROGRESS_TOOLS} tools whose calls progress forever",
    "progress",
    ["verify", "$spec", "--server", "$server", "--timeout", str(PROGRESS_TIMEOUT)],
)
"""Each call is cancelled at six timeouts (`LONG_RUNNING`), then its tool is not called again."""
FILE_CASES = [
    Case("lint-aliases", "lint, a 560-byte YAML alias bomb", "alias-bomb", ["lint", "$file"]),
    Case("lint-numbers", "lint, a 4 MB spec of 2,000,000 numbers", "numbers", ["lint", "$file"]),
    Case("verify-fixtures", "verify --fixtures, a 560-byte YAML alias bomb", "alias-bomb",
         ["verify", SPECS, "--server", "true", "--fixtures", "$file"]),
]  # fmt: skip
SERVE = "serve-heads"
SESSIONS = "serve-sessions"
SESSION_FLOOD = 8
"""`initialize` requests of the sessions flood, each with a huge capabilities object."""


def hostile_file(kind: str, full: bool) -> str:
    """The text of a hostile file, or (not `full`) of a small one of the same shape."""
    if kind == "numbers":
        return "tools: [" + "1," * (2_000_000 if full else 10) + "1]\n"
    lines = ["values:", "  p:", "    a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 9 if full else 2):  # each anchor: ten aliases of the one before
        lines.append(f"    a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


@dataclass
class Run:
    label: str
    flood: str
    peak: int
    """Bytes."""
    wall: float
    code: int | str
    bound: int | None = None
    """Largest acceptable peak (bytes), or for drips the longest acceptable wall time (s)."""
    baseline: int | None = None
    note: str = ""

    @property
    def failed(self) -> bool:
        if self.code == 3 or (isinstance(self.code, int) and self.code < 0):
            return True
        if self.bound is None:
            return False
        return (self.wall if self.baseline is None else self.peak) > self.bound


def vm_hwm(pid: int) -> int:
    """The peak resident memory of process `pid` so far (bytes); 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def measure(argv: list[str], env: dict[str, str], guard: float) -> tuple[int, float, int, str]:
    """Run `argv` to its end: (peak RSS, wall seconds, exit code, last stderr line)."""
    with tempfile.TemporaryFile() as errors:
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        peak = 0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, vm_hwm(process.pid))
            if time.monotonic() - started > guard:
                process.kill()
            time.sleep(0.02)
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        lines = errors.read().decode(errors="replace").strip().splitlines()
    return max(peak, usage.ru_maxrss * 1024), wall, process.returncode, lines[-1] if lines else ""


def start_http_peer(mode: str, size: int) -> tuple[subprocess.Popen[str], str]:
    peer = subprocess.Popen(
        [sys.executable, str(PEER), mode, str(size)], stdout=subprocess.PIPE, text=True
    )
    assert peer.stdout is not None
    return peer, peer.stdout.readline().strip()


def run_case(
    case: Case, size: int, env: dict[str, str], guard: float
) -> tuple[int, float, int, str]:
    """The command of `case` against its peer sending `size` bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        fill = {"server": f"{sys.executable} {PEER} {case.peer} {size}", "out": f"{tmp}/out"}
        peer = None
        if case is PROGRESS:
            fill["spec"] = f"{tmp}/slow.yaml"
            fill["server"] = f"{sys.executable} {PEER} progress {PROGRESS_TOOLS}"
            Path(fill["spec"]).write_text(flood_peer.progress_spec(PROGRESS_TOOLS))
        elif case in FILE_CASES:
            fill["file"] = f"{tmp}/hostile.yaml"
            Path(fill["file"]).write_text(hostile_file(case.peer, size > BASELINE_SIZE))
        elif case.peer not in ("stdout", "stderr", "notices", "progress"):
            peer, fill["url"] = start_http_peer(case.peer, size)
        try:
            args = [Template(arg).safe_substitute(fill) for arg in case.args]
            return measure([sys.executable, "-m", "toolgen", *args], env, guard)
        finally:
            if peer is not None:
                peer.kill()
                peer.wait()


def flood_case(case: Case, size: int, env: dict[str, str], guard: float) -> Run:
    peak, wall, code, last = run_case(case, size, env, guard)
    run = Run(case.label, "drip" if case.drip else f"{size / MB:g} MB", peak, wall, code)
    if case is PROGRESS:
        run.flood = "progress"
        run.bound = PROGRESS_TOOLS * LONG_RUNNING * PROGRESS_TIMEOUT + 20  # probes, start-up
    elif case.drip:
        run.bound = 2 * TIMEOUT + 5  # the opening request, and one more
    elif case in FILE_CASES:
        run.flood = f"{len(hostile_file(case.peer, True)):,} bytes"
        run.baseline = run_case(case, BASELINE_SIZE, env, guard)[0]
        run.bound = run.baseline + 16 * len(hostile_file(case.peer, True)) + SLACK
    else:
        run.baseline = run_case(case, BASELINE_SIZE, env, guard)[0]
        run.bound = run.baseline + 4 * max_message() + SLACK
    if code == 3:
        run.note = last[:200]
    return run


def serve_case(head: int, env: dict[str, str], guard: float) -> Run:
    """`toolgen serve --http` while CONNECTIONS connections each send a `head`-byte head."""
    command = [sys.executable, "-m", "toolgen", "serve", SPECS, "--mock", "--http", "127.0.0.1:0"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    try:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", server.stderr.readline())
        if found is None:
            raise SystemExit("floods: the server did not start")
        baseline = vm_hwm(server.pid)
        started = time.monotonic()
        flood = [sys.executable, str(PEER), "heads", str(head), found.group(1), str(CONNECTIONS)]
        answers = subprocess.run(flood, capture_output=True, text=True, timeout=guard).stdout
        wall = time.monotonic() - started
        peak = vm_hwm(server.pid)
        alive = server.poll() is None
    finally:
        server.terminate()
        code = server.wait(30)
    per_connection = DEFAULT_MAX_HEAD + MAX_READ
    return Run(
        f"serve --http, {CONNECTIONS} connections each sending one huge head",
        f"{CONNECTIONS} x {head / MB:g} MB",
        peak,
        wall,
        code if not alive else "alive",
        bound=baseline + CONNECTIONS * per_connection + SLACK,
        baseline=baseline,
        note=", ".join(f"{n}: {what}" for what, n in json.loads(answers or "{}").items()),
    )


def sessions_case(body: int, env: dict[str, str], guard: float) -> Run:
    """`toolgen serve --http` after SESSION_FLOOD `initialize` requests whose capabilities
    object fills a `body`-byte body: what each new session keeps of it is bounded."""
    command = [sys.executable, "-m", "toolgen", "serve", SPECS, "--mock", "--http", "127.0.0.1:0"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    members = max(1, (body - 200) // 17)  # `"k000000000":{},`
    capabilities = {"experimental": {f"k{i:09d}": {} for i in range(members)}}
    message = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "flood", "version": "1"}},
    }  # fmt: skip
    data = json.dumps(message, separators=(",", ":")).encode()
    headers = {"content-type": "application/json", "accept": "application/json"}
    created = 0
    try:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", server.stderr.readline())
        if found is None:
            raise SystemExit("floods: the server did not start")
        baseline = vm_hwm(server.pid)
        started = time.monotonic()
        for _ in range(SESSION_FLOOD):
            connection = http.client.HTTPConnection("127.0.0.1", int(found.group(1)), timeout=guard)
            connection.request("POST", "/mcp", data, headers)
            answer = connection.getresponse()
            answer.read()
            created += answer.getheader("mcp-session-id") is not None
            connection.close()
        wall = time.monotonic() - started
        peak = vm_hwm(server.pid)
        alive = server.poll() is None
    finally:
        server.terminate()
        code = server.wait(30)
    return Run(
        f"serve --http, {SESSION_FLOOD} sessions each initialized with a huge capabilities object",
        f"{SESSION_FLOOD} x {len(data) / MB:.1f} MB",
        peak,
        wall,
        code if not alive else "alive",
        bound=baseline + 24 * len(data) + SLACK,  # one request's parse, not one per session
        baseline=baseline,
        note=f"{created} sessions created",
    )


def table(runs: list[Run], check: bool) -> str:
    head = "| case | flood | peak RSS MB | baseline MB | wall s | exit |"
    rule = "| --- | --- | ---: | ---: | ---: | ---: |"
    if check:
        head, rule = head + " bound | ok |", rule + " ---: | --- |"
    lines = [head, rule]
    for run in runs:
        baseline = f"{run.baseline / MB:.0f}" if run.baseline is not None else ""
        code = "killed" if isinstance(run.code, int) and run.code < 0 else run.code
        row = f"| {run.label} | {run.flood} | {run.peak / MB:.0f} | {baseline} | {run.wall:.1f} | {code} |"
        if check:
            if run.bound is None:
                bound = ""
            elif run.baseline is None:
                bound = f"{run.bound} s"
            else:
                bound = f"{run.bound / MB:.0f} MB"
            row += f" {bound} | {'FAIL' if run.failed else 'ok'} |"
        lines.append(row)
    notes = [f"- {run.label}: {run.note}" for run in runs if run.note]
    return "\n".join(lines + (["", *notes] if notes else []))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=300, help="flood size, MB")
    parser.add_argument(
        "--head", type=float, default=10, help="serve case: head per connection, MB"
    )
    parser.add_argument(
        "--small", action="store_true", help="16 MB floods, 1 MB heads, TOOLGEN_MAX_MESSAGE=65536"
    )
    parser.add_argument("--check", action="store_true", help="--small, and exit 1 past a bound")
    parser.add_argument(
        "--only", action="append", default=[], help="case keys (fnmatch; repeatable)"
    )
    args = parser.parse_args()
    env = dict(os.environ)
    if args.small or args.check:
        args.size, args.head = 16, 1
        env[MESSAGE_ENV] = os.environ[MESSAGE_ENV] = "65536"  # max_message() reads it here too
    guard = GUARD["check" if args.check else "full"]
    chosen = [key for key in [*(case.key for case in [*CASES, PROGRESS, *FILE_CASES]), SERVE, SESSIONS]
              if not args.only or any(fnmatch.fnmatch(key, pattern) for pattern in args.only)]  # fmt: skip
    runs = []
    for case in [*CASES, PROGRESS, *FILE_CASES]:
        if case.key in chosen:
            runs.append(flood_case(case, int(args.size * MB), env, guard))
            print(f"floods: {case.key} done", file=sys.stderr, flush=True)
    if SERVE in chosen:
        runs.append(serve_case(int(args.head * MB), env, guard))
    if SESSIONS in chosen:
        runs.append(sessions_case(int(min(args.head, 3.9) * MB), env, guard))
    print(f"message limit {max_message()} bytes; head limit {DEFAULT_MAX_HEAD} bytes\n")
    print(table(runs, args.check))
    return 1 if args.check and any(run.failed for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
