"""``tokcheck demo [--engine vllm|llama.cpp] [--out DIR]``: the guide's learning path on any
machine, end to end.

vLLM (default): provision vLLM for the CPU, build the tiny Llama in full precision, inspect its
weights, serve it in BF16, measure a single request and then a few concurrency levels, print the
record, stop the server.

llama.cpp: the practice step "load the same model quantized and measure speed, memory and
quality again" for real — the tiny Llama as GGUF F16, Q8_0 and Q4_K_M (llama.cpp's own
quantizer), each served in turn and measured side by side (:mod:`tokcheck.flows.precisions`),
in one table in the terminal, as ``--json`` rows and in an HTML report.

Every step prints what it does; the first install takes minutes.
"""

from __future__ import annotations

import argparse

from tokcheck.core.units import parse_count_list


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="the learning path: tiny model on vLLM (BF16) or llama.cpp (F16 vs Q8_0 vs Q4_K_M)",
        description="vLLM (default): provision vLLM for the CPU (first time: minutes), build a "
                    "tiny Llama with random BF16 weights and a locally trained tokenizer, "
                    "inspect it, serve it, bench a single request and a few concurrency levels, "
                    "print the record and stop the server. --engine llama.cpp: the same model "
                    "as GGUF F16, Q8_0 and Q4_K_M (quantized by llama.cpp itself), served in "
                    "turn, with file size, peak memory, TTFT, generation tok/s, throughput and "
                    "quality against F16 side by side (first time: llama.cpp is compiled, about "
                    "6 to 14 minutes on 2 cores). Run directories go under --out.")
    p.add_argument("--engine", default="vllm", type=_demo_engine, metavar="NAME",
                   help="vllm (default) or llama.cpp")
    p.add_argument("--out", help="folder for the run directories (default "
                                 "runs/demo-<UTC time>)")
    p.add_argument("--input-len", type=int, default=256, help="prompt tokens (default 256)")
    p.add_argument("--output-len", type=int, default=128, help="output tokens (default 128)")
    p.add_argument("--concurrency", type=lambda t: parse_count_list(t, "--concurrency"), default=None,
                   help="concurrency levels after the single request (default 2,4,8; "
                        "llama.cpp: one level, default 4)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per level (default 3)")
    p.add_argument("--python", metavar="PATH",
                   help="the engine's environment (default: its cached one — vLLM for the CPU, "
                        "or llama.cpp compiled here)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="llama.cpp: CPU threads of the server (default 1: on a small shared "
                        "machine one thread is faster and steadier than two for a tiny model)")
    p.add_argument("--quality-tokens", type=int, default=64, metavar="N",
                   help="llama.cpp: greedy tokens per quality prompt (default 64)")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON on stdout, the steps on stderr (vLLM: the "
                        "engine report, precision and each level's medians; llama.cpp: the "
                        "comparison's rows — precision, file_bytes, peak_rss_bytes, ttft_ms, "
                        "generation_tok_s, output_throughput_tok_s, token_agreement, …)")
    p.add_argument("--compile", action="store_true",
                   help="let vLLM compile (torch.compile) instead of --enforce-eager: a slower "
                        "start-up (about 55 s instead of 35 s here)")
    p.set_defaults(func=run)


def _demo_engine(text: str) -> str:
    """``--engine`` of the demo: a registered engine the demo has a path for.

    Raises:
        TokcheckError: another engine (one line).
    """
    from tokcheck.engines.registry import engine_name
    from tokcheck.errors import TokcheckError

    name = engine_name(text)
    if name not in ("vllm", "llama.cpp"):
        raise TokcheckError(f"the demo runs on vllm or llama.cpp, not {name}")
    return name


def run(args: argparse.Namespace) -> int:
    if args.engine == "llama.cpp":
        return run_llama_cpp(args)
    if args.concurrency is None:
        args.concurrency = [2, 4, 8]
    return run_vllm(args)


def run_vllm(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.console import Console

    from tokcheck.loadgen.bench import BenchConfig, run_bench
    from tokcheck.cli.inspect import render
    from tokcheck.cli.live import live_steps
    from tokcheck.cli.serve import print_engine_report
    from tokcheck.engines.base import ServeSettings
    from tokcheck.engines.lifecycle import serve
    from tokcheck.engines.registry import get_engine
    from tokcheck.flows.pipeline import run_conditions
    from tokcheck.errors import TokcheckError
    from tokcheck.machine.run_telemetry import telemetry_for
    from tokcheck.engines.tinymodel import build_tiny_llama
    from tokcheck.machine.weights import audit_model_dir

    # With --json the terminal gets the JSON alone; the steps go to stderr.
    console = Console(stderr=args.json)
    import time

    out = Path(args.out or time.strftime("runs/demo-%Y%m%d-%H%M%S", time.gmtime()))
    if out.exists() and any(out.iterdir()):
        raise TokcheckError(f"{out} is not empty: choose another --out")

    def say(line: str) -> None:
        console.print(line, highlight=False, markup=False)

    engine = get_engine("vllm")
    console.rule("1/5  vLLM for the CPU, in its own cached environment")
    with live_steps(console) as live:
        python = Path(args.python) if args.python else engine.provision(progress=live)
    say(f"engine python: {python}")

    console.rule("2/5  A tiny Llama in full precision (BF16), built here — no model hub")
    model = build_tiny_llama(python=python, progress=say)
    say(f"model: {model}")

    console.rule("3/5  Inspect the weights: full precision or quantized?")
    render(audit_model_dir(model), console)

    console.rule("4/5  Serve it with vLLM: --dtype bfloat16, quantization off")
    settings = ServeSettings(model=str(model), engine=engine.name, python=str(python),
                             dtype="bfloat16",
                             max_model_len=max(2048, args.input_len + args.output_len),
                             served_model_name="tiny-llama", enforce_eager=not args.compile,
                             log_dir=str(out / "server"))
    runs = []
    with serve(settings, engine=engine, progress=say) as server:
        print_engine_report(server.engine_report, console)
        startup_s = server.startup_s
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
    from tokcheck.machine.nvml import read_report

    steps = next_steps(out, gpu=read_report().available)
    if args.json:
        import json

        print(json.dumps(record_json(runs, conditions, startup_s, steps), indent=2))
        return 0
    print_record(console, runs, conditions, args)
    console.print(load_note(startup_s), highlight=False)
    console.print("Next steps:", highlight=False)
    for line in steps:  # soft wrap: a command stays one line to copy, however narrow the terminal
        console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    return 0


def load_note(startup_s: float | None, load: tuple[float, float, float] | None = None,
              cores: int | None = None) -> str:
    """What the demo's figures are: this machine at its load then (``os.getloadavg()``; cores
    from ``os.cpu_count()``), and how to read a difference from another machine or run."""
    import os

    if load is None:
        try:
            load = os.getloadavg()
        except OSError:
            load = None
    cores = cores or os.cpu_count()
    busy = (f"load average {load[0]:.1f} over the last minute on {cores} cores"
            if load is not None else f"{cores} cores")
    start = f"; the server started in {startup_s:.0f} s" if startup_s is not None else ""
    return (f"These are this machine's figures at its load then ({busy}{start}). Other jobs "
            "on the machine move tok/s, TTFT and the start-up time, often by tens of per cent: "
            "read a difference from another machine or another run as real only when it is "
            "larger than the range of the rounds (`tokcheck compare` says whether the 95 % "
            "intervals overlap), and rerun on a quiet machine before concluding.")


def next_steps(out, *, gpu: bool) -> list[str]:
    """Commands that work on this machine after the vLLM demo (each with what it shows). vLLM
    for the CPU has no FP8 or INT4 kernels, so on a CPU the quantized comparison is llama.cpp's;
    FP8 with vLLM is suggested only where there is a GPU."""
    single, conc = out / "single", out / "concurrency"
    steps = [
        f"tokcheck report {single} {conc} --html {out / 'report.html'}   # one page: the "
        "answer, plots, conditions",
        f'tokcheck verify "tiny-llama on vLLM 0.32.0, BF16, single request, input 256 output '
        f'128: 300 tok/s" --run {single}   # a claim against this run',
        "tokcheck demo --engine llama.cpp   # the same model quantized for real: GGUF F16, Q8_0 "
        "and Q4_K_M side by side (first time: compiles llama.cpp, 6 to 14 minutes on 2 cores)",
    ]
    if gpu:
        steps.append("tokcheck serve --engine vllm --python <a CUDA build of vLLM> --model DIR "
                     "--quantization fp8   # FP8 on this machine's GPU, then bench and compare "
                     "with a BF16 run")
    return steps


def record_json(runs, conditions: dict, startup_s: float | None, steps: list[str]) -> dict:
    """The vLLM demo's result for ``--json``: the engine's and the audit's verdicts, the start-up
    time, each run directory with its levels' medians (null with the reason where absent)."""
    from tokcheck.record.schema import EngineReport, PrecisionReport

    eng = EngineReport.model_validate(conditions["engine_report"])
    prec = PrecisionReport.model_validate(conditions["precision_report"])
    out_runs = []
    for name, summary in runs:
        levels = []
        for lv in summary.levels:
            row = {"level": lv.label, "concurrency": lv.concurrency,
                   "requests_ok": lv.requests_ok, "requests_failed": lv.requests_failed}
            for key in ("ttft_ms", "tpot_ms", "generation_tok_s"):
                stat = getattr(lv, key)
                row[key] = None if stat is None else stat.median
                if stat is None:
                    row[f"{key}_reason"] = lv.reason(key)
            row["output_throughput_tok_s"] = lv.output_throughput_tok_s
            levels.append(row)
        out_runs.append({"name": name, "run_dir": str(summary.run_dir), "levels": levels})
    return {"engine": eng.engine, "version": eng.version, "device": eng.device,
            "dtype": eng.dtype, "quantization": eng.quantization,
            "precision": prec.verdict, "startup_s": startup_s, "runs": out_runs,
            "next_steps": steps}


def _progress(say):
    """A bench progress callback: one line per level when it is done (cheap: counters)."""
    done: dict[str, int] = {}
    warm: dict[str, int] = {}

    def on_request(label: str, looks_ok: bool, planned: int, warmup: bool = False) -> None:
        done[label] = done.get(label, 0) + 1
        warm[label] = warm.get(label, 0) + int(warmup)
        if done[label] == planned:
            say(f"  {label}: {planned - warm[label]} requests measured (after {warm[label]} warm-up)")

    return on_request


def _median(stat) -> str:
    from tokcheck.core.units import fmt_number

    return "n/a" if stat is None else fmt_number(stat.median)


def print_record(console, runs, conditions: dict, args) -> None:
    from rich.table import Table

    from tokcheck.core.units import fmt_count, fmt_number, fmt_yes_no
    from tokcheck.record.schema import EngineReport, PrecisionReport

    eng = EngineReport.model_validate(conditions["engine_report"])
    prec = PrecisionReport.model_validate(conditions["precision_report"])
    t = Table(title=f"tiny Llama on vLLM {eng.version} ({eng.device}), dtype {eng.dtype},"
                    f" quantization {eng.quantization or 'not stated'}, {args.input_len} tokens in / "
                    f"{args.output_len} out (medians of the rounds)", show_edge=False)
    for col in ("run", "conc.", "TTFT ms", "TPOT ms", "gen. tok/s", "output tok/s", "ok",
                "failed"):
        t.add_column(col, justify="right" if col != "run" else "left", no_wrap=col == "run")
    for name, summary in runs:
        for lv in summary.levels:
            thr = lv.output_throughput_tok_s
            t.add_row(name, str(lv.concurrency), _median(lv.ttft_ms), _median(lv.tpot_ms),
                      _median(lv.generation_tok_s), fmt_number(thr),
                      fmt_count(lv.requests_ok), fmt_count(lv.requests_failed))
    console.print(t)
    for name, summary in runs:
        for lv in summary.levels:
            if lv.generation_tok_s is None and lv.reason("generation_tok_s"):
                console.print(f"{name} {lv.label}: generation tok/s n/a — "
                              f"{lv.reason('generation_tok_s')}", highlight=False)
    console.print(f"precision: {prec.verdict} ({prec.precision or prec.method or 'not stated'})"
                  f"; KV cache {fmt_count(eng.kv_cache_tokens, 'tokens')}; prefix caching "
                  f"{fmt_yes_no(eng.enable_prefix_caching)}; eager mode (no graph compilation) "
                  f"{fmt_yes_no(eng.enforce_eager)}", highlight=False)
    for name, summary in runs:
        console.print(f"run directory ({name}): {summary.run_dir}", highlight=False)


# ---------------------------------------------------------------------------------------------
# llama.cpp: F16 vs Q8_0 vs Q4_K_M


def run_llama_cpp(args: argparse.Namespace) -> int:
    import json
    import time
    from pathlib import Path

    from rich.console import Console

    from tokcheck.cli.live import live_steps
    from tokcheck.cli.serve import print_engine_report
    from tokcheck.engines.lifecycle import engine_python
    from tokcheck.engines.registry import get_engine
    from tokcheck.engines.tinymodel import build_tiny_llama
    from tokcheck.errors import TokcheckError
    from tokcheck.flows.precisions import check_rows, compare_precisions, meaning
    from tokcheck.record.store import load_runs
    from tokcheck.report import render_html

    if args.compile:
        raise TokcheckError("--compile is vLLM's (llama.cpp compiles nothing at start-up)")
    concurrency = args.concurrency or [4]
    if len(concurrency) != 1:
        raise TokcheckError("--concurrency: the llama.cpp demo measures one level (e.g. 4)")
    out = Path(args.out or time.strftime("runs/demo-llama-%Y%m%d-%H%M%S", time.gmtime()))
    if out.exists() and any(out.iterdir()):
        raise TokcheckError(f"{out} is not empty: choose another --out")
    # With --json the terminal gets the JSON alone; the steps go to stderr.
    console = Console(stderr=args.json)

    def say(line: str) -> None:
        console.print(line, highlight=False, markup=False)

    engine = get_engine("llama.cpp")
    console.rule("1/4  llama.cpp, compiled here, in its own cached environment")
    with live_steps(console) as live:
        python = Path(engine_python(args.python)) if args.python else engine.provision(progress=live)
    say(f"engine python: {python}")

    console.rule("2/4  The tiny Llama, then GGUF F16 (tokcheck) → Q8_0, Q4_K_M (llama.cpp)")
    with live_steps(console) as live:  # its weights are made with vLLM's torch: maybe an install
        model = build_tiny_llama(progress=live)
    say(f"model: {model}")

    console.rule("3/4  Serve each file in turn: same settings, same prompts, same lengths")

    def on_server(prec: str, server) -> None:
        if not args.json:
            print_engine_report(server.engine_report, console)

    comp = compare_precisions(model, out, python=python, input_len=args.input_len,
                              output_len=args.output_len, concurrency=concurrency[0],
                              rounds=args.rounds, threads=args.threads,
                              quality_tokens=args.quality_tokens, progress=say,
                              on_server=on_server)
    check_rows(comp.rows, args.input_len)

    console.rule("4/4  Side by side")
    runs = load_runs([d for r in comp.rows for d in r.run_dirs.values()])
    report = out / "report.html"
    report.write_text(render_html(runs, title="tokcheck demo: the tiny Llama in F16, Q8_0 and "
                                              "Q4_K_M on llama.cpp",
                                  sections=[("F16 vs Q8_0 vs Q4_K_M", precision_html(comp))]))
    comp.report = str(report)
    (out / "comparison.json").write_text(json.dumps(comp.to_dict(), indent=2))
    if args.json:
        print(json.dumps(comp.to_dict(), indent=2))
        return 0
    print_comparison(console, comp)
    console.print(f"HTML report: {report}   JSON: {out / 'comparison.json'}", highlight=False)
    for r in comp.rows:
        console.print(f"run directories ({r.precision}): {', '.join(r.run_dirs.values())}",
                      highlight=False)
    for line in meaning():
        console.print(f"  • {line}", highlight=False)
    return 0


def _fmt(v, digits: int = 1) -> str:
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def comparison_rows(comp, long: bool = False) -> tuple[list[str], list[list[str]]]:
    """The side-by-side table as text: column titles (short for the terminal, ``long`` for the
    HTML report) and one row per precision."""
    c = comp.settings["concurrency"]
    if long:
        cols = ["precision", "file MB (bytes read per token)", "bits per weight",
                "peak RSS MB", "weights in memory MB (llama.cpp's own)", "TTFT ms", "generation tok/s (client)",
                "decode tok/s (llama.cpp's own)", f"output tok/s at concurrency {c}",
                "token agreement with F16", "first divergence (median)",
                "mean |Δlogprob| (nats)"]
    else:
        cols = ["", "MB", "bpw", "RSS MB", "wts MB", "TTFT ms", "tok/s", "engine", f"c={c} tok/s",
                "agree", "1st div", "|Δlp|"]
    rows = []
    for r in comp.rows:
        rows.append([r.precision, _fmt(r.file_bytes / 1e6, 2), _fmt(r.bits_per_weight, 2),
                     _fmt(r.peak_rss_bytes / 1e6 if r.peak_rss_bytes else None),
                     _fmt(r.model_buffer_bytes / 1e6 if r.model_buffer_bytes else None, 2),
                     _fmt(r.ttft_ms, 2), _fmt(r.generation_tok_s, 0),
                     _fmt(r.engine_decode_tok_s, 0), _fmt(r.output_throughput_tok_s, 0),
                     _fmt(r.token_agreement, 3),
                     "none" if r.first_divergence is None else _fmt(r.first_divergence, 0),
                     _fmt(r.mean_abs_logprob_diff, 4)])
    return cols, rows


def print_comparison(console, comp) -> None:
    """The side-by-side comparison as two tables that fit an 80-column terminal: what the file is
    (size, bits, memory, quality against F16), then how fast it ran."""
    from rich.table import Table

    s = comp.settings
    cols, rows = comparison_rows(comp)
    console.print(f"The tiny Llama on llama.cpp, {s['threads']} thread(s): {s['input_len']} tokens in / "
                  f"{s['output_len']} out; quality: {s['quality_prompts']} prompts × "
                  f"{s['quality_tokens']} greedy tokens against F16", highlight=False)
    groups = (("File, memory, quality", ["", "MB", "bpw", "RSS MB", "wts MB", "agree", "1st div",
                                           "|Δlp|"]),
              ("Speed", ["", "TTFT ms", "tok/s", "engine", cols[8]]))
    for title, want in groups:
        t = Table(title=title, show_edge=False, padding=(0, 1), title_justify="left")
        idx = [cols.index(c) for c in want]
        for i in idx:
            t.add_column(cols[i], justify="left" if not cols[i] else "right", no_wrap=True)
        for row in rows:
            t.add_row(*(row[i] for i in idx))
        console.print(t)
    console.print("MB: file size in 10⁶ bytes (= bytes read per token); bpw: bits per weight; RSS: the "
                  "server's peak resident memory; wts MB: the weights as llama.cpp holds them (its log); agree / 1st div / |Δlp|: greedy tokens against "
                  "F16; tok/s: generation tok/s of one stream (1/TPOT), engine: llama.cpp's own "
                  "decode speed.", highlight=False)
    for line in comp.explanation:
        console.print(line, highlight=False)


def precision_html(comp) -> str:
    """The side-by-side table, what it means and how closely speed followed bytes, as HTML."""
    import html

    from tokcheck.flows.precisions import meaning

    cols, rows = comparison_rows(comp, long=True)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f'<td class="num">{html.escape(v)}</td>' for v in row)
                   + "</tr>" for row in rows)
    notes = "".join(f"<p>{html.escape(line)}</p>" for line in comp.explanation)
    meaning_html = "".join(f"<li>{html.escape(x)}</li>" for x in meaning())
    return f"<table><tr>{head}</tr>{body}</table>{notes}<ul>{meaning_html}</ul>"
