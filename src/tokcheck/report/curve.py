"""The interactivity curve: per-user speed against throughput per GPU, one point per level.

The throughput–interactivity trade-off InferenceMAX (SemiAnalysis, "InferenceMAX: Open Source
Inference Benchmarking", 2025) plots for every model and GPU: x is tok/s per user
(interactivity), y is aggregate tok/s per GPU (``docs/sources.md``). tokcheck's x is the level's
generation tok/s per request (1 ÷ TPOT, TTFT excluded: the speed a user watches text arrive at,
the rounds' trimmed median) and its y the level's aggregate *output* throughput ÷ the number of
GPUs serving (InferenceMAX's published per-GPU throughput was found to count input tokens too,
InferenceMAX issue #293; tokcheck counts output tokens only and says so on the axis).

The GPU count comes from the run conditions (:func:`gpu_count`): the engine's tensor-parallel ×
pipeline-parallel size, else the serve settings, else the GPUs NVML listed on the server's
machine; a CPU run or a run that does not say has no per-GPU figure, and the axis says "per
server" instead. A claim given to ``verify``/``report --claim`` is drawn on the same axes: a claimed
per-user speed as a vertical line, a claimed aggregate throughput (÷ the claim's GPU count, else
the run's) as a horizontal one.
"""

from __future__ import annotations

from typing import Any

from tokcheck.core.units import fmt_number
from tokcheck.record.store import Run


def gpu_count(run: Run) -> tuple[int | None, str]:
    """``(GPUs serving, where that comes from)``; ``None`` on a CPU run or when unrecorded."""
    c = run.conditions
    er, serve = c.engine_report, c.serve
    tp = (er.tensor_parallel_size if er is not None else None) or (serve.tensor_parallel_size if serve else None)
    if er is not None and (er.device or "").lower() == "cpu":
        return None, "no GPU (the engine ran on the CPU)"
    if tp:
        pp = (er.pipeline_parallel_size if er is not None else None) or 1
        return tp * pp, f"tensor_parallel_size {tp} × pipeline_parallel_size {pp}"
    gpus = c.environment.gpu_list() if c.environment is not None else None
    if gpus == []:
        return None, "no GPU on the server's machine"
    if gpus:
        return len(gpus), f"{len(gpus)} GPU(s) NVML listed on the server's machine"
    return None, "GPU count not recorded"


def curve_points(run: Run) -> list[dict[str, Any]]:
    """One point per level that has both figures: ``x`` (tok/s per user), ``y`` (aggregate output
    tok/s per GPU, or per server without a GPU count), ``label``, ``level``; sorted by ``x``."""
    n, _ = gpu_count(run)
    out = []
    for lv in run.levels:
        x = lv.figure("generation_tok_s").value
        agg = lv.figure("output_throughput_tok_s").value
        if x is None or agg is None:
            continue
        out.append({"x": x, "y": agg / n if n else agg, "label": lv.label, "level": lv.level.name})
    return sorted(out, key=lambda p: p["x"])


def claim_marks(verdict: Any, run: Run) -> list[dict[str, Any]]:
    """The claim on the curve's axes: ``{"axis": "x"|"y", "value", "label"}``; ``[]`` when its
    metric has no place there (TTFT) or it has no number."""
    if verdict is None or verdict.claimed is None:
        return []
    if verdict.metric in ("generation_tok_s", "e2e_tok_s"):
        what = "generation tok/s per request" if verdict.metric == "generation_tok_s" else "E2E tok/s per request"
        return [{"axis": "x", "value": verdict.claimed, "label": f"claim: {fmt_number(verdict.claimed)} {what}"}]
    if verdict.metric == "aggregate_throughput":
        claimed_gpus = next((c.claimed for c in verdict.conditions if c.name == "gpu_count"), None)
        n = None
        try:
            n = int(claimed_gpus) if claimed_gpus else None
        except (TypeError, ValueError):
            n = None
        n = n or gpu_count(run)[0]
        per = verdict.claimed / n if n else verdict.claimed
        return [{"axis": "y", "value": per,
                 "label": f"claim: {fmt_number(verdict.claimed)} tok/s aggregate" + (f" ÷ {n} GPU(s)" if n else "")}]
    return []


def interactivity_curve(runs: list[Run], verdict: Any = None) -> tuple[str, bytes] | None:
    """The plot (PNG) of :func:`curve_points` for each run, with the claim's marks; ``None`` when
    no run has a level with both figures."""
    from tokcheck.report.plots import _figure, _png

    series = [(r, curve_points(r)) for r in runs]
    if not any(pts for _, pts in series):
        return None
    plt, fig, ax = _figure(7.5, 4.0)
    counts = {gpu_count(r)[0] for r in runs}
    per_gpu = None not in counts
    for i, (r, pts) in enumerate(series):
        if not pts:
            continue
        xs, ys = [p["x"] for p in pts], [p["y"] for p in pts]
        ax.plot(xs, ys, "o-", color=f"C{i}", label=r.name if len(runs) > 1 else "levels")
        for p in pts:
            ax.annotate(p["label"], (p["x"], p["y"]), textcoords="offset points", xytext=(4, 4), fontsize=8)
    marks = claim_marks(verdict, runs[0]) if runs else []
    xmax = max([p["x"] for _, pts in series for p in pts] + [m["value"] for m in marks if m["axis"] == "x"])
    ymax = max([p["y"] for _, pts in series for p in pts] + [m["value"] for m in marks if m["axis"] == "y"])
    for mark in marks:
        if mark["axis"] == "x":
            ax.axvline(mark["value"], color="tab:red", linestyle="--", linewidth=1.4, label=mark["label"])
        else:
            ax.axhline(mark["value"], color="tab:red", linestyle="--", linewidth=1.4, label=mark["label"])
    ax.set_xlabel("tok/s per user (generation tok/s per request, 1/TPOT)")
    ax.set_ylabel("output tok/s per GPU" if per_gpu else "output tok/s per server (no GPU count)")
    ax.set_xlim(0, xmax * 1.15 or 1)
    ax.set_ylim(0, ymax * 1.2 or 1)
    ax.legend(fontsize=8, loc="best")
    return "Interactivity: tok/s per user vs throughput per GPU", _png(plt, fig)
