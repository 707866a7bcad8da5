"""``tokcheck compare runs/A runs/B [...]`` — comparability, side by side, output quality."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tokcheck.errors import TokcheckError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare run directories: comparability, metrics side by side, texts, output quality",
        description="Say loudly whether runs are comparable, put their medians side by "
                    "side with the spread across rounds, write the generated texts of the same "
                    "prompts side by side, and with --quality compare greedy outputs token by token "
                    " from two runs or two live servers (--url A --url B).",
    )
    p.add_argument("runs", nargs="*", metavar="RUN_DIR", help="run directories written by `tokcheck bench`")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--md", metavar="FILE", help="write the comparison as Markdown")
    p.add_argument("--texts-md", metavar="FILE", help="write the texts of the same prompts side by side (Markdown)")
    p.add_argument("--texts-jsonl", metavar="FILE", help="write the texts of the same prompts (JSONL)")
    p.add_argument("--quality", action="store_true",
                   help="greedy-output agreement: first divergence, token agreement, logprob difference")
    p.add_argument("--url", action="append", default=[], metavar="URL",
                   help="with --quality: a live server (give two: reference, then candidate)")
    p.add_argument("--served-model", action="append", default=[], metavar="NAME",
                   help="with --url: the model name each server serves (one, or one per --url)")
    p.add_argument("--tokenizer", metavar="DIR_OR_FILE", help="tokenizer for --quality (default: run A's)")
    p.add_argument("--max-tokens", type=int, default=64, help="with --url: output tokens per prompt (default 64)")
    p.set_defaults(func=run)


def _render(runs, comp, rows, con) -> None:
    from rich.table import Table

    from tokcheck.analysis.compare import (COMPARABILITY_KEYS, INFO_KEYS, _show, format_cell, format_ci,
                                           overlap_word)

    names = [r.name for r in runs]
    t = Table(title="Conditions", title_justify="left")
    t.add_column("condition")
    for n in names:
        t.add_column(n)
    for key in COMPARABILITY_KEYS + INFO_KEYS:
        style = "bold red" if key in comp.differ else ("dim" if key in INFO_KEYS else "")
        t.add_row(key + (" ⚠" if key in comp.differ else ""),
                  *[str(_show(s[key])) if s[key] is not None else "—" for s in comp.settings], style=style)
    con.print(t)
    if comp.comparable:
        con.print(f"[bold green]{comp.verdict()}[/]")
    else:
        con.print(f"[bold white on red] {comp.verdict()} [/]")
        con.print("[red]Differences below may come from these conditions, not from what you meant to compare.[/]")
    t = Table(title="Side by side: median of rounds ±spread [range of round medians], 95% CI across rounds",
              title_justify="left")
    t.add_column("level")
    t.add_column("metric")
    for n in names:
        t.add_column(n, justify="right")
    t.add_column("95% CIs")
    for row in rows:
        cells = [format_cell(v, sp, rd) + format_ci(ci) for v, sp, rd, ci
                 in zip(row.values, row.spreads, row.rounds, row.ci95 or [None] * len(row.values))]
        word = overlap_word(row.overlap)
        t.add_row(row.level, row.label, *cells, f"[red]{word}[/]" if word == "apart" else word)
    con.print(t)
    con.print("[dim]95% CIs: Student's t on the rounds' values; \"apart\": the runs differ beyond their "
              "round-to-round noise; \"overlap\": these rounds cannot tell them apart.[/]")


def _render_quality(q: dict, con) -> None:
    con.print(f"\n[bold]Output quality (greedy): {q['reference']} (reference) vs {q['candidate']}[/]")
    for w in q.get("warnings") or []:
        con.print(f"[yellow]warning: {w}[/]")
    for p in q["per_prompt"]:
        div = "identical" if p["first_divergence"] is None else f"first divergence at token {p['first_divergence']}"
        lp = "" if p["mean_logprob_diff"] is None else f", mean logprob diff {p['mean_logprob_diff']:.4f}"
        con.print(f"  prompt {p['prompt_index']}: {div}, agreement {p['agreement']:.1%}{lp}", highlight=False)
    agree = q["mean_token_agreement"]
    lp = q["mean_logprob_diff"]
    con.print(f"  mean token agreement {agree:.1%}; {q['identical']}/{q['prompts']} identical; "
              + (f"mean logprob difference {lp:.4f} nats" if lp is not None else f"logprob difference n/a ({q['mean_logprob_diff_reason']})"),
              highlight=False)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tokcheck.analysis import compare as cmp
    from tokcheck.analysis.quality import quality_from_runs, quality_live
    from tokcheck.record.store import load_runs

    con = Console()
    if args.url:
        if not args.quality:
            raise TokcheckError("--url is for --quality against live servers")
        if len(args.url) != 2:
            raise TokcheckError("give exactly two --url (reference, then candidate)")
        names = args.served_model or []
        if len(names) not in (1, 2):
            raise TokcheckError("give --served-model NAME (once, or once per --url)")
        name_a, name_b = names[0], names[-1]
        q = quality_live(args.url[0], name_a, args.url[1], name_b, max_tokens=args.max_tokens,
                         tokenizer=args.tokenizer)
        if args.json:
            print(json.dumps({"quality": q}, indent=2))
        else:
            _render_quality(q, con)
        return 0
    if len(args.runs) < 2:
        raise TokcheckError("give at least two run directories (or --quality --url A --url B)")
    runs = load_runs(args.runs)
    comp = cmp.comparability(runs)
    rows = cmp.side_by_side(runs)
    names = [r.name for r in runs]
    samples = cmp.text_samples(runs)
    quality = None
    if args.quality:
        if len(runs) != 2:
            raise TokcheckError("--quality compares exactly two runs (reference, then candidate)")
        quality = quality_from_runs(runs[0], runs[1], tokenizer=args.tokenizer)
    if args.md:
        Path(args.md).write_text(cmp.comparison_markdown(runs), encoding="utf-8")
    if args.texts_md:
        Path(args.texts_md).write_text(cmp.samples_markdown(names, samples), encoding="utf-8")
    if args.texts_jsonl:
        Path(args.texts_jsonl).write_text(cmp.samples_jsonl(names, samples), encoding="utf-8")
    if args.json:
        out = comp.to_dict()
        out["side_by_side"] = [r.to_dict() for r in rows]
        out["text_samples"] = samples
        if quality is not None:
            out["quality"] = quality
        print(json.dumps(out, indent=2, default=str))
        return 0
    _render(runs, comp, rows, con)
    if quality is not None:
        _render_quality(quality, con)
    return 0
