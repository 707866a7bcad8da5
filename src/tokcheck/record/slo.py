"""A level under a service-level objective (pure; ``docs/measurement.md``, "Goodput under SLOs").

:func:`evaluate_level` judges the measured (non-warm-up) requests of one level against an
:class:`tokcheck.core.slo.Slo`: per objective the share of requests meeting it and the level's
value at its percentile, the share meeting all of them, and goodput per round — requests meeting
every objective ÷ the round's window, and their output tokens ÷ the same window. The window is
the throughput's (first send → last end of all the round's requests,
:func:`tokcheck.core.metric_table`'s ``output_throughput_tok_s``), so with every request good,
``goodput_tok_s`` equals ``output_throughput_tok_s`` exactly. The level's goodput is the rounds'
trimmed median, as every per-round figure (:func:`tokcheck.core.stats.rounds_value`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tokcheck.core import metrics, stats
from tokcheck.core.slo import Slo, level_value, request_meets
from tokcheck.record.schema import RequestRecord, SloObjectiveResult, SloResult


def evaluate_level(records: Sequence[RequestRecord], slo: Slo) -> SloResult:
    """``records``: one level's requests (warm-up ones are left out here). See the module doc."""
    measured = [r for r in records if not r.warmup]
    objectives: list[SloObjectiveResult] = []
    for o in slo.objectives:
        value = level_value(o, measured)
        met = None if value is None else value <= o.limit_ms
        share = (sum(1 for r in measured if request_meets(o, r)) / len(measured)) if measured else None
        objectives.append(SloObjectiveResult(
            metric=o.metric, limit_ms=o.limit_ms, percentile=o.percentile,
            value_ms=None if value is None or math.isinf(value) else value, met=met, share_met=share))
    good = [r for r in measured if all(request_meets(o, r) for o in slo.objectives)]
    rounds = sorted({r.round for r in measured})
    rps_rounds: list[float | None] = []
    tok_rounds: list[float | None] = []
    for n in rounds:
        in_round = [r for r in measured if r.round == n and r.t_send_ns is not None and r.t_end_ns is not None]
        if not in_round:
            rps_rounds.append(None)
            tok_rounds.append(None)
            continue
        t0 = min(r.t_send_ns for r in in_round)
        t1 = max(r.t_end_ns for r in in_round)
        good_here = [r for r in good if r.round == n]
        rps_rounds.append(metrics.request_throughput_rps(len(good_here), t0, t1))
        tok_rounds.append(metrics.output_throughput_tok_s([r.n_out or 0 for r in good_here], t0, t1))
    rps, _ = stats.rounds_value(rps_rounds)
    tok, _ = stats.rounds_value(tok_rounds)
    reason = None
    if not measured:
        reason = "no measured requests"
    elif rps is None:
        reason = "no round had a window (no request with a send and an end time)"
    all_met = [o.met for o in objectives]
    return SloResult(
        spec=slo.spec, text=slo.text, source=slo.source, objectives=objectives, requests=len(measured),
        share_met_all=len(good) / len(measured) if measured else None,
        met=None if any(m is None for m in all_met) or not all_met else all(all_met),
        goodput_rps=rps, goodput_rps_rounds=rps_rounds, goodput_tok_s=tok, goodput_tok_s_rounds=tok_rounds,
        reason=reason)
