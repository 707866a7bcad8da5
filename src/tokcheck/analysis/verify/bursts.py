"""Bursty delivery in a run's per-request record: tokens that reached the client together.

When a server (or the network stack) delivers several SSE events in one socket read, bench
stamps them with one arrival time: the gaps between them are 0 ms and say nothing about the
decode speed. A request whose tokens *all* arrived in one read has no measurable TPOT
(``t_last − t_first`` is 0): its generation tok/s is undefined. Read from ``requests.jsonl``
``chunks`` (``[arrival_ns, n_tokens]`` pairs) and ``tpot_ms``, so it holds whether bench merges
such chunks or keeps them apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tokcheck.record.schema import RequestRecord

#: Gaps shorter than this count as "arrived together" (one read). A decode step of a real
#: model takes far longer than 1 µs; bench stamps events of one read with the same clock value.
ZERO_GAP_NS = 1_000

#: Above this share of requests with every token in one read, or of zero gaps, check 1 warns.
BURST_WARN_SHARE = 0.10

#: Above this share of requests without a TPOT, a level's generation tok/s is not a measurement.
NO_TPOT_INCOMPARABLE_SHARE = 0.5


@dataclass(frozen=True)
class Bursts:
    """Counts over requests that produced at least two output tokens.

    ``one_read``: requests whose tokens all arrived within :data:`ZERO_GAP_NS` (or whose
    ``tpot_ms`` is null / 0 while they had two or more tokens); ``zero_gaps`` / ``gaps``: gaps
    between consecutive token-carrying chunks under :data:`ZERO_GAP_NS`, and all such gaps.
    """

    requests: int
    one_read: int
    zero_gaps: int
    gaps: int

    @property
    def one_read_share(self) -> float:
        return self.one_read / self.requests if self.requests else 0.0

    @property
    def zero_gap_share(self) -> float:
        return self.zero_gaps / self.gaps if self.gaps else 0.0


def _n_out(q: RequestRecord, chunks: list[tuple[int, int]]) -> int:
    for n in (q.n_out_tokenizer, q.n_out_usage):
        if n is not None:
            return n
    return sum(k for _, k in chunks)


def burst_stats(requests: Iterable[RequestRecord]) -> Bursts:
    """:class:`Bursts` over ``requests`` (failed ones are skipped)."""
    n = one = zero = gaps = 0
    for q in requests:
        if q.error is not None:
            continue
        chunks = [(t, k) for t, k in q.chunks if k]
        if _n_out(q, chunks) < 2:
            continue
        n += 1
        times = [t for t, _ in chunks]
        d = [b - a for a, b in zip(times, times[1:])]
        gaps += len(d)
        zero += sum(1 for g in d if g < ZERO_GAP_NS)
        tpot = q.tpot_ms
        span_zero = bool(times) and (max(times) - min(times)) < ZERO_GAP_NS
        if span_zero or tpot is None or tpot == 0:
            one += 1
    return Bursts(requests=n, one_read=one, zero_gaps=zero, gaps=gaps)


def zero_itl_note(b: Bursts) -> str | None:
    """The page's note when many gaps are 0 ms, else ``None``."""
    parts = []
    if b.gaps and b.zero_gaps:
        parts.append(f"{b.zero_gap_share * 100:.0f} % of inter-token gaps were 0 ms: tokens arrived "
                     f"together ({b.zero_gaps} of {b.gaps} gaps; several SSE events in one socket read)")
    if b.one_read:
        parts.append(f"{b.one_read} of {b.requests} requests had every token in one read: their "
                     "per-request speed (TPOT, generation tok/s) is not measurable")
    return "; ".join(parts) if parts else None
