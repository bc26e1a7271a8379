"""Results of a verify run: one per check, tool and revision; each tool's verdict; the summary.

A result is `passed`, `failed`, `skipped` (with why), `not-exercised` (the check
could not be judged: no call of the tool succeeded, with why) or `error` (verify
itself broke: never a pass, and it fails the run). A failure's level is the level
of the rule its check enforces at its revision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Final

from toolgen.spec.errors import Location
from toolgen.verify.checks import LEVELS, MUST, Rule, check

PASSED: Final = "passed"
FAILED: Final = "failed"
SKIPPED: Final = "skipped"
NOT_EXERCISED: Final = "not-exercised"
ERROR: Final = "error"
STATUSES: Final = (PASSED, FAILED, SKIPPED, NOT_EXERCISED, ERROR)
NO_INPUT: Final[Any] = object()
"""`Result.input` when no input reproduces the result (protocol and listing checks)."""


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one check for one tool (or none) at one revision."""

    check: str
    status: str
    tool: str | None
    message: str
    revision: str | None = None
    input: Any = NO_INPUT
    """For a failed call check: the smallest input that reproduces it (a sequence: its steps)."""
    expected: str | None = None
    """The baseline's reason, when this failure is expected."""

    @property
    def rule(self) -> Rule:
        return check(self.check).rule(self.revision)

    @property
    def level(self) -> str:
        return self.rule.level

    def fails(self, fail_on: str = MUST) -> bool:
        """Whether this result fails the run: an error of verify itself, or a failure (not in
        the baseline) at `fail_on`'s level or a stricter one."""
        if self.status == ERROR:
            return True
        return (
            self.status == FAILED
            and self.expected is None
            and LEVELS.index(self.level) <= LEVELS.index(fail_on)
        )

    def with_expected(self, reason: str) -> Result:
        return replace(self, expected=reason)

    def to_json(self) -> dict[str, Any]:
        rule = self.rule
        data: dict[str, Any] = {
            "check": self.check,
            "status": self.status,
            "level": rule.level,
            "tool": self.tool,
            "revision": self.revision,
            "message": self.message,
            "rule": rule_json(rule, self.revision),
        }
        if self.input is not NO_INPUT:
            data["input"] = self.input
        if self.expected is not None:
            data["expected"] = self.expected
        return data


def rule_json(rule: Rule, revision: str | None) -> dict[str, Any]:
    return {
        "source": rule.source,
        "revision": rule.revision_for(revision),
        "section": rule.section,
        "text": rule.text,
        "url": rule.url(revision),
    }


def passed(
    check_id: str, message: str, tool: str | None = None, revision: str | None = None
) -> Result:
    return Result(check_id, PASSED, tool, message, revision)


def failed(
    check_id: str,
    message: str,
    tool: str | None = None,
    revision: str | None = None,
    input: Any = NO_INPUT,
) -> Result:
    return Result(check_id, FAILED, tool, message, revision, input)


def skipped(
    check_id: str, message: str, tool: str | None = None, revision: str | None = None
) -> Result:
    return Result(check_id, SKIPPED, tool, message, revision)


def not_exercised(
    check_id: str, message: str, tool: str | None = None, revision: str | None = None
) -> Result:
    return Result(check_id, NOT_EXERCISED, tool, message, revision)


def broken(
    check_id: str, exc: BaseException, tool: str | None = None, revision: str | None = None
) -> Result:
    """An error of verify itself while judging `check_id` (a bug to report, never a pass)."""
    where = ""
    frames = exc.__traceback__
    while frames is not None and frames.tb_next is not None:
        frames = frames.tb_next
    if frames is not None:
        code = frames.tb_frame.f_code
        where = f" in {code.co_name} ({code.co_filename.rsplit('/', 1)[-1]}:{frames.tb_lineno})"
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    message = f"toolgen verify failed: {type(exc).__name__}: {text}{where}; please report it"
    return Result(check_id, ERROR, tool, message, revision)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One tool's outcome over the run: `passed`, `failed`, `skipped` or `not-exercised`."""

    tool: str
    status: str
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "status": self.status, "reason": self.reason}


@dataclass(slots=True)
class Report:
    """Everything a run found, and what it was run with."""

    results: list[Result] = field(default_factory=list)
    seed: int = 0
    revisions: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    """The tools the run was asked to check (after --only and --exclude)."""
    calls: int = 0
    """tools/call requests sent."""
    seconds: float = 0.0
    fail_on: str = MUST
    locations: dict[str | None, Location] = field(default_factory=dict)
    """Where each tool is described in the spec set (None: the spec set itself)."""
    cut: list[str] = field(default_factory=list)
    """Tools (at some revision) whose calls stopped when their share of the budget ran out."""

    def extend(self, results: Iterable[Result]) -> None:
        self.results.extend(results)

    @property
    def ok(self) -> bool:
        return not any(r.fails(self.fail_on) for r in self.results)

    def verdicts(self) -> list[Verdict]:
        """Each tool's verdict over every revision: `failed` when any of its results failed
        (listing, calls, sequences; expected failures aside) or broke; else by its call
        checks: `not-exercised` when one was, `passed` when one passed, else `skipped`. The
        reason is the deciding result's message."""
        mine: dict[str | None, list[Result]] = {}
        for result in self.results:
            if not (result.status == FAILED and result.expected is not None):
                mine.setdefault(result.tool, []).append(result)
        out = []
        for tool in self.tools:
            results = mine.get(tool, [])
            calls = [r for r in results if r.check.startswith("call.")]
            deciding = (
                next((r for r in results if r.status in (ERROR, FAILED)), None)
                or next((r for r in calls if r.status == NOT_EXERCISED), None)
                or next((r for r in calls if r.status == PASSED), None)
                or next(iter(calls), None)
            )
            if deciding is None:
                out.append(Verdict(tool, SKIPPED, "no call check ran"))
                continue
            status = FAILED if deciding.status == ERROR else deciding.status
            reason = "" if status == PASSED else f"{deciding.check}: {deciding.message}"
            if deciding.revision and status != PASSED:
                reason = f"[{deciding.revision}] {reason}"
            out.append(Verdict(tool, status, reason))
        return out

    def exercised(self) -> list[str]:
        """The tools exercised: called, and at every revision where they were called, some
        call succeeded (their call checks are then never `not-exercised`)."""
        called: dict[str, bool] = {}
        for result in self.results:
            tool = result.tool
            if tool in self.tools and result.check.startswith("call.") and result.status != SKIPPED:
                called[tool] = called.get(tool, True) and result.status != NOT_EXERCISED
        return [tool for tool in self.tools if called.get(tool)]

    def summary(self) -> dict[str, Any]:
        """Counts: results by status (failures by level, expected ones apart) and tools by
        verdict, with how many were exercised."""
        counts: dict[str, Any] = dict.fromkeys(STATUSES, 0)
        counts["expected"] = 0
        counts["levels"] = dict.fromkeys(LEVELS, 0)
        for result in self.results:
            if result.status == FAILED and result.expected is not None:
                counts["expected"] += 1
                continue
            counts[result.status] += 1
            if result.status == FAILED:
                counts["levels"][result.level] += 1
        verdicts = self.verdicts()
        counts["tools"] = {
            "total": len(verdicts),
            "exercised": len(self.exercised()),
            **{s: sum(v.status == s for v in verdicts) for s in STATUSES if s != ERROR},
        }
        return counts
