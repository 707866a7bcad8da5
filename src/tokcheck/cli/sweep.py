"""``tokcheck sweep --engine vllm --model DIR --max-model-len 2048,4096 --concurrency 1,4,16`` — how
max_model_len and concurrency move the numbers; ``tokcheck sweep --find-max --slo … --url URL`` — the
highest load that meets an SLO (:mod:`tokcheck.flows.find_max`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tokcheck.core.units import parse_count_list


def add_parser(sub: argparse._SubParsersAction) -> None:
    from tokcheck.cli.serve import add_engine_option

    p = sub.add_parser(
        "sweep",
        help="restart the server per max_model_len, bench each concurrency, mark swings over 30%%",
        description="Serve the model once per --max-model-len, bench every --concurrency "
                    "there, and show how TTFT, per-request speed and aggregate throughput move; "
                    "changes over the threshold (the guide's 30 %) between neighbouring settings "
                    "are marked.",
    )
    add_engine_option(p)
    p.add_argument("--model", required=True, metavar="DIR",
                   help="model directory (with --find-max: the model name the server at --url serves)")
    p.add_argument("--max-model-len", metavar="N,N", help="e.g. 2048,4096 (required without --find-max)")
    p.add_argument("--concurrency", default="1,4,16", metavar="N,N", help="e.g. 1,4,16 (default)")
    p.add_argument("--input-len", type=int, default=1000, help="prompt tokens (default 1000)")
    p.add_argument("--output-len", type=int, default=1000, help="output tokens (default 1000)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per level (default 3)")
    p.add_argument("--requests-per-round", type=int, help="requests per round (default: bench's)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up requests per level (default 1)")
    p.add_argument("--out", metavar="DIR", help="sweep folder (default runs/sweep-<UTC time>)")
    p.add_argument("--python", metavar="PATH", help="the engine's Python (default: cached vLLM for the CPU)")
    p.add_argument("--dtype", default="bfloat16", help="--dtype for the engine (default bfloat16)")
    p.add_argument("--gpu-memory-utilization", type=float, help="passed to the engine")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs / compilation (faster start)")
    p.add_argument("--served-model-name", help="name the server answers to")
    p.add_argument("--threshold", default="30%", help="mark changes above this (default 30%%)")
    p.add_argument("--json", action="store_true", help="print cells and swings as JSON")
    g = p.add_argument_group("find the limit (--find-max)")
    g.add_argument("--find-max", action="store_true",
                   help="against the server at --url: the highest concurrency (or request rate) that meets --slo, "
                        "stopping by itself when throughput stops rising")
    g.add_argument("--slo", metavar="SPEC", help="the SLO, as bench --slo (e.g. ttft_ms=500,tpot_ms=30 or "
                                                 "mlperf:llama3.1-8b-interactive)")
    g.add_argument("--url", help="the running server (with --find-max)")
    g.add_argument("--tokenizer", help="the model's tokenizer.json or directory (default: --model)")
    g.add_argument("--api", choices=["completions", "chat"], default="completions")
    g.add_argument("--start", type=int, default=1, help="first concurrency (default 1)")
    g.add_argument("--max-concurrency", type=int, default=256, help="highest concurrency to try (default 256)")
    g.add_argument("--request-rate-start", type=float, metavar="R",
                   help="search request rates (open loop, Poisson) from R req/s instead of concurrency")
    g.add_argument("--max-rate", type=float, default=1024.0, help="highest request rate to try (default 1024)")
    g.add_argument("--max-in-flight", type=int, help="open loop: cap on requests in flight")
    g.add_argument("--saturation-gain", default="5%",
                   help="stop when doubling the load raises throughput by less than this (default 5%%)")
    g.add_argument("--max-steps", type=int, default=12, help="most levels to bench (default 12)")
    g.add_argument("--no-telemetry", action="store_true", help="skip /metrics scraping and GPU sampling")
    p.set_defaults(func=run)


def _find_max(args: argparse.Namespace) -> int:
    import os

    from rich.console import Console

    from tokcheck.cli.verify import parse_tolerance
    from tokcheck.errors import TokcheckError
    from tokcheck.flows.find_max import FindMaxConfig, run_find_max

    if not args.slo or not args.url:
        raise TokcheckError("--find-max needs --slo and --url (a running server)")
    open_loop = args.request_rate_start is not None
    out = Path(args.out or Path("runs") / time.strftime("find-max-%Y%m%d-%H%M%S", time.gmtime()))
    cfg = FindMaxConfig(
        url=args.url, model=args.model, tokenizer=args.tokenizer or args.model, slo=args.slo, out=str(out),
        mode="open" if open_loop else "closed", start=args.request_rate_start if open_loop else args.start,
        max_load=args.max_rate if open_loop else args.max_concurrency,
        saturation_gain=parse_tolerance(args.saturation_gain), max_steps=args.max_steps, api=args.api,
        input_len=args.input_len, output_len=args.output_len, rounds=args.rounds, warmup=args.warmup,
        requests_per_round=args.requests_per_round, max_in_flight=args.max_in_flight,
        api_key=os.environ.get("OPENAI_API_KEY") or None)

    def hooks_for(step: int):
        if args.no_telemetry:
            return [], {}
        from tokcheck.machine.run_telemetry import telemetry_for

        return telemetry_for(args.url, environment=step == 1)

    err = Console(stderr=True)
    result = run_find_max(cfg, hooks_for, progress=lambda s: err.print(s, highlight=False))
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        print()
        return 0
    _render_find_max(result, out)
    return 0


def _render_find_max(result, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Find the limit: SLO {result.slo}", title_justify="left")
    for col in ("step", "level", "SLO met", "output tok/s", "goodput tok/s", "requests meeting all", "decision"):
        t.add_column(col, justify="right" if col not in ("level", "decision") else "left")
    for s in result.steps:
        t.add_row(str(s.step), s.label, {True: "[green]yes[/]", False: "[red]no[/]", None: "n/a"}[s.met],
                  "n/a" if s.throughput_tok_s is None else f"{s.throughput_tok_s:,.1f}",
                  "n/a" if s.goodput_tok_s is None else f"{s.goodput_tok_s:,.1f}",
                  "n/a" if s.share_met_all is None else f"{s.share_met_all:.0%}", s.decision)
    con = Console()
    con.print(t)
    if result.answer is not None:
        con.print(f"[bold]Highest load meeting the SLO: {result.answer.label}[/] "
                  f"({result.answer.throughput_tok_s or 0:,.1f} output tok/s); stopped: {result.stopped_because}")
    else:
        con.print(f"[bold red]No load met the SLO[/]: {result.stopped_because}")
    if result.source:
        con.print(f"[dim]SLO source: {result.source}[/]")
    print(f"wrote {out / 'find_max.json'} and one run directory per step")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    if args.find_max:
        return _find_max(args)
    if not args.max_model_len:
        from tokcheck.errors import TokcheckError

        raise TokcheckError("give --max-model-len (or --find-max with --slo and --url)")

    from tokcheck.cli.verify import parse_tolerance
    from tokcheck.flows.sweep import SweepConfig, find_swings, run_sweep, sweep_cells, sweep_markdown
    from tokcheck.record.store import load_run

    threshold = parse_tolerance(args.threshold)
    mmls = parse_count_list(args.max_model_len, "--max-model-len", "tokens")
    concs = parse_count_list(args.concurrency, "--concurrency")
    out = Path(args.out or Path("runs") / time.strftime("sweep-%Y%m%d-%H%M%S", time.gmtime()))
    cfg = SweepConfig(model=args.model, max_model_lens=mmls, concurrency=concs, out=str(out),
                      engine=args.engine, python=args.python, input_len=args.input_len,
                      output_len=args.output_len, rounds=args.rounds,
                      requests_per_round=args.requests_per_round, warmup=args.warmup, dtype=args.dtype,
                      gpu_memory_utilization=args.gpu_memory_utilization,
                      enforce_eager=args.enforce_eager, served_model_name=args.served_model_name)
    err = Console(stderr=True)
    dirs = run_sweep(cfg, progress=lambda s: err.print(s, highlight=False))
    runs = {mml: load_run(d) for mml, d in dirs.items()}
    cells = sweep_cells(runs)
    swings = find_swings(cells, threshold)
    (out / "sweep.md").write_text(sweep_markdown(cells, swings, threshold), encoding="utf-8")
    from dataclasses import asdict

    data = {"threshold": threshold, "cells": [asdict(c) for c in cells], "swings": [asdict(s) for s in swings]}
    (out / "sweep.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        print()
        return 0
    print_sweep_table(cells, swings, threshold, args.model)
    print(f"wrote {out / 'sweep.md'}, {out / 'sweep.json'} and one run directory per max_model_len")
    return 0


def print_sweep_table(cells, swings, threshold: float, model: str, console=None) -> None:
    """The sweep's table for a terminal, swings marked with ⚠ and each n/a cell pointing at a
    footnote under the table that says why it has no value."""
    from rich.console import Console
    from rich.table import Table

    from tokcheck.core.metric_table import with_unit
    from tokcheck.flows.sweep import SWEEP_METRICS, cell_text, na_notes, swing_marks

    marks = swing_marks(cells, swings)
    notes, why = na_notes(cells)
    t = Table(title=f"Sweep: {model} (⚠ = change over {threshold:.0%})", title_justify="left")
    t.add_column("max_model_len", justify="right")
    t.add_column("concurrency", justify="right")
    for _, label, unit in SWEEP_METRICS:
        t.add_column(with_unit(label, unit), justify="right")
    for c in cells:
        row = []
        for key, _, _ in SWEEP_METRICS:
            txt = cell_text(c, key, notes).replace("[", "\\[")  # rich markup: a literal [1]
            m = marks.get((c.max_model_len, c.concurrency, key))
            row.append(txt + ("".join(f"\n[yellow]⚠ {x}[/]" for x in m) if m else ""))
        t.add_row(str(c.max_model_len), str(c.concurrency), *row)
    con = console or Console()
    con.print(t)
    for i, text in enumerate(why, 1):
        con.print(f"[{i}] n/a: {text}", highlight=False, markup=False)
