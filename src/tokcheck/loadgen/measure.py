"""From a recorded exchange to a :class:`~tokcheck.record.schema.RequestRecord` (parsing and counting
happen here, after the request ended; nothing touches the network or the clock)."""

from __future__ import annotations

from dataclasses import dataclass

from tokcheck.core import metrics
from tokcheck.loadgen.openai import read_stream
from tokcheck.loadgen.recorder import Exchange
from tokcheck.record.schema import ErrorInfo, RequestRecord
from tokcheck.loadgen.tokens import TokenizerInfo


def usage_mismatch_threshold(n_usage: int) -> int:
    """Tokens by which ``usage.completion_tokens`` and the tokenizer's count may differ before
    the difference is flagged: re-tokenizing decoded text legitimately moves a token or two
    (merges across chunk boundaries, special tokens that decode to nothing), so max(2, 2 %)."""
    return max(2, round(0.02 * n_usage))


@dataclass(frozen=True)
class RequestMeta:
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


def measure_request(ex: Exchange, meta: RequestMeta, tok: TokenizerInfo) -> RequestRecord:
    """Read the stream, count tokens with the model's tokenizer and compute the metrics of ``docs/measurement.md``."""
    res = read_stream(ex, meta.api, usage_requested=meta.usage_requested)
    defects = list(res.defects)
    usage = res.usage or {}
    n_usage = usage.get("completion_tokens") if isinstance(usage.get("completion_tokens"), int) else None
    n_prompt = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None

    # One encode of the whole text; each token goes to the chunk that completed it, so the
    # per-chunk counts add up to the tokenizer's total (role-only and empty deltas carry none).
    n_tok, per_chunk = tok.count_pieces([t for _, t in res.deltas])
    # A chunk is what arrived in one read: events with the same stamp are merged (metrics.py).
    chunks, chunk_events = metrics.merge_reads([(t, k) for (t, _), k in zip(res.deltas, per_chunk) if k > 0])
    if not res.deltas:
        n_tok = None

    if n_usage is not None:
        n_out, source = n_usage, "usage"
    elif n_tok is not None:
        n_out, source = n_tok, "tokenizer"
    else:
        n_out, source = None, None
    if n_usage is not None and n_tok is not None and abs(n_usage - n_tok) > usage_mismatch_threshold(n_usage):
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
    early = (not failed) and n_out is not None and n_out != meta.output_len

    tpot = metrics.tpot_ms(t_first, t_last, n_out, n_first) if not failed else None
    return RequestRecord(
        level=meta.level,
        round=meta.round,
        index=meta.index,
        warmup=meta.warmup,
        prompt_index=meta.prompt_index,
        t_due_ns=meta.t_due_ns,
        t_send_ns=t_send,
        t_first_ns=t_first,
        t_last_ns=t_last,
        t_end_ns=t_end,
        chunks=chunks,
        chunk_events=chunk_events,
        n_out=n_out,
        n_out_source=source,
        n_out_usage=n_usage,
        n_out_tokenizer=n_tok,
        n_prompt_usage=n_prompt,
        n_first=n_first,
        text=res.text,
        finish_reason=res.finish_reason,
        http_status=res.status or None,
        response_id=res.response_id,
        error=ErrorInfo(kind=res.error[0], detail=res.error[1]) if res.error else None,
        defects=defects,
        early_stop=early,
        ttft_ms=metrics.ttft_ms(t_send, t_first) if ok_times else None,
        ttft_from_due_ms=(
            metrics.ttft_ms(meta.t_due_ns, t_first) if ok_times and meta.t_due_ns is not None else None
        ),
        tpot_ms=tpot,
        e2e_latency_ms=metrics.e2e_latency_ms(t_send, t_end) if ok_times else None,
        generation_tok_s=metrics.generation_tok_s(tpot),
        e2e_tok_s=metrics.e2e_tok_s(n_out, t_send, t_end) if ok_times else None,
        queue_delay_ms=metrics.queue_delay_ms(meta.t_due_ns, t_send) if t_send is not None else None,
    )
