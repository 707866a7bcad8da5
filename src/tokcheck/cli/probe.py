"""``tokcheck probe``: this machine's client ceiling (the highest tok/s it measures, its TTFT error)."""

from __future__ import annotations

import argparse

from tokcheck.core.units import parse_count_list


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "probe",
        help="measure this machine's client ceiling against a built-in fast echo server",
        description="Drive tokcheck's own client against a fast OpenAI-compatible echo server on "
        "loopback over a ladder of concurrency; report the highest tok/s it measures and its TTFT "
        "error, and store them for this machine: later runs record them and flag levels at the ceiling "
        "as client-bound.",
    )
    p.add_argument("--concurrency", type=lambda t: parse_count_list(t, "--concurrency"), default=None,
                   help="the ladder, e.g. 1,4,16,64 (default 1,2,4,…,256)")
    p.add_argument("--output-len", type=int, default=256, help="tokens per request (default 256)")
    p.add_argument("--itl-ms", type=float, default=2.0, help="the echo server's time per token per stream (default 2)")
    p.add_argument("--ttft-ms", type=float, default=20.0, help="the echo server's time to first token (default 20)")
    p.add_argument("--no-save", action="store_true", help="do not store the ceiling for this machine")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.table import Table

    from tokcheck.errors import TokcheckError
    from tokcheck.loadgen.probe import DEFAULT_LADDER, run_probe

    if args.output_len < 2 or args.itl_ms <= 0 or args.ttft_ms < 0:
        raise TokcheckError("--output-len must be at least 2, --itl-ms above 0 and --ttft-ms at least 0")
    result = run_probe(tuple(args.concurrency or DEFAULT_LADDER), output_len=args.output_len,
                       itl_ms=args.itl_ms, ttft_ms=args.ttft_ms, save=not args.no_save)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    console = Console()
    table = Table(title=f"tokcheck probe — echo server: TTFT {args.ttft_ms:g} ms, {args.itl_ms:g} ms per token, "
                        f"{args.output_len} tokens", header_style="bold", show_edge=False)
    # short headers that wrap, numbers that never do: the table fits 80 columns at 256 streams
    for col, width in (("conc.", 5), ("client tok/s", 7), ("server tok/s", 7), ("TTFT error ms", 6),
                       ("ITL ms", 6), ("stamp delay ms", 6), ("loop lag p99 ms", 6), ("client CPU %", 6),
                       ("bound", 5)):
        table.add_column(col, justify="right", width=width)

    def f(v, d=1):
        return "n/a" if v is None else f"{v:,.{d}f}"

    for r in result.rungs:
        table.add_row(str(r.concurrency), f(r.output_tok_s, 0), f(r.server_output_tok_s, 0), f(r.ttft_error_ms, 2),
                      f(r.itl_ms, 3), f(r.stamp_delay_p50_ms, 3), f(r.loop_lag_p99_ms, 2), f(r.cpu_percent, 0),
                      "yes" if r.bound else "no")
    console.print(table)
    console.print("conc.: concurrent streams; bound: the client, not the server, was the limit.", highlight=False)
    c = result.ceiling
    console.print(f"Numbers above {c.tok_s:,.0f} tok/s on this machine are client-bound "
                  f"(the most this client measured, at concurrency {c.at_concurrency}; TTFT error there "
                  f"{f(c.ttft_error_ms, 2)} ms; TTFT floor {f(c.ttft_floor_ms, 3)} ms).")
    for r in result.rungs:
        if r.bound:
            console.print(f"[yellow]concurrency {r.concurrency}[/]: " + "; ".join(r.reasons))
    if result.stored_in:
        console.print(f"Stored for this machine in {result.stored_in}; later runs record it.")
    return 0
