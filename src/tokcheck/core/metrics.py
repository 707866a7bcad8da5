"""metric formulas, exactly as docs/measurement.md "Measurement definitions" (pure).

All times are client ``time.perf_counter_ns()`` stamps in integer nanoseconds; results are in
the unit their name says. A function returns ``None`` when the quantity is undefined (never 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


def ttft_ms(t_send_ns: int, t_first_ns: int | None) -> float | None:
    """TTFT = t_first − t_send, in ms; t_first is the first chunk carrying ≥ 1 output token."""
    if t_first_ns is None:
        return None
    return (t_first_ns - t_send_ns) / NS_PER_MS


def queue_delay_ms(t_due_ns: int | None, t_send_ns: int) -> float | None:
    """Queue delay = t_send − t_due, in ms: how late the client sent against its schedule."""
    if t_due_ns is None:
        return None
    return (t_send_ns - t_due_ns) / NS_PER_MS


def e2e_latency_ms(t_send_ns: int, t_end_ns: int) -> float:
    """E2E latency = t_end − t_send, in ms (t_end: end of the stream)."""
    return (t_end_ns - t_send_ns) / NS_PER_MS


def tpot_ms(t_first_ns: int | None, t_last_ns: int | None, n_out: int | None, n_first: int | None) -> float | None:
    """TPOT = (t_last − t_first) / (n_out − n_first), in ms per token.

    ``n_first`` is the number of tokens in the first token-carrying chunk — everything that
    arrived in the first read (:func:`merge_reads`), not only its first SSE event; undefined
    (None) when no token came after the first read (then every token arrived at once and the
    generation speed cannot be seen from the client).
    """
    if t_first_ns is None or t_last_ns is None or n_out is None or n_first is None:
        return None
    n = n_out - n_first
    if n <= 0 or t_last_ns <= t_first_ns:  # one read held every token: no gap to divide
        return None
    return (t_last_ns - t_first_ns) / NS_PER_MS / n


def generation_tok_s(tpot: float | None) -> float | None:
    """Generation tok/s = 1 / TPOT (TTFT excluded; the guide's "持续生成速度"), in tokens/s."""
    if tpot is None or tpot <= 0:
        return None
    return 1000.0 / tpot


def e2e_tok_s(n_out: int | None, t_send_ns: int, t_end_ns: int) -> float | None:
    """E2E tok/s = n_out / (t_end − t_send), in tokens/s."""
    if n_out is None or t_end_ns <= t_send_ns:
        return None
    return n_out * NS_PER_S / (t_end_ns - t_send_ns)


def merge_reads(events: Sequence[Sequence[int]]) -> tuple[list[tuple[int, int]], list[int]]:
    """Chunks as docs/measurement.md defines them: what arrived in one socket read.

    Args:
        events: ``[(arrival_ns, n_tokens), …]`` of the token-carrying SSE events, in order; the
            recorder stamps each read, so events that arrived in the same read share a stamp.

    Returns:
        ``(chunks, events_per_chunk)``: consecutive events with the same stamp merged into one
        chunk ``(arrival_ns, Σ n_tokens)``, and how many SSE events each chunk held (> 1: the
        events arrived coalesced — the server or the kernel batched them, or the client read late).
    """
    chunks: list[tuple[int, int]] = []
    counts: list[int] = []
    for t, k in events:
        if chunks and chunks[-1][0] == t:
            chunks[-1] = (t, chunks[-1][1] + k)
            counts[-1] += 1
        else:
            chunks.append((t, k))
            counts.append(1)
    return chunks, counts


def itl_ms(chunks: Sequence[Sequence[int]]) -> list[float]:
    """Per-token inter-token latencies, in ms.

    Args:
        chunks: ``[(arrival_ns, n_tokens), …]`` of the token-carrying chunks, in order. Events
            that share a stamp (one read) are merged first (:func:`merge_reads`), so a read of
            k tokens after a gap g gives k values g/k, never k − 1 zeros.

    A chunk carrying k tokens after a gap g contributes k values g/k, so that
    ``sum(itl_ms(chunks)) == (t_last − t_first)`` in ms exactly (up to float rounding).
    The first chunk contributes nothing (its gap is the TTFT).
    """
    chunks, _ = merge_reads(chunks)
    out: list[float] = []
    for (t_prev, _), (t, k) in zip(chunks, chunks[1:]):
        if k <= 0:
            continue
        v = (t - t_prev) / NS_PER_MS / k
        out.extend([v] * k)
    return out


def output_throughput_tok_s(n_out: Iterable[int], t_first_send_ns: int, t_last_end_ns: int) -> float | None:
    """Aggregate output throughput = Σ n_out / (last t_end − first t_send), tokens/s."""
    if t_last_end_ns <= t_first_send_ns:
        return None
    return sum(n_out) * NS_PER_S / (t_last_end_ns - t_first_send_ns)


def request_throughput_rps(n_requests: int, t_first_send_ns: int, t_last_end_ns: int) -> float | None:
    """Request throughput = completed requests / (last t_end − first t_send), requests/s."""
    if t_last_end_ns <= t_first_send_ns:
        return None
    return n_requests * NS_PER_S / (t_last_end_ns - t_first_send_ns)


def peak_output_throughput_tok_s(chunks_per_request: Iterable[Sequence[Sequence[int]]],
                                 t_first_send_ns: int, t_last_end_ns: int) -> float | None:
    """Peak output throughput, tokens/s: the window ``[first send, last end]`` is cut into
    consecutive 1 s windows from its start (the remainder joins the last one, so each window is
    1 to 2 s long; a window shorter than 1 s is the whole); every token counts in the window of
    the read that carried it (a chunk of k tokens counts k, never 1). The peak is the highest
    tokens ÷ window length. As the windows' rates, weighted by their lengths, average to the
    aggregate output throughput, peak ≥ that mean by construction.

    Args:
        chunks_per_request: each request's ``[(arrival_ns, n_tokens), …]``.
    """
    span = t_last_end_ns - t_first_send_ns
    if span <= 0:
        return None
    n_win = max(1, span // NS_PER_S)
    counts = [0] * n_win
    for chunks in chunks_per_request:
        for t, k in chunks:
            i = (t - t_first_send_ns) // NS_PER_S
            counts[min(max(i, 0), n_win - 1)] += k
    lengths = [NS_PER_S] * (n_win - 1) + [span - (n_win - 1) * NS_PER_S]
    return max(c * NS_PER_S / length for c, length in zip(counts, lengths))


def rate_rps(stamps_ns: Iterable[int]) -> float | None:
    """Events per second over their own span: (n − 1) ÷ (last − first). None with fewer than
    two events or a zero span."""
    ts = sorted(stamps_ns)
    if len(ts) < 2 or ts[-1] <= ts[0]:
        return None
    return (len(ts) - 1) * NS_PER_S / (ts[-1] - ts[0])
