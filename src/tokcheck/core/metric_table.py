"""The metric table: every metric tokcheck reports, defined once (``docs/measurement.md``).

Each :class:`Metric` says its name (the key in ``summary.json``, unit included), its unit, the
pure function that computes it, whether lower or higher is better, its label for people, why
its value may be null, and where it is shown. The summary (:mod:`tokcheck.record.summarize`),
the terminal tables, the report, the CSV, ``compare`` and ``verify`` iterate over
:data:`METRICS`; adding a metric is a row here (and its test).

Kinds of metric:

- ``request``: one value per successful request (TTFT, TPOT, …);
- ``token``: one value per output token after the first read (ITL);
- ``chunk``: one value per read that carried tokens (tokens per chunk);
- ``round``: one value per round from all of its requests (aggregate output throughput);
- ``level``: a value another part of the record holds for the level — goodput under an SLO
  (``record/slo.py``), energy per token from NVML (``machine/telemetry.py``) — read by
  ``from_level``; the summary does not compute it from the requests.

Per-level values: for ``request``/``token``/``chunk`` metrics a distribution
(:func:`tokcheck.core.stats.distribution`: mean, the rounds' trimmed median, p90, p99, per-round
medians, spread); for ``round`` metrics the rounds' trimmed median and the spread
(:func:`tokcheck.core.stats.rounds_value`); for ``level`` metrics what ``from_level`` reads.

The functions take request records by duck typing (any object with the fields of
``tokcheck.record.schema.RequestRecord``): the core does not import the record layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tokcheck.core import metrics

Kind = Literal["request", "token", "chunk", "round", "level"]

#: Views that iterate over the table (``Metric.shown_in``).
VIEWS = ("bench", "report", "compare", "sweep", "csv")

#: Why every metric of a level is null when the level has no successful request.
REASON_NO_OK = "no successful requests"


@dataclass(frozen=True)
class Metric:
    """One metric.

    Attributes:
        name: the key in ``summary.json`` and ``requests.jsonl`` (unit in the name: ``ttft_ms``).
        label: for people (``"TTFT"``); tables add the unit.
        unit: ``"ms"``, ``"tok/s"``, ``"req/s"`` or ``"tokens"``.
        kind: see the module doc.
        values: for ``request``/``token``/``chunk`` kinds: a successful request → its values.
        per_round: for the ``round`` kind: (the round's requests with a send and an end time,
            its successful requests) → the round's value, ``None`` when undefined.
        higher_is_better: ``True``/``False``; ``None`` when neither (a description, not a score).
        null_reason: why the level's value is null although some requests succeeded.
        definition: the formula in words (verify's ``metric_definition``).
        headline: the name of the level's single number in comparisons, when it is not
            ``label`` (``"median TTFT"``).
        claim_name: the claim parser's name for this metric (``"ttft"``), if a claim can state it.
        shown_in: the views that show it (:data:`VIEWS`).
        extras: statistics shown beside the median where the view has room (``"p99"``,
            ``"spread"``).
        digits: decimals in terminal tables.
        needs_tpot: withheld (null with a reason) when too many requests had no TPOT
            (:data:`tokcheck.record.summarize.TPOT_UNDEFINED_MAX_SHARE`).
        from_level: for the ``level`` kind: a level summary → ``(value, per-round values or
            None, reason when the value is None)``.
        only_when_set: views leave it out when no level has a value (goodput without an SLO,
            energy without a GPU); the summary still says why it is null.
        mark: the client mark (a request record's ``client_marks``) that leaves a request out
            of this metric: the client could not vouch for the stamps it rests on.
        open_only: shown only where a run has an open-loop level (it equals another metric
            in a closed loop, or is undefined there).
    """

    name: str
    label: str
    unit: str
    kind: Kind
    higher_is_better: bool | None
    null_reason: str
    definition: str
    values: Callable[[Any], list[float]] | None = None
    per_round: Callable[[Sequence[Any], Sequence[Any]], float | None] | None = None
    headline: str | None = None
    claim_name: str | None = None
    shown_in: frozenset[str] = frozenset()
    extras: tuple[str, ...] = ()
    digits: int = 1
    needs_tpot: bool = False
    from_level: Callable[[Any], tuple[float | None, list[float | None] | None, str | None]] | None = None
    only_when_set: bool = False
    mark: str | None = None
    open_only: bool = False

    @property
    def title(self) -> str:
        """The level's single number named for comparisons: ``headline`` or ``label``."""
        return self.headline or self.label


def with_unit(label: str, unit: str) -> str:
    """``label`` with ``(unit)`` appended unless the label already says it:
    ``"median TTFT (ms)"``, ``"generation tok/s per request"``."""
    if not unit or unit.lower() in label.lower():
        return label
    return f"{label} ({unit})"


def _field(name: str, mark: str | None = None) -> Callable[[Any], list[float]]:
    """The value a request record stores under ``name`` (computed by the measurement from its
    stamps, :mod:`tokcheck.loadgen.measure`), as a list of zero or one value; none when the
    record carries the client mark ``mark`` (its stamps are not vouched for)."""
    def get(r: Any) -> list[float]:
        if mark is not None and mark in (getattr(r, "client_marks", None) or ()):
            return []
        v = getattr(r, name, None)
        return [v] if v is not None else []
    return get


def _itl(r: Any) -> list[float]:
    if "tpot" in (getattr(r, "client_marks", None) or ()):
        return []
    return metrics.itl_ms(r.chunks)


def _tokens_per_chunk(r: Any) -> list[float]:
    return [float(k) for _, k in metrics.merge_reads(r.chunks)[0]]


def _window(in_round: Sequence[Any]) -> tuple[int, int]:
    """(first send, last end) of a round's requests, ns."""
    return min(r.t_send_ns for r in in_round), max(r.t_end_ns for r in in_round)


def _output_throughput(in_round: Sequence[Any], ok: Sequence[Any]) -> float | None:
    return metrics.output_throughput_tok_s([r.n_out or 0 for r in ok], *_window(in_round))


def _request_throughput(in_round: Sequence[Any], ok: Sequence[Any]) -> float | None:
    return metrics.request_throughput_rps(len(ok), *_window(in_round))


def _slo_figure(name: str) -> Callable[[Any], tuple[float | None, list[float | None] | None, str | None]]:
    """Goodput under the level's SLO (``slo`` of a level summary, written by ``record/slo.py``)."""
    def read(lv: Any) -> tuple[float | None, list[float | None] | None, str | None]:
        slo = getattr(lv, "slo", None)
        if slo is None:
            return None, None, "no SLO given (bench --slo)"
        value = getattr(slo, name)
        return value, getattr(slo, f"{name}_rounds", None), None if value is not None else slo.reason
    return read


def _energy_figure(name: str) -> Callable[[Any], tuple[float | None, list[float | None] | None, str | None]]:
    """Energy figures of the level's GPU telemetry (``telemetry.gpu``, ``machine/telemetry.py``)."""
    def read(lv: Any) -> tuple[float | None, list[float | None] | None, str | None]:
        gpu = getattr(getattr(lv, "telemetry", None), "gpu", None)
        if gpu is None:
            return None, None, "no GPU telemetry in this run (no local server, or --no-telemetry)"
        value = getattr(gpu, name, None)
        if value is None:
            why = getattr(gpu, "energy_reason", None) or getattr(gpu, "reason", None) or "no energy reading"
            return None, None, why
        return value, None, None
    return read
def _peak_output_throughput(in_round: Sequence[Any], ok: Sequence[Any]) -> float | None:
    return metrics.peak_output_throughput_tok_s([r.chunks for r in ok], *_window(in_round))


def _open_loop(in_round: Sequence[Any]) -> bool:
    return any(getattr(r, "latency_from", "send") == "due" for r in in_round)


def _offered_rate(in_round: Sequence[Any], ok: Sequence[Any]) -> float | None:
    if not _open_loop(in_round):
        return None
    return metrics.rate_rps([r.t_due_ns for r in in_round if r.t_due_ns is not None])


def _achieved_rate(in_round: Sequence[Any], ok: Sequence[Any]) -> float | None:
    return metrics.rate_rps([r.t_send_ns for r in in_round])


_ALL = frozenset(VIEWS)

METRICS: tuple[Metric, ...] = (
    Metric("ttft_ms", "TTFT", "ms", "request", False,
           "no request had a first token",
           "TTFT (send → first token of any channel; open loop: scheduled send → first token)",
           values=_field("ttft_ms", "ttft"), headline="median TTFT", claim_name="ttft",
           shown_in=_ALL, extras=("p99",), mark="ttft"),
    Metric("ttfo_ms", "TTFO", "ms", "request", False,
           "no request had a token of the answer (only reasoning, or nothing)",
           "time to first output of the answer (reasoning excluded; same start as TTFT)",
           values=_field("ttfo_ms", "ttft"), shown_in=frozenset({"bench", "report", "csv"}), mark="ttft"),
    Metric("tpot_ms", "TPOT", "ms", "request", False,
           "no request had a token after its first chunk (TPOT undefined)",
           "TPOT = (last token − first token) ÷ (tokens − tokens of the first read)",
           values=_field("tpot_ms", "tpot"), shown_in=frozenset({"bench", "report", "csv"}), digits=2,
           needs_tpot=True, mark="tpot"),
    Metric("itl_ms", "ITL", "ms", "token", False,
           "no request had more than one token-carrying chunk",
           "ITL per token: a read of k tokens after a gap g gives k values g/k",
           values=_itl, shown_in=frozenset({"bench", "compare"}), extras=("p99",), digits=2, mark="tpot"),
    Metric("generation_tok_s", "generation tok/s", "tok/s", "request", True,
           "no request had a token after its first chunk (TPOT undefined)",
           "generation tok/s (per request, from the first token on; TTFT excluded)",
           values=_field("generation_tok_s", "tpot"), headline="generation tok/s per request",
           claim_name="generation_tok_s", shown_in=_ALL, extras=("spread",), needs_tpot=True, mark="tpot"),
    Metric("e2e_latency_ms", "E2E latency", "ms", "request", False,
           "no request ended", "E2E latency (send → end of stream; open loop: scheduled send → end)",
           values=_field("e2e_latency_ms", "e2e"), shown_in=frozenset({"bench", "compare", "csv"}), digits=0,
           mark="e2e"),
    Metric("e2e_tok_s", "E2E tok/s", "tok/s", "request", True,
           "no request ended after its send", "end-to-end tok/s (per request, output tokens ÷ E2E latency)",
           values=_field("e2e_tok_s", "e2e"), claim_name="e2e_tok_s",
           shown_in=frozenset({"bench", "report", "csv"}), mark="e2e"),
    Metric("output_throughput_tok_s", "aggregate output throughput", "tok/s", "round", True,
           "no round had a successful request", "aggregate output throughput (all requests' tokens ÷ window)",
           per_round=_output_throughput, claim_name="aggregate_throughput",
           shown_in=frozenset({"bench", "report", "compare", "sweep"})),
    Metric("peak_output_throughput_tok_s", "peak output throughput", "tok/s", "round", True,
           "no round had a successful request",
           "peak output throughput (most tokens in one of the round's consecutive 1 s windows ÷ its length)",
           per_round=_peak_output_throughput, shown_in=frozenset({"bench", "report"})),
    Metric("request_throughput_rps", "request throughput", "req/s", "round", True,
           "no round had a successful request", "request throughput (completed requests ÷ window)",
           per_round=_request_throughput, shown_in=frozenset({"bench", "report"}), digits=2),
    Metric("offered_rate_rps", "offered rate", "req/s", "round", None,
           "not an open-loop level (no schedule)", "offered rate (the schedule's arrivals per second)",
           per_round=_offered_rate, shown_in=frozenset({"bench", "report"}), digits=2, open_only=True),
    Metric("achieved_rate_rps", "achieved rate", "req/s", "round", None,
           "fewer than two requests were sent", "achieved rate (requests actually sent per second)",
           per_round=_achieved_rate, shown_in=frozenset({"bench", "report"}), digits=2, open_only=True),
    Metric("queue_delay_ms", "queue delay", "ms", "request", False,
           "no request had a due time", "queue delay (due → send: how late the client sent)",
           values=_field("queue_delay_ms"), shown_in=frozenset({"bench", "csv"}), digits=2),
    Metric("tokens_per_chunk", "tokens per chunk", "tokens", "chunk", None,
           "no request had a token-carrying chunk", "tokens per chunk (what arrived in one read)",
           values=_tokens_per_chunk, shown_in=frozenset({"bench"}), digits=2),
    Metric("ttft_from_send_ms", "TTFT from send", "ms", "request", False,
           "no request had a first token", "TTFT from the real send (send → first token)",
           values=_field("ttft_from_send_ms", "ttft"), shown_in=frozenset({"bench", "csv"}),
           mark="ttft", open_only=True),
    Metric("ttft_from_due_ms", "TTFT from due time", "ms", "request", False,
           "no request had a due time", "TTFT from the due time (due → first token)",
           values=_field("ttft_from_due_ms", "ttft"), mark="ttft"),
    Metric("goodput_rps", "goodput", "req/s", "level", True, "no SLO given (bench --slo)",
           "goodput (requests meeting every SLO objective ÷ the throughput window)",
           from_level=_slo_figure("goodput_rps"), shown_in=frozenset({"bench", "report", "compare"}),
           digits=2, only_when_set=True),
    Metric("goodput_tok_s", "token goodput", "tok/s", "level", True, "no SLO given (bench --slo)",
           "goodput in tokens (output tokens of requests meeting every SLO objective ÷ the window)",
           from_level=_slo_figure("goodput_tok_s"), shown_in=frozenset({"bench", "report", "compare"}),
           only_when_set=True),
    Metric("energy_j_per_token", "energy per output token", "J/token", "level", False,
           "no NVIDIA GPU energy counter",
           "GPU energy per output token (NVML total-energy delta over the level, summed over the "
           "serving GPUs, ÷ the level's output tokens, warm-up included)",
           from_level=_energy_figure("energy_j_per_token"), shown_in=frozenset({"bench", "report", "compare"}),
           digits=3, only_when_set=True),
    Metric("energy_power_w", "GPU power (energy ÷ time)", "W", "level", None,
           "no NVIDIA GPU energy counter",
           "mean GPU power over the level: NVML energy delta ÷ the level's duration, serving GPUs summed",
           from_level=_energy_figure("energy_power_w"), shown_in=frozenset({"bench", "report"}),
           digits=0, only_when_set=True),
    Metric("e2e_latency_from_send_ms", "E2E latency from send", "ms", "request", False,
           "no request ended", "E2E latency from the real send (send → end of stream)",
           values=_field("e2e_latency_from_send_ms", "e2e"), shown_in=frozenset({"csv"}), digits=0,
           mark="e2e", open_only=True),
    Metric("usage_difference_tokens", "usage − counted", "tokens", "request", None,
           "the server sent no usage", "usage.completion_tokens − the tokenizer's count of what was streamed",
           values=_field("usage_difference"), shown_in=frozenset({"csv"}), digits=1),
)

#: Metrics by name.
METRIC: dict[str, Metric] = {m.name: m for m in METRICS}

#: Metrics by the claim parser's name (``"ttft"``, ``"aggregate_throughput"``, …).
BY_CLAIM_NAME: dict[str, Metric] = {m.claim_name: m for m in METRICS if m.claim_name}


def shown_in(view: str) -> tuple[Metric, ...]:
    """The metrics a view shows, in table order."""
    return tuple(m for m in METRICS if view in m.shown_in)


def shown_for(view: str, levels: Sequence[Any]) -> tuple[Metric, ...]:
    """:func:`shown_in`, less the ``only_when_set`` metrics that no level of ``levels`` (level
    summaries, anything with ``figure(name)``) has a value for."""
    return tuple(m for m in shown_in(view)
                 if not m.only_when_set or any(lv.figure(m.name).value is not None for lv in levels))
