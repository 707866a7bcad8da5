"""Send schedules (pure).

Closed loop: a fixed number of requests in flight; a request is *due* the moment a slot frees,
so its queue delay is the client's own turnaround (connect included). Open loop: requests are
due at Poisson arrival times at a fixed rate, whether or not earlier ones finished; when a
client-side cap on requests in flight holds a request back, that wait is queue delay and is
reported, never hidden (the coordinated-omission trap, vLLM issue #54101).
"""

from __future__ import annotations

import random


def poisson_offsets_ns(rate_per_s: float, count: int, seed: int = 0) -> list[int]:
    """Due times of ``count`` requests of a Poisson process at ``rate_per_s``, in ns from the
    start: the first is due at 0, gaps are exponential with mean 1/rate. Seeded."""
    if rate_per_s <= 0:
        raise ValueError("rate must be positive")
    rng = random.Random(seed)
    t = 0.0
    out = []
    for i in range(count):
        if i:
            t += rng.expovariate(rate_per_s)
        out.append(round(t * 1e9))
    return out
