"""reports of run directories — one self-contained HTML page, a Markdown summary and a
per-request CSV.

The HTML needs no network to view: styles are inline and every plot is a PNG embedded as
base64 (``data:image/png;base64,…``). It leads with the answer — the verdict when a claim was
verified, and each run's headline numbers (one request's generation tok/s and TTFT, the highest
aggregate throughput) with what machine and load they belong to — then the plots (throughput vs
concurrency, the interactivity curve, TTFT and ITL distributions, a per-request timeline, GPU
memory and utilization when the run has NVML samples, the decode bound against the claimed and
measured speed), then the per-level results, the verdict's details and the conditions as
readable rows (yes / no / not stated, never Python's None / True / False).

The functions here return strings; the CLI writes them.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from typing import Any

from tokcheck import __version__
from tokcheck.core.metric_table import METRICS, shown_for, shown_in, with_unit
from tokcheck.record.level import Level
from tokcheck.record.store import Run
from tokcheck.report import plots
from tokcheck.core.units import fmt_count, fmt_number
from tokcheck.report.data import (CSV_COLUMNS, conditions_table, machine_text, request_rows,
                                  run_gpu_names, show)

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
#headline{border:1px solid #d0d7de;border-radius:8px;padding:4px 16px 8px;margin:12px 0 20px;background:#fbfcfd}
#headline h2{margin-top:10px;border:none}#headline table{font-size:1em}
#headline td.big{font-size:1.25em;font-weight:600}
"""


def _e(x: Any) -> str:
    """Escaped text of a cell: ``n/a`` for an absent value, yes / no for a flag."""
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    return html.escape(str(x))


def _num(v: Any) -> str:
    """A figure for a table: :func:`tokcheck.core.units.fmt_number` (``28,653``, ``141``,
    ``5.07``), counts with separators, flags yes / no, ``n/a`` when absent."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return fmt_number(v)
    if isinstance(v, int):
        return fmt_count(v)
    return str(v)


def _metric_columns(levels: list[Any] | None = None) -> list[tuple[str, Any]]:
    """One column per metric the report shows (its median), and one per extra statistic
    (``p99``, ``spread``) right after it; with ``levels``, less the metrics shown only when set
    that none of them has (goodput without an SLO, energy without a GPU)."""
    cols: list[tuple[str, Any]] = []
    for m in (shown_in("report") if levels is None else shown_for("report", levels)):
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
    ("output tokens (mean)", lambda lv: lv.output_tokens.mean if lv.output_tokens is not None else None),
    ("client-bound", lambda lv: None if lv.client is None else ("yes" if lv.client.bound else "no")),
)

#: Titles of the columns of metrics shown only where a run has an open-loop level.
_OPEN_ONLY_TITLES = frozenset(t for m in shown_in("report") if m.open_only
                              for t in [with_unit(f"{m.label} median", m.unit)]
                              + [with_unit(f"{m.label} {x}", m.unit) for x in m.extras])


def level_columns(runs: list[Run]) -> tuple:
    """:data:`LEVEL_COLUMNS` for these runs: metrics shown only when set left out when no level
    has them (goodput without an SLO, energy without a GPU), open-loop metrics only where a level
    is open."""
    levels = [lv for r in runs for lv in r.levels]
    cols = (*LEVEL_COLUMNS[:3], *_metric_columns(levels), *LEVEL_COLUMNS[3 + len(_metric_columns()):])
    if any(lv.request_rate is not None for lv in levels):
        return cols
    return tuple(c for c in cols if c[0] not in _OPEN_ONLY_TITLES)


def level_notes(runs: list[Run]) -> list[str]:
    """What makes a level's numbers doubtful (its ``warnings``, the client-bound reasons among
    them), and this machine's client ceiling where a run recorded one."""
    out: list[str] = []
    for r in runs:
        prefix = f"{r.name}: " if len(runs) > 1 else ""
        cl = r.conditions.client
        if cl is not None and cl.ceiling is not None and cl.ceiling.tok_s:
            out.append(f"{prefix}numbers above {cl.ceiling.tok_s:,.0f} tok/s on this machine are client-bound "
                       f"(tokcheck probe, {cl.ceiling.measured_at})")
        for lv in r.levels:
            out.extend(f"{prefix}{lv.level.name}: {w}" for w in lv.warnings)
    return out


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
    from tokcheck.report.curve import gpu_count, interactivity_curve

    notes = [f"{r.name}: GPUs serving: {gpu_count(r)[1]}" for r in runs]
    add(interactivity_curve(runs, verdict), "Interactivity: tok/s per user vs throughput per GPU",
        "no level with both a generation tok/s and an aggregate throughput", notes)
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
    foreign = foreign_bound_gpu(bound, runs[0]) if runs else None
    note = ([f"The bound is for {foreign}, not the machine this run used ({machine_text(runs[0])}): "
             "it says what that GPU's memory bandwidth would allow, not what this run could reach."]
            if foreign else [])
    add(plots.roofline(bound, measured, claimed, bound_for=foreign), "Decode bound vs claimed and measured",
        (bound or {}).get("reason") or "no bound: give a claim naming its model and GPU", note)
    return out


def foreign_bound_gpu(bound: dict | None, run: Run) -> str | None:
    """The GPU a decode bound is for when ``run`` did not use it (a CPU run, or other GPUs), else
    ``None``. Names are matched through the catalog (``NVIDIA H100 80GB HBM3`` is the H100 SXM)."""
    from tokcheck.core.catalog import find_gpu
    from tokcheck.errors import TokcheckError

    gpu = (bound or {}).get("gpu")
    if not gpu or not (bound or {}).get("hard_tok_s"):
        return None
    name = str(gpu).split(" at ")[0]
    used = run_gpu_names(run)
    if used is None:
        return None  # the run does not say what it ran on: nothing to contrast

    def canonical(n: str) -> str:
        try:
            return find_gpu(n).name
        except TokcheckError:
            return n.strip().lower()

    return None if canonical(name) in {canonical(u) for u in used} else name


def headline_rows(run: Run) -> dict[str, Any]:
    """A run's answer in a few cells: what it ran on, the engine and precision, one request's
    generation tok/s and TTFT (medians of the rounds), the highest aggregate output throughput
    and the level it came at, and the requests that failed; ``notes``: why a figure is n/a."""
    c = run.conditions
    er, pr = c.engine_report, c.precision_report
    engine = " ".join(x for x in ((er.engine if er else None), (er.version if er else None)) if x)
    precision = (pr.precision or pr.method) if pr is not None else None
    if not precision and er is not None and er.dtype:
        precision = er.dtype
    single = run.level_summary(Level.closed(1))
    notes: list[str] = []

    def fig(lv: Any, name: str, unit: str, label: str) -> str:
        if lv is None:
            return "not measured (no concurrency-1 level)"
        f = lv.figure(name)
        if f.value is None:
            if f.reason:
                notes.append(f"{run.name}: {label} n/a — {f.reason}")
            return "n/a (see below)" if f.reason else "n/a"
        return f"{fmt_number(f.value)} {unit}"

    best = None
    for lv in run.levels:
        v = lv.figure("output_throughput_tok_s").value
        if v is not None and (best is None or v > best[0]):
            best = (v, lv)
    failed = sum(lv.requests_failed for lv in run.levels)
    ok = sum(lv.requests_ok for lv in run.levels)
    return {
        "run": run.name,
        "ran on": machine_text(run),
        "engine, precision": ", ".join(x for x in (engine, precision) if x) or "not recorded",
        "one request: generation": fig(single, "generation_tok_s", "tok/s", "one request's generation tok/s"),
        "one request: TTFT": fig(single, "ttft_ms", "ms", "one request's TTFT"),
        "highest aggregate throughput": (f"{fmt_number(best[0])} tok/s at {_level_name(best[1])}"
                                         if best else "n/a"),
        "requests": f"{fmt_count(ok)} ok, {fmt_count(failed)} failed",
        "notes": notes,
    }


def _headline_html(runs: list[Run], verdict: Any) -> str:
    """The answer, first on the page: the verdict (with a claim), each run's headline numbers and
    how to read them (this machine, at its load then)."""
    parts = ['<section id="headline"><h2>The answer</h2>']
    if verdict is not None:
        parts.append(_verdict_line(verdict))
    rows = [headline_rows(r) for r in runs]
    keys = [k for k in rows[0] if k != "notes" and (k != "run" or len(runs) > 1)] if rows else []
    parts.append("<table><tr>" + "".join(f"<th>{_e(k)}</th>" for k in keys) + "</tr>")
    for row in rows:
        # the headline figures large; words (n/a, not measured) at the table's size
        parts.append("<tr>" + "".join(
            f'<td class="{"big" if row[k][:1].isdigit() and k != "requests" else ""}">'
            f"{_e(row[k])}</td>" for k in keys) + "</tr>")
    parts.append("</table>")
    parts.extend(f"<p><small>{_e(n)}</small></p>" for row in rows for n in row["notes"])
    hosts = sorted({r.conditions.client.host for r in runs if r.conditions.client and r.conditions.client.host})
    where = f" ({', '.join(hosts)})" if hosts else ""
    parts.append(f"<p><small>Measured on this machine{_e(where)}, at the load it had then: another machine, or "
                 "this one with other jobs running, gives other numbers. Read a difference as real only "
                 "when it is larger than the rounds' range (the 95 % intervals below; <code>tokcheck "
                 "compare</code> says whether two runs' intervals overlap).</small></p></section>")
    return "".join(parts)


def _verdict_line(verdict: Any) -> str:
    cls = {True: "ok", False: "bad", None: "unk"}[verdict.reproduced]
    return f'<div class="verdict {cls}">{_e(verdict.summary)}</div>'


def _verdict_html(verdict: Any) -> str:
    parts = []
    if verdict.metric_definition:
        parts.append(f"<p><small>metric: {_e(verdict.metric_definition)}</small></p>")
    parts.append("<table><tr><th>condition</th><th>claim</th><th>run</th><th></th></tr>")
    for c in verdict.conditions:
        parts.append(f"<tr><td>{_e(c.name)}</td><td>{_e(show(c.claimed)) if c.claimed is not None else '—'}</td>"
                     f"<td>{_e(show(c.run)) if c.run is not None else '—'}</td>"
                     f'<td class="{c.status}">{c.status}</td></tr>')
    parts.append("</table><h3>The guide's seven checks</h3><table><tr><th>#</th><th>check</th>"
                 "<th>status</th><th>evidence</th></tr>")
    for c in verdict.checks:
        ev = "<br>".join(_e(x) for x in c.evidence + [f"→ {a}" for a in c.advice])
        parts.append(f'<tr><td>{c.number}</td><td>{_e(c.name)}</td><td class="{c.status}">{c.status}</td>'
                     f"<td>{ev}</td></tr>")
    parts.append("</table>")
    if getattr(verdict, "traps", None):
        parts.append("<h3>Known traps of the claim's tool</h3><table><tr><th>trap</th><th>status</th>"
                     "<th>evidence</th></tr>")
        for t in verdict.traps:
            parts.append(f'<tr><td>{_e(t.name)}</td><td class="{t.status}">{t.status}</td>'
                         f"<td>{'<br>'.join(_e(x) for x in t.evidence)}</td></tr>")
        parts.append("</table>")
    for s in verdict.symptoms:
        parts.append(f"<h3>Symptom: {_e(s.symptom)}</h3><ul>"
                     + "".join(f"<li>{_e(x)}</li>" for x in s.evidence) + "</ul><ol>"
                     + "".join(f"<li>{_e(x)}</li>" for x in s.steps) + "</ol>")
    return "\n".join(parts)


#: The headline metrics whose 95 % interval the report lists (those a claim can state).
CI_METRICS = tuple(m for m in METRICS if m.claim_name)


def _fmt_range(ci: Any) -> str:
    return "n/a" if ci is None else f"{_num(ci.low)}–{_num(ci.high)}"


def _rounds(lv: Any) -> int:
    """Rounds of a level: as the summary says, else the rounds its TTFT has values for."""
    return lv.rounds or len([v for v in lv.figure("ttft_ms").rounds or [] if v is not None])


def _ci_html(r: Run) -> str:
    head = "".join(f"<th>{_e(with_unit(m.label, m.unit))}</th>" for m in CI_METRICS)
    rows = "".join(f"<tr><td>{_e(_level_name(lv))}</td><td class=\"num\">{_rounds(lv)}</td>"
                   + "".join(f'<td class="num">{_e(_fmt_range(lv.figure(m.name).ci95))}</td>' for m in CI_METRICS)
                   + "</tr>" for lv in r.levels)
    return f"<p><b>{_e(r.name)}</b></p><table><tr><th>level</th><th>rounds</th>{head}</tr>{rows}</table>"


def _slo_html(r: Run) -> str:
    levels = [lv for lv in r.levels if lv.slo is not None]
    if not levels:
        return ""
    slo = levels[0].slo
    head = "".join(f"<th>{_e(o.metric)} p{o.percentile:g} ≤ {o.limit_ms:g} ms</th>" for o in slo.objectives)
    rows = []
    for lv in levels:
        cells = "".join(f'<td class="num {("pass" if o.met else "fail") if o.met is not None else ""}">'
                        f'{_e(_num(o.value_ms) if o.value_ms is not None else "∞")}</td>' for o in lv.slo.objectives)
        met = {True: '<td class="pass">yes</td>', False: '<td class="fail">no</td>', None: "<td>n/a</td>"}[lv.slo.met]
        share = "n/a" if lv.slo.share_met_all is None else f"{lv.slo.share_met_all:.0%}"
        rows.append(f"<tr><td>{_e(_level_name(lv))}</td>{cells}<td class=\"num\">{share}</td>"
                    f"<td class=\"num\">{_e(_num(lv.slo.goodput_rps))}</td>"
                    f"<td class=\"num\">{_e(_num(lv.slo.goodput_tok_s))}</td>{met}</tr>")
    src = f"<p><small>{_e(slo.source)}</small></p>" if slo.source else ""
    return (f"<p><b>{_e(r.name)}</b>: SLO {_e(slo.text)}</p>{src}<table><tr><th>level</th>{head}"
            "<th>requests meeting all</th><th>goodput (req/s)</th><th>goodput (tok/s)</th><th>SLO met</th></tr>"
            + "".join(rows) + "</table>")


def _definitions_html(r: Run) -> str:
    from tokcheck.analysis.definitions import KEYS, TOOLS, definitions

    parts = []
    for lv in r.levels:
        d = definitions(r, lv.level)
        head = "".join(f"<th>{_e(TOOLS[t].title)}</th>" for t in d)
        rows = "".join(f"<tr><td>{_e(k)}</td>" + "".join(f'<td class="num">{_e(_num(d[t].get(k)))}</td>' for t in d)
                       + "</tr>" for k in KEYS)
        parts.append(f"<p><b>{_e(r.name)}</b>, {_e(_level_name(lv))}</p><table><tr><th>metric</th>{head}</tr>"
                     f"{rows}</table>")
    return "".join(parts)


def _definitions_sources_html() -> str:
    from tokcheck.analysis.definitions import TOOLS

    items = "".join(f"<li><b>{_e(t.title)}</b> ({_e(t.version)}): {_e(', '.join(t.sources))}</li>"
                    for name, t in TOOLS.items() if name != "tokcheck")
    return ("<p><small>Each round read as one run of the tool, the rounds combined by tokcheck's rule for all "
            "alike, so only the definitions differ. Sources, read not copied:</small></p>"
            f"<ul><small>{items}</small></ul>")


def _receipt_html(runs: list[Run]) -> str:
    from tokcheck.record.store import read_receipt

    rows = []
    for r in runs:
        try:
            rec = read_receipt(r.path)
        except Exception:  # noqa: BLE001 - a broken receipt is reported, never fatal to the report
            rec = {"digest": "unreadable receipt.json"}
        if rec is None:
            rows.append(f"<tr><td>{_e(r.name)}</td><td>no receipt (tokcheck receipt {_e(r.path)})</td><td></td></tr>")
            continue
        from tokcheck.record.receipt import check_receipt

        try:
            ok = "verified: every file matches" if check_receipt(r.path).ok else "FAILED: files changed since"
        except Exception:  # noqa: BLE001
            ok = "cannot be checked"
        rows.append(f"<tr><td>{_e(r.name)}</td><td><code>{_e(rec.get('digest'))}</code></td><td>{_e(ok)}</td></tr>")
    return "<table><tr><th>run</th><th>receipt digest (SHA-256)</th><th>check</th></tr>" + "".join(rows) + "</table>"


def render_html(runs: list[Run], verdict: Any = None, bound: dict | None = None,
                title: str | None = None, sections: list[tuple[str, str]] | None = None) -> str:
    """The self-contained HTML page for ``runs`` (one or more), with ``verdict``
    (:class:`tokcheck.analysis.verify.Verdict`) and ``bound`` (decode bound dict) when given.
    ``sections``: ``(title, HTML)`` pairs shown first (e.g. the demo's precision comparison);
    their HTML is the caller's, already escaped."""
    title = title or ("tokcheck report: " + ", ".join(r.name for r in runs))
    body = [f"<h1>{_e(title)}</h1><p><small>tokcheck {__version__}</small></p>"]
    if runs:
        body.append(_headline_html(runs, verdict))
    for sec_title, sec_html in sections or []:
        body.append(f"<h2>{_e(sec_title)}</h2>{sec_html}")
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
    body.append("<h2>Results per level</h2>")
    cols = level_columns(runs)
    for r in runs:
        head = "".join(f"<th>{_e(c[0])}</th>" for c in cols)
        rows = "".join(f"<tr><td>{_e(_level_name(lv))}</td>"
                       + "".join(f'<td class="num">{_e(_num(fn(lv)))}</td>' for _, fn in cols)
                       + "</tr>" for lv in r.levels)
        body.append(f"<p><b>{_e(r.name)}</b></p><table><tr><th>level</th>{head}</tr>{rows}</table>")
    body.extend(f'<p class="note">{_e(n)}</p>' for n in level_notes(runs))
    body.append("<p><small>Medians are the rounds' trimmed median (each round's median, highest and "
                "lowest round dropped); spread is max − min of all rounds' medians. TTFT = first "
                "token − send; generation tok/s = 1/TPOT (TTFT excluded).</small></p>")
    if verdict is not None:
        body.append("<h2>The claim against the run</h2>")
        body.append(_verdict_html(verdict))
    body.append("<h2>Conditions</h2>")
    for r in runs:
        if len(runs) > 1:
            body.append(f"<p><b>{_e(r.name)}</b></p>")
        body.append(f"<table>{''.join(f'<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in conditions_table(r))}</table>")
    body.append("<h2>95 % confidence intervals across rounds</h2>")
    body.extend(_ci_html(r) for r in runs)
    body.append("<p><small>Student's t on the rounds' values (mean ± t(0.975, n−1)·s/√n): an interval for "
                "the mean of the round values; n/a with fewer than two rounds.</small></p>")
    slo_parts = [x for x in (_slo_html(r) for r in runs) if x]
    if slo_parts:
        body.append("<h2>SLO and goodput</h2>")
        body.extend(slo_parts)
        body.append("<p><small>Goodput: requests meeting every objective (and their output tokens) ÷ the "
                    "throughput window, rounds' trimmed median; a level meets the SLO when each objective's "
                    "value at its percentile is within the limit, failed requests counted as infinitely "
                    "slow.</small></p>")
    body.append("<h2>The run under each tool's definitions</h2>")
    body.extend(_definitions_html(r) for r in runs)
    body.append(_definitions_sources_html())
    body.append("<h2>Evidence receipt</h2>")
    body.append(_receipt_html(runs))
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
            out.append(f"| {c.name} | {'—' if c.claimed is None else show(c.claimed)} | "
                       f"{'—' if c.run is None else show(c.run)} | {c.status} |")
        out += ["", "| # | check | status | evidence |", "|---|---|---|---|"]
        for c in verdict.checks:
            out.append(f"| {c.number} | {c.name} | {c.status} | {'; '.join(c.evidence).replace('|', '/')} |")
        out.append("")
    cols = level_columns(runs)
    for r in runs:
        out += [f"## {r.name}", "", "| condition | value |", "|---|---|"]
        out += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in conditions_table(r)]
        out += ["", "| level | " + " | ".join(c[0] for c in cols) + " |", "|---|" + "---|" * len(cols)]
        for lv in r.levels:
            out.append(f"| {_level_name(lv)} | " + " | ".join(_num(fn(lv)) for _, fn in cols) + " |")
        out += ["", "95 % confidence intervals across rounds (Student's t on the rounds' values):", "",
                "| level | " + " | ".join(with_unit(m.label, m.unit) for m in CI_METRICS) + " |",
                "|---|" + "---|" * len(CI_METRICS)]
        for lv in r.levels:
            out.append(f"| {_level_name(lv)} | " + " | ".join(_fmt_range(lv.figure(m.name).ci95) for m in CI_METRICS)
                       + " |")
        out.append("")
    notes = level_notes(runs)
    if notes:
        out += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
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
