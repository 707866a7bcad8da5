"""Telemetry while measuring: a GPU sampler (NVML) and a Prometheus ``/metrics`` scraper.

Both are bench hooks (:func:`tokcheck.loadgen.bench.run_bench`): objects with ``on_run_start(run_dir)``,
``before_level(label)``, ``after_level(label) -> dict`` and ``on_run_end() -> dict``. Their
sampling runs in threads of their own, never in the event loop that times the requests. Every
timestamp is ``time.perf_counter_ns()``, the clock of ``requests.jsonl``.

The analysis is pure and separate: :func:`summarize_gpu_samples` (peak memory, mean
utilization, throttling seen), :func:`energy_figures` (joules per output token and mean power from
NVML's total-energy counter), :func:`parse_server_metrics`, :func:`metrics_delta` (counter deltas,
speculative-decoding acceptance rate and mean accepted length, prefix-cache hit rate) and
:func:`cross_check_generation_tokens`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from tokcheck.engines.base import COUNTER_KEYS, GAUGE_KEYS, MetricNames
from tokcheck.engines.registry import metric_names
from tokcheck.machine.nvml import GpuSample, NvmlSession
from tokcheck.record.schema import (CrossCheck, GpuHeadline, GpuTelemetry, MetricsDuring, ServerMetrics,
                                    Telemetry)
from tokcheck.machine.throttle import decode_clock_event_reasons, throttling_reasons

DEFAULT_GPU_INTERVAL_S = 0.1  # 10 Hz: NVML's utilization counters refresh every 1/6 s to 1 s
DEFAULT_METRICS_INTERVAL_S = 1.0

# ---------------------------------------------------------------------------------------------
# GPU samples → per-GPU summary (pure)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize_gpu_samples(samples: Iterable[GpuSample]) -> dict[str, Any]:
    """Per-GPU statistics of a series of samples.

    Returns ``{"sample_count": n, "gpus": {"<index>": {...}}}`` where each GPU has
    ``memory_used_peak_bytes``, ``memory_used_first_bytes``, ``utilization_mean_pct``,
    ``utilization_max_pct``, ``power_mean_w``, ``power_max_w``, ``sm_clock_mean_mhz``,
    ``sm_clock_min_mhz``, ``temperature_max_c``, ``clock_event_reasons_seen`` (every reason set
    in any sample), ``throttling_seen`` (only the power/thermal/hardware ones),
    ``throttled_sample_fraction`` and ``sample_count``. A value nobody measured is ``None``,
    never 0; with no samples at all the result says so in ``reason``.
    """
    by_gpu: dict[int, list[GpuSample]] = {}
    for s in samples:
        by_gpu.setdefault(s.index, []).append(s)
    if not by_gpu:
        return {"sample_count": 0, "gpus": {}, "reason": "no GPU samples"}
    gpus: dict[str, Any] = {}
    for index, series in sorted(by_gpu.items()):
        mem = [s.memory_used_bytes for s in series if s.memory_used_bytes is not None]
        util = [s.utilization_gpu_pct for s in series if s.utilization_gpu_pct is not None]
        power = [s.power_draw_w for s in series if s.power_draw_w is not None]
        sm = [s.sm_clock_mhz for s in series if s.sm_clock_mhz is not None]
        temp = [s.temperature_c for s in series if s.temperature_c is not None]
        masks = [s.clock_event_reasons_mask for s in series
                 if s.clock_event_reasons_mask is not None]
        union = 0
        for m in masks:
            union |= m
        throttled = sum(1 for m in masks if throttling_reasons(m))
        gpus[str(index)] = {
            "sample_count": len(series),
            "memory_used_peak_bytes": max(mem) if mem else None,
            "memory_used_first_bytes": mem[0] if mem else None,
            "utilization_mean_pct": _mean(util),
            "utilization_max_pct": max(util) if util else None,
            "power_mean_w": _mean(power),
            "power_max_w": max(power) if power else None,
            "sm_clock_mean_mhz": _mean(sm),
            "sm_clock_min_mhz": min(sm) if sm else None,
            "temperature_max_c": max(temp) if temp else None,
            "clock_event_reasons_seen": decode_clock_event_reasons(union) if masks else None,
            "throttling_seen": throttling_reasons(union) if masks else None,
            "throttled_sample_fraction": throttled / len(masks) if masks else None,
        }
    return {"sample_count": sum(len(v) for v in by_gpu.values()), "gpus": gpus}


def energy_figures(before_mj: dict[int, int | None], after_mj: dict[int, int | None], t0_ns: int, t1_ns: int,
                   gpus: list[int] | None, rule: str, tokens: int | None) -> dict[str, Any]:
    """Energy over a window from two readings of NVML's total-energy counter (millijoules since
    the driver loaded, :meth:`tokcheck.machine.nvml.NvmlSession.energy_mj`).

    ``gpus``: the NVML indices to sum (the serving GPUs; ``None``: every GPU read), ``rule``:
    how they were chosen, ``tokens``: the output tokens of the window. Returns the
    ``energy_*`` fields of :class:`tokcheck.record.schema.GpuTelemetry`: ``energy_j`` (the summed
    delta, J), ``energy_by_gpu_j``, ``energy_gpus``, ``energy_gpus_rule``, ``energy_window_s``,
    ``energy_power_w`` (J ÷ s), ``energy_tokens`` and ``energy_j_per_token``; a figure that
    cannot be computed is ``None`` with ``energy_reason`` (a GPU without the counter, a counter
    that went down — the driver reloaded —, no tokens).
    """
    chosen = sorted(before_mj) if gpus is None else list(gpus)
    out: dict[str, Any] = {"energy_gpus": chosen, "energy_gpus_rule": rule,
                           "energy_window_s": (t1_ns - t0_ns) / 1e9, "energy_tokens": tokens}
    by_gpu: dict[str, float | None] = {}
    why: list[str] = []
    for i in chosen:
        b, a = before_mj.get(i), after_mj.get(i)
        if b is None or a is None:
            by_gpu[str(i)] = None
            why.append(f"GPU {i} has no energy counter reading")
        elif a < b:
            by_gpu[str(i)] = None
            why.append(f"GPU {i}'s energy counter went down (the driver reloaded)")
        else:
            by_gpu[str(i)] = (a - b) / 1000.0
    out["energy_by_gpu_j"] = by_gpu
    if not chosen:
        why.append("no GPU to read")
    total = None if why else sum(v for v in by_gpu.values() if v is not None)
    out["energy_j"] = total
    window = out["energy_window_s"]
    out["energy_power_w"] = total / window if total is not None and window > 0 else None
    if total is not None and not tokens:
        why.append("no output tokens counted in the level")
    out["energy_j_per_token"] = total / tokens if total is not None and tokens else None
    out["energy_reason"] = "; ".join(why) or None
    return out


def headline_gpu(summary: dict[str, Any]) -> dict[str, Any]:
    """The few GPU figures a summary line shows, over all GPUs: the largest peak memory, the
    mean of the GPUs' mean utilizations, and every throttling reason seen
    (:meth:`tokcheck.record.schema.GpuTelemetry.figures`, the record's one definition)."""
    stats = GpuTelemetry.model_validate(summary)
    return stats.model_copy(update={"headline": None}).figures().model_dump()


# ---------------------------------------------------------------------------------------------
# Prometheus /metrics (pure)

def parse_server_metrics(text: str, names: MetricNames | None = None) -> dict[str, float]:
    """The counters and gauges tokcheck watches (keys of
    :data:`~tokcheck.engines.base.COUNTER_KEYS` and :data:`~tokcheck.engines.base.GAUGE_KEYS`),
    from Prometheus exposition text.

    ``names``: the engine's metric names (:attr:`tokcheck.engines.base.Engine.metrics`); None:
    every registered engine's (a server whose engine is not known). Parsed with
    ``prometheus_client.parser.text_string_to_metric_families``; each value is the sum over its
    label sets (model, engine index, finish reason). A metric the server does not export is
    absent from the result (not 0).

    Raises:
        ValueError: when the text is not Prometheus exposition format.
    """
    from prometheus_client.parser import text_string_to_metric_families

    if names is None:
        names = metric_names()
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            # Counters carry `<name>_total` and `<name>_created` samples; only _total counts.
            if family.type == "counter" and not sample.name.endswith("_total"):
                continue
            if family.type not in ("counter", "gauge"):
                continue
            totals[family.name] = totals.get(family.name, 0.0) + float(sample.value)
    out: dict[str, float] = {}
    for key, candidates in (*names.counters.items(), *names.gauges.items()):
        for name in candidates:
            if name in totals:
                out[key] = totals[name]
                break
    return out


def _ratio(num: float | None, den: float | None, what: str) -> tuple[float | None, str | None]:
    if num is None or den is None:
        return None, f"the server does not export {what}"
    if den == 0:
        return None, f"no {what} during this window"
    return num / den, None


def metrics_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """Counter deltas between two parsed scrapes, and what follows from them.

    - ``counters``: ``after − before`` for each counter both scrapes have. A negative delta
      means the server restarted in between; it is reported as ``None`` with a reason.
    - ``spec_decode_acceptance_rate`` = accepted tokens ÷ draft tokens (vLLM's definition).
    - ``spec_decode_mean_accepted_length`` = 1 + accepted tokens ÷ drafts: tokens emitted per
      verification step, the bonus token included (vLLM's ``mean acceptance length``; the
      ``(1 − α^(γ+1)) / (1 − α)`` of Leviathan et al., 2023, measured).
    - ``prefix_cache_hit_rate`` = hits ÷ queries (both in tokens).
    Each ratio is ``None`` with a ``*_reason`` when it cannot be computed.
    """
    counters: dict[str, float | None] = {}
    reasons: dict[str, str] = {}
    for key in COUNTER_KEYS:
        if key in before and key in after:
            d = after[key] - before[key]
            if d < 0:
                counters[key] = None
                reasons[key] = "counter went down: the server restarted between scrapes"
            else:
                counters[key] = d
    out: dict[str, Any] = {"counters": counters}
    if reasons:
        out["counters_reasons"] = reasons
    rate, why = _ratio(counters.get("spec_decode_accepted_tokens"),
                       counters.get("spec_decode_draft_tokens"), "speculative-decoding drafts")
    out["spec_decode_acceptance_rate"] = rate
    if why:
        out["spec_decode_acceptance_rate_reason"] = why
    per_draft, why = _ratio(counters.get("spec_decode_accepted_tokens"),
                            counters.get("spec_decode_drafts"), "speculative-decoding drafts")
    out["spec_decode_mean_accepted_length"] = 1 + per_draft if per_draft is not None else None
    if why:
        out["spec_decode_mean_accepted_length_reason"] = why
    hit, why = _ratio(counters.get("prefix_cache_hits"), counters.get("prefix_cache_queries"),
                      "prefix-cache queries")
    out["prefix_cache_hit_rate"] = hit
    if why:
        out["prefix_cache_hit_rate_reason"] = why
    return out


def cross_check_generation_tokens(server_delta: float | None, counted: int | None,
                                  tolerance: int = 0) -> dict[str, Any]:
    """Compare the server's generation-token counter delta with the tokens tokcheck counted.

    ``match`` is ``True`` when ``|server − counted| <= tolerance`` and ``None`` (with
    ``reason``) when either side is missing. A mismatch means requests outside tokcheck's were
    served meanwhile, or tokens were counted differently (``n_out`` in ``docs/measurement.md``).
    """
    out: dict[str, Any] = {"server_generation_tokens": server_delta, "counted_tokens": counted,
                           "difference": None, "match": None}
    if server_delta is None:
        out["reason"] = "no generation-token counter from the server's /metrics"
    elif counted is None:
        out["reason"] = "no token counts in the request records"
    else:
        out["difference"] = server_delta - counted
        out["match"] = abs(server_delta - counted) <= tolerance
    return out


def counted_output_tokens(run_dir: Path, level: str) -> int | None:
    """Σ output tokens tokcheck counted for one level (warm-up included: the server generated
    those tokens too), from the run directory's ``requests.jsonl``: the server's ``usage``
    count where sent, else the tokenizer's. ``None`` when the file or the level has no counts."""
    from tokcheck.record.store import read_requests

    counts = [r.n_out_usage if r.n_out_usage is not None else r.n_out_tokenizer
              for r in read_requests(run_dir) if r.level == level]
    counts = [n for n in counts if n is not None]
    return sum(counts) if counts else None


# ---------------------------------------------------------------------------------------------
# The hooks (I/O: threads, NVML, HTTP)


class GpuSampler:
    """Samples every GPU at ``interval_s`` (default 10 Hz) in a daemon thread.

    As a bench hook: ``after_level`` returns ``{"gpu": summary of that level's samples}``;
    ``on_run_end`` writes every sample to ``<run_dir>/gpu_samples.jsonl`` and returns
    ``{"gpu": {...}}`` for run.json. Also a context manager (``with GpuSampler() as s``).
    Without a GPU it samples nothing and says why in ``reason``.
    """

    def __init__(self, interval_s: float = DEFAULT_GPU_INTERVAL_S,
                 session_factory: Callable[[], Any] = NvmlSession) -> None:
        """``session_factory`` makes the sample source: NVML by default; anything with
        ``available``, ``reason``, ``errors``, ``sample() -> list[GpuSample]`` and ``close()``
        (tests replay recorded NVML values through it)."""
        if interval_s <= 0:
            raise ValueError(f"interval_s must be > 0, got {interval_s}")
        self.interval_s = interval_s
        self.samples: list[GpuSample] = []
        self.reason: str | None = None
        self.errors: dict[str, str] = {}
        self._session_factory = session_factory
        self._session: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._level_start: dict[str, int] = {}
        self._level_energy: dict[str, tuple[int, dict[int, int | None]]] = {}
        self._energy_gpus: list[int] | None = None
        self._energy_rule = "every GPU NVML lists"
        self._run_dir: Path | None = None

    @property
    def available(self) -> bool:
        return self._session is not None and self._session.available

    def start(self) -> None:
        if self._thread is not None:
            return
        self._session = self._session_factory()
        self.reason = self._session.reason
        if not self._session.available:
            return
        compute = getattr(self._session, "compute_gpus", None)
        found = compute() if compute is not None else None
        if found:
            self._energy_gpus, self._energy_rule = found, "GPUs holding a compute process when the run started"
        elif found == []:
            self._energy_gpus, self._energy_rule = None, "every GPU (none held a compute process when the run started)"
        else:
            self._energy_gpus, self._energy_rule = None, "every GPU (NVML could not list their processes)"
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="tokcheck-gpu-sampler",
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        assert self._session is not None
        next_t = time.perf_counter()
        while not self._stop.is_set():
            batch = self._session.sample()
            with self._lock:
                self.samples.extend(batch)
            next_t += self.interval_s
            # Fixed-rate schedule; if a sample overran, skip ahead rather than burst.
            delay = next_t - time.perf_counter()
            if delay < 0:
                next_t = time.perf_counter()
                delay = 0
            self._stop.wait(delay)

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=5)
            self._thread = None
        if self._session is not None:
            self.errors = dict(self._session.errors)
            self._session.close()

    def samples_between(self, t0_ns: int, t1_ns: int) -> list[GpuSample]:
        with self._lock:
            return [s for s in self.samples if t0_ns <= s.t_ns <= t1_ns]

    def summary(self, samples: list[GpuSample] | None = None) -> dict[str, Any]:
        """Summary of ``samples`` (default: all so far), with availability stated."""
        if not self.available and not self.samples:
            return {"available": False, "reason": self.reason or "sampler not started"}
        with self._lock:
            chosen = list(self.samples) if samples is None else samples
        stats = summarize_gpu_samples(chosen)
        return {"available": True, "interval_s": self.interval_s, **stats,
                "headline": headline_gpu(stats)}

    # bench hooks
    def on_run_start(self, run_dir: Path) -> None:
        self._run_dir = Path(run_dir)
        self.start()

    @property
    def energy_gpus(self) -> list[int] | None:
        """The GPUs whose energy is summed (``None``: every GPU), chosen when sampling started."""
        return self._energy_gpus

    def read_energy(self) -> dict[int, int | None] | None:
        """NVML's total-energy counters now (mJ by GPU index), or ``None`` when the source has
        none (no GPU, or a sample source without the counter)."""
        read = getattr(self._session, "energy_mj", None) if self.available else None
        return read() if read is not None else None

    def before_level(self, label: str) -> None:
        self._level_start[label] = time.perf_counter_ns()
        energy = self.read_energy()
        if energy is not None:
            self._level_energy[label] = (time.perf_counter_ns(), energy)

    def after_level(self, label: str, counted_tokens: int | None = None) -> dict[str, Any]:
        """The level's GPU summary, with its energy figures (:func:`energy_figures`) when the
        counters were read; ``counted_tokens`` defaults to the level's output tokens in
        ``<run_dir>/requests.jsonl`` (warm-up included: the GPUs generated those too)."""
        t0 = self._level_start.pop(label, None)
        if t0 is None:
            return {"gpu": {"available": self.available, "reason": "level start not seen"}}
        out = self.summary(self.samples_between(t0, time.perf_counter_ns()))
        start = self._level_energy.pop(label, None)
        after = self.read_energy() if start is not None else None
        if start is not None and after is not None:
            t1 = time.perf_counter_ns()
            if counted_tokens is None and self._run_dir is not None:
                counted_tokens = counted_output_tokens(self._run_dir, label)
            out.update(energy_figures(start[1], after, start[0], t1, self._energy_gpus, self._energy_rule,
                                      counted_tokens))
        elif out.get("available"):
            out["energy_reason"] = "the GPU source has no energy counter"
        # without a GPU the summary's own ``reason`` says why (the energy metrics read it)
        return {"gpu": out}

    def on_run_end(self) -> dict[str, Any]:
        self.stop()
        out = self.summary()
        if self.errors:
            out["nvml_errors"] = self.errors
        if self._run_dir is not None and self.samples:
            from tokcheck.record.store import write_gpu_samples

            out["samples_file"] = write_gpu_samples(self._run_dir, self.samples)
        return {"gpu": out}

    def __enter__(self) -> GpuSampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class MetricsScrape:
    """One scrape: when (``perf_counter_ns``), the parsed values, or the error."""

    t_ns: int
    values: dict[str, float]
    error: str | None = None


@dataclass
class RawScrape:
    """One scrape taken while a level runs: when (``perf_counter_ns``) and the raw text, or the
    error. Parsed only after the level (:meth:`MetricsScraper.after_level`)."""

    t_ns: int
    text: str | None
    error: str | None = None


def fetch_metrics_text(url: str, timeout_s: float = 5.0, client: Any = None) -> RawScrape:
    """GET ``url`` (a ``/metrics`` address) and keep the text unparsed. Network and HTTP errors
    become ``error`` (one line), never an exception. ``client``: an ``httpx.Client`` to reuse."""
    import httpx

    t_ns = time.perf_counter_ns()
    try:
        if client is not None:
            resp = client.get(url, timeout=timeout_s)
        else:
            # A proxy from the environment must not stand between tokcheck and a local server.
            resp = httpx.get(url, timeout=timeout_s, trust_env=not server_is_local(url))
        resp.raise_for_status()
        return RawScrape(t_ns, resp.text)
    except httpx.HTTPError as err:
        return RawScrape(t_ns, None, f"{type(err).__name__}: {err}".splitlines()[0])


def parse_scrape(raw: RawScrape, names: MetricNames | None = None) -> MetricsScrape:
    """Parse a :class:`RawScrape` with the engine's metric ``names`` (None: every registered
    engine's); unparsable text becomes ``error``."""
    if raw.error is not None or raw.text is None:
        return MetricsScrape(raw.t_ns, {}, raw.error or "no text")
    try:
        return MetricsScrape(raw.t_ns, parse_server_metrics(raw.text, names))
    except ValueError as err:
        return MetricsScrape(raw.t_ns, {}, f"{type(err).__name__}: {err}".splitlines()[0])


def scrape_metrics(url: str, timeout_s: float = 5.0,
                   names: MetricNames | None = None) -> MetricsScrape:
    """GET ``url`` (a ``/metrics`` address) and parse it (``names``: as in
    :func:`parse_scrape`). Network errors, HTTP errors and unparsable text become ``error``
    (one line), never an exception."""
    return parse_scrape(fetch_metrics_text(url, timeout_s), names)


def metrics_url(base_url: str) -> str:
    """The ``/metrics`` address of a server whose API base may end in ``/v1``."""
    base = base_url.rstrip("/")
    if base.endswith("/v1"):
        base = base[: -len("/v1")]
    return base if base.endswith("/metrics") else base + "/metrics"


class MetricsScraper:
    """Scrapes a server's Prometheus ``/metrics`` before, during (every ``interval_s``, in a
    thread) and after each level.

    While a level runs, the thread only fetches and keeps the raw text with its stamp
    (:class:`RawScrape`); parsing vLLM's ~50 kB of Prometheus text takes ~10 ms of pure Python,
    and a thread holding the GIL that long delays the event loop's stamps of the streams being
    measured (benchmarks/README.md, "Threads of hooks"). The texts are parsed in
    :meth:`after_level`, once the level's requests have all ended.

    ``after_level`` returns ``{"server_metrics": {...}}``: the counter deltas and ratios of
    :func:`metrics_delta`, the gauges' maxima while the level ran, and the cross-check of the
    generation-token delta against the tokens counted in ``requests.jsonl``.

    ``engine``: the server's engine (a registered name), whose metric names are read; None (a
    server whose engine is not known): every registered engine's.

    Raises:
        TokcheckError: an unknown engine name.
    """

    def __init__(self, base_url: str, interval_s: float = DEFAULT_METRICS_INTERVAL_S,
                 settle_s: float = 2.0, tolerance_tokens: int = 0,
                 engine: str | None = None) -> None:
        self.url = metrics_url(base_url)
        self.names = metric_names(engine)
        self.interval_s = interval_s
        self.settle_s = settle_s
        self.tolerance_tokens = tolerance_tokens
        self.scrapes: dict[str, list[RawScrape]] = {}  # raw, per level (parsed after it)
        self.errors: list[str] = []
        self._before: dict[str, MetricsScrape] = {}
        self._run_dir: Path | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def scrape(self) -> MetricsScrape:
        s = scrape_metrics(self.url, names=self.names)
        if s.error and s.error not in self.errors:
            self.errors.append(s.error)
        return s

    def _poll(self, label: str) -> None:
        import httpx

        # one connection for the level (no client set-up per scrape); no parsing here
        with httpx.Client(trust_env=not server_is_local(self.url)) as client:
            while not self._stop.wait(self.interval_s):
                raw = fetch_metrics_text(self.url, client=client)
                if raw.error and raw.error not in self.errors:
                    self.errors.append(raw.error)
                self.scrapes[label].append(raw)

    # bench hooks
    def on_run_start(self, run_dir: Path) -> None:
        self._run_dir = Path(run_dir)

    def before_level(self, label: str) -> None:
        self._before[label] = self.scrape()
        self.scrapes[label] = []
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll, args=(label,),
                                        name="tokcheck-metrics-scraper", daemon=True)
        self._thread.start()

    def after_level(self, label: str, counted_tokens: int | None = None) -> dict[str, Any]:
        """End the level: stop polling, scrape, compute. ``counted_tokens`` defaults to the
        level's sum in ``<run_dir>/requests.jsonl``."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=10)
            self._thread = None
        before = self._before.pop(label, None)
        if before is None:
            return {"server_metrics": {"url": self.url, "reason": "level start not seen"}}
        if counted_tokens is None and self._run_dir is not None:
            counted_tokens = counted_output_tokens(self._run_dir, label)
        after = self.scrape()
        # vLLM updates its counters as outputs are processed; a scrape right after the last
        # response can precede the final update. Re-scrape briefly until the counter settles.
        deadline = time.perf_counter() + self.settle_s
        while (counted_tokens is not None and not after.error
               and "generation_tokens" in before.values and "generation_tokens" in after.values
               and after.values["generation_tokens"] - before.values["generation_tokens"]
               < counted_tokens and time.perf_counter() < deadline):
            time.sleep(0.1)
            after = self.scrape()
        return {"server_metrics": self._level_result(label, before, after, counted_tokens)}

    def _level_result(self, label: str, before: MetricsScrape, after: MetricsScrape,
                      counted: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url}
        if before.error or after.error:
            out["reason"] = f"scrape failed: {before.error or after.error}"
            return out
        out.update(metrics_delta(before.values, after.values))
        parsed = [parse_scrape(r, self.names) for r in self.scrapes.get(label, [])]
        for p in parsed:
            if p.error and p.error not in self.errors:
                self.errors.append(p.error)
        during = [p.values for p in parsed if not p.error]
        out["during"] = {"scrapes": len(during)}
        for key in GAUGE_KEYS:
            vals = [v[key] for v in (before.values, *during, after.values) if key in v]
            out["during"][f"{key}_max"] = max(vals) if vals else None
        out["cross_check"] = cross_check_generation_tokens(
            out["counters"].get("generation_tokens"), counted, self.tolerance_tokens)
        out["window_ns"] = [before.t_ns, after.t_ns]
        return out

    def on_run_end(self) -> dict[str, Any]:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=10)
            self._thread = None
        out: dict[str, Any] = {"url": self.url,
                               "scrapes_during": sum(len(v) for v in self.scrapes.values())}
        if self.errors:
            out["errors"] = self.errors
        return {"server_metrics": out}


# ---------------------------------------------------------------------------------------------
# For `tokcheck bench`

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def server_is_local(url: str) -> bool:
    """True when ``url`` points at this machine (so its GPUs are the server's GPUs)."""
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "") in _LOCAL_HOSTS


def bench_hooks(url: str, *, gpu_interval_s: float = DEFAULT_GPU_INTERVAL_S,
                metrics_interval_s: float = DEFAULT_METRICS_INTERVAL_S,
                engine: str | None = None) -> list[Any]:
    """The telemetry hooks for a bench run against ``url``: the ``/metrics`` scraper always
    (reading ``engine``'s metric names; None: any registered engine's), the GPU sampler only
    when the server runs on this machine (a remote server's GPUs cannot be sampled from
    here)."""
    hooks: list[Any] = [MetricsScraper(url, interval_s=metrics_interval_s, engine=engine)]
    if server_is_local(url):
        hooks.insert(0, GpuSampler(interval_s=gpu_interval_s))
    return hooks


def level_headline(telemetry: Telemetry | dict[str, Any] | None) -> dict[str, Any]:
    """The figures a summary table shows for one level's ``telemetry`` (a summary level's, or
    what the hooks' ``after_level`` returned); ``None`` = n/a."""
    t = Telemetry.model_validate(telemetry) if isinstance(telemetry, dict) else (telemetry or Telemetry())
    gpu = t.gpu.figures() if t.gpu is not None else GpuHeadline()
    sm = t.server_metrics or ServerMetrics()
    check = sm.cross_check or CrossCheck()
    during = sm.during or MetricsDuring()
    return {
        "gpu_memory_used_peak_bytes": gpu.memory_used_peak_bytes,
        "gpu_utilization_mean_pct": gpu.utilization_mean_pct,
        "gpu_throttling_seen": gpu.throttling_seen,
        "server_generation_tokens": check.server_generation_tokens,
        "counted_tokens": check.counted_tokens,
        "tokens_match": check.match,
        "spec_decode_acceptance_rate": sm.spec_decode_acceptance_rate,
        "spec_decode_mean_accepted_length": sm.spec_decode_mean_accepted_length,
        "kv_cache_usage_max": during.kv_cache_usage_fraction_max,
        "prefix_cache_hit_rate": sm.prefix_cache_hit_rate,
    }
