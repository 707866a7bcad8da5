"""95 % confidence intervals across rounds: the t table against the t distribution itself,
the interval's arithmetic, and compare's overlap verdict on run directories."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rundirs import write_run_dir
from tokcheck.analysis.compare import comparison_markdown, side_by_side
from tokcheck.core.confidence import T_975, ci95, t_critical
from tokcheck.record.store import load_run


def _t_cdf(x: float, df: int) -> float:
    """Student's t CDF by integrating its density (Simpson's rule on a fine grid) — an
    independent check of the tabulated critical values."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    grid = np.linspace(0.0, x, 200_001)
    f = c * (1 + grid**2 / df) ** (-(df + 1) / 2)
    h = grid[1] - grid[0]
    integral = h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())
    return 0.5 + integral


@pytest.mark.parametrize("df", sorted(T_975))
def test_tabulated_critical_values_are_the_975th_percentile(df):
    # the table gives three decimals: the CDF there is 0.975 to within what rounding moves it
    assert _t_cdf(T_975[df], df) == pytest.approx(0.975, abs=2e-4 if df > 1 else 1e-3)


def test_between_tabulated_values_the_wider_one_is_used():
    assert t_critical(35) == T_975[30] and t_critical(1000) == T_975[100]
    with pytest.raises(ValueError):
        t_critical(0)


def test_interval_arithmetic():
    # 11, 12, 13: mean 12, s = 1, t(0.975, 2) = 4.303 → 12 ± 4.303/√3
    ci = ci95([11.0, 12.0, 13.0])
    assert ci.mean == 12.0 and ci.n == 3 and not ci.clamped
    assert ci.low == pytest.approx(12 - 4.303 / math.sqrt(3)) and ci.high == pytest.approx(12 + 4.303 / math.sqrt(3))
    assert ci95([5.0]) is None and ci95([]) is None and ci95([None, 4.0]) is None
    assert ci95([4.0, None, 6.0]).n == 2  # a round without a value is left out
    assert ci95([1.0, 2.0]).overlaps(ci95([2.0, 9.0])) and not ci95([1.0, 1.1]).overlaps(ci95([5.0, 5.1]))


def _with_rounds(path, ttft_rounds):
    """Give the run's first level these per-round TTFT medians (as bench writes them)."""
    summary = json.loads((path / "summary.json").read_text())
    summary["levels"][0]["ttft_ms"]["rounds"] = ttft_rounds
    (path / "summary.json").write_text(json.dumps(summary))
    return load_run(path)


def test_compare_says_whether_the_intervals_overlap(tmp_path):
    a = _with_rounds(write_run_dir(tmp_path / "a", levels={1: {"ttft_ms": 10, "gen_tok_s": 300}}), [9.0, 10.0, 11.0])
    b = _with_rounds(write_run_dir(tmp_path / "b", levels={1: {"ttft_ms": 12, "gen_tok_s": 300}}), [11.0, 12.0, 13.0])
    c = _with_rounds(write_run_dir(tmp_path / "c", levels={1: {"ttft_ms": 40, "gen_tok_s": 300}}), [39.0, 40.0, 41.0])
    row = next(r for r in side_by_side([a, b]) if r.metric == "median TTFT")
    assert row.ci95[0] == pytest.approx([10 - 4.303 / math.sqrt(3), 10 + 4.303 / math.sqrt(3)])
    assert row.overlap is True       # 7.5–12.5 and 9.5–14.5
    row = next(r for r in side_by_side([a, c]) if r.metric == "median TTFT")
    assert row.overlap is False      # 7.5–12.5 and 37.5–42.5
    assert "| apart |" in comparison_markdown([a, c]) and "| overlap |" in comparison_markdown([a, b])


def test_an_interval_of_a_latency_never_reaches_below_zero():
    """Three TTFT rounds of 10, 20 and 400 ms (a newcomer saw "-288.3–538.3" on a busy machine):
    mean 143.3, s = 222.3, half-width t(0.975, 2) × s / √3 = 4.303 × 128.4 = 552.4, so the t
    interval runs from −409 to 695.7; a latency cannot be negative, so it starts at 0."""
    ci = ci95([10.0, 20.0, 400.0])
    assert ci.low == 0.0 and ci.clamped
    assert ci.high == pytest.approx(143.333 + 4.303 * 222.336 / 3 ** 0.5, rel=1e-3)
    signed = ci95([-1.0, 0.5, 2.0])  # a quantity that may be negative keeps its t interval
    assert signed.low < 0 and not signed.clamped
