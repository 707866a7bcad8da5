"""Levels, rounds and warm-up on one event loop.

The hot path is :func:`tokcheck.loadgen.recorder.exchange`. Request bytes are built before a
round starts; each finished exchange is handed to ``on_exchange`` (which parses, measures and
appends it to ``requests.jsonl``) right away, so a Ctrl-C loses nothing that completed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter_ns

from tokcheck.loadgen.recorder import ConnectionPool, Exchange, Target, exchange
from tokcheck.loadgen.schedule import poisson_offsets_ns


@dataclass(frozen=True)
class Planned:
    """One request to send: its place in the run and its raw bytes."""

    round: int
    index: int
    warmup: bool
    prompt_index: int
    request: bytes


# on_exchange(planned, t_due_ns, exchange) — called on the loop as each request finishes.
OnExchange = Callable[[Planned, "int | None", Exchange], None]


async def run_closed(
    target: Target, planned: list[Planned], concurrency: int, timeout_s: float, on_exchange: OnExchange,
    *, pool: ConnectionPool | None = None,
) -> None:
    """Send ``planned`` with ``concurrency`` in flight; a request is due when a slot frees.
    ``pool``: the connections to use (default: a new one per request)."""
    it = iter(planned)

    async def worker() -> None:
        for p in it:
            t_due = perf_counter_ns()
            ex = await exchange(target, p.request, timeout_s, pool)
            on_exchange(p, t_due, ex)

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(planned))))))


async def run_open(
    target: Target,
    planned: list[Planned],
    rate_per_s: float,
    timeout_s: float,
    on_exchange: OnExchange,
    *,
    max_in_flight: int | None = None,
    seed: int = 0,
    pool: ConnectionPool | None = None,
) -> None:
    """Send ``planned`` at Poisson arrival times at ``rate_per_s`` (open loop). With
    ``max_in_flight`` a due request waits for a free slot, and that wait is queue delay.
    ``pool``: the connections to use (default: a new one per request)."""
    offsets = poisson_offsets_ns(rate_per_s, len(planned), seed)
    sem = asyncio.Semaphore(max_in_flight) if max_in_flight else None

    async def one(p: Planned, t_due: int) -> None:
        if sem is None:
            ex = await exchange(target, p.request, timeout_s, pool)
        else:
            async with sem:
                ex = await exchange(target, p.request, timeout_s, pool)
        on_exchange(p, t_due, ex)

    tasks = []
    t0 = perf_counter_ns() + 1_000_000
    try:
        for p, off in zip(planned, offsets):
            due = t0 + off
            wait_ns = due - perf_counter_ns()
            if wait_ns > 0:
                await asyncio.sleep(wait_ns / 1e9)
            tasks.append(asyncio.ensure_future(one(p, due)))
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
