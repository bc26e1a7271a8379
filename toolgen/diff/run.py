"""`toolgen diff` as a library call: load both sides, diff them, apply the configuration."""

from __future__ import annotations

from toolgen.diff.config import DiffConfig
from toolgen.diff.model import Report
from toolgen.diff.sets import accepted, diff_sides, major_bump, version_check
from toolgen.diff.sides import Reader, load_side
from toolgen.spec import collector


def run_diff(
    old: str, new: str, config: DiffConfig | None = None, *, old_absent_ok: bool = False
) -> Report:
    """Diff what `old` and `new` name (paths or `git:REV:PATH`); `SpecError` when one does not load.

    Ignored changes are left out (and counted); the version check runs on
    what remains, so ignoring every breaking change also silences it. A major version
    bump announces the breaking changes it covers: they become notices (unless the
    configuration's `accept_major_bump` is off).
    `old_absent_ok`: OLD at a git revision that does not have it yet is empty
    (`Report.old_absent`), not an error.
    """
    config = config or DiffConfig()
    reader = Reader()
    with collector.paused():
        before = load_side(old, reader, absent_ok=old_absent_ok)
        servers = diff_sides(before, load_side(new, reader))
    report = Report(servers, old_absent=before.absent)
    for server in servers:
        kept = [c for c in server.changes if not config.ignored(c)]
        report.ignored += len(server.changes) - len(kept)
        server.changes = kept
        check = version_check(server)
        if check is not None:
            if config.ignored(check):
                report.ignored += 1
            else:
                server.changes.append(check)
        elif config.accept_major_bump and major_bump(server):
            server.changes = [accepted(c, server) if c.breaking else c for c in kept]
    return report
