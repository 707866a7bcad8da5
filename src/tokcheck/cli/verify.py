"""``tokcheck verify "CLAIM" --run runs/X`` — V1, V2: reproduced or not, and why."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tokcheck.errors import TokcheckError


def parse_tolerance(text: str) -> float:
    """``"20%"``, ``"20"`` or ``"0.2"`` → 0.2. Raises TokcheckError outside (0, 10)."""
    raw = str(text).strip()
    try:
        value = float(raw.rstrip("%").strip())
    except ValueError:
        raise TokcheckError(f"bad tolerance {text!r}: give a percentage such as 20%") from None
    if raw.endswith("%") or value >= 1:
        value /= 100.0
    if not 0 < value < 10:
        raise TokcheckError(f"bad tolerance {text!r}: must be above 0 %")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="compare a claim with a run directory: reproduced or not, and the seed's seven checks",
        description="Put a claim's conditions beside a run's, compare the claimed and measured "
                    "number on the same metric definition, and when they differ walk the seed's "
                    "seven checks with the evidence from the run record.",
    )
    p.add_argument("claim", help='the claim, e.g. "Qwen3-8B at 60 tok/s single request, BF16"')
    p.add_argument("--run", required=True, metavar="DIR", help="run directory written by `tokcheck bench`")
    p.add_argument("--tolerance", default="20%", help="how far measured may be from claimed (default 20%%)")
    p.add_argument("--metric", choices=("generation_tok_s", "e2e_tok_s", "aggregate_throughput", "ttft"),
                   help="which metric the claimed number is (overrides the claim's text)")
    p.add_argument("--concurrency", type=int, help="the claim's concurrency (overrides its text)")
    p.add_argument("--gpu", help="the claim's GPU, for the bandwidth bound (overrides its text)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=run)


def claim_fields(text: str, **overrides: Any) -> dict[str, Any]:
    """The claim's fields (issue 2's keys), with the given overrides applied when not None."""
    from tokcheck.claim import parse_claim

    fields = dict(parse_claim(text).fields)
    for k, v in overrides.items():
        if v is not None:
            fields[k] = v
    return fields


def bound_for(fields: dict[str, Any]) -> dict[str, Any]:
    """The decode bound of the claim's model on the claim's GPU, or ``{"reason": …}``."""
    from tokcheck import catalog, roofline

    if not fields.get("model") or not fields.get("gpu"):
        missing = " and ".join(k for k in ("model", "gpu") if not fields.get(k))
        return {"reason": f"no bound: the claim does not name its {missing}"}
    try:
        model = catalog.find_model(fields["model"])
        gpu = catalog.find_gpu(fields["gpu"])
    except TokcheckError as err:
        return {"reason": f"no bound: {err}"}
    from tokcheck.verify import normalize_precision

    prec = normalize_precision(fields.get("precision")) or "bf16"
    prec = {"full": "bf16"}.get(prec, prec)
    inp, out = fields.get("input_tokens"), fields.get("output_tokens")
    context = int((inp or 1000) + (out or 1000) / 2)
    try:
        b = roofline.decode_bound(model, gpu, prec, context, tensor_parallel=int(fields.get("gpu_count") or 1))
    except TokcheckError as err:
        return {"reason": f"no bound: {err}"}
    keys = ("bytes_per_token", "hard_tok_s", "realistic_tok_s", "context_tokens")
    d = {k: getattr(b, k) for k in keys}
    d["source"] = f"tokcheck.roofline: {fields['model']} on {fields['gpu']} at {prec}"
    return d


def render(verdict) -> None:
    """Print a verdict with rich: conditions table, verdict line, checks, symptom guides."""
    from rich.console import Console
    from rich.table import Table

    con = Console()
    t = Table(title="Conditions: claim vs run", title_justify="left")
    for col in ("condition", "claim", "run", ""):
        t.add_column(col)
    marks = {"match": "[green]match[/]", "differ": "[red]differ[/]", "unknown": "[dim]unknown[/]"}
    for c in verdict.conditions:
        t.add_row(c.name, "—" if c.claimed is None else str(c.claimed),
                  "—" if c.run is None else str(c.run), marks[c.status])
    con.print(t)
    color = {True: "green", False: "red", None: "yellow"}[verdict.reproduced]
    con.print(f"[bold {color}]{verdict.summary}[/]")
    if verdict.metric_definition:
        con.print(f"[dim]metric: {verdict.metric_definition}[/]")
    if verdict.measured_rounds:
        con.print(f"[dim]per-round values: {', '.join(f'{v:.4g}' for v in verdict.measured_rounds)}[/]")
    if verdict.reproduced is not True:
        con.print("\n[bold]The seed's seven checks, in order[/]")
        icons = {"pass": "[green]pass[/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]",
                 "unknown": "[dim]unknown[/]"}
        for c in verdict.checks:
            con.print(f"{c.number}. {c.name}: {icons[c.status]}")
            for e in c.evidence:
                con.print(f"     · {e}", highlight=False)
            for a in c.advice:
                con.print(f"     → {a}", highlight=False)
        for s in verdict.symptoms:
            con.print(f"\n[bold]Symptom: {s.symptom}[/]")
            for e in s.evidence:
                con.print(f"     · {e}", highlight=False)
            for i, step in enumerate(s.steps, 1):
                con.print(f"     {i}) {step}", highlight=False)


def run(args: argparse.Namespace) -> int:
    from tokcheck.rundir import load_run
    from tokcheck.verify import verify

    tolerance = parse_tolerance(args.tolerance)
    run_ = load_run(args.run)
    fields = claim_fields(args.claim, metric=args.metric, concurrency=args.concurrency, gpu=args.gpu)
    verdict = verify(fields, run_, tolerance=tolerance, bound=bound_for(fields))
    if args.json:
        print(json.dumps(verdict.to_dict(), indent=2, default=str))
    else:
        render(verdict)
    return 0
