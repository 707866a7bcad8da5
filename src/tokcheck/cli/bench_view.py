"""Rendering for ``tokcheck bench``: a live progress view and the final table (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tokcheck.core.metric_table import METRICS, shown_for
from tokcheck.record.schema import Summary


class LiveProgress:
    """One bar per level. Refreshes twice a second from rich's own thread, so the event loop
    only bumps counters (the render never runs on the hot path)."""

    def __init__(self, config) -> None:
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("warm-up {task.fields[warmup]}  ok {task.fields[ok]}  failed {task.fields[failed]} "
                       "(final count in the table)"),
            TimeElapsedColumn(),
            console=self.console, refresh_per_second=2, transient=False,
        )
        self.tasks: dict[str, int] = {}

    def __enter__(self) -> LiveProgress:
        # The display starts with the first finished request, so a run that fails before any
        # (e.g. the server cannot be reached) prints nothing but its one-line error.
        self._started = False
        return self

    def __exit__(self, *exc) -> None:
        if self._started:
            self.progress.__exit__(*exc)

    def update(self, label: str, looks_ok: bool, planned: int, warmup: bool = False) -> None:
        """Count one finished request of level ``label`` (``planned``: the level's requests, warm-up
        included). Warm-up requests move the bar but are counted apart: the summary leaves them out."""
        if not self._started:
            self.progress.__enter__()
            self._started = True
        task = self.tasks.get(label)
        if task is None:
            task = self.progress.add_task(label, total=planned, ok=0, failed=0, warmup=0)
            self.tasks[label] = task
        fields = self.progress.tasks[task].fields
        if warmup:
            fields["warmup"] += 1
        elif looks_ok:
            fields["ok"] += 1
        else:
            fields["failed"] += 1
        self.progress.advance(task)


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _range(rounds: list[float | None] | None, digits: int) -> str:
    vals = [v for v in rounds or [] if v is not None]
    if len(vals) < 2:
        return ""
    return f" ({_fmt(min(vals), digits)}–{_fmt(max(vals), digits)})"


def _title(label: str, unit: str, stat: str = "") -> str:
    """``"TTFT ms"``, ``"TTFT p99 ms"``, ``"E2E tok/s"`` (no unit where the label says it)."""
    words = f"{label} {stat}".strip()
    return words if unit.lower() in label.lower() else f"{words} {unit}"


def render_summary(summary: Summary, console: Console | None = None) -> None:
    """The final table: one column per level, one row per metric of the metric table that
    bench shows — the rounds' trimmed median and, in brackets, the range (min–max) of all
    rounds' medians; p99 rows where the table asks for tails."""
    console = console or Console()
    table = Table(title=f"tokcheck bench — {summary.run_dir}", header_style="bold")
    table.add_column("metric")
    for lv in summary.levels:
        table.add_column(lv.label, justify="right")

    def median(name: str, digits: int):
        def cell(lv) -> str:
            f = lv.figure(name)
            return _fmt(f.value, digits) + (_range(f.rounds, digits) if f.value is not None else "")
        return cell

    def p99(name: str, digits: int):
        return lambda lv: _fmt(lv.figure(name).p99, digits)

    def ci(name: str, digits: int):
        def cell(lv) -> str:
            c = lv.figure(name).ci95
            return "n/a" if c is None else f"{_fmt(c.low, digits)}–{_fmt(c.high, digits)}"
        return cell

    def share(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    any_open = any(lv.request_rate is not None for lv in summary.levels)

    def out_len(lv) -> str:
        o = lv.output_tokens
        if o is None:
            return "n/a"
        return f"{o.mean:,.0f}" + (f" ({o.min:,}–{o.max:,})" if o.min != o.max else "")

    def client(lv) -> str:
        c = lv.client
        if c is None:
            return "n/a"
        lag = f"lag p99 {c.loop_lag_ms.p99:.1f} ms" if c.loop_lag_ms is not None else "lag n/a"
        return ("BOUND, " if c.bound else "ok, ") + lag

    rows = [("requests ok / failed", lambda lv: f"{lv.requests_ok} / {lv.requests_failed}"),
            ("output tokens (mean)", out_len)]
    for m in shown_for("bench", summary.levels):
        if m.open_only and not any_open:
            continue
        rows.append((_title(m.label, m.unit), median(m.name, m.digits)))
        if "p99" in m.extras:
            rows.append((_title(m.label, m.unit, "p99"), p99(m.name, m.digits)))
    # the headline metrics (those a claim can state) with their 95 % interval across rounds
    for m in (m for m in METRICS if m.claim_name):
        rows.append((_title(m.label, m.unit, "95% CI"), ci(m.name, m.digits)))
    if any(lv.slo is not None for lv in summary.levels):
        rows += _slo_rows(summary)
    rows += [
        ("share of tokens in coalesced reads", lambda lv: share(lv.coalesced_token_share)),
        ("TPOT undefined (1 read)", lambda lv: f"{lv.tpot_undefined_requests} / {lv.requests_ok}"),
        ("client", client),
    ]
    for title, cell in rows:
        table.add_row(title, *(cell(lv) for lv in summary.levels))
    console.print(table)
    for lv in summary.levels:
        notes = []
        if lv.errors:
            notes.append("errors: " + ", ".join(f"{k} × {v}" for k, v in sorted(lv.errors.items())))
        if lv.defects:
            notes.append("defects: " + ", ".join(f"{k} × {v}" for k, v in sorted(lv.defects.items())))
        if lv.early_stops and not lv.warnings:
            notes.append(f"{lv.early_stops} request(s) delivered another output length than asked")
        if lv.tpot_ms is None and lv.tpot_ms_reason and lv.requests_ok:
            notes.append(f"TPOT / generation tok/s: {lv.tpot_ms_reason}")
        notes.extend(lv.warnings)
        if notes:
            console.print(f"[yellow]{lv.label}[/]: " + "; ".join(notes))
    _render_workload_notes(summary, console)
    if lv_ceiling := next((lv.client.ceiling_tok_s for lv in summary.levels
                           if lv.client is not None and lv.client.ceiling_tok_s), None):
        console.print(f"Numbers above {lv_ceiling:,.0f} tok/s on this machine are client-bound (tokcheck probe).")
    if summary.interrupted:
        console.print("[yellow]interrupted: the summary covers the requests that completed[/]")
    console.print("Medians are the median of per-round medians after dropping the highest and lowest round; "
                  "(min–max) is the range of all rounds' medians; 95% CI: Student's t on the rounds' values "
                  "(two rounds or more). A chunk is what arrived in one read. " + CHUNK_NOTE)
    slo = next((lv.slo for lv in summary.levels if lv.slo is not None), None)
    if slo is not None:
        console.print(f"SLO {slo.text}" + (f" ({slo.source})" if slo.source else "")
                      + ": goodput counts requests meeting every objective; failed requests meet none.")


#: Why "tokens per chunk" near 1 and a large coalesced share can stand side by side.
CHUNK_NOTE = ("Tokens per chunk is the median over reads; the coalesced share counts tokens: a few reads "
              "holding many tokens can carry most of them while the median read holds one.")


def _slo_rows(summary: Summary) -> list:
    """Rows for the SLO: each objective's value at its percentile against its limit, the share of
    requests meeting all objectives, and whether the level meets the SLO."""
    first = next(lv.slo for lv in summary.levels if lv.slo is not None)
    rows = []
    for i, o in enumerate(first.objectives):
        def cell(lv, i=i) -> str:
            if lv.slo is None or i >= len(lv.slo.objectives):
                return "n/a"
            r = lv.slo.objectives[i]
            mark = {True: "ok", False: "MISS", None: "n/a"}[r.met]
            return f"{_fmt(r.value_ms, 1) if r.value_ms is not None else '∞'} {mark}"
        rows.append((f"SLO {o.metric} p{o.percentile:g} ≤ {o.limit_ms:g}", cell))
    rows.append(("SLO: requests meeting all",
                 lambda lv: "n/a" if lv.slo is None or lv.slo.share_met_all is None else f"{lv.slo.share_met_all:.0%}"))
    rows.append(("SLO met", lambda lv: {True: "yes", False: "NO", None: "n/a"}[lv.slo.met if lv.slo else None]))
    return rows


def _render_workload_notes(summary: Summary, console: Console) -> None:
    """Say so when the server would not force the output length, or counted the prompt
    differently (both are in run.json ``workload``)."""
    from tokcheck.errors import TokcheckError
    from tokcheck.record.store import read_conditions

    if summary.run_dir is None:  # a summary not (yet) written to a run directory
        return
    try:
        workload = read_conditions(summary.run_dir).workload
    except TokcheckError:
        return
    if workload is None:
        return
    if workload.output_forcing != "max_tokens+min_tokens+ignore_eos":
        console.print(f"[yellow]output length forced with {workload.output_forcing} only: the server "
                      "rejected min_tokens/ignore_eos (outputs may stop early)[/]")
    check = workload.prompt_tokens_check
    for source in ("server_usage", "server_tokenize"):
        n = getattr(check, source) if check is not None else None
        if n is not None and n != check.tokenizer:
            console.print(f"[yellow]prompt length: {check.tokenizer} tokens in the given tokenizer, "
                          f"{n} by the server ({source}) — is it the model's own tokenizer?[/]")
