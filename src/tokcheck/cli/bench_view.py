"""Rendering for ``tokcheck bench``: a live progress view and the final table (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tokcheck.record.schema import Summary


class LiveProgress:
    """One bar per level. Refreshes twice a second from rich's own thread, so the event loop
    only bumps counters (the render never runs on the hot path)."""

    def __init__(self, config) -> None:
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("ok {task.fields[ok]}  failed {task.fields[failed]} (final count in the table)"),
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

    def update(self, label: str, looks_ok: bool, planned: int) -> None:
        if not self._started:
            self.progress.__enter__()
            self._started = True
        task = self.tasks.get(label)
        if task is None:
            task = self.progress.add_task(label, total=planned, ok=0, failed=0)
            self.tasks[label] = task
        fields = self.progress.tasks[task].fields
        if looks_ok:
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


def render_summary(summary: Summary, console: Console | None = None) -> None:
    """The final table: one column per level, one row per metric — the rounds' trimmed median
    and, in brackets, the range (min–max) of all rounds' medians; p99 where tails matter."""
    console = console or Console()
    table = Table(title=f"tokcheck bench — {summary.run_dir}", header_style="bold")
    table.add_column("metric")
    for lv in summary.levels:
        table.add_column(lv.label, justify="right")

    def stat(name: str, field: str = "median", digits: int = 1):
        def cell(lv) -> str:
            value = getattr(lv, name)
            text = _fmt(getattr(value, field) if value else None, digits)
            if field == "median" and value is not None:
                text += _range(value.rounds, digits)
            return text
        return cell

    def share(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    rows = [
        ("requests ok / failed", lambda lv: f"{lv.requests_ok} / {lv.requests_failed}"),
        ("TTFT ms", stat("ttft_ms")),
        ("TTFT p99 ms", stat("ttft_ms", "p99")),
        ("TPOT ms", stat("tpot_ms", digits=2)),
        ("ITL ms (per token)", stat("itl_ms", digits=2)),
        ("ITL p99 ms", stat("itl_ms", "p99", digits=2)),
        ("generation tok/s", stat("generation_tok_s")),
        ("E2E latency ms", stat("e2e_latency_ms", digits=0)),
        ("E2E tok/s", stat("e2e_tok_s")),
        ("output throughput tok/s",
         lambda lv: _fmt(lv.output_throughput_tok_s) + _range(lv.output_throughput_tok_s_rounds, 1)),
        ("request throughput req/s", lambda lv: _fmt(lv.request_throughput_rps, 2)),
        ("queue delay ms", stat("queue_delay_ms", digits=2)),
        ("tokens per chunk (read)", stat("tokens_per_chunk", digits=2)),
        ("tokens in coalesced reads", lambda lv: share(lv.coalesced_token_share)),
        ("TPOT undefined (1 read)", lambda lv: f"{lv.tpot_undefined_requests} / {lv.requests_ok}"),
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
        if lv.early_stops:
            notes.append(f"{lv.early_stops} request(s) stopped before the asked output length")
        if lv.tpot_ms is None and lv.tpot_ms_reason and lv.requests_ok:
            notes.append(f"TPOT / generation tok/s: {lv.tpot_ms_reason}")
        if notes:
            console.print(f"[yellow]{lv.label}[/]: " + "; ".join(notes))
    _render_workload_notes(summary, console)
    if summary.interrupted:
        console.print("[yellow]interrupted: the summary covers the requests that completed[/]")
    console.print("Medians are the median of per-round medians after dropping the highest and lowest round; "
                  "(min–max) is the range of all rounds' medians. A chunk is what arrived in one read.")


def _render_workload_notes(summary: Summary, console: Console) -> None:
    """Say so when the server would not force the output length, or counted the prompt
    differently (both are in run.json ``workload``)."""
    import json
    from pathlib import Path

    try:
        workload = json.loads((Path(summary.run_dir) / "run.json").read_text())["workload"]
    except (OSError, ValueError, KeyError):
        return
    if workload.get("output_forcing") != "max_tokens+min_tokens+ignore_eos":
        console.print(f"[yellow]output length forced with {workload.get('output_forcing')} only: the server "
                      "rejected min_tokens/ignore_eos (outputs may stop early)[/]")
    check = workload.get("prompt_tokens_check") or {}
    for source in ("server_usage", "server_tokenize"):
        n = check.get(source)
        if n is not None and n != check.get("tokenizer"):
            console.print(f"[yellow]prompt length: {check.get('tokenizer')} tokens in the given tokenizer, "
                          f"{n} by the server ({source}) — is it the model's own tokenizer?[/]")
