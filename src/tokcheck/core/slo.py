"""Service-level objectives (SLOs) and goodput (pure; ``docs/measurement.md``, "Goodput under SLOs").

An SLO is a list of objectives, each a latency metric, a limit in ms and a percentile:
``ttft_ms=500,tpot_ms=30`` (p99 each, the default), ``ttft_ms=500@p90,e2e_ms=8000@p50``.
The metrics are tokcheck's own (``docs/measurement.md``):

- ``ttft_ms``: TTFT, send → first token;
- ``tpot_ms``: TPOT, (last token − first token) ÷ (tokens after the first read);
- ``itl_ms``: per-token inter-token latency; a request meets it when *its own* ITL values at
  the objective's percentile are within the limit (the level: all tokens' ITL pooled);
- ``e2e_ms`` (``e2e_latency_ms``): send → end of stream.

A request **meets** an objective when it succeeded and its value is within the limit; a failed
request meets none. A request whose every token came in one read has no TPOT or ITL; it counts as
0 ms there (as ``vllm bench serve``'s goodput counts a TPOT it cannot compute): no token came later
than the first, so none waited after it, and the wait is all in its TTFT, which the TTFT objective
judges. (On vLLM for the CPU a short answer often arrives in one read: counting those requests as
missing a TPOT objective would call a fast server slow.) **Goodput** counts the
requests that meet every objective: requests per second (``goodput_rps``, vLLM's and DistServe's
"request goodput") and their output tokens per second (``goodput_tok_s``), over the same window
as the level's throughput. A **level meets** the SLO when, for every objective, the level's value
at the objective's percentile is within the limit, failed requests counted as infinitely slow.

Presets are MLPerf Inference's published per-model limits for the Server scenario, "server" and
"interactive" (``mlcommons/inference`` ``loadgen/mlperf.conf``; ``docs/sources.md``), judged at
the 99th percentile as MLPerf's ``*.Server.target_latency_percentile = 99`` says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokcheck.core import metrics, stats
from tokcheck.errors import TokcheckError

#: SLO metric names → the request record's field (``itl_ms`` is computed from the chunks).
SLO_METRICS = {"ttft_ms": "ttft_ms", "tpot_ms": "tpot_ms", "itl_ms": "itl_ms",
               "e2e_ms": "e2e_latency_ms", "e2e_latency_ms": "e2e_latency_ms"}

#: Percentiles an objective may name.
PERCENTILES = (50.0, 90.0, 95.0, 99.0)

#: The percentile of an objective that names none (MLPerf's Server scenario: 99).
DEFAULT_PERCENTILE = 99.0

#: MLPerf Inference Server-scenario limits (TTFT ms, TPOT ms), p99, from ``mlcommons/inference``
#: ``loadgen/mlperf.conf`` (commit 001712e9; keys ``<model>.Server.ttft_latency`` and
#: ``.tpot_latency``, "All times are in milli seconds").
MLPERF_PRESETS: dict[str, tuple[float, float]] = {
    "llama2-70b-server": (2000, 200),
    "llama2-70b-interactive": (450, 40),
    "mixtral-8x7b-server": (2000, 200),
    "llama3.1-405b-server": (6000, 175),
    "llama3.1-405b-interactive": (4500, 80),
    "llama3.1-8b-server": (2000, 100),
    "llama3.1-8b-interactive": (500, 30),
    "deepseek-r1-server": (2000, 80),
    "deepseek-r1-interactive": (1500, 15),
}

#: Where the presets come from (written beside an SLO taken from a preset).
MLPERF_SOURCE = ("MLPerf Inference loadgen/mlperf.conf (github.com/mlcommons/inference, commit 001712e9): "
                 "<model>.Server.ttft_latency / tpot_latency, target_latency_percentile 99")


@dataclass(frozen=True)
class Objective:
    """One objective: ``metric`` (a key of :data:`SLO_METRICS`, canonical: ``e2e_ms`` →
    ``e2e_latency_ms``), ``limit_ms`` and ``percentile`` (0–100)."""

    metric: str
    limit_ms: float
    percentile: float = DEFAULT_PERCENTILE

    @property
    def text(self) -> str:
        return f"{self.metric}<={self.limit_ms:g}@p{self.percentile:g}"


@dataclass(frozen=True)
class Slo:
    """An SLO: its objectives, the text it was given as, and the source of a preset."""

    objectives: tuple[Objective, ...]
    spec: str
    source: str | None = None

    @property
    def text(self) -> str:
        """Canonical form: ``ttft_ms<=500@p99,tpot_ms<=30@p99``."""
        return ",".join(o.text for o in self.objectives)


_ITEM = re.compile(r"^\s*(?P<m>[a-z0-9_]+)\s*(?:<=|=|:)\s*(?P<v>[0-9.eE+]+)\s*(?:ms)?\s*"
                   r"(?:@\s*p?(?P<p>[0-9.]+))?\s*$")


def parse_slo(text: str) -> Slo:
    """An SLO from ``"ttft_ms=500,tpot_ms=30"`` (percentile ``@p90`` per objective, p99 by
    default) or a preset ``"mlperf:llama3.1-8b-interactive"``.

    Raises:
        TokcheckError: an unknown metric, preset or percentile, a limit that is not a positive
            number, or a metric given twice.
    """
    raw = str(text or "").strip()
    if not raw:
        raise TokcheckError("empty SLO: give e.g. ttft_ms=500,tpot_ms=30 or mlperf:llama3.1-8b-interactive")
    if raw.lower().startswith("mlperf:"):
        name = raw.split(":", 1)[1].strip().lower().replace("llama3_1", "llama3.1")
        if name not in MLPERF_PRESETS:
            raise TokcheckError(f"unknown MLPerf preset {name!r}; known: {', '.join(MLPERF_PRESETS)}")
        ttft, tpot = MLPERF_PRESETS[name]
        return Slo((Objective("ttft_ms", ttft), Objective("tpot_ms", tpot)), raw, MLPERF_SOURCE)
    objectives: list[Objective] = []
    for item in raw.split(","):
        m = _ITEM.match(item)
        if not m:
            raise TokcheckError(f"bad SLO item {item.strip()!r}: write metric=limit_ms[@pNN], e.g. ttft_ms=500@p90")
        metric = m.group("m")
        if metric not in SLO_METRICS:
            raise TokcheckError(f"unknown SLO metric {metric!r}; use one of ttft_ms, tpot_ms, itl_ms, e2e_ms")
        metric = "e2e_latency_ms" if metric == "e2e_ms" else metric
        limit = float(m.group("v"))
        if not limit > 0 or not math.isfinite(limit):
            raise TokcheckError(f"bad SLO limit {m.group('v')!r} for {metric}: a positive number of ms")
        pct = float(m.group("p")) if m.group("p") else DEFAULT_PERCENTILE
        if pct not in PERCENTILES:
            raise TokcheckError(f"bad percentile p{m.group('p')} for {metric}: use p50, p90, p95 or p99")
        if any(o.metric == metric for o in objectives):
            raise TokcheckError(f"SLO metric {metric} given twice")
        objectives.append(Objective(metric, limit, pct))
    return Slo(tuple(objectives), raw)


def request_values(objective: Objective, request: Any) -> list[float]:
    """The values of ``objective``'s metric for one successful request (duck-typed
    :class:`tokcheck.record.schema.RequestRecord`): one value, every token's ITL for
    ``itl_ms``; ``[0.0]`` for TPOT or ITL when every token came in the first read (module doc);
    none when undefined otherwise."""
    if objective.metric == "itl_ms":
        vals = metrics.itl_ms(request.chunks)
    else:
        v = getattr(request, SLO_METRICS[objective.metric])
        vals = [] if v is None else [float(v)]
    if not vals and objective.metric in ("tpot_ms", "itl_ms") and _one_read(request):
        return [0.0]
    return vals


def _one_read(request: Any) -> bool:
    """Every output token of the request arrived in its first token-carrying read."""
    chunks = metrics.merge_reads(getattr(request, "chunks", None) or [])[0]
    return getattr(request, "t_first_ns", None) is not None and len(chunks) <= 1


def request_meets(objective: Objective, request: Any) -> bool:
    """Whether one request meets one objective (see the module doc: failed or undefined → no)."""
    if getattr(request, "error", None) is not None:
        return False
    vals = request_values(objective, request)
    if not vals:
        return False
    if objective.metric == "itl_ms":
        value = stats.percentile(vals, objective.percentile)
    else:
        value = vals[0]
    return value is not None and value <= objective.limit_ms


def level_value(objective: Objective, requests: Sequence[Any]) -> float | None:
    """The level's value at the objective's percentile over every measured request (ITL: every
    token), a failed request counted as ``inf`` (so at p99 more than 1 % failures break it).
    Without failures numpy's linear interpolation, as every tokcheck percentile; with failures
    the nearest rank (interpolation cannot reach past an infinite value). ``None`` without
    requests; ``inf`` when the percentile falls on a failure."""
    pooled: list[float] = []
    for r in requests:
        if getattr(r, "error", None) is not None:
            pooled.append(math.inf)
        else:
            pooled.extend(request_values(objective, r))
    if not pooled:
        return None
    finite = sorted(pooled)
    # numpy's linear interpolation cannot handle inf; the nearest-rank percentile can
    rank = max(1, math.ceil(objective.percentile / 100 * len(finite)))
    value = finite[rank - 1]
    if math.isinf(value):
        return math.inf
    if all(math.isfinite(v) for v in finite):
        return stats.percentile(finite, objective.percentile)
    return value
