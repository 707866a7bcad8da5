"""SLO parsing, presets and the per-request and per-level rules (core/slo.py, record/slo.py)."""

from __future__ import annotations

import math

import pytest

from tokcheck.core.slo import MLPERF_PRESETS, Objective, level_value, parse_slo, request_meets
from tokcheck.errors import TokcheckError
from tokcheck.record.schema import ErrorInfo, RequestRecord
from tokcheck.record.slo import evaluate_level

MS = 1_000_000


def _rec(round_=1, ttft=50.0, chunks=None, tpot=5.0, error=None, n_out=10):
    t0 = round_ * 10_000 * MS
    chunks = chunks if chunks is not None else [(t0 + int(ttft * MS) + i * 5 * MS, 1) for i in range(n_out)]
    return RequestRecord(level="c=1", round=round_, t_send_ns=t0, t_first_ns=chunks[0][0] if chunks else None,
                         t_last_ns=chunks[-1][0] if chunks else None, t_end_ns=t0 + 200 * MS, chunks=chunks,
                         n_out=n_out, ttft_ms=ttft if error is None else None, tpot_ms=tpot,
                         e2e_latency_ms=200.0, error=error)


def test_parse_objectives_percentiles_and_presets():
    slo = parse_slo("ttft_ms=500, tpot_ms=30@p90, e2e_ms<=8000@p50, itl_ms:12")
    assert [(o.metric, o.limit_ms, o.percentile) for o in slo.objectives] == [
        ("ttft_ms", 500, 99), ("tpot_ms", 30, 90), ("e2e_latency_ms", 8000, 50), ("itl_ms", 12, 99)]
    preset = parse_slo("mlperf:llama3.1-8b-interactive")
    assert preset.text == "ttft_ms<=500@p99,tpot_ms<=30@p99" and "mlperf.conf" in preset.source
    assert parse_slo("mlperf:llama3_1-405b-server").text == "ttft_ms<=6000@p99,tpot_ms<=175@p99"
    assert MLPERF_PRESETS["deepseek-r1-interactive"] == (1500, 15)


@pytest.mark.parametrize("bad, why", [("", "empty SLO"), ("ttft=5", "unknown SLO metric"),
                                      ("ttft_ms=fast", "bad SLO item"), ("ttft_ms=0", "bad SLO limit"),
                                      ("ttft_ms=5@p42", "bad percentile"), ("ttft_ms=5,ttft_ms=6", "given twice"),
                                      ("mlperf:gpt-5", "unknown MLPerf preset")])
def test_bad_slos_are_one_line_errors(bad, why):
    with pytest.raises(TokcheckError, match=why):
        parse_slo(bad)


def test_failed_requests_meet_nothing_and_count_as_infinitely_slow():
    o = Objective("ttft_ms", 60.0, 99.0)
    ok = [_rec(ttft=50.0) for _ in range(99)]
    failed = _rec(error=ErrorInfo(kind="http_500", detail="x"))
    assert request_meets(o, ok[0]) and not request_meets(o, failed)
    assert level_value(o, ok) == pytest.approx(50.0)
    assert math.isinf(level_value(o, ok + [failed, failed]))     # 2 of 101 > 1 %: p99 is a failure
    assert level_value(Objective("ttft_ms", 60.0, 90.0), ok + [failed, failed]) == 50.0


def test_every_token_in_one_read_meets_tpot_and_itl_objectives():
    # all 10 tokens in the first read: no TPOT, no ITL — no token waited after the first
    one_read = _rec(chunks=[(10_000 * MS + 50 * MS, 10)], tpot=None)
    assert request_meets(Objective("tpot_ms", 1.0), one_read)
    assert request_meets(Objective("itl_ms", 1.0), one_read)
    assert not request_meets(Objective("ttft_ms", 40.0), one_read)   # its wait is in its TTFT
    r = evaluate_level([one_read, _rec()], parse_slo("ttft_ms=60,tpot_ms=6"))
    assert r.share_met_all == 1.0 and r.met is True


def test_goodput_counts_only_good_requests_over_the_round_window():
    good, slow = _rec(ttft=50.0), _rec(ttft=90.0)
    r = evaluate_level([good, slow], parse_slo("ttft_ms=60"))
    # one round, window send → end = 200 ms: 1 good request of 10 tokens
    assert r.goodput_rps == pytest.approx(5.0) and r.goodput_tok_s == pytest.approx(50.0)
    assert r.share_met_all == 0.5 and r.met is False and r.objectives[0].share_met == 0.5
    assert evaluate_level([], parse_slo("ttft_ms=60")).reason == "no measured requests"
