"""``tokcheck demo [--out DIR]``: the guide's learning path on any machine, end to end.

Provision vLLM for the CPU, build the tiny Llama in full precision, inspect its weights, serve
it in BF16, measure a single request and then a few concurrency levels, print the record, stop
the server. Every step prints what it does; the first install takes minutes.
"""

from __future__ import annotations

import argparse

from tokcheck.core.units import parse_count_list


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="the learning path: tiny model in BF16 on vLLM (CPU), inspect, bench, record",
        description="Provision vLLM for the CPU (first time: minutes), build a tiny Llama with "
                    "random BF16 weights and a locally trained tokenizer, inspect it, serve it, "
                    "bench a single request and a few concurrency levels, print the record "
                    "and stop the server. Run directories go under --out.")
    p.add_argument("--out", help="folder for the run directories (default "
                                 "runs/demo-<UTC time>)")
    p.add_argument("--input-len", type=int, default=256, help="prompt tokens (default 256)")
    p.add_argument("--output-len", type=int, default=128, help="output tokens (default 128)")
    p.add_argument("--concurrency", type=lambda t: parse_count_list(t, "--concurrency"), default=[2, 4, 8],
                   help="concurrency levels after the single request (default 2,4,8)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per level (default 3)")
    p.add_argument("--python", metavar="PATH",
                   help="an environment with vLLM (default: the cached vLLM for the CPU)")
    p.add_argument("--compile", action="store_true",
                   help="let vLLM compile (torch.compile) instead of --enforce-eager: a slower "
                        "start-up (about 55 s instead of 35 s here)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.console import Console

    from tokcheck.loadgen.bench import BenchConfig, run_bench
    from tokcheck.cli.inspect import render
    from tokcheck.cli.serve import print_engine_report
    from tokcheck.engines.base import ServeSettings
    from tokcheck.engines.lifecycle import serve
    from tokcheck.engines.registry import get_engine
    from tokcheck.flows.pipeline import run_conditions
    from tokcheck.errors import TokcheckError
    from tokcheck.machine.run_telemetry import telemetry_for
    from tokcheck.engines.tinymodel import build_tiny_llama
    from tokcheck.machine.weights import audit_model_dir

    console = Console(stderr=False)
    import time

    out = Path(args.out or time.strftime("runs/demo-%Y%m%d-%H%M%S", time.gmtime()))
    if out.exists() and any(out.iterdir()):
        raise TokcheckError(f"{out} is not empty: choose another --out")

    def say(line: str) -> None:
        console.print(line, highlight=False, markup=False)

    engine = get_engine("vllm")
    console.rule("1/5  vLLM for the CPU, in its own cached environment")
    python = Path(args.python) if args.python else engine.provision(progress=say)
    say(f"engine python: {python}")

    console.rule("2/5  A tiny Llama in full precision (BF16), built here — no model hub")
    model = build_tiny_llama(python=python, progress=say)
    say(f"model: {model}")

    console.rule("3/5  Inspect the weights: full precision or quantized?")
    render(audit_model_dir(model))

    console.rule("4/5  Serve it with vLLM: --dtype bfloat16, quantization off")
    settings = ServeSettings(model=str(model), engine=engine.name, python=str(python),
                             dtype="bfloat16",
                             max_model_len=max(2048, args.input_len + args.output_len),
                             served_model_name="tiny-llama", enforce_eager=not args.compile,
                             log_dir=str(out / "server"))
    runs = []
    with serve(settings, engine=engine, progress=say) as server:
        print_engine_report(server.engine_report, console)
        conditions = run_conditions(server)
        # The same record as a plain `tokcheck bench` against this server: the doctor's
        # environment and the telemetry hooks (/metrics, GPU sampling where there is a GPU).
        conditions.update(telemetry_for(server.url, engine=engine.name)[1])
        console.rule("5/5  Bench: a single request, then concurrency "
                     + ", ".join(map(str, args.concurrency)))
        for name, levels in (("single", [1]), ("concurrency", args.concurrency)):
            bench_cfg = BenchConfig(url=server.url, model="tiny-llama", tokenizer=str(model),
                                    input_len=args.input_len, output_len=args.output_len,
                                    concurrency=levels, rounds=args.rounds,
                                    out=str(out / name))
            say(f"bench {name}: concurrency {levels}, {args.input_len} tokens in / "
                f"{args.output_len} out, {args.rounds} rounds → {out / name}")
            # On Ctrl-C run_bench writes summary.json (``interrupted: true``) from the requests
            # that finished, as `tokcheck bench` does, before the server is stopped.
            hooks = (telemetry_for(server.url, environment=False, engine=engine.name)[0]
                     + [server.log_hook()])
            summary = run_bench(bench_cfg, conditions_extra=conditions, hooks=hooks,
                                progress=_progress(say))
            runs.append((name, summary))
    say(f"server stopped (log kept in {out / 'server' / 'server.log'})")
    print_record(console, runs, conditions, args)
    return 0


def _progress(say):
    """A bench progress callback: one line per level when it is done (cheap: a counter)."""
    done: dict[str, int] = {}

    def on_request(label: str, record, planned: int) -> None:
        done[label] = done.get(label, 0) + 1
        if done[label] == planned:
            say(f"  {label}: {planned} requests done")

    return on_request


def _median(stat) -> str:
    return "n/a" if stat is None else f"{stat.median:,.1f}"


def print_record(console, runs, conditions: dict, args) -> None:
    from rich.table import Table

    from tokcheck.record.schema import EngineReport, PrecisionReport

    eng = EngineReport.model_validate(conditions["engine_report"])
    prec = PrecisionReport.model_validate(conditions["precision_report"])
    t = Table(title=f"tiny Llama on vLLM {eng.version} ({eng.device}), dtype {eng.dtype},"
                    f" quantization {eng.quantization}, {args.input_len} tokens in / "
                    f"{args.output_len} out (medians of the rounds)", show_edge=False)
    for col in ("run", "conc.", "TTFT ms", "TPOT ms", "gen. tok/s", "output tok/s", "ok",
                "failed"):
        t.add_column(col, justify="right" if col != "run" else "left")
    for name, summary in runs:
        for lv in summary.levels:
            thr = lv.output_throughput_tok_s
            t.add_row(name, str(lv.concurrency), _median(lv.ttft_ms), _median(lv.tpot_ms),
                      _median(lv.generation_tok_s), "n/a" if thr is None else f"{thr:,.0f}",
                      str(lv.requests_ok), str(lv.requests_failed))
    console.print(t)
    kv = "n/a" if eng.kv_cache_tokens is None else f"{eng.kv_cache_tokens:,}"
    console.print(f"precision: {prec.verdict} ({prec.precision or prec.method})"
                  f"; KV cache {kv} tokens; prefix caching "
                  f"{eng.enable_prefix_caching}; enforce_eager {eng.enforce_eager}",
                  highlight=False)
    for name, summary in runs:
        console.print(f"run directory ({name}): {summary.run_dir}", highlight=False)
    console.print("Next steps of the learning path: the same model quantized "
                  "(tokcheck serve --quantization …), other --max-model-len and concurrency "
                  "levels, and compare the records.", highlight=False)
