"""``tokcheck verify "CLAIM" --run runs/X`` — reproduced or not, and why."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tokcheck.analysis.verify.claim_bound import bound_for, claim_fields
from tokcheck.core.units import fmt_number
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
        help="compare a claim with a run directory: reproduced or not, and the guide's seven checks",
        description="Put a claim's conditions beside a run's, compare the claimed and measured "
                    "number on the same metric definition, and when they differ walk the guide's "
                    "seven checks with the evidence from the run record.",
    )
    p.add_argument("claim", help='the claim, e.g. "Qwen3-8B at 60 tok/s single request, BF16"')
    p.add_argument("--run", required=True, metavar="DIR", help="run directory written by `tokcheck bench`")
    p.add_argument("--tolerance", default="20%", help="how far measured may be from claimed (default 20%%)")
    p.add_argument("--metric", choices=("generation_tok_s", "e2e_tok_s", "aggregate_throughput", "ttft"),
                   help="which metric the claimed number is (overrides the claim's text)")
    p.add_argument("--concurrency", type=int, help="the claim's concurrency (overrides its text)")
    p.add_argument("--gpu", help="the claim's GPU, for the bandwidth bound (overrides its text)")
    p.add_argument("--claim-tool", metavar="TOOL",
                   help="the tool the claim was measured with (vllm-bench, guidellm, aiperf): read the run "
                        "under that tool's definitions and check its known traps")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=run)


def _cell(value: Any) -> str:
    """A condition's value in the table: ``—`` when not stated, yes / no for a flag."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


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
        t.add_row(c.name, _cell(c.claimed), _cell(c.run), marks[c.status])
    con.print(t)
    color = {True: "green", False: "red", None: "yellow"}[verdict.reproduced]
    con.print(f"[bold {color}]{verdict.summary}[/]")
    if verdict.metric_definition:
        con.print(f"[dim]metric: {verdict.metric_definition}[/]")
    if verdict.measured_rounds:
        vals = ", ".join("n/a" if v is None else fmt_number(v) for v in verdict.measured_rounds)
        con.print(f"[dim]per-round values: {vals}[/]")
    if verdict.claim_tool:
        _render_tool(verdict, con)
    icons = {"pass": "[green]pass[/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]",
             "unknown": "[dim]unknown[/]"}
    if verdict.reproduced is True:
        caveats = [c for c in verdict.checks if c.status in ("warn", "fail")]
        if caveats:
            con.print("\n[bold]Reproduced, but these checks warn[/]")
        for c in caveats:
            con.print(f"{c.number}. {c.name}: {icons[c.status]}")
            for e in c.evidence:
                con.print(f"     · {e}", highlight=False)
    if verdict.reproduced is not True:
        con.print("\n[bold]The guide's seven checks, in order[/]")
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


def _render_tool(verdict, con) -> None:
    """The run under the claim's tool's definitions beside tokcheck's own, and the tool's traps."""
    from rich.table import Table

    from tokcheck.analysis.definitions import KEYS, TOOLS

    tool = TOOLS[verdict.claim_tool]
    if verdict.measured_tokcheck is not None:
        con.print(f"[dim]tokcheck's own reading of the same requests: {fmt_number(verdict.measured_tokcheck)}[/]")
    if verdict.definitions:
        t = Table(title=f"The level read under each tool's definitions ({tool.title}: {tool.version})",
                  title_justify="left")
        t.add_column("metric")
        for name in verdict.definitions:
            t.add_column(TOOLS[name].title, justify="right")
        for key in KEYS:
            t.add_row(key, *("n/a" if d.get(key) is None else fmt_number(d[key]) for d in verdict.definitions.values()))
        con.print(t)
    icons = {"pass": "[green]pass[/]", "warn": "[yellow]warn[/]", "unknown": "[dim]unknown[/]"}
    con.print(f"\n[bold]Known traps of a claim made with {tool.title}[/]")
    for trap in verdict.traps:
        con.print(f"- {trap.name}: {icons.get(trap.status, trap.status)}")
        for e in trap.evidence:
            con.print(f"     · {e}", highlight=False)


def run(args: argparse.Namespace) -> int:
    from tokcheck.record.store import load_run
    from tokcheck.analysis.verify import verify

    tolerance = parse_tolerance(args.tolerance)
    from tokcheck.analysis.definitions import claim_tool_option

    tool = claim_tool_option(args.claim_tool)
    run_ = load_run(args.run)
    fields = claim_fields(args.claim, metric=args.metric, concurrency=args.concurrency, gpu=args.gpu)
    verdict = verify(fields, run_, tolerance=tolerance, bound=bound_for(fields, run=run_),
                     claim_tool=tool, claim_text=args.claim)
    if args.json:
        print(json.dumps(verdict.to_dict(), indent=2, default=str))
    else:
        render(verdict)
    return 0
