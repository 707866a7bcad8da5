"""95 % confidence intervals across rounds (pure; ``docs/measurement.md``, "Confidence across rounds").

Method: **Student's t on the rounds' values.** A level runs R rounds; each round gives one value
per metric (its median TTFT, its aggregate throughput, …). With those R values x₁…x_R, mean m and
sample standard deviation s, the interval is ``m ± t(0.975, R − 1) · s / √R``.

Why Student's t and not a bootstrap: bench runs three to five rounds (the guide's rule). A
bootstrap over R = 3 values has only 10 distinct resamples (35 for R = 4), and the percentile
bootstrap's coverage falls well below its nominal 95 % at such sample sizes, so its interval
would look tighter than the data allow. Student's t is exact when the round values are normally
distributed, and they nearly are here: each is a median or a ratio over many requests, which the
central limit theorem (for sample quantiles as for means) makes close to normal. Its width
with two rounds (t = 12.7) is honest about how little two rounds say.

The interval is for the mean of the round values; the headline stays the guide's trimmed median
of rounds (:mod:`tokcheck.core.stats`). With one round (or none) there is no interval.

The critical values are the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2
"Critical Values of the Student's t Distribution" (upper 0.025 column); ``docs/sources.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Two-sided 95 % critical values t(0.975, df) by degrees of freedom (NIST e-Handbook §1.3.6.7.2).
T_975: dict[int, float] = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
    80: 1.990, 100: 1.984,
}

#: The method in words (written beside every interval).
METHOD = "Student's t on the rounds' values: mean ± t(0.975, n−1)·s/√n"

#: Why an interval is null.
REASON_ONE_ROUND = "fewer than two rounds with a value: no interval"


def t_critical(df: int) -> float:
    """t(0.975, df): the table's value; between tabulated degrees of freedom the next lower
    one (a slightly wider interval, never a narrower one).

    Raises:
        ValueError: ``df < 1``.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be ≥ 1, got {df}")
    if df in T_975:
        return T_975[df]
    return T_975[max(k for k in T_975 if k < df)]


@dataclass(frozen=True)
class Interval:
    """A 95 % confidence interval: ``low``, ``high`` (the metric's unit), ``mean`` of the round
    values it is centred on, ``n`` rounds; ``clamped``: the t interval reached below 0 for a
    quantity that cannot (every value ≥ 0: a latency, a rate) and ``low`` was raised to 0."""

    low: float
    high: float
    mean: float
    n: int
    clamped: bool = False

    def overlaps(self, other: Interval) -> bool:
        """Whether the two intervals share any value. Intervals that do not overlap mean the
        runs differ (at better than the 5 % level); overlapping ones do not prove they agree."""
        return self.low <= other.high and other.low <= self.high

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def ci95(values: Sequence[float | None]) -> Interval | None:
    """The 95 % interval of the mean of ``values`` (one per round; ``None`` entries are rounds
    without a value and are left out), or ``None`` with fewer than two values. When every value
    is ≥ 0 the interval never reaches below 0 (``clamped`` says when it was cut there)."""
    xs = [float(v) for v in values if v is not None and math.isfinite(v)]
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    s = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_critical(n - 1) * s / math.sqrt(n)
    if mean - half < 0 <= min(xs):  # TTFT, TPOT, tok/s are never negative: few, spread rounds
        return Interval(0.0, mean + half, mean, n, clamped=True)
    return Interval(mean - half, mean + half, mean, n)
