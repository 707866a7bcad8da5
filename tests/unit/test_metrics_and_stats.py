from __future__ import annotations

import pytest

from tokcheck.core import metrics

from tokcheck.core import stats

MS = 1_000_000


def test_definitions_on_a_scripted_clock():
    # sent at 0; chunks of 1, 3, 1 tokens at 50, 62, 66 ms; stream ends at 67 ms
    chunks = [(50 * MS, 1), (62 * MS, 3), (66 * MS, 1)]
    assert metrics.ttft_ms(0, 50 * MS) == 50
    assert metrics.itl_ms(chunks) == [4, 4, 4, 4]
    assert sum(metrics.itl_ms(chunks)) == pytest.approx(16)  # = t_last − t_first
    tpot = metrics.tpot_ms(50 * MS, 66 * MS, n_out=5, n_first=1)
    assert tpot == 4 and metrics.generation_tok_s(tpot) == 250
    assert metrics.e2e_latency_ms(0, 67 * MS) == 67
    assert metrics.e2e_tok_s(5, 0, 67 * MS) == pytest.approx(5 / 0.067)
    assert metrics.queue_delay_ms(-2 * MS, 0) == 2


def test_undefined_is_none_never_zero():
    assert metrics.ttft_ms(0, None) is None
    assert metrics.tpot_ms(1, 1, n_out=1, n_first=1) is None
    assert metrics.generation_tok_s(None) is None
    assert metrics.itl_ms([(5, 1)]) == []
    assert metrics.queue_delay_ms(None, 5) is None
    assert metrics.output_throughput_tok_s([10], 5, 5) is None


def test_aggregate_throughput():
    assert metrics.output_throughput_tok_s([100, 100], 0, 2 * 10**9) == 100
    assert metrics.request_throughput_rps(4, 0, 2 * 10**9) == 2


def test_rounds_rule_drops_highest_and_lowest():
    per_round = [[10, 11, 12], [100, 100, 100], [20, 21, 22], [1, 1, 1], [30, 31, 32]]
    d = stats.distribution(per_round)
    assert d.rounds == [11, 100, 21, 1, 31]
    assert d.median == 21  # of 11, 21, 31 after dropping 100 and 1
    assert d.spread == 99 and d.range_all == [1, 100]  # all rounds
    assert d.spread_kept == 20
    assert d.n == 15 and d.mean == pytest.approx(sum(map(sum, per_round)) / 15)


def test_fewer_than_three_rounds_keep_all():
    assert stats.trimmed_rounds([3, 1]) == [1, 3]
    assert stats.distribution([[1, 2, 3]]).median == 2
    assert stats.distribution([[], []]) is None
    assert stats.rounds_value([None, 4.0, 6.0, 5.0]) == (5.0, 2.0)


def test_spread_with_three_rounds_is_the_range_of_all_rounds():
    # the new user's rounds: with the kept rounds only, the spread was always ±0 at three rounds
    d = stats.distribution([[1893.0], [246.0], [286.0]])
    assert d.median == 286 and d.spread == 1893 - 246 and d.range_all == [246, 1893]
    assert d.spread_kept == 0
    assert stats.rounds_value([1893.0, 246.0, 286.0]) == (286.0, 1893 - 246)


def test_events_in_one_read_are_one_chunk():
    # 16 one-token SSE events arriving 4 per read (same stamp), reads 8 ms apart
    events = [(t, 1) for t in (100 * MS, 108 * MS, 116 * MS, 124 * MS) for _ in range(4)]
    chunks, counts = metrics.merge_reads(events)
    assert chunks == [(100 * MS, 4), (108 * MS, 4), (116 * MS, 4), (124 * MS, 4)] and counts == [4, 4, 4, 4]
    # ITL: each read of 4 tokens after 8 ms gives 4 values of 2 ms — no zero gaps
    assert metrics.itl_ms(events) == [2.0] * 12
    assert sum(metrics.itl_ms(events)) == pytest.approx(24)
    # TPOT with n_first = the first read's 4 tokens: 24 ms / 12 tokens
    assert metrics.tpot_ms(100 * MS, 124 * MS, n_out=16, n_first=chunks[0][1]) == 2.0


def test_every_token_in_one_read_has_no_tpot():
    assert metrics.merge_reads([(7, 1)] * 16) == ([(7, 16)], [16])
    assert metrics.itl_ms([(7, 1)] * 16) == []
    # one read, even when n_out (usage) differs from the tokens counted in it: never 0.0
    assert metrics.tpot_ms(7, 7, n_out=16, n_first=16) is None
    assert metrics.tpot_ms(7, 7, n_out=16, n_first=1) is None
