"""``tokcheck sweep --engine vllm --model DIR --max-model-len 2048,4096 --concurrency 1,4,16`` — how max_model_len and concurrency move the numbers."""

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
    p.add_argument("--model", required=True, metavar="DIR", help="model directory")
    p.add_argument("--max-model-len", required=True, metavar="N,N", help="e.g. 2048,4096")
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from tokcheck.cli.verify import parse_tolerance
    from tokcheck.record.store import load_run
    from tokcheck.core.metric_table import with_unit
    from tokcheck.flows.sweep import (SWEEP_METRICS, SweepConfig, find_swings, run_sweep, sweep_cells,
                                sweep_markdown, swing_marks)

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
    marks = swing_marks(cells, swings)
    t = Table(title=f"Sweep: {args.model} (⚠ = change over {threshold:.0%})", title_justify="left")
    t.add_column("max_model_len", justify="right")
    t.add_column("concurrency", justify="right")
    for _, label, unit in SWEEP_METRICS:
        t.add_column(with_unit(label, unit), justify="right")
    for c in cells:
        row = []
        for key, _, _ in SWEEP_METRICS:
            v = getattr(c, key)
            txt = "n/a" if v is None else f"{v:,.1f}"
            m = marks.get((c.max_model_len, c.concurrency, key))
            row.append(txt + ("".join(f"\n[yellow]⚠ {x}[/]" for x in m) if m else ""))
        t.add_row(str(c.max_model_len), str(c.concurrency), *row)
    Console().print(t)
    print(f"wrote {out / 'sweep.md'}, {out / 'sweep.json'} and one run directory per max_model_len")
    return 0
