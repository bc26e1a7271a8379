"""`toolgen diff` of two 1,000-tool spec sets, whole process (issue 11: target ≤ 1 s).

OLD is the 1,000-tool spec set of `make_specs.py` (41 files). NEW is a copy
with the edits of a pull request applied:

- `pull request`: 3 of the 41 files edited (9 tools: a new `maxLength` on an
  input property, a read-only tool that now writes, a changed description);
- `every file edited`: the same kind of edit in all 41 files (nothing can be
  parsed once for both sides);
- `git revision`: the pull request again, with OLD read from a commit
  (`git:HEAD:specs`) of a temporary repository, NEW its working tree.

Each round runs every scenario and, as a reference on the same machine at the
same time, `toolgen lint` of OLD alone (one spec set loaded, not two); the
report gives the median and min-max of wall and CPU seconds, the ratio of the
median CPU seconds to the reference's, and the diff's summary line.

    python benchmarks/diff_bench.py [--rounds 7] [--work benchmarks/.work/diff]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
from pathlib import Path

from build_bench import ProcessTime, cache_env, run_timed, toolgen_argv
from make_specs import WORK, load_corpus, spec_tools, write_spec_set

TOOLS = 1000
OWNER = "        description: The account owner of the repository.\n        type: string\n"


def edit(path: Path, tools: int = 3) -> None:
    """One file's pull request: a tighter input, a read-only tool that writes, a new description."""
    text = path.read_text(encoding="utf-8")
    text = text.replace(OWNER, OWNER + "        maxLength: 39\n", tools)
    text = text.replace("    readOnly: true\n", "    readOnly: false\n", 1)
    text = text.replace("  description: ", "  description: Changed. ", 1).replace(
        "  description: Changed. '", "  description: 'Changed. ", 1
    )
    path.write_text(text, encoding="utf-8")


def inputs(work: Path, tools: int = TOOLS) -> dict[str, tuple[str, str, Path]]:
    """Scenario -> (OLD, NEW, working directory), `tools` tools on each side (at least 100,
    so that the pull request has files to edit)."""
    work.mkdir(parents=True, exist_ok=True)
    old = work / "old"
    if not old.is_dir():
        write_spec_set(old, spec_tools(tools, load_corpus()), "bench_diff")
    files = sorted(old.glob("tools_*.yaml"))
    pr, every = work / "pr", work / "every"
    for target, edited in ((pr, files[3:30:13]), (every, files)):
        if not target.is_dir():
            shutil.copytree(old, target)
            for path in edited:
                edit(target / path.name)
    repo = work / "repo"
    if not repo.is_dir():
        shutil.copytree(old, repo / "specs")
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
        subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-qm", "old"], cwd=repo, check=True)
        shutil.rmtree(repo / "specs")
        shutil.copytree(pr, repo / "specs")
    return {
        PULL_REQUEST: (str(old), str(pr), work),
        EVERY_FILE: (str(old), str(every), work),
        "git revision (git:HEAD:specs vs the working tree)": ("git:HEAD:specs", "specs", repo),
        REFERENCE: (REFERENCE, str(old), work),
    }


PULL_REQUEST = "pull request (3 files edited)"
EVERY_FILE = "every file edited"
REFERENCE = "reference: `toolgen lint` of OLD alone"


def diff(old: str, new: str, cwd: Path, cold: bool = False) -> ProcessTime:
    """One whole-process run; `cold`: with toolgen's cache empty (else the shared one)."""
    env = cache_env(cwd, cold)
    if old == REFERENCE:
        argv = toolgen_argv("lint", new, "--statistics", "--isolated")
        return run_timed(argv, cwd, ok=(0, 1), env=env)
    return run_timed(toolgen_argv("diff", old, new, "--isolated"), cwd, ok=(1,), env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", type=Path, default=WORK / "diff")
    args = parser.parse_args()
    scenarios = inputs(args.work)
    times: dict[str, list[ProcessTime]] = {name: [] for name in scenarios}
    for round_ in range(args.rounds):
        order = list(scenarios) if round_ % 2 == 0 else list(reversed(scenarios))
        for name in order:
            times[name].append(diff(*scenarios[name]))
    print(f"toolgen diff of two {TOOLS}-tool spec sets, whole process, {args.rounds} rounds")
    print(
        "| scenario | wall s median (min-max) | CPU s median (min-max) | CPU / reference | output |"
    )
    print("| --- | --- | --- | --- | --- |")
    reference = statistics.median(r.cpu for r in times[REFERENCE])
    for name, runs in times.items():
        wall = [r.wall for r in runs]
        cpu = [r.cpu for r in runs]
        summary = runs[-1].stderr.strip().splitlines()[0 if name != REFERENCE else -1]
        print(
            f"| {name} | {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}) "
            f"| {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) "
            f"| {statistics.median(cpu) / reference:.2f} | {summary} |"
        )


if __name__ == "__main__":
    main()
