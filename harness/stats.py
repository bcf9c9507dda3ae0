"""Small, dependency-free statistics used by reports (every rate comes with n and an interval)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


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


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels for the same items: (observed agreement - chance agreement) /
    (1 - chance agreement), chance from each rater's own label shares. None when it is undefined: no items, or both
    raters gave every item one and the same label (chance agreement is 1, so kappa is 0/0). When only one rater uses
    one label, kappa is defined and 0 whatever the agreement."""
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa: {len(a)} labels against {len(b)}")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    share_a, share_b = Counter(a), Counter(b)
    chance = sum(share_a[label] * share_b.get(label, 0) for label in share_a) / (n * n)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


BOOTSTRAP_RESAMPLES = 2000


def bootstrap_interval(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of ``statistic`` over ``items`` resampled with replacement (seeded: the same
    items give the same interval). Resamples where the statistic is undefined (None) are left out; None when more
    than one in ten is: the sample has too few items of a class for the interval to describe it."""
    n = len(items)
    if n == 0:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        value = statistic([items[rng.randrange(n)] for _ in range(n)])
        if value is not None:
            values.append(value)
    if len(values) * 10 < resamples * 9:
        return None
    values.sort()
    tail = (1.0 - level) / 2
    low = values[int(math.floor(tail * (len(values) - 1)))]
    high = values[int(math.ceil((1.0 - tail) * (len(values) - 1)))]
    return low, high


def bootstrap_kappa(
    a: Sequence[Hashable], b: Sequence[Hashable], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """`bootstrap_interval` of `cohen_kappa` over the items' label pairs; None when kappa is undefined on the sample
    itself."""
    if len(a) == 0 or cohen_kappa(a, b) is None:
        return None

    def kappa(sample: Sequence[tuple[Hashable, Hashable]]) -> float | None:
        return cohen_kappa([x for x, _ in sample], [y for _, y in sample])

    return bootstrap_interval(list(zip(a, b)), kappa, resamples=resamples, seed=seed, level=level)
