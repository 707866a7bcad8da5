"""The run record: typed models of a run directory (``docs/run-directory.md``).

A run directory holds ``run.json`` (:class:`RunConditions`: every condition the client can
know), ``requests.jsonl`` (one :class:`RequestRecord` per finished request, appended and
flushed as each finishes, so Ctrl-C or a crash loses nothing that completed),
``summary.json`` (:class:`Summary`: one :class:`LevelSummary` per level), and, when recorded,
``gpu_samples.jsonl`` (one :class:`GpuSample` per GPU per sample) and ``server.log``.

Clocks. Every ``t_*_ns`` field is ``time.perf_counter_ns()`` of the client process that ran
bench (integer nanoseconds, arbitrary origin; ``run.json`` ``clock`` ties it to Unix time).
Durations are in the unit their name says (``_ms``, ``_s``); speeds in tokens or requests per
second (``_tok_s``, ``_rps``).

Secrets never enter these models: the API key is not a field anywhere.

Reading and writing is :mod:`tokcheck.record.store`'s (one writer, one reader); these are the
shapes. Sections of ``run.json`` keep unknown keys (``extra="allow"``) and write back only the
keys that were set, so a section written by a newer engine or by hand survives a round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_serializer

from tokcheck import __version__
from tokcheck.core import confidence, metric_table
from tokcheck.record.level import Level

#: Version of the run-directory format. 2: summary levels have ``max_in_flight``; an open-loop
#: level's ``concurrency`` is null (version 1 stored the open loop's cap there; the reader
#: migrates it, :mod:`tokcheck.record.store`).
SCHEMA_VERSION = 2

#: Metrics summarised per level as a :class:`MetricStat` (the table's per-request kinds).
LEVEL_METRICS = tuple(m.name for m in metric_table.METRICS if m.kind not in ("round", "level"))

#: A number as its writer wrote it (an int stays an int when read back and written again).
Number = int | float


class _Section(BaseModel):
    """A section of the record written by one module and read by others: unknown keys are
    kept, and only the keys that were set are written back (no ``null`` for a field the
    writer did not know)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    @model_serializer(mode="wrap")
    def _only_set(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        keep = self.model_fields_set | set(self.model_extra or {})
        return {k: v for k, v in data.items() if k in keep}


# --------------------------------------------------------------------------- requests.jsonl


class ErrorInfo(BaseModel):
    """Why a request failed: ``kind`` (``http_500``, ``timeout_stream``, ``connection_reset``,
    …) and one line of ``detail`` (the server's message or the exception)."""

    kind: str
    detail: str


class RequestRecord(BaseModel):
    """One finished request: a line of ``requests.jsonl``. Times: client ``perf_counter_ns``.

    Defaults are what a record of an older version lacks; bench writes every field.
    """

    model_config = ConfigDict(extra="allow")

    level: str = Field(description="label of the level the request belongs to (``c=4``, ``rate=2``)")
    round: int = Field(0, description="round number; 0 for warm-up requests")
    index: int = Field(0, description="position of the request in its level")
    warmup: bool = Field(False, description="a warm-up request: never measured")
    prompt_index: int | None = Field(None, description="index of its prompt in the run's prompt list")
    t_due_ns: int | None = Field(None, description="when the schedule wanted it sent (open loop), ns")
    t_send_ns: int | None = Field(None, description="when its bytes were written, ns")
    t_first_ns: int | None = Field(None, description="arrival of the first read carrying an output token "
                                                     "(any channel, reasoning included), ns")
    t_first_answer_ns: int | None = Field(None, description="arrival of the first read carrying a token of the "
                                                            "answer (every channel but reasoning), ns")
    t_last_ns: int | None = Field(None, description="arrival of the last read carrying an output token, ns")
    t_end_ns: int | None = Field(None, description="end of the stream, ns")
    chunks: list[tuple[int, int]] = Field(
        default_factory=list,
        description="[arrival ns, output tokens] per token-carrying read (older records: per SSE event)")
    chunk_events: list[int] | None = Field(
        None, description="SSE events in each chunk (parallel to ``chunks``; > 1: they arrived in one read)")
    n_out: int | None = Field(None, description="output tokens that arrived: the model tokenizer's count of "
                                                "what was streamed on every channel (older records: usage)")
    n_out_source: str | None = Field(None, description="where ``n_out`` came from: ``tokenizer`` "
                                                       "(older records: ``usage``)")
    n_out_usage: int | None = Field(None, description="the server's usage.completion_tokens, tokens (a cross-check)")
    n_out_tokenizer: int | None = Field(None, description="the model tokenizer's count of the streamed text, tokens")
    usage_difference: int | None = Field(None, description="usage.completion_tokens − the tokenizer's count, tokens")
    tokens_by_channel: dict[str, int] = Field(
        default_factory=dict,
        description="output tokens per channel (``text``, ``content``, ``reasoning``, ``tool_calls``)")
    reasoning_tokens: int | None = Field(None, description="output tokens on the reasoning channel (counted)")
    reasoning_tokens_usage: int | None = Field(
        None, description="the server's usage.completion_tokens_details.reasoning_tokens")
    n_prompt_usage: int | None = Field(None, description="the server's usage.prompt_tokens, tokens")
    n_first: int | None = Field(None, description="tokens in the first token-carrying read")
    empty_choice_ns: list[int] | None = Field(
        None, description="arrival of each SSE event that had a choice but carried no output token (a chat "
                          "role-only delta, an empty final chunk), ns; other tools count these "
                          "(analysis/definitions.py)")
    t_last_event_ns: int | None = Field(
        None, description="arrival of the last SSE data event before [DONE] (the usage event when sent), ns")
    text: str = Field("", description="the streamed text of all channels")
    finish_reason: str | None = Field(None, description="the server's finish_reason")
    http_status: int | None = Field(None, description="HTTP status of the response")
    response_id: str | None = Field(None, description="the server's response id")
    error: ErrorInfo | None = Field(None, description="why it failed; None for a successful request")
    defects: list[str] = Field(default_factory=list,
                               description="protocol defects seen (``missing_usage``, ``usage_mismatch``, …)")
    early_stop: bool = Field(False, description="fewer (or more) output tokens arrived than asked")
    latency_from: str = Field("send", description="where the headline TTFT and E2E start: ``send``, or "
                                                  "``due`` (open loop: the scheduled send time)")
    ttft_ms: float | None = Field(None, description="TTFT = t_first − t_start (t_start: t_send, or t_due in an "
                                                    "open loop), ms")
    ttft_from_send_ms: float | None = Field(None, description="t_first − t_send, ms")
    ttft_from_due_ms: float | None = Field(None, description="t_first − t_due, ms")
    ttfo_ms: float | None = Field(None, description="time to first output of the answer = t_first_answer − "
                                                    "t_start, ms (reasoning excluded)")
    tpot_ms: float | None = Field(None, description="TPOT = (t_last − t_first) / (n_out − n_first), ms per token")
    e2e_latency_ms: float | None = Field(None, description="E2E latency = t_end − t_start, ms")
    e2e_latency_from_send_ms: float | None = Field(None, description="t_end − t_send, ms")
    generation_tok_s: float | None = Field(None, description="1 / TPOT, tokens/s")
    e2e_tok_s: float | None = Field(None, description="n_out / (t_end − t_start), tokens/s")
    queue_delay_ms: float | None = Field(None, description="t_send − t_due, ms")
    client_marks: list[str] = Field(
        default_factory=list,
        description="stamps the client cannot vouch for: ``ttft``, ``tpot``, ``e2e`` (its event loop "
                    "stalled around them), ``ttft_below_floor`` (a TTFT below the client's own floor)")
    stamp_uncertainty_ms: float | None = Field(
        None, description="how late any of its stamps may be because the client's event loop stalled, ms")
    stamp_delay_ms: float | None = Field(
        None, description="median of (client stamp − server write) over its chunks, where the server (on this "
                          "machine) wrote its own clock into them, ms")
    stamp_delay_max_ms: float | None = Field(None, description="the largest such delay, ms")
    no_token_chunks: int = Field(0, description="data chunks without a choice (metadata, usage only)")

    def trusted(self, mark: str | None) -> bool:
        """Whether the client vouches for the stamps behind ``mark`` (``ttft``, ``tpot``, ``e2e``)."""
        return mark is None or mark not in self.client_marks

    @property
    def ok(self) -> bool:
        """Whether the request succeeded (no error)."""
        return self.error is None


# --------------------------------------------------------------------------- gpu_samples.jsonl


@dataclass(frozen=True)
class GpuSample:
    """One telemetry sample of one GPU (a line of ``gpu_samples.jsonl``), read through NVML
    (:mod:`tokcheck.machine.nvml` builds it). ``None``: NVML could not say.

    Attributes:
        t_ns: client ``perf_counter_ns`` just before the queries (the requests' clock).
        index: NVML's GPU index.
        memory_used_bytes: device memory in use, bytes.
        utilization_gpu_pct: percent of NVML's last sample period (1/6 s to 1 s) a kernel ran.
        power_draw_w: power draw, watts (NVML reports mW).
        sm_clock_mhz: SM clock, MHz.
        temperature_c: GPU temperature, °C.
        clock_event_reasons_mask: NVML's clocks-event-reasons bit mask (throttling).
    """

    t_ns: int
    index: int
    memory_used_bytes: int | None = None
    utilization_gpu_pct: int | None = None
    power_draw_w: float | None = None
    sm_clock_mhz: int | None = None
    temperature_c: int | None = None
    clock_event_reasons_mask: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GpuSample:
        """From a JSON object; unknown keys are ignored. Raises TypeError without ``t_ns``/``index``."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


# --------------------------------------------------------------------------- telemetry


class GpuStats(_Section):
    """One GPU over a window (``tokcheck.machine.telemetry.summarize_gpu_samples``)."""

    sample_count: int | None = None
    memory_used_peak_bytes: Number | None = Field(None, description="bytes")
    memory_used_first_bytes: Number | None = Field(None, description="bytes")
    utilization_mean_pct: Number | None = Field(None, description="percent")
    utilization_max_pct: Number | None = Field(None, description="percent")
    power_mean_w: Number | None = Field(None, description="watts")
    power_max_w: Number | None = Field(None, description="watts")
    sm_clock_mean_mhz: Number | None = Field(None, description="MHz")
    sm_clock_min_mhz: Number | None = Field(None, description="MHz")
    temperature_max_c: Number | None = Field(None, description="°C")
    clock_event_reasons_seen: list[str] | None = None
    throttling_seen: list[str] | None = Field(None, description="power/thermal/hardware reasons seen")
    throttled_sample_fraction: Number | None = None


class GpuHeadline(_Section):
    """The few GPU figures over all GPUs: the largest peak memory (bytes), the mean of the GPUs'
    mean utilizations (percent), every throttling reason seen (``None``: no reasons read)."""

    memory_used_peak_bytes: Number | None = None
    utilization_mean_pct: Number | None = None
    throttling_seen: list[str] | None = None


class GpuTelemetry(_Section):
    """The GPU sampler's section (per level and for the run): ``available`` false with
    ``reason`` on a machine without an NVIDIA GPU; ``gpus`` by NVML index (as text)."""

    available: bool | None = None
    reason: str | None = None
    interval_s: float | None = Field(None, description="sampling interval, s")
    sample_count: int | None = None
    gpus: dict[str, GpuStats] = Field(default_factory=dict)
    headline: GpuHeadline | None = None
    nvml_errors: dict[str, str] | None = None
    samples_file: str | None = Field(None, description="name of the samples file in the run directory")
    energy_j: Number | None = Field(None, description="NVML total-energy delta over the window, serving GPUs "
                                                       "summed, joules")
    energy_by_gpu_j: dict[str, Number | None] | None = Field(None, description="each GPU's delta, joules")
    energy_gpus: list[int] | None = Field(None, description="NVML indices of the GPUs summed")
    energy_gpus_rule: str | None = Field(None, description="how those GPUs were chosen")
    energy_window_s: Number | None = Field(None, description="duration between the two counter readings, s")
    energy_power_w: Number | None = Field(None, description="energy_j ÷ energy_window_s, watts")
    energy_tokens: int | None = Field(None, description="output tokens of the level, warm-up included")
    energy_j_per_token: Number | None = Field(None, description="energy_j ÷ energy_tokens, joules per token")
    energy_reason: str | None = Field(None, description="why the energy figures are null")

    def figures(self) -> GpuHeadline:
        """``headline`` as written, else computed from ``gpus`` the same way."""
        if self.headline is not None:
            return self.headline
        peaks = [g.memory_used_peak_bytes for g in self.gpus.values() if g.memory_used_peak_bytes is not None]
        utils = [g.utilization_mean_pct for g in self.gpus.values() if g.utilization_mean_pct is not None]
        seen = [g.throttling_seen for g in self.gpus.values() if g.throttling_seen is not None]
        return GpuHeadline(memory_used_peak_bytes=max(peaks) if peaks else None,
                           utilization_mean_pct=sum(utils) / len(utils) if utils else None,
                           throttling_seen=sorted({r for s in seen for r in s}) if seen else None)


class CrossCheck(_Section):
    """The server's generation-token counter delta against the tokens tokcheck counted."""

    server_generation_tokens: Number | None = None
    counted_tokens: Number | None = None
    difference: Number | None = None
    match: bool | None = None
    reason: str | None = None


class MetricsDuring(_Section):
    """Gauges of the server's ``/metrics`` while a level ran: their maxima, and the scrapes."""

    scrapes: int | None = None
    requests_running_max: Number | None = None
    requests_waiting_max: Number | None = None
    kv_cache_usage_fraction_max: Number | None = Field(None, description="fraction, 0–1")


class Counters(_Section):
    """Deltas of the server's counters over a window (``tokcheck.machine.telemetry.COUNTERS``);
    ``None``: the counter went down (the server restarted). Tokens, drafts or requests."""

    generation_tokens: Number | None = None
    prompt_tokens: Number | None = None
    prefix_cache_queries: Number | None = None
    prefix_cache_hits: Number | None = None
    spec_decode_drafts: Number | None = None
    spec_decode_draft_tokens: Number | None = None
    spec_decode_accepted_tokens: Number | None = None
    preemptions: Number | None = None
    requests_finished: Number | None = None


class ServerMetrics(_Section):
    """The ``/metrics`` scraper's section: counter deltas over the level, ratios (each ``None``
    with a ``*_reason`` when not computable), the gauges while it ran and the token cross-check."""

    url: str | None = None
    reason: str | None = None
    counters: Counters = Field(default_factory=Counters)
    counters_reasons: dict[str, str] | None = None
    spec_decode_acceptance_rate: float | None = None
    spec_decode_acceptance_rate_reason: str | None = None
    spec_decode_mean_accepted_length: float | None = None
    spec_decode_mean_accepted_length_reason: str | None = None
    prefix_cache_hit_rate: float | None = None
    prefix_cache_hit_rate_reason: str | None = None
    during: MetricsDuring | None = None
    cross_check: CrossCheck | None = None
    window_ns: list[int] | None = Field(None, description="[before, after] scrape stamps, ns")
    scrapes_during: int | None = None
    errors: list[str] | None = None


class Telemetry(_Section):
    """What the bench hooks return: ``gpu`` (NVML sampler) and ``server_metrics`` (``/metrics``),
    per level (summary.json) and for the run (run.json). Other hooks' keys are kept."""

    gpu: GpuTelemetry | None = None
    server_metrics: ServerMetrics | None = None

    @property
    def gpu_figures(self) -> GpuHeadline:
        """:meth:`GpuTelemetry.figures`; all ``None`` without GPU telemetry."""
        return self.gpu.figures() if self.gpu is not None else GpuHeadline()

    @property
    def metrics(self) -> ServerMetrics:
        """``server_metrics``, or an empty section (every figure ``None``)."""
        return self.server_metrics or ServerMetrics()

    @property
    def during(self) -> MetricsDuring:
        """``server_metrics.during``, or an empty section."""
        return self.metrics.during or MetricsDuring()


# --------------------------------------------------------------------------- summary.json


class MetricStat(BaseModel):
    """One metric over a level, in the metric's unit (:mod:`tokcheck.core.stats`): ``median`` is
    the rounds' trimmed median, ``spread`` the range (max − min) of all rounds' medians,
    ``range_all`` that range as [min, max], ``spread_kept`` the range of the kept rounds;
    ``mean``, ``p90`` and ``p99`` are over all values; ``n`` the number of values."""

    mean: float
    median: float
    p90: float
    p99: float
    rounds: list[float | None]
    spread: float
    range_all: list[float] | None = None
    spread_kept: float | None = None
    n: int = 0


class LengthStat(BaseModel):
    """Lengths in tokens over a level's successful measured requests: what actually arrived
    (output) or was read (input), beside what was ``requested``. ``source``: ``tokenizer``
    (counted here) or ``usage`` (the server's ``prompt_tokens``)."""

    mean: float
    median: float
    min: int
    max: int
    n: int
    requested: int | None = None
    source: str | None = None


class Quantiles(BaseModel):
    """p50, p99 and max of a client-side delay, ms."""

    p50: float
    p99: float
    max: float


class ClientHealth(BaseModel):
    """How healthy the client was while it measured a level (``docs/measurement.md``, "The
    client's own health"). ``bound``: true when the client, not the server, limited the numbers
    (``reasons`` says why); then verify and the report name the client as the cause.

    Attributes:
        loop_lag_ms: lateness of a heartbeat on the recorder's event loop (every 2 ms), ms.
        heartbeats: heartbeats taken; ``stalls``: those late by more than the stall threshold
            beyond the time the thread waited for a CPU (the client's own stalls).
        cpu_percent: CPU time of the client processes (event loop process and measurement
            worker) ÷ wall time, percent of one core.
        loop_thread_cpu_percent: the event-loop thread's CPU time ÷ wall time, percent.
        run_queue_wait_percent: time the event-loop thread was ready but waited for a CPU ÷
            wall time, percent (Linux ``schedstat``; None elsewhere).
        wakeup_latency_ms: that wait per time it was scheduled, ms (Linux).
        stamp_delay_ms: client stamp − server write, where a server on this machine wrote its
            own clock into its chunks; p50 of the requests' medians, p99 and max of their maxima.
        untrusted_requests: successful requests with a client mark (``client_marks``).
        ceiling_tok_s: this machine's client ceiling from ``tokcheck probe``, when known.
    """

    model_config = ConfigDict(extra="allow")

    loop_lag_ms: Quantiles | None = None
    heartbeats: int = 0
    stalls: int = 0
    cpu_percent: float | None = None
    loop_thread_cpu_percent: float | None = None
    run_queue_wait_percent: float | None = None
    wakeup_latency_ms: float | None = None
    stamp_delay_ms: Quantiles | None = None
    untrusted_requests: int = 0
    ceiling_tok_s: float | None = None
    bound: bool = False
    reasons: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Figure:
    """A level's value of one metric, whatever its kind: ``value`` (the rounds' trimmed median),
    ``spread`` and ``rounds`` (per-round values); ``p99`` for distributions; ``reason`` when
    ``value`` is ``None``."""

    value: float | None
    spread: float | None = None
    rounds: list[float | None] | None = None
    p99: float | None = None
    reason: str | None = None

    @property
    def ci95(self) -> confidence.Interval | None:
        """The 95 % confidence interval across rounds (:mod:`tokcheck.core.confidence`), from
        ``rounds``; ``None`` with fewer than two rounds or no value."""
        if self.value is None:
            return None
        return confidence.ci95(self.rounds or [])


class SloObjectiveResult(BaseModel):
    """One SLO objective at a level (:mod:`tokcheck.core.slo`)."""

    metric: str = Field(description="``ttft_ms``, ``tpot_ms``, ``itl_ms`` or ``e2e_latency_ms``")
    limit_ms: float = Field(description="the limit, ms")
    percentile: float = Field(description="the percentile the level is judged at, 0–100")
    value_ms: float | None = Field(None, description="the level's value at that percentile (failed requests "
                                                     "count as infinite), ms")
    met: bool | None = Field(None, description="value_ms ≤ limit_ms")
    share_met: float | None = Field(None, description="share of measured requests meeting it, 0–1")


class SloResult(BaseModel):
    """The level under an SLO (``record/slo.py``): per objective, the share of requests meeting
    each and all of them, goodput, and whether the level meets the SLO at its percentiles."""

    spec: str = Field(description="the SLO as given (``ttft_ms=500,tpot_ms=30``, ``mlperf:…``)")
    text: str = Field(description="canonical form, ``ttft_ms<=500@p99,…``")
    source: str | None = Field(None, description="where a preset's limits come from")
    objectives: list[SloObjectiveResult] = Field(default_factory=list)
    requests: int = Field(0, description="measured requests, failed included")
    share_met_all: float | None = Field(None, description="share of measured requests meeting every objective")
    met: bool | None = Field(None, description="every objective met at its percentile")
    goodput_rps: float | None = Field(None, description="rounds' trimmed median of good requests ÷ the round's window, req/s")
    goodput_rps_rounds: list[float | None] = Field(default_factory=list)
    goodput_tok_s: float | None = Field(None, description="same for their output tokens, tok/s")
    goodput_tok_s_rounds: list[float | None] = Field(default_factory=list)
    reason: str | None = Field(None, description="why goodput is null")


class _LevelSummaryBase(BaseModel):
    """One level of ``summary.json``: the level, request counts, and each metric of
    :data:`tokcheck.core.metric_table.METRICS` — ``<name>`` (a :class:`MetricStat`, or for a
    per-round metric its trimmed median with ``<name>_rounds`` and ``<name>_spread``) and
    ``<name>_reason`` when it is null. Defaults are what an older summary lacks."""

    model_config = ConfigDict(extra="allow")

    label: str = Field(description="the level's label, as the requests' ``level`` (``c=4``, ``rate=2``)")
    concurrency: int | None = Field(None, description="closed loop: requests in flight; None in open loop")
    request_rate: float | None = Field(None, description="open loop: arrivals per second")
    max_in_flight: int | None = Field(None, description="open loop: cap on requests in flight")
    rounds: int = Field(0, description="rounds measured")
    requests_ok: int = Field(0, description="successful measured requests")
    requests_failed: int = Field(0, description="failed measured requests")
    errors: dict[str, int] = Field(default_factory=dict, description="failed requests by error kind")
    defects: dict[str, int] = Field(default_factory=dict, description="requests by protocol defect")
    early_stops: int = Field(0, description="successful requests with another output length than asked")
    usage_mismatches: int = Field(0, description="requests whose usage count and tokenizer count differ")
    tpot_undefined_requests: int = Field(0, description="successful requests whose every token came in one read")
    coalesced_token_share: float | None = Field(
        None, description="share of tokens that arrived in a read holding several SSE events")
    sse_events_per_chunk: float | None = Field(None, description="SSE events per token-carrying read")
    telemetry: Telemetry | None = Field(None, description="what the telemetry hooks saw during the level")
    slo: SloResult | None = Field(None, description="the level under the run's SLO (bench --slo)")
    ci95: dict[str, list[float]] | None = Field(
        None, description="metric → [low, high], 95 % confidence interval across rounds (core/confidence.py)")
    output_tokens: LengthStat | None = Field(None, description="output tokens that arrived per request")
    input_tokens: LengthStat | None = Field(None, description="prompt tokens per request")
    client: ClientHealth | None = Field(None, description="the client's own health during the level")
    warnings: list[str] = Field(default_factory=list,
                                description="what makes the level's numbers doubtful, in words")

    @property
    def level(self) -> Level:
        """The level as a :class:`~tokcheck.record.level.Level` (compare levels with this)."""
        return Level(concurrency=self.concurrency, request_rate=self.request_rate,
                     max_in_flight=self.max_in_flight)

    def stat(self, name: str) -> MetricStat | None:
        """The distribution of metric ``name`` (``None`` when null or a per-round metric)."""
        v = getattr(self, name, None)
        return v if isinstance(v, MetricStat) else None

    def reason(self, name: str) -> str | None:
        """Why metric ``name`` is null (``None`` when it has a value or no reason was written)."""
        return getattr(self, f"{name}_reason", None)

    def figure(self, name: str) -> Figure:
        """Metric ``name`` at this level as a :class:`Figure` (every kind of metric)."""
        m = metric_table.METRIC.get(name)
        if m is not None and m.kind == "level" and m.from_level is not None:
            value, rounds, why = m.from_level(self)
            vals = [v for v in rounds or [] if v is not None]
            return Figure(value, max(vals) - min(vals) if vals else None, rounds, None, why)
        if m is not None and m.kind == "round":
            return Figure(getattr(self, name, None), getattr(self, f"{name}_spread", None),
                          getattr(self, f"{name}_rounds", None), None, self.reason(name))
        st = self.stat(name)
        if st is None:
            return Figure(None, reason=self.reason(name))
        return Figure(st.median, st.spread, st.rounds, st.p99)


def _metric_fields() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in metric_table.METRICS:
        what = f"{m.label} ({m.unit}): {m.definition}"
        if m.kind == "level":
            continue  # held elsewhere in the level (its ``from_level`` reads it)
        if m.kind == "round":
            out[m.name] = (float | None, Field(None, description=f"{what}; the rounds' trimmed median"))
            out[f"{m.name}_rounds"] = (list[float | None], Field(default_factory=list,
                                                                   description=f"{m.label} of each round"))
            out[f"{m.name}_spread"] = (float | None, Field(None, description="max − min of all rounds"))
        else:
            out[m.name] = (MetricStat | None, Field(None, description=what))
        out[f"{m.name}_reason"] = (str | None, Field(None, description=f"why {m.name} is null"))
    return out


#: ``summary.json`` per level (see :class:`_LevelSummaryBase`); its metric fields come from
#: the metric table.
LevelSummary = create_model("LevelSummary", __base__=_LevelSummaryBase, __module__=__name__,
                            **_metric_fields())
LevelSummary.__doc__ = _LevelSummaryBase.__doc__


class Summary(BaseModel):
    """``summary.json``: one :class:`LevelSummary` per level, in run order. ``interrupted``:
    the run was stopped (Ctrl-C) and the last level covers the requests that completed."""

    model_config = ConfigDict(extra="allow")

    tokcheck_version: str = __version__
    schema_version: int = SCHEMA_VERSION
    run_id: str | None = None
    run_dir: str | None = None
    interrupted: bool = False
    levels: list[LevelSummary] = Field(default_factory=list)  # type: ignore[valid-type]


# --------------------------------------------------------------------------- run.json


class Clock(_Section):
    """Ties the requests' clock to wall time."""

    perf_counter_ns_at_start: int | None = Field(None, description="perf_counter_ns at the run's start")
    unix_ns_at_start: int | None = Field(None, description="time.time_ns() at the same moment")


class Endpoint(_Section):
    url: str | None = Field(None, description="the server's base URL")
    api: str | None = Field(None, description="``completions`` or ``chat``")
    model: str | None = Field(None, description="the model name sent in each request")


class ServerInfo(_Section):
    """The server's own answers: ``/version``, the ids of ``/v1/models`` and the
    ``max_model_len`` it states there for the model (tokens)."""

    version: str | None = None
    models: list[str | None] | None = None
    max_model_len: int | None = None


class TokenizerIdentity(_Section):
    source: str | None = Field(None, description="tokenizer.json or model directory given to bench")
    sha256: str | None = Field(None, description="sha256 of tokenizer.json")
    vocab_size: int | None = None


class PromptTokensCheck(_Section):
    """The prompt's length in tokens by three counters (they should agree)."""

    tokenizer: int | None = None
    server_usage: int | None = None
    server_tokenize: int | None = None


class Workload(_Section):
    input_len: int | None = Field(None, description="prompt tokens asked")
    output_len: int | None = Field(None, description="output tokens asked")
    prompts_sha256: str | None = None
    prompts: int | None = Field(None, description="prompts built")
    output_forcing: str | None = Field(None, description="parameters that forced the output length")
    output_forcing_rejected: list[str] | None = None
    output_forcing_held: bool | None = Field(
        None, description="every successful request delivered the asked output length (judged by what arrived)")
    output_tokens_delivered: dict[str, Number] | None = Field(
        None, description="output tokens that arrived over the run: mean, min, max")
    temperature: float | None = None
    seed: int | None = None
    prompt_tokens_check: PromptTokensCheck | None = None


class Load(_Section):
    mode: str = Field("closed", description="``closed`` (concurrency) or ``open`` (request rate)")
    concurrency: list[int] | None = Field(None, description="closed-loop levels")
    max_in_flight: int | None = Field(None, description="open loop: cap on requests in flight")
    request_rate: list[float] | None = Field(None, description="open-loop levels, requests/s")
    rounds: int | None = None
    warmup: int | None = Field(None, description="warm-up requests per level")
    requests_per_round: list[int] | int | None = Field(None, description="per level (older runs: one number)")


class ClientCeiling(_Section):
    """This machine's client ceiling, measured by ``tokcheck probe`` (``tokcheck.loadgen.probe``)."""

    tok_s: float | None = Field(None, description="highest aggregate output throughput the client measured, tok/s")
    at_concurrency: int | None = None
    ttft_error_ms: float | None = Field(None, description="median TTFT error at that rung, ms")
    ttft_floor_ms: float | None = Field(None, description="the smallest TTFT this client can see, ms")
    measured_at: str | None = Field(None, description="UTC, ISO 8601")
    machine: str | None = Field(None, description="the machine key it was stored under")


class ClientInfo(_Section):
    host: str | None = None
    python: str | None = None
    platform: str | None = None
    http: str | None = None
    connections: str | None = Field(None, description="``reuse`` (keep-alive) or ``new`` (one per request)")
    event_loop: str | None = None
    pid: int | None = None
    ceiling: ClientCeiling | None = None


class EngineReport(_Section):
    """What the engine's start-up log states (``tokcheck.engines``; ``docs/engines.md``)."""

    engine: str | None = None
    version: str | None = None
    model: str | None = None
    served_model_name: str | None = None
    architecture: str | None = None
    dtype: str | None = None
    quantization: str | None = Field(None, description="``none`` when the engine states quantization=None")
    quantization_config: Any = None
    kv_cache_dtype: str | None = None
    speculative_config: Any = None
    speculative_decoding: bool | None = None
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None
    enforce_eager: bool | None = None
    compilation_mode: str | None = None
    cudagraph_mode: str | None = None
    max_seq_len: int | None = Field(None, description="tokens")
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    device: str | None = Field(None, description="``cpu`` or ``cuda``")
    kv_cache_tokens: int | None = Field(None, description="tokens the KV cache holds")
    kv_cache_memory_gib: float | None = Field(None, description="GiB")
    max_concurrency: float | None = Field(None, description="requests of max_concurrency_tokens that fit")
    max_concurrency_tokens: int | None = None
    seed: int | None = None
    non_default_args: dict[str, Any] | None = None


class ServeSettings(_Section):
    """How tokcheck started the server (``serve`` in run.json)."""

    engine: str | None = None
    model: str | None = None
    dtype: str | None = None
    max_model_len: int | None = Field(None, description="tokens")
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    quantization: str | None = None
    quantization_flag: Any = None
    enforce_eager: bool | None = None
    extra_args: list[str] | None = None
    argv: list[str] | None = None
    startup_s: float | None = Field(None, description="seconds from start to healthy")


class PrecisionReport(_Section):
    """The weights audit (``tokcheck.machine.weights``): ``full_precision`` true, false
    (quantized) or null (unknown), with the reasons it rests on."""

    source: str | None = None
    path: str | None = None
    full_precision: bool | None = None
    verdict: str | None = None
    reasons: list[str] = Field(default_factory=list)
    method: str | None = None
    precision: str | None = None
    config_dtype: str | None = None
    quantization_config: Any = None
    kv_cache_dtype: str | None = None
    weight_files: list[Any] = Field(default_factory=list)
    artifacts: list[Any] = Field(default_factory=list)
    parameter_count: int | None = None
    weight_bytes: int | None = Field(None, description="bytes")
    bytes_by_dtype: dict[str, int] = Field(default_factory=dict)
    params_by_dtype: dict[str, int] = Field(default_factory=dict)
    quantized_bytes_share: float | None = None


class GpuProcessInfo(_Section):
    pid: int | None = None
    name: str | None = None
    used_memory_bytes: int | None = Field(None, description="bytes; None where NVML cannot see it")
    kind: str | None = None


class GpuInfoRecord(_Section):
    """One GPU as the doctor saw it before the run (``tokcheck.machine.nvml.GpuInfo``)."""

    index: int | None = None
    name: str | None = None
    uuid: str | None = None
    memory_total_bytes: Number | None = None
    memory_used_bytes: Number | None = None
    memory_free_bytes: Number | None = None
    utilization_gpu_pct: Number | None = Field(None, description="percent")
    utilization_memory_pct: Number | None = None
    power_draw_w: Number | None = None
    power_limit_w: Number | None = None
    temperature_c: Number | None = None
    processes: list[GpuProcessInfo] = Field(default_factory=list)


class GpuEnvironment(_Section):
    """NVML's view of the machine (``tokcheck.machine.nvml.NvmlReport``)."""

    available: bool | None = None
    reason: str | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    nvml_version: str | None = None
    gpus: list[GpuInfoRecord] = Field(default_factory=list)


class Environment(_Section):
    """The machine (``tokcheck.machine.doctor.environment_report``): GPUs, toolchain, mismatches."""

    tokcheck_version: str | None = None
    created_at: str | None = None
    gpu: GpuEnvironment | None = None
    toolchain: dict[str, Any] | None = None
    mismatches: list[Any] | None = None

    def gpu_list(self) -> list[GpuInfoRecord] | None:
        """The GPUs; ``[]`` when the report says there is none, ``None`` when it does not say."""
        if self.gpu is None:
            return None
        if self.gpu.gpus:
            return list(self.gpu.gpus)
        if self.gpu.available is False or "gpus" in self.gpu.model_fields_set:
            return []
        return None


class RunConditions(_Section):
    """``run.json``: every condition of a run. Sections other modules write (``engine_report``,
    ``serve``, ``precision_report``, ``environment``) are present when they ran."""

    tokcheck_version: str | None = None
    schema_version: int | None = None
    run_id: str | None = None
    created_at: str | None = Field(None, description="UTC, ISO 8601")
    finished_at: str | None = Field(None, description="UTC, ISO 8601")
    interrupted: bool | None = None
    clock: Clock | None = None
    endpoint: Endpoint | None = None
    server: ServerInfo | None = None
    tokenizer: TokenizerIdentity | None = None
    workload: Workload | None = None
    load: Load | None = None
    stream_options: dict[str, Any] | None = None
    timeout_s: float | None = Field(None, description="per-request timeout, s")
    client: ClientInfo | None = None
    engine_report: EngineReport | None = None
    serve: ServeSettings | None = None
    precision_report: PrecisionReport | None = None
    environment: Environment | None = None
    telemetry: Telemetry | None = None
    measurement_errors: list[str] | None = None
    slo: dict[str, Any] | None = Field(None, description="the SLO levels were judged by: spec, text, source")
    search: dict[str, Any] | None = Field(None, description="sweep --find-max: this run's step of the search")
