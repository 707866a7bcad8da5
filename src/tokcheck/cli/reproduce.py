"""``tokcheck reproduce "CLAIM" --model DIR`` — from a claim to a verdict in one command."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    from tokcheck.cli.serve import add_engine_option

    p = sub.add_parser(
        "reproduce",
        help="claim → workload → doctor → serve → inspect → bench → verify → report, in one go",
        description="Derive the workload from the claim (metric, concurrency, input and output "
                    "lengths, max_model_len, precision; the guide's defaults where it is silent), "
                    "check the machine and the weights, serve the model, bench it with rounds, "
                    "verify the claim and write the report — stopping early with the reason when "
                    "the checklist already fails (quantized weights, will not fit).",
    )
    p.add_argument("claim", help="the claim text")
    p.add_argument("--model", required=True, metavar="DIR", help="model directory to serve")
    add_engine_option(p)
    p.add_argument("--python", metavar="PATH", help="the engine's Python (default: cached vLLM for the CPU)")
    p.add_argument("--out", metavar="DIR", help="run directory (default runs/reproduce-<UTC time>)")
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3: the guide's minimum)")
    p.add_argument("--requests-per-round", type=int, help="requests per round (default: bench's)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up requests per level (default 1)")
    p.add_argument("--tolerance", default="20%", help="verdict tolerance (default 20%%)")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs / compilation (faster start)")
    p.add_argument("--served-model-name", help="name the server answers to")
    for opt, typ, what in (("--concurrency", int, "concurrency"), ("--input-len", int, "input tokens"),
                           ("--output-len", int, "output tokens"), ("--max-model-len", int, "max_model_len")):
        p.add_argument(opt, type=typ, help=f"{what} (overrides the claim's)")
    p.add_argument("--metric", choices=("generation_tok_s", "e2e_tok_s", "aggregate_throughput", "ttft"),
                   help="which metric the claimed number is (overrides the claim's)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tokcheck.cli.verify import parse_tolerance, render
    from tokcheck.flows.reproduce import reproduce

    err = Console(stderr=True)
    out = Path(args.out or Path("runs") / time.strftime("reproduce-%Y%m%d-%H%M%S", time.gmtime()))
    overrides = {"concurrency": args.concurrency, "input_tokens": args.input_len,
                 "output_tokens": args.output_len, "max_model_len": args.max_model_len, "metric": args.metric}
    result = reproduce(args.claim, args.model, out=out, engine=args.engine, python=args.python,
                       rounds=args.rounds, tolerance=parse_tolerance(args.tolerance),
                       requests_per_round=args.requests_per_round, warmup=args.warmup,
                       enforce_eager=args.enforce_eager, served_model_name=args.served_model_name,
                       overrides=overrides, progress=lambda s: err.print(s, highlight=False))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=str))
        return 1 if result.stopped else 0
    con = Console()
    if result.stopped:
        con.print("[bold red]Stopped before measuring: the checklist already fails.[/]")
        for reason in result.stopped:
            con.print(f"  · {reason}", highlight=False)
        con.print(f"(checklist in {out / 'doctor.json'})")
        return 1
    render(result.verdict)
    con.print(f"\nwrote {', '.join(result.files)}", highlight=False)
    return 0
