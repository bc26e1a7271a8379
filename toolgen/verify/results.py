"""Results of a verify run: one per check, tool and revision, and their summary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Final

from toolgen.verify.checks import check

PASSED: Final = "passed"
FAILED: Final = "failed"
SKIPPED: Final = "skipped"
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
    """For a failed call check: the smallest input that reproduces it."""
    expected: str | None = None
    """The baseline's reason, when this failure is expected."""

    @property
    def severity(self) -> str:
        return check(self.check).severity

    @property
    def counts_as_failure(self) -> bool:
        """Whether this result fails the run (an error-severity failure not in the baseline)."""
        return self.status == FAILED and self.severity == "error" and self.expected is None

    def with_expected(self, reason: str) -> Result:
        return replace(self, expected=reason)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "check": self.check,
            "status": self.status,
            "severity": self.severity,
            "tool": self.tool,
            "revision": self.revision,
            "message": self.message,
        }
        if self.input is not NO_INPUT:
            data["input"] = self.input
        if self.expected is not None:
            data["expected"] = self.expected
        return data


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


@dataclass(slots=True)
class Report:
    """Everything a run found, and what it was run with."""

    results: list[Result] = field(default_factory=list)
    seed: int = 0
    revisions: tuple[str, ...] = ()
    calls: int = 0
    """tools/call requests sent."""
    seconds: float = 0.0

    def extend(self, results: Iterable[Result]) -> None:
        self.results.extend(results)

    @property
    def ok(self) -> bool:
        return not any(r.counts_as_failure for r in self.results)

    def summary(self) -> dict[str, int]:
        """`passed`, `failed` (failures that fail the run), `skipped`, `warnings` (failed
        warning checks) and `expected` (failures the baseline expects)."""
        counts = dict.fromkeys(("passed", "failed", "skipped", "warnings", "expected"), 0)
        for result in self.results:
            if result.status == FAILED and result.expected is not None:
                counts["expected"] += 1
            elif result.status == FAILED and result.severity == "warning":
                counts["warnings"] += 1
            else:
                counts[result.status] += 1
        return counts
