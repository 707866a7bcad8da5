"""``tokcheck report runs/... --html out.html --md out.md [--csv out.csv]`` — the run record as reports."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write a self-contained HTML report, a Markdown summary and a per-request CSV",
        description="Report one or more run directories: conditions, verdict (with --claim), "
                    "throughput vs concurrency, TTFT and ITL distributions, per-request timeline, "
                    "GPU memory and utilization when recorded, the decode bound. With no output "
                    "option the Markdown summary is printed.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories written by `tokcheck bench`")
    p.add_argument("--html", metavar="FILE", help="self-contained HTML page (plots embedded)")
    p.add_argument("--md", metavar="FILE", help="Markdown summary")
    p.add_argument("--csv", metavar="FILE", help="one row per request")
    p.add_argument("--claim", help="verify this claim against the first run and show the verdict")
    p.add_argument("--tolerance", default="20%", help="with --claim: tolerance (default 20%%)")
    p.add_argument("--metric", choices=("generation_tok_s", "e2e_tok_s", "aggregate_throughput", "ttft"),
                   help="with --claim: which metric the claimed number is")
    p.add_argument("--claim-tool", metavar="TOOL",
                   help="with --claim: the tool it was measured with (vllm-bench, guidellm, aiperf)")
    p.add_argument("--gpu", help="GPU for the decode bound (default: the claim's, else the run's own)")
    p.add_argument("--model-config", metavar="DIR", help="model directory for the run's own bound "
                   "(default: the one the run record points at)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tokcheck.report import render_csv, render_html, render_markdown
    from tokcheck.record.store import load_runs

    runs = load_runs(args.runs)
    verdict = bound = None
    if args.claim:
        from tokcheck.cli.verify import bound_for, claim_fields, parse_tolerance
        from tokcheck.analysis.verify import verify

        fields = claim_fields(args.claim, metric=args.metric, gpu=args.gpu)
        bound = bound_for(fields, model_dir=args.model_config, run=runs[0])
        from tokcheck.analysis.definitions import claim_tool_option

        tool = claim_tool_option(args.claim_tool)
        verdict = verify(fields, runs[0], tolerance=parse_tolerance(args.tolerance), bound=bound,
                         claim_tool=tool, claim_text=args.claim)
    if not (bound or {}).get("hard_tok_s"):
        from tokcheck.report.bound import bound_for_run

        own = bound_for_run(runs[0], gpu=args.gpu, model_dir=args.model_config)
        bound = own if own.get("hard_tok_s") or bound is None else bound
    written = []
    if args.html:
        Path(args.html).write_text(render_html(runs, verdict, bound), encoding="utf-8")
        written.append(args.html)
    if args.md:
        Path(args.md).write_text(render_markdown(runs, verdict, bound), encoding="utf-8")
        written.append(args.md)
    if args.csv:
        Path(args.csv).write_text(render_csv(runs), encoding="utf-8")
        written.append(args.csv)
    if written:
        print("wrote " + ", ".join(written))
    else:
        print(render_markdown(runs, verdict, bound))
    return 0
