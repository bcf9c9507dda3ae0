"""Small, dependency-free statistics used by reports (every rate comes with n and an interval)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Rate:
    successes: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.successes / self.n if self.n else float("nan")

    def __str__(self) -> str:
        if not self.n:
            return "n=0"
        return f"{self.value:.0%} [{self.low:.0%}, {self.high:.0%}] (n={self.n})"


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> Rate:
    """Wilson score interval for a binomial proportion (95 % by default)."""
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Rate(successes, n, max(0.0, centre - half), min(1.0, centre + half))
