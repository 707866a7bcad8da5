"""The report's plots, drawn with matplotlib (Agg, no display) and returned as PNG bytes.

Each function takes values and returns ``(title, png_bytes)`` or ``None`` when there is no
data for it (the page then says why instead of showing an empty axis).
"""

from __future__ import annotations

import io
from typing import Any

from tokcheck.core.metric_table import METRIC
from tokcheck.core.units import fmt_number
from tokcheck.record.store import Run
from tokcheck.report.data import gpu_series, level_of, timeline

DPI = 100


def _figure(w: float = 7.5, h: float = 3.6):
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(w, h), dpi=DPI)
    ax.grid(True, alpha=0.3)
    return plt, fig, ax


def _png(plt, fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def throughput_figure(runs: list[Run]):
    """The matplotlib figure of :func:`throughput_vs_concurrency`: ``(plt, fig, ax, ax2)``, or
    ``None`` without closed-loop levels. The legend sits under the axes, outside them, so it
    never covers a point (a run of one level has its only point where an inside legend would
    go)."""
    if not any(lv.concurrency is not None for r in runs for lv in r.levels):
        return None
    plt, fig, ax = _figure(7.5, 4.2)
    ax2 = ax.twinx()
    tops = [0.0, 0.0]
    for i, r in enumerate(runs):
        lvs = sorted((lv for lv in r.levels if lv.concurrency is not None), key=lambda lv: lv.concurrency)
        xs = [lv.concurrency for lv in lvs]
        agg = [lv.figure("output_throughput_tok_s").value for lv in lvs]
        gen = [lv.figure("generation_tok_s").value for lv in lvs]
        tag = f" ({r.name})" if len(runs) > 1 else ""
        # one colour per run: solid = aggregate (left axis), dashed = per request (right axis)
        c_agg, c_gen = (f"C{i}", f"C{i}") if len(runs) > 1 else ("tab:blue", "tab:orange")
        ax.plot(xs, [a if a is not None else float("nan") for a in agg], "o-", color=c_agg,
                label=f"aggregate output tok/s{tag} (left axis)")
        ax2.plot(xs, [g if g is not None else float("nan") for g in gen], "s--", color=c_gen,
                 label=f"generation tok/s per request{tag} (right axis)")
        tops[0] = max([tops[0]] + [a for a in agg if a is not None])
        tops[1] = max([tops[1]] + [g for g in gen if g is not None])
    ax.set_xlabel("concurrency")
    ax.set_ylabel("aggregate output throughput (tok/s)")
    ax2.set_ylabel("generation tok/s per request")
    ax.set_xscale("log", base=2)
    ticks = sorted({lv.concurrency for r in runs for lv in r.levels if lv.concurrency is not None})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    if len(ticks) == 1:  # one level: room on both sides, so the point is not on the frame
        ax.set_xlim(ticks[0] / 2, ticks[0] * 2)
    ax.minorticks_off()
    # Headroom: the highest point stays inside the frame; the right axis gets more, so the two
    # series' points at one concurrency sit at different heights instead of one on the other.
    ax.set_ylim(0, tops[0] * 1.15 or 1)
    ax2.set_ylim(0, tops[1] * 1.5 or 1)
    if len(runs) == 1:  # one run: the values beside their points
        for axis, line in ((ax, ax.lines[0]), (ax2, ax2.lines[0])):
            for x, y in zip(line.get_xdata(), line.get_ydata()):
                if y == y:  # not NaN
                    axis.annotate(fmt_number(y), (x, y), textcoords="offset points", xytext=(6, 4),
                                  fontsize=8, color=line.get_color())
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              ncol=2 if len(runs) == 1 else 1, frameon=False)
    return plt, fig, ax, ax2


def throughput_vs_concurrency(runs: list[Run]) -> tuple[str, bytes] | None:
    """Aggregate output throughput and per-request generation tok/s against concurrency
    (closed-loop levels only)."""
    drawn = throughput_figure(runs)
    if drawn is None:
        return None
    plt, fig, _ax, _ax2 = drawn
    return "Throughput vs concurrency", _png(plt, fig)


def _per_level_values(run: Run, fn) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for q in run.measured_requests():
        if q.error is not None:
            continue
        vals = fn(q)
        if vals:
            out.setdefault(level_of(run, q), []).extend(vals)
    return out


def distribution(runs: list[Run], what: str) -> tuple[str, bytes] | None:
    """Distribution (histogram) of TTFT (``what="ttft"``) or per-token ITL (``"itl"``) per
    level, in ms: every value — log-spaced bins for values above 0, and values of 0 (tokens that
    arrived together; the page says how many) as their own bar marked "0 ms"."""
    import numpy as np

    fn = METRIC["ttft_ms" if what == "ttft" else "itl_ms"].values
    groups: dict[str, list[float]] = {}
    for r in runs:
        for lv, vals in _per_level_values(r, fn).items():
            groups[f"{r.name} {lv}" if len(runs) > 1 else lv] = vals
    allv = [v for vals in groups.values() for v in vals]
    if not allv:
        return None
    plt, fig, ax = _figure()
    pos = [v for v in allv if v > 0]
    zeros = len(allv) - len(pos)
    # Every value is drawn. Positive values on log-spaced bins; values of 0 (tokens that
    # arrived in one socket read) as their own bar left of them, marked "0 ms".
    if pos and max(pos) > min(pos):
        lo, hi = min(pos), max(pos)
        zero_x = lo / 4
        bins = np.geomspace(lo * 0.9, hi * 1.1, 40)
        if zeros:
            bins = np.concatenate(([zero_x / 1.4, zero_x * 1.4], bins))
        for label, vals in groups.items():
            ax.hist([v if v > 0 else zero_x for v in vals], bins=bins, histtype="step", linewidth=1.6,
                    label=label)
        ax.set_xscale("log")
        if zeros:
            ax.axvline(zero_x * 2.2, color="0.6", linewidth=0.8, linestyle=":")
            ax.text(zero_x, 1.01, "0 ms" if min(allv) == 0 else "≤ 0 ms", transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                    fontsize=8)
    else:
        for label, vals in groups.items():
            ax.hist(vals, bins=20, histtype="step", linewidth=1.6, label=label)
    name = "TTFT" if what == "ttft" else "ITL (per token)"
    ax.set_xlabel(f"{name} (ms)")
    ax.set_ylabel("requests" if what == "ttft" else "tokens")
    ax.legend(fontsize=8)
    return f"{name} distribution", _png(plt, fig)


def request_timeline(run: Run) -> tuple[str, bytes] | None:
    """Each measured request as a horizontal line: thin from send to first token (waiting and
    prefill), thick from first token to end (decode); one colour per level."""
    tl = timeline(run)
    if not tl:
        return None
    plt, fig, ax = _figure(7.5, 4.2)
    order = [lv.label for lv in run.levels]
    levels = sorted({t["level"] for t in tl}, key=lambda x: (order.index(x) if x in order else len(order), x))
    colors = {lv: f"C{i % 10}" for i, lv in enumerate(levels)}
    for y, t in enumerate(tl):
        c = "tab:red" if t["error"] else colors[t["level"]]
        first = t["first"] if t["first"] is not None else t["end"]
        ax.hlines(y, t["send"], first, colors=c, linewidth=0.8, alpha=0.6)
        ax.hlines(y, first, t["end"], colors=c, linewidth=2.2)
    for lv in levels:
        ax.plot([], [], color=colors[lv], linewidth=2.2, label=lv)
    ax.set_xlabel("time since the first send (s)")
    ax.set_ylabel("request (by send time)")
    ax.legend(fontsize=8, loc="upper left")
    return f"Per-request timeline ({run.name})", _png(plt, fig)


def gpu_over_time(run: Run) -> tuple[str, bytes] | None:
    """GPU memory used and utilization over time, when the run carries NVML samples."""
    series = gpu_series(run)
    if not series:
        return None
    plt, fig, ax = _figure()
    ax2 = ax.twinx()
    for s in series:
        if any(m is not None for m in s["memory_gb"]):
            ax.plot(s["t_s"], [m if m is not None else float("nan") for m in s["memory_gb"]],
                    label=f"GPU {s['gpu']} memory used (GB)")
        if any(u is not None for u in s["utilization_pct"]):
            ax2.plot(s["t_s"], [u if u is not None else float("nan") for u in s["utilization_pct"]],
                     "--", color="tab:green", label=f"GPU {s['gpu']} utilization (%)")
    ax.set_xlabel("time since the first send (s)")
    ax.set_ylabel("memory used (GB = 10⁹ bytes)")
    ax2.set_ylabel("utilization (%)")
    ax2.set_ylim(0, 105)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="lower right")
    return f"GPU memory and utilization ({run.name})", _png(plt, fig)


def roofline(bound: dict[str, Any] | None, measured_tok_s: float | None,
             claimed_tok_s: float | None, bound_for: str | None = None) -> tuple[str, bytes] | None:
    """Hard and realistic decode bounds beside the claimed and the measured single-request speed.
    ``bound_for``: the GPU the bound is for when the run did not use it (e.g. ``"H100 SXM"`` beside
    a CPU run): the bound's bars then say so, and are drawn in a paler tone."""
    if not bound or not bound.get("hard_tok_s"):
        return None
    suffix = f"\n(for {bound_for}, not this run's machine)" if bound_for else ""
    bars = [(f"hard bound{suffix}", bound["hard_tok_s"], "#b0b0b0" if bound_for else "tab:gray"),
            (f"realistic bound{suffix}", bound.get("realistic_tok_s"), "#9ecae1" if bound_for else "tab:blue")]
    if claimed_tok_s is not None:
        bars.append(("claimed", claimed_tok_s, "tab:orange"))
    if measured_tok_s is not None:
        bars.append(("measured", measured_tok_s, "tab:green"))
    bars = [b for b in bars if b[1] is not None]
    plt, fig, ax = _figure(7.5, 3.4 if bound_for else 3.0)
    ax.barh([b[0] for b in bars], [b[1] for b in bars], color=[b[2] for b in bars])
    for i, b in enumerate(bars):
        ax.text(b[1], i, f" {fmt_number(b[1])}", va="center", fontsize=9)
    ax.invert_yaxis()
    hi, lo = max(b[1] for b in bars), min(b[1] for b in bars)
    if lo > 0 and hi / lo > 50:  # a bar 50× shorter than another would vanish on a linear axis
        ax.set_xscale("log")
        ax.set_xlim(lo / 3, hi * 4)
        ax.set_xlabel("tok/s (one request, decode; log scale)")
    else:
        ax.set_xlim(0, hi * 1.2)
        ax.set_xlabel("tok/s (one request, decode)")
    return "Decode bound vs claimed and measured", _png(plt, fig)
