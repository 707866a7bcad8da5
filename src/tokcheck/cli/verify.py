"""``tokcheck verify "CLAIM" --run runs/X`` — V1, V2: reproduced or not, and why."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
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
    """The claim's fields (issue 2's keys), completed or overridden by the given options
    (``None`` is ignored). When the parser found no model (a name the catalog does not know,
    such as ``tiny-llama``), the name the claim opens with is taken as the model
    (:func:`tokcheck.verify.lookup.leading_model_name`), for the loose comparison with the
    run's served model. Raises TokcheckError for a claim that does not parse."""
    from tokcheck.claim import apply_overrides, parse_claim
    from tokcheck.verify.lookup import leading_model_name

    fields = dict(apply_overrides(parse_claim(text), **overrides).fields)
    if not fields.get("model"):
        name = leading_model_name(text)
        if name:
            fields["model"] = name
    return fields


def _run_gpu(run) -> str | None:
    from tokcheck.verify.conditions import _environment_gpus

    gpus = _environment_gpus(run.run) or []
    name = str(gpus[0].get("name") or "") if gpus else ""
    return name.replace("NVIDIA ", "") or None


def bound_for(fields: dict[str, Any], model_dir: str | Path | None = None, run=None) -> dict[str, Any]:
    """The claim's single-request decode bound (``tokcheck claim``'s roofline: the claim's
    model and GPU from the catalog), or ``{"reason": …}`` when it cannot be computed.

    When the claim's model is not in the catalog, the model comes from ``model_dir``'s
    ``config.json``, or else from the served model directory the run record names
    (:func:`tokcheck.verify.lookup.served_model_dir`). With a ``run`` (:class:`Run`), the
    claim's silent GPU and input/output lengths are taken from the run. On a CPU run with no
    GPU named the reason says that the bound needs a GPU or a bandwidth."""
    from tokcheck.catalog import find_model, model_from_config
    from tokcheck.claim import FIELD_KEYS, Claim
    from tokcheck.verdict import analyze_claim
    from tokcheck.verify.lookup import served_model_dir

    f = {k: v for k, v in fields.items() if k in FIELD_KEYS}
    taken: list[str] = []
    if run is not None:
        if not f.get("gpu") and _run_gpu(run):
            f["gpu"] = _run_gpu(run)
            taken.append(f"GPU {f['gpu']}")
        wl = run.run.get("workload") or {}
        for key, rkey in (("input_tokens", "input_len"), ("output_tokens", "output_len")):
            if not f.get(key) and wl.get(rkey):
                f[key] = wl[rkey]
                taken.append(f"{rkey} {wl[rkey]}")
        if model_dir is None:
            model_dir = served_model_dir(run.run)
    model = None
    if model_dir is not None:
        try:
            if not f.get("model"):
                raise TokcheckError("no model named")
            find_model(f["model"])
        except TokcheckError:
            try:
                model = model_from_config(model_dir)
            except TokcheckError as err:
                return {"reason": f"no bound: {err}"}
    claim = Claim(text="", fields=f)
    try:
        analysis = analyze_claim(claim, model=model)
    except TokcheckError as err:
        return {"reason": f"no bound: {err}"}
    b = analysis.bound
    name = analysis.model.name if analysis.model else f.get("model")
    if not b or not b.get("hard_tok_s"):
        if b and b.get("bytes_per_token") and not f.get("gpu"):
            where = " (this run was on the CPU)" if run is not None and _cpu_run(run) else ""
            why = (f"{name} reads {b['bytes_per_token'] / 1e6:.3g} MB per token, but the bound needs a "
                   f"GPU or a bandwidth and neither the claim nor the run names a GPU{where}; "
                   "give --gpu NAME to bound it against that GPU")
        else:
            why = "; ".join(analysis.explanations[:1]) or (b or {}).get("hard_tok_s_reason") or "no GPU or bandwidth"
        return {"reason": f"no bound: {why}"}
    out = dict(b)
    gpu = analysis.gpu.name if analysis.gpu else f.get("gpu")
    src = f"tokcheck.roofline: {name} on {gpu} at {b.get('precision')}"
    if model is not None:
        src += f" (model from {Path(model_dir)}/config.json)"
    if taken:
        src += f"; from the run: {', '.join(taken)}"
    out["source"] = src
    return out


def _cpu_run(run) -> bool:
    from tokcheck.verify.conditions import _environment_gpus

    return _environment_gpus(run.run) == []


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
        vals = ", ".join("n/a" if v is None else f"{v:.4g}" for v in verdict.measured_rounds)
        con.print(f"[dim]per-round values: {vals}[/]")
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
        con.print("\n[bold]The seed's seven checks, in order[/]")
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
    verdict = verify(fields, run_, tolerance=tolerance, bound=bound_for(fields, run=run_))
    if args.json:
        print(json.dumps(verdict.to_dict(), indent=2, default=str))
    else:
        render(verdict)
    return 0
