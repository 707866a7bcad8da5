"""Per-level summary of measured requests (pure): every metric of the metric table
(:mod:`tokcheck.core.metric_table`) with the rounds rule of :mod:`tokcheck.core.stats`
(``docs/measurement.md``). Warm-up requests are never included.

Coalesced reads. A chunk is what arrived in one read (:func:`tokcheck.core.metrics.merge_reads`).
When every token of a request arrives in one read, its TPOT is undefined. Those requests are
not a random subset (they are the ones the server or the client batched hardest), so a median
over the others is biased. Rule: when more than :data:`TPOT_UNDEFINED_MAX_SHARE` of a level's
successful requests have an undefined TPOT, the level's ``tpot_ms`` and ``generation_tok_s``
are null with a ``*_reason`` (the per-request values stay in requests.jsonl). Why 10 %: leaving
out a share f of the values from anywhere moves a median at most to the (50 ± 50·f)-th
percentile of all of them, so at f ≤ 10 % the reported median lies between the true 45th and
55th percentiles (inside the interquartile range), and one request in a small level (1 of 12)
does not void it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING
from statistics import median

from tokcheck.core import metric_table, metrics, stats
from tokcheck.record.level import Level
from tokcheck.record.schema import LengthStat, LevelSummary, MetricStat, RequestRecord

if TYPE_CHECKING:
    from tokcheck.core.slo import Slo

#: Largest share of a level's successful requests with an undefined TPOT (every token in one
#: read) at which ``tpot_ms`` / ``generation_tok_s`` are still reported (module doc: why 10 %).
TPOT_UNDEFINED_MAX_SHARE = 0.10

#: An open-loop level warns when it sent requests at less than this share of the rate its
#: schedule offered (the issue that asked for it: 95 %; a Poisson schedule's own rate is used,
#: so a short round's randomness is not counted against the client).
ACHIEVED_RATE_MIN_SHARE = 0.95


def length_stat(values: Sequence[int], requested: int | None = None, source: str | None = None) -> LengthStat | None:
    """Mean, median, min and max of token lengths (None for no values)."""
    if not values:
        return None
    return LengthStat(mean=sum(values) / len(values), median=float(median(values)), min=min(values),
                      max=max(values), n=len(values), requested=requested, source=source)


def _warnings(lv: LevelSummary, ok: Sequence[RequestRecord]) -> list[str]:
    out: list[str] = []
    offered, achieved = lv.figure("offered_rate_rps").value, lv.figure("achieved_rate_rps").value
    if offered and achieved is not None and achieved < ACHIEVED_RATE_MIN_SHARE * offered:
        out.append(f"the client sent {achieved:.2f} req/s against {offered:.2f} offered "
                   f"({achieved / offered:.0%}): requests waited (queue delay), so the level is not "
                   "the offered load")
    out_len = lv.output_tokens
    if lv.early_stops and out_len is not None:
        spread = f" ({out_len.min:,}–{out_len.max:,})" if out_len.min != out_len.max else ""
        out.append(f"{lv.early_stops} of {lv.requests_ok} requests delivered another output length than the "
                   f"{out_len.requested} asked: {out_len.mean:,.0f} tokens on average{spread}; the server did "
                   "not force the length")
    diffs = [r.usage_difference for r in ok if r.usage_difference is not None and "usage_mismatch" in r.defects]
    if diffs:
        out.append(f"the server's usage.completion_tokens differs from the streamed count on {len(diffs)} "
                   f"requests (by {min(diffs):+d} to {max(diffs):+d} tokens); the numbers use the streamed count")
    return out


def _events_per_chunk(r: RequestRecord) -> list[int]:
    """SSE events in each of the record's chunks (older records, written before chunks were
    merged per read, are merged here: equal stamps mean one read)."""
    if r.chunk_events is not None and len(r.chunk_events) == len(r.chunks):
        return list(r.chunk_events)
    return metrics.merge_reads(r.chunks)[1]


def summarize_level(records: Sequence[RequestRecord], level: Level, slo: Slo | None = None, *,
                    input_len: int | None = None, output_len: int | None = None) -> LevelSummary:
    """Summarise the measured (non-warm-up) requests of one level: every metric of
    :data:`tokcheck.core.metric_table.METRICS`, per round and over the rounds.

    Rounds are the distinct ``round`` numbers of the records. A per-round metric (aggregate
    output throughput: Σ n_out of the round's successful requests / (last t_end − first
    t_send of all its requests)) is computed for each round and the level's value is the
    rounds' trimmed median. ``tpot_undefined_requests``, ``coalesced_token_share`` (tokens that
    arrived in a read holding more than one SSE event ÷ all tokens) and
    ``sse_events_per_chunk`` describe coalesced reads; see the module doc for when
    ``tpot_ms`` / ``generation_tok_s`` are withheld. With ``slo``, the level's ``slo`` holds
    goodput and the SLO verdict (:func:`tokcheck.record.slo.evaluate_level`). ``ci95`` holds the
    95 % confidence interval across rounds of every metric with two or more rounds
    (:func:`tokcheck.core.confidence.ci95`).

    A request the client could not vouch for (a ``client_marks`` entry) is left out of the
    metrics resting on those stamps (the metric table's ``mark``). ``output_tokens`` and
    ``input_tokens`` are the lengths that actually arrived (``input_len`` / ``output_len``: what
    was asked); ``warnings`` says in words what makes the level doubtful.
    """
    measured = [r for r in records if not r.warmup]
    rounds = sorted({r.round for r in measured})
    ok = [r for r in measured if r.error is None]
    failed = [r for r in measured if r.error is not None]
    by_round = {n: [r for r in ok if r.round == n] for n in rounds}
    windows = {n: [r for r in measured if r.round == n and r.t_send_ns is not None and r.t_end_ns is not None]
               for n in rounds}

    defects: Counter[str] = Counter(d for r in measured for d in r.defects)
    # coalesced reads: tokens that arrived in a read holding more than one SSE event, and
    # requests whose every token arrived in one read (TPOT undefined)
    tokens_all = tokens_coalesced = events_all = chunks_all = 0
    for r in ok:
        merged = metrics.merge_reads(r.chunks)[0]
        for (_, k), e in zip(merged, _events_per_chunk(r)):
            tokens_all += k
            events_all += e
            chunks_all += 1
            if e > 1:
                tokens_coalesced += k
    tpot_undefined = sum(1 for r in ok if r.tpot_ms is None)
    fields: dict = {
        "tpot_undefined_requests": tpot_undefined,
        "coalesced_token_share": tokens_coalesced / tokens_all if tokens_all else None,
        "sse_events_per_chunk": events_all / chunks_all if chunks_all else None,
    }
    too_many_undefined = bool(ok) and tpot_undefined / len(ok) > TPOT_UNDEFINED_MAX_SHARE
    for m in metric_table.METRICS:
        if m.kind == "level":
            continue  # held elsewhere in the level (the SLO result, the GPU telemetry)
        if m.kind == "round":
            per_round = [m.per_round(windows[n], by_round[n]) if windows[n] and by_round[n] else None
                         for n in rounds]
            value, spread = stats.rounds_value(per_round)
            fields[m.name], fields[f"{m.name}_rounds"], fields[f"{m.name}_spread"] = value, per_round, spread
            if value is None:
                fields[f"{m.name}_reason"] = metric_table.REASON_NO_OK if not ok else m.null_reason
            continue
        if too_many_undefined and m.needs_tpot:
            fields[m.name] = None
            fields[f"{m.name}_reason"] = (
                f"TPOT undefined for {tpot_undefined} of {len(ok)} requests (every token arrived in one read); "
                f"a median over the rest would be biased (more than {TPOT_UNDEFINED_MAX_SHARE:.0%})")
            continue
        dist = stats.distribution([[v for r in by_round[n] for v in m.values(r)] for n in rounds])
        if dist is None:
            fields[m.name] = None
            marked = [r for r in ok if m.mark is not None and m.mark in r.client_marks]
            if not ok:
                fields[f"{m.name}_reason"] = metric_table.REASON_NO_OK
            elif marked:
                fields[f"{m.name}_reason"] = (f"the client could not vouch for the stamps of {len(marked)} of "
                                              f"{len(ok)} requests (client_marks); see the level's client health")
            else:
                fields[f"{m.name}_reason"] = m.null_reason
        else:
            fields[m.name] = MetricStat(**dist.__dict__)
    outs = [r.n_out for r in ok if r.n_out is not None]
    prompt_usage = [r.n_prompt_usage for r in ok if r.n_prompt_usage is not None]
    if ok and len(prompt_usage) == len(ok):
        fields["input_tokens"] = length_stat(prompt_usage, input_len, "usage")
    elif ok and input_len is not None:
        fields["input_tokens"] = length_stat([input_len] * len(ok), input_len, "tokenizer")
    fields["output_tokens"] = length_stat(outs, output_len, "tokenizer")
    summary = LevelSummary(
        label=level.label,
        concurrency=level.concurrency,
        request_rate=level.request_rate,
        max_in_flight=level.max_in_flight,
        rounds=len(rounds),
        requests_ok=len(ok),
        requests_failed=len(failed),
        errors=dict(Counter(r.error.kind for r in failed)),
        defects=dict(defects),
        early_stops=sum(1 for r in ok if r.early_stop),
        usage_mismatches=defects["usage_mismatch"],
        **fields,
    )
    if slo is not None:
        from tokcheck.record.slo import evaluate_level

        summary.slo = evaluate_level(records, slo)
    intervals = {m.name: ci.as_list() for m in metric_table.METRICS
                 if (ci := summary.figure(m.name).ci95) is not None}
    summary.ci95 = intervals or None
    summary.warnings = _warnings(summary, ok)
    return summary
