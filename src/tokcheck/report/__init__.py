"""reports of run directories — one self-contained HTML page, a Markdown summary and a
per-request CSV.

The HTML needs no network to view: styles are inline and every plot is a PNG embedded as
base64 (``data:image/png;base64,…``). It shows the conditions table, the verdict when a claim
was verified, throughput vs concurrency, TTFT and ITL distributions, a per-request timeline,
GPU memory and utilization over time when the run has NVML samples, and the decode bound
against the claimed and measured speed when a bound is known.

The functions here return strings; the CLI writes them.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from typing import Any

from tokcheck import __version__
from tokcheck.core.metric_table import shown_in, with_unit
from tokcheck.record.level import Level
from tokcheck.record.store import Run
from tokcheck.report import plots
from tokcheck.report.data import CSV_COLUMNS, conditions_table, request_rows

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1000px;
color:#1b1f24;line-height:1.4;padding:0 16px}
h1{font-size:1.6em;margin-bottom:4px}h2{font-size:1.25em;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}td,th{border:1px solid #d0d7de;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600;margin:10px 0}
.ok{background:#dafbe1;color:#116329}.bad{background:#ffebe9;color:#a40e26}.unk{background:#fff8c5;color:#7d4e00}
.match{color:#116329}.differ{color:#a40e26;font-weight:600}.unknown{color:#6e7781}
.pass{color:#116329}.warn{color:#9a6700}.fail{color:#a40e26;font-weight:600}
figure{margin:14px 0}figcaption{font-weight:600;margin-bottom:4px}img.plot{max-width:100%;border:1px solid #eee}
.why{color:#6e7781;font-style:italic}.note{color:#9a6700;font-weight:600}small{color:#6e7781}
"""


def _e(x: Any) -> str:
    return html.escape("n/a" if x is None else str(x))


def _num(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"
    return str(v)


def _metric_columns() -> list[tuple[str, Any]]:
    """One column per metric the report shows (its median), and one per extra statistic
    (``p99``, ``spread``) right after it."""
    cols: list[tuple[str, Any]] = []
    for m in shown_in("report"):
        cols.append((with_unit(f"{m.label} median", m.unit), lambda lv, n=m.name: lv.figure(n).value))
        for extra in m.extras:
            cols.append((with_unit(f"{m.label} {extra}", m.unit),
                         lambda lv, n=m.name, x=extra: getattr(lv.figure(n), x)))
    return cols


#: The per-level table: (column title, level → value).
LEVEL_COLUMNS = (
    ("requests ok", lambda lv: lv.requests_ok),
    ("failed", lambda lv: lv.requests_failed),
    ("early stops", lambda lv: lv.early_stops),
    *_metric_columns(),
)


def _level_name(lv: Any) -> str:
    return lv.level.name


def itl_notes(runs: list[Run]) -> list[str]:
    """One line per run whose ITL record shows tokens arriving together (0 ms gaps, or every
    token of a request in one read), prefixed with the run's name when there are several."""
    from tokcheck.analysis.verify.bursts import burst_stats, zero_itl_note

    out = []
    for r in runs:
        note = zero_itl_note(burst_stats(r.measured_requests()))
        if note:
            out.append(f"{r.name}: {note}" if len(runs) > 1 else note)
    return out


def _collect_plots(runs: list[Run], verdict: Any, bound: dict | None) -> list[tuple[str, bytes | None, str, list[str]]]:
    """``(title, png or None, why-absent, notes)`` in page order."""
    out: list[tuple[str, bytes | None, str, list[str]]] = []

    def add(result, title: str, why: str, notes: list[str] | None = None) -> None:
        out.append((result[0], result[1], "", notes or []) if result else (title, None, why, notes or []))

    add(plots.throughput_vs_concurrency(runs), "Throughput vs concurrency", "no closed-loop levels in the runs")
    add(plots.distribution(runs, "ttft"), "TTFT distribution", "no request with a first token")
    add(plots.distribution(runs, "itl"), "ITL (per token) distribution", "no request with two or more token chunks",
        itl_notes(runs))
    for r in runs:
        add(plots.request_timeline(r), f"Per-request timeline ({r.name})", "no measured request")
    for r in runs:
        add(plots.gpu_over_time(r), f"GPU memory and utilization ({r.name})",
            "no GPU telemetry in this run (no NVIDIA GPU, or bench ran without the sampler)")
    measured = claimed = None
    if verdict is not None:
        claimed = verdict.claimed if verdict.metric in ("generation_tok_s", "e2e_tok_s") else None
    one = runs[0].level_summary(Level.closed(1)) if runs else None
    if one is not None:
        measured = one.figure("generation_tok_s").value
    add(plots.roofline(bound, measured, claimed), "Decode bound vs claimed and measured",
        (bound or {}).get("reason") or "no bound: give a claim naming its model and GPU")
    return out


def _verdict_html(verdict: Any) -> str:
    cls = {True: "ok", False: "bad", None: "unk"}[verdict.reproduced]
    parts = [f'<div class="verdict {cls}">{_e(verdict.summary)}</div>']
    if verdict.metric_definition:
        parts.append(f"<p><small>metric: {_e(verdict.metric_definition)}</small></p>")
    parts.append("<table><tr><th>condition</th><th>claim</th><th>run</th><th></th></tr>")
    for c in verdict.conditions:
        parts.append(f"<tr><td>{_e(c.name)}</td><td>{_e(c.claimed) if c.claimed is not None else '—'}</td>"
                     f"<td>{_e(c.run) if c.run is not None else '—'}</td>"
                     f'<td class="{c.status}">{c.status}</td></tr>')
    parts.append("</table><h3>The guide's seven checks</h3><table><tr><th>#</th><th>check</th>"
                 "<th>status</th><th>evidence</th></tr>")
    for c in verdict.checks:
        ev = "<br>".join(_e(x) for x in c.evidence + [f"→ {a}" for a in c.advice])
        parts.append(f'<tr><td>{c.number}</td><td>{_e(c.name)}</td><td class="{c.status}">{c.status}</td>'
                     f"<td>{ev}</td></tr>")
    parts.append("</table>")
    for s in verdict.symptoms:
        parts.append(f"<h3>Symptom: {_e(s.symptom)}</h3><ul>"
                     + "".join(f"<li>{_e(x)}</li>" for x in s.evidence) + "</ul><ol>"
                     + "".join(f"<li>{_e(x)}</li>" for x in s.steps) + "</ol>")
    return "\n".join(parts)


def render_html(runs: list[Run], verdict: Any = None, bound: dict | None = None,
                title: str | None = None, sections: list[tuple[str, str]] | None = None) -> str:
    """The self-contained HTML page for ``runs`` (one or more), with ``verdict``
    (:class:`tokcheck.analysis.verify.Verdict`) and ``bound`` (decode bound dict) when given.
    ``sections``: ``(title, HTML)`` pairs shown first (e.g. the demo's precision comparison);
    their HTML is the caller's, already escaped."""
    title = title or ("tokcheck report: " + ", ".join(r.name for r in runs))
    body = [f"<h1>{_e(title)}</h1><p><small>tokcheck {__version__}</small></p>"]
    for sec_title, sec_html in sections or []:
        body.append(f"<h2>{_e(sec_title)}</h2>{sec_html}")
    if verdict is not None:
        body.append("<h2>Verdict</h2>")
        body.append(_verdict_html(verdict))
    body.append("<h2>Conditions</h2>")
    for r in runs:
        body.append(f"<table>{''.join(f'<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in conditions_table(r))}</table>")
    body.append("<h2>Results per level</h2>")
    for r in runs:
        head = "".join(f"<th>{_e(c[0])}</th>" for c in LEVEL_COLUMNS)
        rows = "".join(f"<tr><td>{_e(_level_name(lv))}</td>"
                       + "".join(f'<td class="num">{_e(_num(fn(lv)))}</td>' for _, fn in LEVEL_COLUMNS)
                       + "</tr>" for lv in r.levels)
        body.append(f"<p><b>{_e(r.name)}</b></p><table><tr><th>level</th>{head}</tr>{rows}</table>")
    body.append("<p><small>Medians are the rounds' trimmed median (each round's median, highest and "
                "lowest round dropped); spread is max − min of all rounds' medians. TTFT = first "
                "token − send; generation tok/s = 1/TPOT (TTFT excluded).</small></p>")
    body.append("<h2>Plots</h2>")
    for title_, png, why, notes in _collect_plots(runs, verdict, bound):
        note_html = "".join(f'<p class="note">{_e(n)}</p>' for n in notes)
        if png is None:
            body.append(f'<figure><figcaption>{_e(title_)}</figcaption><p class="why">n/a: {_e(why)}</p>'
                        f'{note_html}</figure>')
        else:
            b64 = base64.b64encode(png).decode("ascii")
            body.append(f'<figure><figcaption>{_e(title_)}</figcaption>'
                        f'<img class="plot" alt="{_e(title_)}" src="data:image/png;base64,{b64}">{note_html}</figure>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def render_markdown(runs: list[Run], verdict: Any = None, bound: dict | None = None) -> str:
    """A Markdown summary: verdict, conditions, a table per run's levels, the bound."""
    out = [f"# tokcheck report: {', '.join(r.name for r in runs)}", ""]
    if verdict is not None:
        out += ["## Verdict", "", f"**{verdict.summary}**", ""]
        out += ["| condition | claim | run | |", "|---|---|---|---|"]
        for c in verdict.conditions:
            out.append(f"| {c.name} | {'—' if c.claimed is None else c.claimed} | "
                       f"{'—' if c.run is None else c.run} | {c.status} |")
        out += ["", "| # | check | status | evidence |", "|---|---|---|---|"]
        for c in verdict.checks:
            out.append(f"| {c.number} | {c.name} | {c.status} | {'; '.join(c.evidence).replace('|', '/')} |")
        out.append("")
    for r in runs:
        out += [f"## {r.name}", "", "| condition | value |", "|---|---|"]
        out += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in conditions_table(r)]
        out += ["", "| level | " + " | ".join(c[0] for c in LEVEL_COLUMNS) + " |",
                "|---|" + "---|" * len(LEVEL_COLUMNS)]
        for lv in r.levels:
            out.append(f"| {_level_name(lv)} | " + " | ".join(_num(fn(lv)) for _, fn in LEVEL_COLUMNS) + " |")
        out.append("")
    notes = itl_notes(runs)
    if notes:
        out += ["## Inter-token latency", ""] + [f"- {n}" for n in notes] + [""]
    if bound and bound.get("hard_tok_s"):
        out += ["## Decode bound", "",
                f"hard {_num(bound['hard_tok_s'])} tok/s, realistic {_num(bound.get('realistic_tok_s'))} tok/s "
                f"({_num(bound.get('bytes_per_token'))} bytes per token; {bound.get('source', '')})", ""]
    elif bound and bound.get("reason"):
        out += ["## Decode bound", "", f"n/a: {bound['reason']}", ""]
    return "\n".join(out)


def render_csv(runs: list[Run]) -> str:
    """Every request of every run, one row each, :data:`tokcheck.report.data.CSV_COLUMNS`."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    w.writeheader()
    for r in runs:
        for row in request_rows(r):
            w.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buf.getvalue()
