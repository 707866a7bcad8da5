"""Statistics over requests and rounds (pure).

The rounds rule is the guide's (``docs/measurement.md``): run R rounds, take each round's median, drop the highest
and the lowest round, report the median of the rest, with the spread. With fewer than three
rounds nothing is dropped.

The spread is the range of *all* rounds' medians (max − min, with ``range_all`` = [min, max]):
the kept rounds alone have no range with three rounds (one is left), so "±0" would hide rounds
of 1893, 246 and 286. ``spread_kept`` (max − min of the kept rounds) is given beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0–100, numpy's linear interpolation), or None for no values."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def median(values: Sequence[float]) -> float | None:
    """The median, or None for no values."""
    return percentile(values, 50)


def trimmed_rounds(round_medians: Sequence[float]) -> list[float]:
    """The round medians kept by the guide's rounds rule: with ≥ 3 rounds, one highest and one lowest
    are dropped (one each, even if tied); otherwise all are kept."""
    vals = sorted(round_medians)
    if len(vals) >= 3:
        return vals[1:-1]
    return vals


@dataclass(frozen=True)
class Distribution:
    """Summary of one metric over a level.

    Attributes:
        mean: mean of all values (every request or token of every round).
        median: the rounds' trimmed median (median of the kept round medians).
        p90, p99: percentiles of all values.
        rounds: each round's median (None for a round without values), in run order.
        spread: max − min of all rounds' medians (same unit; 0 with one round).
        range_all: [min, max] of all rounds' medians.
        spread_kept: max − min of the kept round medians (0 with three rounds).
        n: number of values.
    """

    mean: float
    median: float
    p90: float
    p99: float
    rounds: list[float | None]
    spread: float
    range_all: list[float]
    spread_kept: float
    n: int


def distribution(per_round: Sequence[Sequence[float]]) -> Distribution | None:
    """Summarise values grouped by round (see :class:`Distribution`); None when no values."""
    pooled = [v for r in per_round for v in r]
    if not pooled:
        return None
    rmeds = [median(r) for r in per_round]
    present = [m for m in rmeds if m is not None]
    kept = trimmed_rounds(present)
    arr = np.asarray(pooled, dtype=float)
    return Distribution(
        mean=float(arr.mean()),
        median=float(np.median(kept)),
        p90=float(np.percentile(arr, 90)),
        p99=float(np.percentile(arr, 99)),
        rounds=rmeds,
        spread=float(max(present) - min(present)),
        range_all=[float(min(present)), float(max(present))],
        spread_kept=float(max(kept) - min(kept)),
        n=len(pooled),
    )


def rounds_value(per_round: Sequence[float | None]) -> tuple[float | None, float | None]:
    """(trimmed median, spread) of one value per round (e.g. each round's throughput); the
    spread is max − min of all rounds (as :class:`Distribution`)."""
    vals = [v for v in per_round if v is not None]
    if not vals:
        return None, None
    kept = trimmed_rounds(vals)
    return float(np.median(kept)), float(max(vals) - min(vals))
