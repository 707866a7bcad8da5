"""Rendering for ``tokcheck bench``: a live progress view and the final table (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tokcheck.record import RequestRecord, Summary


class LiveProgress:
    """One bar per level. Refreshes twice a second from rich's own thread, so the event loop
    only bumps counters (the render never runs on the hot path)."""

    def __init__(self, config) -> None:
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("ok {task.fields[ok]}  failed {task.fields[failed]}"), TimeElapsedColumn(),
            console=self.console, refresh_per_second=2, transient=False,
        )
        self.tasks: dict[str, int] = {}

    def __enter__(self) -> LiveProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def update(self, label: str, rec: RequestRecord, planned: int) -> None:
        task = self.tasks.get(label)
        if task is None:
            task = self.progress.add_task(label, total=planned, ok=0, failed=0)
            self.tasks[label] = task
        fields = self.progress.tasks[task].fields
        if rec.error is None:
            fields["ok"] += 1
        else:
            fields["failed"] += 1
        self.progress.advance(task)


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def render_summary(summary: Summary, console: Console | None = None) -> None:
    """The final table: per level, medians (rounds' trimmed median) and throughput."""
    console = console or Console()
    table = Table(title=f"tokcheck bench — {summary.run_dir}", header_style="bold")
    for col in ("level", "ok", "failed", "TTFT ms", "TPOT ms", "ITL ms", "gen tok/s", "E2E ms",
                "E2E tok/s", "out tok/s", "req/s", "queue ms", "tok/chunk"):
        table.add_column(col, justify="right")
    for lv in summary.levels:
        def med(name: str, digits: int = 1) -> str:
            stat = getattr(lv, name)
            return _fmt(stat.median if stat else None, digits)

        table.add_row(
            lv.label, str(lv.requests_ok), str(lv.requests_failed), med("ttft_ms"), med("tpot_ms", 2),
            med("itl_ms", 2), med("generation_tok_s"), med("e2e_latency_ms", 0), med("e2e_tok_s"),
            _fmt(lv.output_throughput_tok_s), _fmt(lv.request_throughput_rps, 2), med("queue_delay_ms", 2),
            med("tokens_per_chunk", 2),
        )
    console.print(table)
    for lv in summary.levels:
        notes = []
        if lv.errors:
            notes.append("errors: " + ", ".join(f"{k} × {v}" for k, v in sorted(lv.errors.items())))
        if lv.defects:
            notes.append("defects: " + ", ".join(f"{k} × {v}" for k, v in sorted(lv.defects.items())))
        if lv.early_stops:
            notes.append(f"{lv.early_stops} request(s) stopped before the asked output length")
        if notes:
            console.print(f"[yellow]{lv.label}[/]: " + "; ".join(notes))
    if summary.interrupted:
        console.print("[yellow]interrupted: the summary covers the requests that completed[/]")
    console.print("Medians are the median of per-round medians after dropping the highest and lowest round.")
