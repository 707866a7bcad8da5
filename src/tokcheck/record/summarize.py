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

from tokcheck.core import metric_table, metrics, stats
from tokcheck.record.level import Level
from tokcheck.record.schema import LevelSummary, MetricStat, RequestRecord

#: Largest share of a level's successful requests with an undefined TPOT (every token in one
#: read) at which ``tpot_ms`` / ``generation_tok_s`` are still reported (module doc: why 10 %).
TPOT_UNDEFINED_MAX_SHARE = 0.10


def _events_per_chunk(r: RequestRecord) -> list[int]:
    """SSE events in each of the record's chunks (older records, written before chunks were
    merged per read, are merged here: equal stamps mean one read)."""
    if r.chunk_events is not None and len(r.chunk_events) == len(r.chunks):
        return list(r.chunk_events)
    return metrics.merge_reads(r.chunks)[1]


def summarize_level(records: Sequence[RequestRecord], level: Level) -> LevelSummary:
    """Summarise the measured (non-warm-up) requests of one level: every metric of
    :data:`tokcheck.core.metric_table.METRICS`, per round and over the rounds.

    Rounds are the distinct ``round`` numbers of the records. A per-round metric (aggregate
    output throughput: Σ n_out of the round's successful requests / (last t_end − first
    t_send of all its requests)) is computed for each round and the level's value is the
    rounds' trimmed median. ``tpot_undefined_requests``, ``coalesced_token_share`` (tokens that
    arrived in a read holding more than one SSE event ÷ all tokens) and
    ``sse_events_per_chunk`` describe coalesced reads; see the module doc for when
    ``tpot_ms`` / ``generation_tok_s`` are withheld.
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
            fields[f"{m.name}_reason"] = metric_table.REASON_NO_OK if not ok else m.null_reason
        else:
            fields[m.name] = MetricStat(**dist.__dict__)
    return LevelSummary(
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
