"""Per-level summary of measured requests (pure): DESIGN.md R4 aggregates and the seed's
rounds rule (:mod:`tokcheck.core.stats`). Warm-up requests are never included.

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

from tokcheck.core import metrics

from tokcheck.core import stats
from tokcheck.record.schema import LEVEL_METRICS, LevelSummary, MetricStat, RequestRecord

_REASON_NO_OK = "no successful requests"

#: Largest share of a level's successful requests with an undefined TPOT (every token in one
#: read) at which ``tpot_ms`` / ``generation_tok_s`` are still reported (module doc: why 10 %).
TPOT_UNDEFINED_MAX_SHARE = 0.10


def _events_per_chunk(r: RequestRecord) -> list[int]:
    """SSE events in each of the record's chunks (older records, written before chunks were
    merged per read, are merged here: equal stamps mean one read)."""
    if r.chunk_events is not None and len(r.chunk_events) == len(r.chunks):
        return list(r.chunk_events)
    return metrics.merge_reads(r.chunks)[1]


def _per_request(field: str):
    return lambda r: [v] if (v := getattr(r, field)) is not None else []


_EXTRACT = {
    "ttft_ms": _per_request("ttft_ms"),
    "tpot_ms": _per_request("tpot_ms"),
    "e2e_latency_ms": _per_request("e2e_latency_ms"),
    "generation_tok_s": _per_request("generation_tok_s"),
    "e2e_tok_s": _per_request("e2e_tok_s"),
    "queue_delay_ms": _per_request("queue_delay_ms"),
    "ttft_from_due_ms": _per_request("ttft_from_due_ms"),
    "itl_ms": lambda r: metrics.itl_ms(r.chunks),
    "tokens_per_chunk": lambda r: [float(k) for _, k in metrics.merge_reads(r.chunks)[0]],
}

_REASONS = {
    "tpot_ms": "no request had a token after its first chunk (TPOT undefined)",
    "generation_tok_s": "no request had a token after its first chunk (TPOT undefined)",
    "itl_ms": "no request had more than one token-carrying chunk",
    "queue_delay_ms": "no request had a due time",
    "ttft_from_due_ms": "no request had a due time",
}


def summarize_level(
    records: Sequence[RequestRecord],
    *,
    label: str,
    concurrency: int | None = None,
    request_rate: float | None = None,
) -> LevelSummary:
    """Summarise the measured (non-warm-up) requests of one level.

    Rounds are the distinct ``round`` numbers of the records. Aggregate output throughput of a
    round = Σ n_out of its successful requests / (last t_end − first t_send of all its
    requests); the level's value is the rounds' trimmed median. ``tpot_undefined_requests``,
    ``coalesced_token_share`` (tokens that arrived in a read holding more than one SSE event ÷
    all tokens) and ``sse_events_per_chunk`` describe coalesced reads; see the module doc for
    when ``tpot_ms`` / ``generation_tok_s`` are withheld.
    """
    measured = [r for r in records if not r.warmup]
    rounds = sorted({r.round for r in measured})
    ok = [r for r in measured if r.error is None]
    failed = [r for r in measured if r.error is not None]
    by_round = {n: [r for r in ok if r.round == n] for n in rounds}

    thr_rounds: list[float | None] = []
    rps_rounds: list[float | None] = []
    for n in rounds:
        in_round = [r for r in measured if r.round == n and r.t_send_ns is not None and r.t_end_ns is not None]
        good = by_round[n]
        if not in_round or not good:
            thr_rounds.append(None)
            rps_rounds.append(None)
            continue
        start = min(r.t_send_ns for r in in_round)
        end = max(r.t_end_ns for r in in_round)
        thr_rounds.append(metrics.output_throughput_tok_s([r.n_out or 0 for r in good], start, end))
        rps_rounds.append(metrics.request_throughput_rps(len(good), start, end))
    thr, thr_spread = stats.rounds_value(thr_rounds)
    rps, _ = stats.rounds_value(rps_rounds)

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
    for name in LEVEL_METRICS:
        if too_many_undefined and name in ("tpot_ms", "generation_tok_s"):
            fields[name] = None
            fields[f"{name}_reason"] = (
                f"TPOT undefined for {tpot_undefined} of {len(ok)} requests (every token arrived in one read); "
                f"a median over the rest would be biased (more than {TPOT_UNDEFINED_MAX_SHARE:.0%})")
            continue
        per_round = [[v for r in by_round[n] for v in _EXTRACT[name](r)] for n in rounds]
        dist = stats.distribution(per_round)
        if dist is None:
            fields[name] = None
            fields[f"{name}_reason"] = _REASON_NO_OK if not ok else _REASONS.get(name, "no data")
        else:
            fields[name] = MetricStat(**dist.__dict__)
    return LevelSummary(
        label=label,
        concurrency=concurrency,
        request_rate=request_rate,
        rounds=len(rounds),
        requests_ok=len(ok),
        requests_failed=len(failed),
        errors=dict(Counter(r.error.kind for r in failed)),
        defects=dict(defects),
        early_stops=sum(1 for r in ok if r.early_stop),
        usage_mismatches=defects.get("usage_mismatch", 0),
        output_throughput_tok_s=thr,
        output_throughput_tok_s_rounds=thr_rounds,
        output_throughput_tok_s_spread=thr_spread,
        request_throughput_rps=rps,
        **fields,
    )
