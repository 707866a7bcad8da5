"""From a recorded exchange to a :class:`~tokcheck.record.schema.RequestRecord` (parsing and counting
happen here, after the request ended; nothing touches the network or the clock).

What counts (``docs/measurement.md``): output is what was streamed on any channel (``text``,
``content``, ``reasoning``, ``tool_calls``), counted with the model's tokenizer, channel by
channel; ``usage.completion_tokens`` is only a cross-check (its difference is recorded with its
size). Whether the output length was forced is judged by what arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from tokcheck.core import metrics
from tokcheck.loadgen.openai import ANSWER_CHANNELS, read_stream
from tokcheck.loadgen.recorder import Exchange
from tokcheck.record.schema import ErrorInfo, RequestRecord
from tokcheck.loadgen.tokens import TokenizerInfo

#: A stamp taken up to this long after a stall of the event loop ended may have waited for the
#: stall (the loop handles the I/O that piled up during it right after it), ns.
STALL_AFTERGLOW_NS = 500_000

#: A request's TTFT, TPOT or E2E is not vouched for when the stalls of the client's own event
#: loop around its stamps could have moved it by more than this (ms) and more than
#: :data:`UNTRUSTED_FRACTION` of the value: twice the resolution of the event loop's timers,
#: below which a heartbeat cannot tell a stall from its own lateness (docs/measurement.md,
#: "The client's own health").
UNTRUSTED_MS = 2.0
UNTRUSTED_FRACTION = 0.10


def usage_mismatch_threshold(n_usage: int) -> int:
    """Tokens by which ``usage.completion_tokens`` and the tokenizer's count may differ before
    the difference is flagged: re-tokenizing decoded text legitimately moves a token or two
    (merges across chunk boundaries, special tokens that decode to nothing), so max(2, 2 %)."""
    return max(2, round(0.02 * n_usage))


@dataclass(frozen=True)
class RequestMeta:
    """What the measurement needs besides the exchange.

    ``open_loop``: the level sends on a schedule, so the headline TTFT and E2E start at
    ``t_due_ns``. ``stalls``: ``(scheduled ns, actual ns)`` of the event loop's heartbeats that
    came late around this request (:mod:`tokcheck.loadgen.client_health`). ``ttft_floor_ms``:
    the smallest TTFT this machine's client can see (``tokcheck probe``), or None.
    ``loopback``: the server runs on this machine, so write stamps it sends share our clock.
    """

    level: str
    round: int
    index: int
    warmup: bool
    prompt_index: int
    t_due_ns: int | None
    input_len: int
    output_len: int
    api: str
    usage_requested: bool = True
    open_loop: bool = False
    stalls: tuple[tuple[int, int], ...] = field(default_factory=tuple)
    ttft_floor_ms: float | None = None
    loopback: bool = False


def stamp_uncertainty_ns(t: int | None, stalls: tuple[tuple[int, int], ...]) -> int:
    """How late stamp ``t`` may be because of the loop's stalls: ``t − a`` for a stall ``(a, b)``
    with ``a ≤ t ≤ b + STALL_AFTERGLOW_NS`` (the largest such), else 0."""
    if t is None:
        return 0
    worst = 0
    for a, b in stalls:
        if a <= t <= b + STALL_AFTERGLOW_NS:
            worst = max(worst, t - a)
    return worst


def _untrusted(uncertainty_ns: int, value_ms: float | None) -> bool:
    u = uncertainty_ns / 1e6
    return value_ms is not None and u > UNTRUSTED_MS and u > UNTRUSTED_FRACTION * abs(value_ms)


def measure_request(ex: Exchange, meta: RequestMeta, tok: TokenizerInfo) -> RequestRecord:
    """Read the stream, count tokens with the model's tokenizer and compute the metrics of ``docs/measurement.md``."""
    res = read_stream(ex, meta.api, usage_requested=meta.usage_requested)
    defects = list(res.defects)
    usage = res.usage or {}
    n_usage = usage.get("completion_tokens") if isinstance(usage.get("completion_tokens"), int) else None
    n_prompt = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None
    details = usage.get("completion_tokens_details")
    reasoning_usage = details.get("reasoning_tokens") if isinstance(details, dict) else None

    # One encode per channel of its whole text; each token goes to the event that completed it,
    # so the per-event counts add up to the channel's total (role-only and empty deltas carry none).
    n_events = len(res.deltas)
    per_event = [0] * n_events
    answer_per_event = [0] * n_events
    by_channel: dict[str, int] = {}
    for channel in res.channels:
        n_c, per = tok.count_pieces(res.channel_pieces(channel))
        by_channel[channel] = n_c
        for i, k in enumerate(per):
            per_event[i] += k
            if channel in ANSWER_CHANNELS:
                answer_per_event[i] += k
    n_tok = sum(by_channel.values()) if res.deltas else None
    # A chunk is what arrived in one read: events with the same stamp are merged (metrics.py).
    chunks, chunk_events = metrics.merge_reads(
        [(d.t_ns, k) for d, k in zip(res.deltas, per_event) if k > 0])
    t_first_answer = next((d.t_ns for d, k in zip(res.deltas, answer_per_event) if k > 0), None)
    # events with a choice that carried no token: other tools count them (analysis/definitions.py)
    empty_choice_ns = [d.t_ns for d, k in zip(res.deltas, per_event) if k <= 0]

    n_out = n_tok
    usage_difference = n_usage - n_tok if n_usage is not None and n_tok is not None else None
    if usage_difference is not None and abs(usage_difference) > usage_mismatch_threshold(n_usage):
        defects.append("usage_mismatch")
    if meta.api == "completions" and n_prompt is not None and n_prompt != meta.input_len:
        defects.append("prompt_tokens_mismatch")

    failed = res.error is not None
    t_send = ex.t_send_ns
    t_first = chunks[0][0] if chunks else None
    t_last = chunks[-1][0] if chunks else None
    n_first = chunks[0][1] if chunks else None
    t_end = res.t_end_ns
    ok_times = not failed and t_send is not None and t_end is not None
    # The headline clock starts when the request was due in an open loop (what a user would
    # see, queue included), at the send otherwise (docs/measurement.md).
    from_due = meta.open_loop and meta.t_due_ns is not None
    t_start = meta.t_due_ns if from_due else t_send
    early = False
    if not failed and n_out is not None:
        tol = usage_mismatch_threshold(meta.output_len)
        stopped = res.finish_reason not in (None, "length")
        early = abs(n_out - meta.output_len) > tol or (stopped and n_out < meta.output_len)

    tpot = metrics.tpot_ms(t_first, t_last, n_out, n_first) if not failed else None
    ttft_send = metrics.ttft_ms(t_send, t_first) if ok_times else None
    e2e_send = metrics.e2e_latency_ms(t_send, t_end) if ok_times else None

    # Can the client vouch for its stamps? A stamp taken during (or right after) a stall of its
    # own event loop may be late by as much as the stall had lasted (the stalls passed here are
    # the client's own: not explained by waiting for a CPU, client_health.py).
    u_send = stamp_uncertainty_ns(t_send, meta.stalls)
    u_first = stamp_uncertainty_ns(t_first, meta.stalls)
    u_last = stamp_uncertainty_ns(t_last, meta.stalls)
    u_end = stamp_uncertainty_ns(t_end, meta.stalls)
    marks: list[str] = []
    if not failed:
        if _untrusted(u_send + u_first, ttft_send):
            marks.append("ttft")
        if meta.ttft_floor_ms is not None and ttft_send is not None and ttft_send < meta.ttft_floor_ms:
            marks.append("ttft_below_floor")
            if "ttft" not in marks:
                marks.append("ttft")
        if tpot is not None and n_out is not None and n_first is not None:
            span_ms = tpot * (n_out - n_first)
            if _untrusted(u_first + u_last, span_ms):
                marks.append("tpot")
        if _untrusted(u_send + u_end, e2e_send):
            marks.append("e2e")
    delays = [(arr - w) / 1e6 for arr, w in res.write_stamps] if meta.loopback else []

    return RequestRecord(
        level=meta.level,
        round=meta.round,
        index=meta.index,
        warmup=meta.warmup,
        prompt_index=meta.prompt_index,
        t_due_ns=meta.t_due_ns,
        t_send_ns=t_send,
        t_first_ns=t_first,
        t_first_answer_ns=t_first_answer,
        t_last_ns=t_last,
        t_end_ns=t_end,
        chunks=chunks,
        chunk_events=chunk_events,
        n_out=n_out,
        n_out_source="tokenizer" if n_out is not None else None,
        n_out_usage=n_usage,
        n_out_tokenizer=n_tok,
        usage_difference=usage_difference,
        tokens_by_channel=by_channel,
        reasoning_tokens=by_channel.get("reasoning", 0) if n_tok is not None else None,
        reasoning_tokens_usage=reasoning_usage if isinstance(reasoning_usage, int) else None,
        n_prompt_usage=n_prompt,
        n_first=n_first,
        empty_choice_ns=empty_choice_ns,
        t_last_event_ns=res.t_last_data_ns,
        text=res.text,
        finish_reason=res.finish_reason,
        http_status=res.status or None,
        response_id=res.response_id,
        error=ErrorInfo(kind=res.error[0], detail=res.error[1]) if res.error else None,
        defects=defects,
        early_stop=early,
        latency_from="due" if from_due else "send",
        ttft_ms=metrics.ttft_ms(t_start, t_first) if ok_times else None,
        ttft_from_send_ms=ttft_send,
        ttft_from_due_ms=(
            metrics.ttft_ms(meta.t_due_ns, t_first) if ok_times and meta.t_due_ns is not None else None
        ),
        ttfo_ms=metrics.ttft_ms(t_start, t_first_answer) if ok_times else None,
        tpot_ms=tpot,
        e2e_latency_ms=metrics.e2e_latency_ms(t_start, t_end) if ok_times else None,
        e2e_latency_from_send_ms=e2e_send,
        generation_tok_s=metrics.generation_tok_s(tpot),
        e2e_tok_s=metrics.e2e_tok_s(n_out, t_start, t_end) if ok_times else None,
        queue_delay_ms=metrics.queue_delay_ms(meta.t_due_ns, t_send) if t_send is not None else None,
        client_marks=marks,
        stamp_uncertainty_ms=max(u_send, u_first, u_last, u_end) / 1e6 if meta.stalls else 0.0,
        stamp_delay_ms=median(delays) if delays else None,
        stamp_delay_max_ms=max(delays) if delays else None,
        no_token_chunks=res.no_token_chunks,
    )
