"""Build, lint and load measurements: whole processes, timed from the outside.

Every process is waited for with `os.wait4`, so besides wall time we get its
own CPU time (user + system) and peak RSS; CPU time is the steadier number on
a shared machine, wall time is what a person waits for.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from make_specs import edit_one_tool

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class ProcessTime:
    """One finished process: wall seconds, CPU seconds, peak RSS (KiB), exit code."""

    wall: float
    cpu: float
    rss_kib: int
    code: int
    stderr: str


def run_timed(
    argv: list[str],
    cwd: Path,
    ok: tuple[int, ...] = (0,),
    timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> ProcessTime:
    """Run a process to completion; raise with its stderr when the exit code is not in `ok`,
    and `TimeoutError` (with what it printed) when it is still running after `timeout` s."""
    with open(os.devnull, "wb") as devnull:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=devnull, stderr=subprocess.PIPE, env=env)
        killed: list[bool] = []
        timer = (
            threading.Timer(timeout, lambda: (killed.append(True), proc.kill()))
            if timeout
            else None
        )
        if timer:
            timer.start()
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if timer:
            timer.cancel()
    text = err.decode(errors="replace")
    if killed:
        raise TimeoutError(f"{' '.join(argv)} still running after {timeout:g} s:\n{text}")
    if proc.returncode not in ok:
        tail = "\n".join(text.strip().splitlines()[-8:])
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
    return ProcessTime(
        wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode, text
    )


def compile_bytecode() -> None:
    """Write toolgen's `.pyc` files, as installing its wheel does.

    The contenders come from wheels, compiled at install; toolgen is installed editable,
    and under `PYTHONDONTWRITEBYTECODE=1` (set in this machine's shells) every measured
    toolgen process would compile its modules again (about 0.1 s of a lint)."""
    import compileall

    import toolgen

    compileall.compile_dir(Path(toolgen.__file__).parent, quiet=1)


def toolgen_argv(*args: str) -> list[str]:
    return [str(BIN / "toolgen"), *args]


def dcg_argv(schema: Path, output: Path) -> list[str]:
    """One datamodel-code-generator run over the combined schema (builtin formatter)."""
    return [
        str(BIN / "datamodel-codegen"),
        "--input",
        str(schema),
        "--input-file-type",
        "jsonschema",
        "--output",
        str(output),
        "--output-model-type",
        "pydantic_v2.BaseModel",
        "--formatters",
        "builtin",
        "--disable-timestamp",
    ]


def build_round(
    specs: Path, combined: Path, work: Path, round_index: int, revision: int
) -> dict[str, ProcessTime]:
    """Full build (fresh out dir, empty cache) and the DCG baseline, alternating which goes
    first; then a no-op rebuild and a rebuild after editing one tool."""
    out = work / "build-out"
    cache = work / "build-cache"
    env = {**os.environ, "TOOLGEN_CACHE_DIR": str(cache)}
    results: dict[str, ProcessTime] = {}

    def full() -> None:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        argv = toolgen_argv("build", str(specs), "-o", str(out))
        results["toolgen_full"] = run_timed(argv, work, env=env)

    def dcg() -> None:
        results["dcg"] = run_timed(dcg_argv(combined, work / "dcg-models.py"), work)

    for step in (full, dcg) if round_index % 2 == 0 else (dcg, full):
        step()
    argv = toolgen_argv("build", str(specs), "-o", str(out))
    results["toolgen_noop"] = run_timed(argv, work, env=env)
    edit_one_tool(specs, revision)
    results["toolgen_edit"] = run_timed(argv, work, env=env)
    return results


def cache_env(work: Path, cold: bool) -> dict[str, str]:
    """The environment of a lint or diff with toolgen's cache under `work`: `cold`, an empty
    cache (a first run); else the one cache every warm run shares (a repeated run)."""
    root = work / ("cache-cold" if cold else "cache")
    if cold:
        shutil.rmtree(root, ignore_errors=True)
    return {**os.environ, "TOOLGEN_CACHE_DIR": str(root)}


def lint_once(specs: Path, work: Path, cold: bool = False) -> ProcessTime:
    """`toolgen lint` of the spec set, whole process (findings, exit 1, are fine)."""
    return run_timed(toolgen_argv("lint", str(specs)), work, ok=(0, 1), env=cache_env(work, cold))


LOAD_SNIPPET = r"""
import json, sys, time
t0 = time.perf_counter()
import toolgen
t1 = time.perf_counter()
toolset = toolgen.load(sys.argv[1])
t2 = time.perf_counter()
how = None
try:
    from toolgen.runtime import RuntimeToolSet
except ImportError:
    RuntimeToolSet = None
if RuntimeToolSet is not None and isinstance(toolset, RuntimeToolSet):
    runtime = toolset
else:
    runtime = RuntimeToolSet(toolset) if RuntimeToolSet is not None else None
count = 0
if runtime is not None and hasattr(runtime, "compile_validators"):
    runtime.compile_validators()
    how = "RuntimeToolSet.compile_validators()"
    count = len(runtime)
elif runtime is not None:
    from toolgen.schema.validation import SchemaValidator
    for tool in runtime.tools:
        for schema in (tool.input_schema, tool.output_schema):
            if schema is not None:
                SchemaValidator(schema).is_valid(None)
                count += 1
    how = "toolgen.schema.validation.SchemaValidator per schema"
else:
    import jsonschema_rs
    for tool in toolset.tools:
        for schema in (tool.input_schema, tool.output_schema):
            if schema is not None:
                jsonschema_rs.validator_for(schema)
                count += 1
    how = "jsonschema_rs.validator_for per schema (toolgen.runtime not available)"
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "validators": t3 - t2,
                  "total": t3 - t1, "tools": len(toolset.tools), "how": how, "compiled": count}))
"""


def load_once(specs: Path, work: Path) -> dict[str, float | str]:
    """`toolgen.load` of the spec set plus compiled validators, timed inside a fresh process."""
    proc = subprocess.run(
        [sys.executable, "-c", LOAD_SNIPPET, str(specs)],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise RuntimeError(f"toolgen.load exited {proc.returncode}:\n{tail}")
    data: dict[str, float | str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data
