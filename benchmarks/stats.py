"""Summaries of repeated measurements: median with min-max, percentiles, target checks."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Stat:
    """The median of per-round values, with their range."""

    median: float
    lo: float
    hi: float
    n: int

    @classmethod
    def of(cls, values: list[float]) -> Stat | None:
        if not values:
            return None
        return cls(statistics.median(values), min(values), max(values), len(values))


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), nearest-rank on the sorted values."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))
    return ordered[rank]


def ratio(a: Stat | None, b: Stat | None) -> float | None:
    if a is None or b is None or b.median == 0:
        return None
    return a.median / b.median


@dataclass(frozen=True)
class Target:
    """One goal from issue 5: `measured` compared with `limit` (lower is better if `at_most`)."""

    name: str
    measured: float | None
    limit: float
    at_most: bool
    unit: str
    contender: str = ""

    @property
    def met(self) -> bool | None:
        if self.measured is None:
            return None
        return self.measured <= self.limit if self.at_most else self.measured >= self.limit

    @property
    def cost(self) -> float | None:
        """measured / limit oriented so that <= 1 means met (for the chart)."""
        if self.measured is None or self.measured == 0:
            return None
        return self.measured / self.limit if self.at_most else self.limit / self.measured
