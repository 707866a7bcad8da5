"""One run read under every tool's definitions (pure; ``docs/measurement.md``, "Other tools' definitions").

tokcheck keeps, for every request, the stamp of every read that carried tokens (``chunks``), how
many SSE events each read held (``chunk_events``), the stamps of events that had a choice but
no token (``empty_choice_ns``: a chat role-only delta, an empty final chunk), the last data event
(``t_last_event_ns``), the end of the stream and both token counts (the server's ``usage`` and
the model tokenizer's). From those, :func:`definitions` recomputes a level's headline metrics
the way each tool defines them. The tools differ in

- which event counts as a token (any event with a choice; an event with text; what a tokenizer
  finds in the text);
- ITL per event (one value per SSE event: a 3-token event after 15 ms is one 15 ms ITL) or per
  request ((last − first token) ÷ (tokens − 1));
- TPOT with the first token ((last token − start) ÷ tokens) or without it;
- where a request ends (the last token, the last event, the end of the stream);
- whose token counts (``usage.completion_tokens``, the number of events, a tokenizer);
- which window throughput divides by (first send → last end; first token → last token; first
  send → last token) and which requests' tokens enter it (successful ones).

The definitions, with their sources (read, not copied; ``docs/sources.md``):

- ``tokcheck``: ``docs/measurement.md``.
- ``vllm-bench``: ``vllm bench serve`` of vLLM 0.32.0, ``vllm/benchmarks/lib/endpoint_request_func.py``
  (``async_request_openai_completions``, ``…_chat_completions``) and ``vllm/benchmarks/serve.py``
  (``calculate_metrics``, ``benchmark``).
- ``guidellm``: GuideLLM v0.7.3, ``src/guidellm/schemas/request_stats.py`` (``GenerativeRequestStats``),
  ``src/guidellm/backends/openai/http.py`` (token iterations), ``src/guidellm/benchmark/schemas/metrics.py``
  and ``src/guidellm/schemas/statistics.py`` (``rate_distribution_from_timings``, token-weighted
  distributions).
- ``aiperf``: AIPerf 0.1.1, ``aiperf/metrics/types/`` (``ttft_metric.py``, ``request_latency_metric.py``,
  ``inter_token_latency_metric.py``, ``output_token_throughput_metrics.py``,
  ``benchmark_duration_metric.py``, ``output_sequence_length_metric.py``) and
  ``aiperf/parsers/inference_result_parser.py`` (output tokens from its tokenizer).

Statistic. Each round is read as one run of the tool (a round is what one invocation would
measure); each tool's statistic is taken per round (the median; GuideLLM's token-weighted
median for its ITL and time per output token, as its ``from_values`` with weights does), and the
rounds are combined by tokcheck's rounds rule for every tool alike, so that only the
definitions differ. What the stamps cannot reproduce: the tools start their clock before the
connection is opened (tokcheck's ``t_send`` is after the request bytes were written on an open
connection) and stamp events after their HTTP client hands them over; the differences that come
from *definitions* are the ones computed here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tokcheck.core import metric_table, metrics, stats
from tokcheck.record.schema import RequestRecord
from tokcheck.record.store import Run

NS_PER_MS = 1_000_000

#: The metrics every tool's reading gives (``None`` where a tool has no such figure); times in ms,
#: speeds in tok/s, ``output_tokens`` the tool's count of one request's output tokens (median).
KEYS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_latency_ms", "generation_tok_s", "e2e_tok_s",
        "output_throughput_tok_s", "output_tokens")


@dataclass(frozen=True)
class Tool:
    """One tool's definitions: ``name`` (the ``--claim-tool`` value), ``title``, ``version`` it
    was read from, ``sources`` (its files) and ``rules`` (metric → the definition in words)."""

    name: str
    title: str
    version: str
    sources: tuple[str, ...]
    rules: dict[str, str]
    per_request: Callable[[RequestRecord, str], dict[str, Any]]
    window: Callable[[Sequence[RequestRecord], Sequence[dict[str, Any]]], tuple[int, int] | None]
    weighted: frozenset[str] = frozenset()


# ----------------------------------------------------------------------------- per request


def _ms(ns: int) -> float:
    return ns / NS_PER_MS


def _tokcheck(r: RequestRecord, api: str) -> dict[str, Any]:
    return {"ttft_ms": r.ttft_ms, "tpot_ms": r.tpot_ms, "itl_ms": metrics.itl_ms(r.chunks),
            "e2e_latency_ms": r.e2e_latency_ms, "generation_tok_s": r.generation_tok_s,
            "e2e_tok_s": r.e2e_tok_s, "tokens": r.n_out}


def _events(r: RequestRecord) -> list[int]:
    """Stamps of every SSE event that had a choice, in order: each read's events (``chunk_events``
    of them share its stamp) and the events without a token."""
    if r.chunk_events is not None and len(r.chunk_events) == len(r.chunks):
        token_events = [t for (t, _), e in zip(r.chunks, r.chunk_events) for _ in range(max(1, e))]
    else:
        token_events = [t for t, _ in r.chunks]
    return sorted(token_events + list(r.empty_choice_ns or []))


def _usage_else_tokenizer(r: RequestRecord) -> int | None:
    return r.n_out_usage if r.n_out_usage else r.n_out_tokenizer


def _vllm(r: RequestRecord, api: str) -> dict[str, Any]:
    """``vllm bench serve`` (vLLM 0.32.0): the first event with a non-empty ``choices`` is the
    first token (for chat the role-only delta too); every later such event adds one ITL (the gap
    since the previous event, whatever it carried); latency ends at the last such event (chat: at
    the last data event, the usage one included); output tokens = ``usage.completion_tokens``,
    else the tokenizer's count; TPOT = (latency − TTFT) ÷ (tokens − 1) for tokens > 1."""
    ev = _events(r)
    if not ev or r.t_send_ns is None:
        return {}
    end = r.t_last_event_ns if api == "chat" and r.t_last_event_ns is not None else ev[-1]
    ttft = _ms(ev[0] - r.t_send_ns)
    latency = _ms(end - r.t_send_ns)
    n = _usage_else_tokenizer(r)
    tpot = (latency - ttft) / (n - 1) if n is not None and n > 1 else None
    return {"ttft_ms": ttft, "tpot_ms": tpot, "itl_ms": [_ms(b - a) for a, b in zip(ev, ev[1:])],
            "e2e_latency_ms": latency, "generation_tok_s": 1000.0 / tpot if tpot else None,
            "e2e_tok_s": n * 1000.0 / latency if n and latency > 0 else None, "tokens": n}


def _guidellm(r: RequestRecord, api: str) -> dict[str, Any]:
    """GuideLLM v0.7.3: a token iteration is a streamed line with text; TTFT = first iteration −
    request start; output tokens = ``usage`` total, else the number of iterations (one token per
    iteration); inter-token latency = (last − first iteration) ÷ (tokens − 1); time per output
    token = (last iteration − request start) ÷ tokens (TTFT included); request latency = request
    end (after the stream) − request start."""
    if r.t_first_ns is None or r.t_last_ns is None or r.t_send_ns is None:
        return {}
    iterations = sum(r.chunk_events) if r.chunk_events is not None else len(r.chunks)
    n = r.n_out_usage if r.n_out_usage is not None else iterations
    itl = _ms(r.t_last_ns - r.t_first_ns) / (n - 1) if n and n > 1 else None
    tpot = _ms(r.t_last_ns - r.t_send_ns) / n if n else None
    latency = _ms(r.t_end_ns - r.t_send_ns) if r.t_end_ns is not None else None
    return {"ttft_ms": _ms(r.t_first_ns - r.t_send_ns), "tpot_ms": tpot, "itl_ms": itl,
            "e2e_latency_ms": latency, "generation_tok_s": 1000.0 / itl if itl else None,
            "e2e_tok_s": n * 1000.0 / latency if n and latency else None, "tokens": n,
            "_w_itl_ms": (n - 1) if n and n > 1 else 0, "_w_tpot_ms": n or 0}


def _aiperf(r: RequestRecord, api: str) -> dict[str, Any]:
    """AIPerf 0.1.1: responses without content are dropped; TTFT = first response − request
    start; request latency = last response − request start; output sequence length = its
    tokenizer's count of the text; ITL = (latency − TTFT) ÷ (OSL − 1); per-user throughput =
    1 ÷ ITL. No TPOT of its own."""
    if r.t_first_ns is None or r.t_last_ns is None or r.t_send_ns is None:
        return {}
    n = r.n_out_tokenizer
    ttft = _ms(r.t_first_ns - r.t_send_ns)
    latency = _ms(r.t_last_ns - r.t_send_ns)
    itl = (latency - ttft) / (n - 1) if n is not None and n >= 2 else None
    return {"ttft_ms": ttft, "tpot_ms": None, "itl_ms": itl, "e2e_latency_ms": latency,
            "generation_tok_s": 1000.0 / itl if itl else None,
            "e2e_tok_s": n * 1000.0 / latency if n and latency > 0 else None, "tokens": n}


# ----------------------------------------------------------------------------- windows


def _send_to_end(in_round: Sequence[RequestRecord], _vals: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """First send → last end of every request of the round (tokcheck; ``vllm bench serve``'s
    benchmark duration, which runs until every request has returned)."""
    ts = [(r.t_send_ns, r.t_end_ns) for r in in_round if r.t_send_ns is not None and r.t_end_ns is not None]
    return (min(a for a, _ in ts), max(b for _, b in ts)) if ts else None


def _first_to_last_token(in_round: Sequence[RequestRecord], _vals: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """GuideLLM: its output-token rate distribution's mean is Σ tokens ÷ (last token timing −
    first token timing) of the successful requests: the window opens at the first *token*."""
    ts = [(r.t_first_ns, r.t_last_ns) for r in in_round if r.error is None and r.t_first_ns and r.t_last_ns]
    return (min(a for a, _ in ts), max(b for _, b in ts)) if ts else None


def _send_to_last_token(in_round: Sequence[RequestRecord], _vals: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """AIPerf: benchmark duration = latest final response − earliest request start."""
    starts = [r.t_send_ns for r in in_round if r.t_send_ns is not None]
    ends = [r.t_last_ns for r in in_round if r.error is None and r.t_last_ns is not None]
    return (min(starts), max(ends)) if starts and ends else None


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("tokcheck", "tokcheck", "this version", ("docs/measurement.md",),
         {"ttft_ms": "first token-carrying read − send",
          "tpot_ms": "(last token − first token) ÷ (tokens − tokens of the first read)",
          "itl_ms": "per token: a read of k tokens after a gap g gives k values g/k",
          "e2e_latency_ms": "send → end of stream",
          "output_throughput_tok_s": "Σ tokens of successful requests ÷ (first send → last end)",
          "output_tokens": "usage.completion_tokens, else the model tokenizer's count"},
         _tokcheck, _send_to_end),
    Tool("vllm-bench", "vllm bench serve", "vLLM 0.32.0",
         ("vllm/benchmarks/lib/endpoint_request_func.py", "vllm/benchmarks/serve.py"),
         {"ttft_ms": "first event with non-empty choices − request start (chat: the role-only delta counts)",
          "tpot_ms": "(latency − TTFT) ÷ (output tokens − 1), latency to the last choices event",
          "itl_ms": "per SSE event: the gap before each later choices event (a 3-token event: one value)",
          "e2e_latency_ms": "request start → last choices event (chat: last data event)",
          "output_throughput_tok_s": "Σ output tokens of successful requests ÷ benchmark duration",
          "output_tokens": "usage.completion_tokens, else the tokenizer's count of the text"},
         _vllm, _send_to_end),
    Tool("guidellm", "GuideLLM", "GuideLLM v0.7.3",
         ("src/guidellm/schemas/request_stats.py", "src/guidellm/backends/openai/http.py",
          "src/guidellm/benchmark/schemas/metrics.py", "src/guidellm/schemas/statistics.py"),
         {"ttft_ms": "first streamed line with text − request start",
          "tpot_ms": "time per output token: (last token − request start) ÷ tokens, TTFT included",
          "itl_ms": "(last token − first token) ÷ (tokens − 1), per request, token-weighted",
          "e2e_latency_ms": "request start → request end (after the stream)",
          "output_throughput_tok_s": "Σ tokens ÷ (last token − first token of all successful requests)",
          "output_tokens": "usage total, else one token per streamed line with text"},
         _guidellm, _first_to_last_token, frozenset({"itl_ms", "tpot_ms"})),
    Tool("aiperf", "AIPerf", "AIPerf 0.1.1",
         ("aiperf/metrics/types/ttft_metric.py", "aiperf/metrics/types/request_latency_metric.py",
          "aiperf/metrics/types/inter_token_latency_metric.py",
          "aiperf/metrics/types/output_token_throughput_metrics.py",
          "aiperf/metrics/types/benchmark_duration_metric.py", "aiperf/parsers/inference_result_parser.py"),
         {"ttft_ms": "first response with content − request start",
          "tpot_ms": "none (AIPerf reports no TPOT)",
          "itl_ms": "(request latency − TTFT) ÷ (output sequence length − 1)",
          "e2e_latency_ms": "request start → last response with content",
          "output_throughput_tok_s": "Σ output sequence lengths ÷ (last response − first request start)",
          "output_tokens": "its tokenizer's count of the text (not usage)"},
         _aiperf, _send_to_last_token),
)}

#: Spellings of the tools a claim or ``--claim-tool`` may use.
TOOL_ALIASES = {"vllm": "vllm-bench", "vllm-bench": "vllm-bench", "vllm-bench-serve": "vllm-bench",
                "vllm bench serve": "vllm-bench", "benchmark_serving": "vllm-bench", "guidellm": "guidellm",
                "aiperf": "aiperf", "genai-perf": "aiperf", "tokcheck": "tokcheck"}


def tool_name(text: str) -> str:
    """The tool a ``--claim-tool`` value names.

    Raises:
        ValueError: an unknown tool (the message lists the known ones).
    """
    key = str(text or "").strip().lower().replace("_", "-")
    if key in TOOL_ALIASES:
        return TOOL_ALIASES[key]
    raise ValueError(f"unknown tool {text!r}; known: {', '.join(t for t in TOOLS if t != 'tokcheck')}")


def claim_tool_option(text: str | None) -> str | None:
    """``--claim-tool``'s value as a tool name (None when not given).

    Raises:
        TokcheckError: an unknown tool, as one line naming the known ones.
    """
    from tokcheck.errors import TokcheckError

    if not text:
        return None
    try:
        return tool_name(text)
    except ValueError as err:
        raise TokcheckError(f"--claim-tool: {err}") from None


# ----------------------------------------------------------------------------- the reading


def _weighted_median(pairs: Sequence[tuple[float, float]]) -> float | None:
    """The median of values with weights (GuideLLM's weighted distribution: the smallest value
    whose cumulative weight reaches half the total)."""
    pairs = sorted((v, w) for v, w in pairs if w > 0)
    total = sum(w for _, w in pairs)
    if total <= 0:
        return None
    acc = 0.0
    for v, w in pairs:
        acc += w
        if acc >= total / 2:
            return v
    return pairs[-1][0]


def _round_statistic(tool: Tool, key: str, vals: Sequence[dict[str, Any]]) -> float | None:
    if key in tool.weighted:
        pairs = [(v[key], v.get(f"_w_{key}", 1)) for v in vals if v.get(key) is not None]
        return _weighted_median(pairs)
    pooled: list[float] = []
    for v in vals:
        x = v.get(key)
        if isinstance(x, list):
            pooled.extend(x)
        elif x is not None:
            pooled.append(x)
    return stats.median(pooled)


#: The client mark that leaves a request's value out of each per-request metric: the summary's
#: rule (the metric table's ``mark``), applied to every tool alike so that the readings differ
#: only by definition, never by which requests entered them.
_MARKS: dict[str, str | None] = {m.name: m.mark for m in metric_table.METRICS
                                 if m.name in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_latency_ms",
                                               "generation_tok_s", "e2e_tok_s")}


def _vouched(r: RequestRecord, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the metrics whose stamps the client could not vouch for in ``r``."""
    return {k: v for k, v in values.items() if r.trusted(_MARKS.get(k))}


def read_level(requests: Sequence[RequestRecord], tool: Tool, api: str = "completions") -> dict[str, float | None]:
    """One level's measured requests (warm-up left out here) read under ``tool``'s definitions:
    each of :data:`KEYS`, per round then tokcheck's rounds rule (module doc). A request whose
    stamps the client could not vouch for (``client_marks``) is left out of the metrics resting
    on them, for every tool, as tokcheck's summary leaves it out."""
    measured = [r for r in requests if not r.warmup]
    rounds = sorted({r.round for r in measured})
    per_round: dict[str, list[float | None]] = {k: [] for k in KEYS}
    for n in rounds:
        in_round = [r for r in measured if r.round == n]
        ok = [r for r in in_round if r.error is None]
        vals = [v for v in (_vouched(r, tool.per_request(r, api)) for r in ok) if v]
        for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_latency_ms", "generation_tok_s", "e2e_tok_s"):
            per_round[key].append(_round_statistic(tool, key, vals))
        tokens = [v["tokens"] for v in vals if v.get("tokens") is not None]
        per_round["output_tokens"].append(stats.median(tokens))
        window = tool.window(in_round, vals)
        per_round["output_throughput_tok_s"].append(
            metrics.output_throughput_tok_s(tokens, *window) if window and tokens else None)
    return {k: stats.rounds_value(v)[0] for k, v in per_round.items()}


def definitions(run: Run, level: Any = None) -> dict[str, dict[str, float | None]]:
    """``{tool: {metric: value}}`` for the requests of ``level`` (a :class:`~tokcheck.record.level.Level`;
    ``None``: the run's first level) — tokcheck's own reading first, then each tool's."""
    if level is None:
        level = run.levels[0].level if run.levels else None
    reqs = run.requests_at(level)
    api = (run.conditions.endpoint.api if run.conditions.endpoint else None) or "completions"
    out = {name: read_level(reqs, tool, api) for name, tool in TOOLS.items()}
    # tokcheck's own reading is its summary's (the same computation, plus the summary's rules,
    # e.g. TPOT withheld when too many requests had every token in one read)
    lv = run.level_summary(level) if level is not None else None
    if lv is not None:
        for key in KEYS:
            if key != "output_tokens":
                out["tokcheck"][key] = lv.figure(key).value
    return out


def definitions_by_level(run: Run) -> dict[str, dict[str, dict[str, float | None]]]:
    """``{level label: {tool: {metric: value}}}`` for every level of the run."""
    return {lv.label: definitions(run, lv.level) for lv in run.levels}


def sources() -> dict[str, dict[str, Any]]:
    """Each tool's title, version, source files and rules (for ``--json`` and the report)."""
    return {name: {"title": t.title, "version": t.version, "sources": list(t.sources), "rules": dict(t.rules)}
            for name, t in TOOLS.items()}
