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
- ``round``: one value per round from all of its requests (aggregate output throughput).

Per-level values: for ``request``/``token``/``chunk`` metrics a distribution
(:func:`tokcheck.core.stats.distribution`: mean, the rounds' trimmed median, p90, p99, per-round
medians, spread); for ``round`` metrics the rounds' trimmed median and the spread
(:func:`tokcheck.core.stats.rounds_value`).

The functions take request records by duck typing (any object with the fields of
``tokcheck.record.schema.RequestRecord``): the core does not import the record layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tokcheck.core import metrics

Kind = Literal["request", "token", "chunk", "round"]

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


def _field(name: str) -> Callable[[Any], list[float]]:
    """The value a request record stores under ``name`` (computed by the measurement from its
    stamps, :mod:`tokcheck.loadgen.measure`), as a list of zero or one value."""
    return lambda r: [v] if (v := getattr(r, name)) is not None else []


def _itl(r: Any) -> list[float]:
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


_ALL = frozenset(VIEWS)

METRICS: tuple[Metric, ...] = (
    Metric("ttft_ms", "TTFT", "ms", "request", False,
           "no request had a first token", "TTFT (send → first token)",
           values=_field("ttft_ms"), headline="median TTFT", claim_name="ttft",
           shown_in=_ALL, extras=("p99",)),
    Metric("tpot_ms", "TPOT", "ms", "request", False,
           "no request had a token after its first chunk (TPOT undefined)",
           "TPOT = (last token − first token) ÷ (tokens − tokens of the first read)",
           values=_field("tpot_ms"), shown_in=frozenset({"bench", "report", "csv"}), digits=2,
           needs_tpot=True),
    Metric("itl_ms", "ITL", "ms", "token", False,
           "no request had more than one token-carrying chunk",
           "ITL per token: a read of k tokens after a gap g gives k values g/k",
           values=_itl, shown_in=frozenset({"bench", "compare"}), extras=("p99",), digits=2),
    Metric("generation_tok_s", "generation tok/s", "tok/s", "request", True,
           "no request had a token after its first chunk (TPOT undefined)",
           "generation tok/s (per request, from the first token on; TTFT excluded)",
           values=_field("generation_tok_s"), headline="generation tok/s per request",
           claim_name="generation_tok_s", shown_in=_ALL, extras=("spread",), needs_tpot=True),
    Metric("e2e_latency_ms", "E2E latency", "ms", "request", False,
           "no request ended", "E2E latency (send → end of stream)",
           values=_field("e2e_latency_ms"), shown_in=frozenset({"bench", "compare", "csv"}), digits=0),
    Metric("e2e_tok_s", "E2E tok/s", "tok/s", "request", True,
           "no request ended after its send", "end-to-end tok/s (per request, output tokens ÷ E2E latency)",
           values=_field("e2e_tok_s"), claim_name="e2e_tok_s",
           shown_in=frozenset({"bench", "report", "csv"})),
    Metric("output_throughput_tok_s", "aggregate output throughput", "tok/s", "round", True,
           "no round had a successful request", "aggregate output throughput (all requests' tokens ÷ window)",
           per_round=_output_throughput, claim_name="aggregate_throughput",
           shown_in=frozenset({"bench", "report", "compare", "sweep"})),
    Metric("request_throughput_rps", "request throughput", "req/s", "round", True,
           "no round had a successful request", "request throughput (completed requests ÷ window)",
           per_round=_request_throughput, shown_in=frozenset({"bench", "report"}), digits=2),
    Metric("queue_delay_ms", "queue delay", "ms", "request", False,
           "no request had a due time", "queue delay (due → send: how late the client sent)",
           values=_field("queue_delay_ms"), shown_in=frozenset({"bench", "csv"}), digits=2),
    Metric("tokens_per_chunk", "tokens per chunk", "tokens", "chunk", None,
           "no request had a token-carrying chunk", "tokens per chunk (what arrived in one read)",
           values=_tokens_per_chunk, shown_in=frozenset({"bench"}), digits=2),
    Metric("ttft_from_due_ms", "TTFT from due time", "ms", "request", False,
           "no request had a due time", "TTFT from the due time (due → first token; open loop)",
           values=_field("ttft_from_due_ms")),
)

#: Metrics by name.
METRIC: dict[str, Metric] = {m.name: m for m in METRICS}

#: Metrics by the claim parser's name (``"ttft"``, ``"aggregate_throughput"``, …).
BY_CLAIM_NAME: dict[str, Metric] = {m.claim_name: m for m in METRICS if m.claim_name}


def shown_in(view: str) -> tuple[Metric, ...]:
    """The metrics a view shows, in table order."""
    return tuple(m for m in METRICS if view in m.shown_in)
