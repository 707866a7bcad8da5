"""are runs comparable, and how do they stand side by side?

Pure over loaded run directories (:class:`tokcheck.record.store.Run`):

- :func:`comparability` — the conditions the guide requires to agree — dtype,
  max_model_len, gpu_memory_utilization, tensor_parallel_size, streaming, prefix cache,
  speculative decoding, prompts, input and output lengths, concurrency — and which differ.
- :func:`side_by_side` — per concurrency level present in every run: median TTFT, generation
  tok/s, aggregate output throughput, E2E latency, ITL (each with its spread across rounds, its
  95 % confidence interval across rounds and whether the runs' intervals overlap);
  beyond tok/s: TTFT and ITL p99 (latency spikes), peak GPU memory when recorded, errors,
  early stops and broken outputs.
- :func:`text_samples` — the generated texts of the same prompts, side by side, for a
  quality sample (instruction following, logic, stability, as the guide asks).

Output quality with greedy decoding is :mod:`tokcheck.analysis.quality`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tokcheck.core.metric_table import shown_for, with_unit
from tokcheck.record.level import Level
from tokcheck.record.schema import EngineReport, LevelSummary, Load, ServeSettings, Workload
from tokcheck.record.store import Run
from tokcheck.analysis.verify.lookup import _is_off, normalize_precision, telemetry_value

#: the guide, in its order.
COMPARABILITY_KEYS = ("dtype", "max_model_len", "gpu_memory_utilization", "tensor_parallel_size",
                      "streaming", "prefix_cache", "speculative_decoding", "prompts",
                      "input_len", "output_len", "concurrency")

#: Shown beside them, not required to agree (a quantized vs full precision comparison
#: differs in model and quantization by design).
INFO_KEYS = ("model", "quantization", "engine_version", "api", "temperature", "rounds")

def run_settings(run: Run) -> dict[str, Any]:
    """The comparability conditions (and info) of one run, ``None`` where not recorded."""
    c = run.conditions
    er = c.engine_report
    e = er or EngineReport()
    serve = c.serve or ServeSettings()
    wl = c.workload or Workload()
    load = c.load or Load()
    pr = c.precision_report
    dtype = serve.dtype or e.dtype
    spec = None
    if er is not None and er.model_fields_set & {"speculative_config", "speculative_decoding"}:
        off = _is_off(er.speculative_config if er.speculative_config is not None else er.speculative_decoding)
        spec = None if off is None else not off  # both null: the engine did not say (llama.cpp)
    pc = e.enable_prefix_caching
    so = c.stream_options
    conc = load.concurrency if load.mode == "closed" else None
    quant = None
    if er is not None and "quantization" in er.model_fields_set:
        quant = er.quantization or "none"
    elif pr is not None and pr.full_precision is not None:
        quant = "none" if pr.full_precision else "quantized"
    return {
        "dtype": normalize_precision(dtype) if dtype else None,
        "max_model_len": serve.max_model_len or e.max_seq_len,
        "gpu_memory_utilization": serve.gpu_memory_utilization,
        "tensor_parallel_size": serve.tensor_parallel_size or e.tensor_parallel_size,
        "streaming": ("stream, " + json.dumps(so, sort_keys=True)) if so is not None else "stream",
        "prefix_cache": None if pc is None else not _is_off(pc),
        "speculative_decoding": spec,
        "prompts": wl.prompts_sha256,
        "input_len": wl.input_len,
        "output_len": wl.output_len,
        "concurrency": tuple(conc) if conc else (("rate",) + tuple(load.request_rate or ())),
        "model": c.endpoint.model if c.endpoint else None,
        "quantization": quant,
        "engine_version": e.version or (c.server.version if c.server else None),
        "api": c.endpoint.api if c.endpoint else None,
        "temperature": wl.temperature,
        "rounds": load.rounds,
    }


@dataclass
class Comparability:
    """``differ``: condition → values per run where they disagree; ``unknown``: conditions
    some run did not record; ``comparable`` is true only when nothing differs."""

    names: list[str]
    settings: list[dict[str, Any]]
    differ: dict[str, list[Any]] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        return not self.differ

    def verdict(self) -> str:
        if self.comparable:
            msg = "COMPARABLE: every condition of the guide's that all runs recorded agrees"
            if self.unknown:
                msg += f"; not recorded in every run: {', '.join(self.unknown)}"
            by_design = {k: [s.get(k) for s in self.settings] for k in ("model", "quantization")
                         if len({str(s.get(k)) for s in self.settings}) > 1}
            if by_design:
                msg += "; what is compared differs: " + "; ".join(
                    f"{k} ({' vs '.join(str(_show(x)) for x in v)})" for k, v in by_design.items())
            return msg
        parts = [f"{k} ({' vs '.join(str(_show(x)) for x in v)})" for k, v in self.differ.items()]
        return "NOT COMPARABLE: " + "; ".join(parts) + " differ"

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.names, "comparable": self.comparable, "verdict": self.verdict(),
                "differ": {k: [_plain(x) for x in v] for k, v in self.differ.items()},
                "unknown": self.unknown,
                "settings": [{k: _plain(v) for k, v in s.items()} for s in self.settings]}


def _plain(v: Any) -> Any:
    """A condition for JSON: tuples joined, everything else as it is (flags stay booleans)."""
    return ",".join(map(str, v)) if isinstance(v, tuple) else v


def _show(v: Any) -> Any:
    """A condition as a person reads it: tuples joined, flags yes / no (never True / False)."""
    if isinstance(v, tuple):
        return ",".join(map(str, v))
    if isinstance(v, bool):
        return "yes" if v else "no"
    return v


def comparability(runs: list[Run]) -> Comparability:
    """the guide across ``runs`` (two or more)."""
    settings = [run_settings(r) for r in runs]
    c = Comparability(names=[r.name for r in runs], settings=settings)
    for key in COMPARABILITY_KEYS:
        vals = [s[key] for s in settings]
        known = [v for v in vals if v is not None]
        if len(known) < len(vals):
            c.unknown.append(key)
        if len({json.dumps(v, sort_keys=True, default=str) for v in known}) > 1:
            c.differ[key] = vals
    return c


def broken_outputs(run: Run, level: Level) -> int:
    """Measured, error-free requests of ``level`` whose text is empty or holds U+FFFD (bytes
    that did not decode): the crudest sign of broken output."""
    return sum(1 for q in run.requests_at(level)
               if q.error is None and (not q.text.strip() or "\ufffd" in q.text))


def peak_gpu_memory_bytes(run: Run, level: LevelSummary | None = None) -> float | None:
    """Peak GPU memory used, bytes, from the telemetry of the level (or the run), ``None`` if absent."""
    v = telemetry_value(run, level, lambda t: t.gpu_figures.memory_used_peak_bytes)
    return float(v) if v is not None else None


@dataclass
class Row:
    level: str
    metric: str
    unit: str
    values: list[float | None]
    spreads: list[float | None]
    rounds: list[list | None]
    higher_is_better: bool | None
    ci95: list[list[float] | None] | None = None
    overlap: bool | None = None

    @property
    def label(self) -> str:
        """The row's label with its unit, once: ``"median TTFT (ms)"``, ``"generation tok/s
        per request"`` (the unit is already in the name), ``"errors (requests)"``."""
        return with_unit(self.metric, self.unit)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "label": self.label}


def side_by_side(runs: list[Run]) -> list[Row]:
    """the guide: one row per (level present in every run, metric of the metric table that
    ``compare`` shows), then the tails (p99) and counts."""
    keyed = [{lv.level: lv for lv in r.levels} for r in runs]
    common = [k for k in keyed[0] if all(k in d for d in keyed[1:])] if keyed else []
    rows: list[Row] = []
    none = [None] * len(runs)
    metrics = shown_for("compare", [lv for d in keyed for lv in d.values()])
    for level in common:
        k = level.name
        lvs = [d[level] for d in keyed]
        for m in metrics:
            figs = [lv.figure(m.name) for lv in lvs]
            cis = [f.ci95 for f in figs]
            rows.append(Row(k, m.title, m.unit, [f.value for f in figs], [f.spread for f in figs],
                            [f.rounds for f in figs], m.higher_is_better,
                            [c.as_list() if c is not None else None for c in cis], intervals_overlap(cis)))
        # the guide: latency spikes show in the tails
        for m in (m for m in metrics if "p99" in m.extras):
            rows.append(Row(k, f"{m.label} p99", m.unit, [lv.figure(m.name).p99 for lv in lvs], none, none,
                            m.higher_is_better))
        peaks = [peak_gpu_memory_bytes(r, lv) for r, lv in zip(runs, lvs)]
        rows.append(Row(k, "peak GPU memory", "GB", [p / 1e9 if p is not None else None for p in peaks],
                        none, none, False))
        rows.append(Row(k, "errors", "requests", [lv.requests_failed for lv in lvs], none, none, False))
        rows.append(Row(k, "early stops", "requests", [lv.early_stops for lv in lvs], none, none, False))
        rows.append(Row(k, "broken outputs, empty or undecodable", "requests",
                        [broken_outputs(r, level) for r in runs], none, none, False))
    return rows


def intervals_overlap(intervals: list[Any]) -> bool | None:
    """Whether every pair of the runs' 95 % intervals (:class:`tokcheck.core.confidence.Interval`)
    overlaps; ``None`` when a run has none (one round). Intervals apart mean the runs differ (at
    better than the 5 % level); overlapping ones do not prove that they agree."""
    if len(intervals) < 2 or any(c is None for c in intervals):
        return None
    return all(a.overlaps(b) for i, a in enumerate(intervals) for b in intervals[i + 1:])


def overlap_word(overlap: bool | None) -> str:
    """``"overlap"``, ``"apart"`` or ``""`` (no interval) for tables."""
    return {True: "overlap", False: "apart", None: ""}[overlap]


def text_samples(runs: list[Run], limit: int = 8) -> list[dict[str, Any]]:
    """The generated text of each prompt index present in every run (the first measured,
    error-free request with that prompt at the lowest level), up to ``limit`` prompts:
    ``[{"prompt_index": i, "texts": [text per run]}]``."""
    firsts: list[dict[int, str]] = []
    for r in runs:
        seen: dict[int, str] = {}
        for q in r.measured_requests():
            if q.error is not None or q.prompt_index is None:
                continue
            seen.setdefault(q.prompt_index, q.text)
        firsts.append(seen)
    common = sorted(set(firsts[0]).intersection(*firsts[1:])) if firsts else []
    return [{"prompt_index": i, "texts": [f[i] for f in firsts]} for i in common[:limit]]


def _fmt(v: Any, unit: str = "") -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        from tokcheck.core.units import fmt_number

        s = fmt_number(v)
    else:
        s = str(v)
    return s


def format_cell(value: Any, spread: Any, rounds: list | None) -> str:
    """``"250 [240–262]"``: the value and the range of the per-round values; ``"250 ±22"`` (bench's
    spread, max − min of all rounds' medians) when the per-round values are not at hand."""
    cell = _fmt(value)
    if value is None:
        return cell
    vals = [r for r in (rounds or []) if r is not None]
    if len(vals) >= 2:
        cell += f" [{_fmt(float(min(vals)))}–{_fmt(float(max(vals)))}]"
    elif spread is not None:
        cell += f" ±{_fmt(spread)}"
    return cell


def format_ci(ci: list[float] | None) -> str:
    """``" CI 241–259"`` for a 95 % interval, ``""`` without one."""
    if not ci:
        return ""
    return f" CI {_fmt(float(ci[0]))}–{_fmt(float(ci[1]))}"


def samples_markdown(names: list[str], samples: list[dict[str, Any]]) -> str:
    """The texts side by side, one section per prompt (Markdown)."""
    out = ["# Generated texts of the same prompts", ""]
    for s in samples:
        out.append(f"## prompt {s['prompt_index']}")
        out.append("")
        for name, text in zip(names, s["texts"]):
            out.append(f"**{name}**")
            out.append("")
            out.append("```text")
            out.append(text.replace("```", "`\u200b``"))
            out.append("```")
            out.append("")
    return "\n".join(out)


def samples_jsonl(names: list[str], samples: list[dict[str, Any]]) -> str:
    """One JSON object per prompt: ``{"prompt_index": i, "<run name>": text, ...}``."""
    lines = []
    for s in samples:
        obj: dict[str, Any] = {"prompt_index": s["prompt_index"]}
        obj.update(dict(zip(names, s["texts"])))
        lines.append(json.dumps(obj, ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")


def comparison_markdown(runs: list[Run]) -> str:
    """Comparability and the side-by-side table as Markdown."""
    comp = comparability(runs)
    names = [r.name for r in runs]
    out = [f"# Comparison: {' vs '.join(names)}", "", f"**{comp.verdict()}**", ""]
    out.append("| condition | " + " | ".join(names) + " |")
    out.append("|---|" + "---|" * len(names))
    for key in COMPARABILITY_KEYS + INFO_KEYS:
        mark = " ⚠" if key in comp.differ else ""
        out.append(f"| {key}{mark} | " + " | ".join(str(_show(s[key])) if s[key] is not None else "—"
                                                   for s in comp.settings) + " |")
    out += ["", "| level | metric | " + " | ".join(names) + " | 95% CIs |",
            "|---|---|" + "---|" * len(names) + "---|"]
    for row in side_by_side(runs):
        cells = [format_cell(v, sp, rd) + format_ci(ci) for v, sp, rd, ci
                 in zip(row.values, row.spreads, row.rounds, row.ci95 or [None] * len(row.values))]
        out.append(f"| {row.level} | {row.label} | " + " | ".join(cells) + f" | {overlap_word(row.overlap)} |")
    out.append("")
    out.append("Values are the rounds' trimmed median (each round's median, highest and lowest "
               "round dropped, median of the rest); [a–b] is the range of all per-round medians "
               "(± bench's spread, the same range's width, where per-round values are missing); "
               "CI is the 95 % confidence interval across rounds (Student's t on the rounds' values): "
               "\"apart\" means the runs differ beyond their round-to-round noise, \"overlap\" that "
               "this many rounds cannot tell them apart.")
    return "\n".join(out) + "\n"
