"""``tokcheck serve --engine vllm|llama.cpp --model DIR|FILE.gguf [options] [-- ENGINE ARGS]``:
runs until Ctrl-C."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="start an OpenAI-compatible engine (vLLM, llama.cpp) with explicit settings; "
             "Ctrl-C stops it",
        description="Start the engine (default vLLM) without a shell, in its own environment, "
                    "with explicit settings (vLLM: --dtype; llama.cpp: a GGUF file, whose "
                    "tensor types are its precision, with --max-model-len, --threads and "
                    "--batch-size); keep its log; wait until it is ready (vLLM: /health; "
                    "llama.cpp: /v1/models); print what it says it loaded; stop it cleanly on "
                    "Ctrl-C. Arguments after `--` go to the engine unchanged.")
    add_serve_options(p)
    p.add_argument("--model", required=True,
                   help="model directory (config.json + weights; a model file for GGUF engines)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--log-dir", metavar="DIR",
                   help="where server.log goes (default runs/serve-<UTC time>)")
    p.add_argument("--json", action="store_true",
                   help="once the server is ready, print one JSON line on stdout (url, log, pid, "
                        "engine_report, precision); the progress goes to stderr")
    p.add_argument("extra_args", nargs=argparse.REMAINDER,
                   help="after `--`: arguments passed to the engine as they are")
    from tokcheck.cli.serve_plan import add_plan_options, run_plan, wants_plan

    add_plan_options(p)
    p.set_defaults(func=lambda args: run_plan(args, config_from_args(args)) if wants_plan(args) else run(args))


def add_serve_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``serve`` and ``demo``."""
    add_engine_option(p)
    p.add_argument("--python", metavar="PATH",
                   help="the engine environment's python (default: the engine's cached "
                        "environment, e.g. vLLM for the CPU, installed on first use)")
    p.add_argument("--dtype", default="bfloat16", help="weights dtype, explicit (default bfloat16)")
    p.add_argument("--max-model-len", type=int, help="max_model_len in tokens")
    p.add_argument("--gpu-memory-utilization", type=float,
                   help="fraction of GPU memory for vLLM (on the CPU backend: of RAM)")
    p.add_argument("--tensor-parallel-size", type=int, help="tensor parallel size")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--served-model-name", help="model name the API answers to")
    p.add_argument("--quantization", metavar="METHOD",
                   help="quantize (e.g. fp8); default: off, explicitly where the engine accepts it")
    p.add_argument("--enforce-eager", action="store_true",
                   help="no torch.compile / CUDA graphs (faster start-up, slower decode)")
    p.add_argument("--kv-cache-space-gib", type=float, default=1.0,
                   help="vLLM CPU backend only: GiB of RAM for the KV cache (default 1)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="CPU threads, for engines that take them (llama.cpp; default half "
                        "the cores; not vLLM)")
    p.add_argument("--batch-size", type=int, metavar="TOKENS",
                   help="prompt-processing batch in tokens, for engines that take it "
                        "(llama.cpp's n_batch, default 512; not vLLM)")
    p.add_argument("--startup-timeout-s", type=float, default=600.0,
                   help="give up if the engine is not ready (vLLM: /health is not 200) after "
                        "this many seconds (default 600)")


def add_engine_option(p: argparse.ArgumentParser) -> None:
    """``--engine NAME``: a registered engine (name or alias); an unknown one is a one-line
    error listing the known ones."""
    from tokcheck.engines.registry import engine_name, engine_names

    p.add_argument("--engine", default="vllm", type=engine_name, metavar="NAME",
                   help=f"engine: {', '.join(engine_names())} (default vllm)")


def config_from_args(args: argparse.Namespace, **override):
    """:class:`~tokcheck.engines.base.ServeSettings` from the options of ``serve``."""
    from tokcheck.engines.base import ServeSettings

    extra = list(getattr(args, "extra_args", None) or [])
    if extra[:1] == ["--"]:
        extra = extra[1:]
    fields = dict(
        model=args.model, engine=args.engine, python=args.python, dtype=args.dtype,
        max_model_len=args.max_model_len, gpu_memory_utilization=args.gpu_memory_utilization,
        tensor_parallel_size=args.tensor_parallel_size, quantization=args.quantization,
        host=args.host, port=getattr(args, "port", None),
        served_model_name=args.served_model_name, enforce_eager=args.enforce_eager,
        extra_args=extra, log_dir=getattr(args, "log_dir", None),
        kv_cache_space_gib=args.kv_cache_space_gib, startup_timeout_s=args.startup_timeout_s,
        threads=args.threads, batch_size=args.batch_size)
    fields.update(override)
    return ServeSettings(**fields)


def print_engine_report(report, console=None) -> None:
    """The :class:`~tokcheck.engines.base.EngineReport` as a table ("n/a" where the log is
    silent about a field every engine has; other fields only where stated)."""
    from rich.console import Console
    from rich.table import Table

    from tokcheck.core.units import fmt_number, fmt_yes_no

    console = console or Console()
    t = Table(title="what the engine says it loaded", show_edge=False, show_header=False)
    t.add_column("field")
    t.add_column("value")
    rows = [("engine", f"{report.engine} {report.version}"), ("device", report.device),
            ("model", report.model), ("architecture", report.architecture),
            ("dtype", report.dtype), ("quantization", report.quantization),
            ("kv_cache_dtype", report.kv_cache_dtype),
            ("max_seq_len", report.max_seq_len),
            ("KV cache", f"{report.kv_cache_tokens:,} tokens" if report.kv_cache_tokens else None),
            ("max concurrency", f"{fmt_number(report.max_concurrency)}× at "
                                f"{report.max_concurrency_tokens:,} tokens/request"
                                if report.max_concurrency and report.max_concurrency_tokens else None),
            ("speculative decoding", report.speculative_config or "off"
             if report.speculative_decoding is not None else None),
            ("prefix caching", fmt_yes_no(report.enable_prefix_caching, unknown=None)),
            ("eager mode (enforce_eager)", fmt_yes_no(report.enforce_eager, unknown=None)),
            ("compilation / CUDA graphs", f"{report.compilation_mode} / {report.cudagraph_mode}"
             if report.compilation_mode or report.cudagraph_mode else None),
            ("tensor parallel", report.tensor_parallel_size)]
    # What only some engines state (GGUF engines: the file's type, threads, offloaded layers).
    offloaded = (f"{report.layers_offloaded}/{report.layers_total}" if report.layers_total
                 else report.layers_offloaded)
    rows += [(k, v) for k, v in (("file type", report.file_type),
                                 ("bits per weight", report.bits_per_weight),
                                 ("threads", report.threads), ("batch size", report.batch_size),
                                 ("layers offloaded", offloaded)) if v is not None]
    # Always shown, "n/a" when the log is silent; the rest only where the engine states them
    # (llama.cpp has no speculative decoding, CUDA graphs or tensor parallel setting to state).
    always = {"engine", "device", "model", "dtype", "quantization", "kv_cache_dtype",
              "max_seq_len", "KV cache"}
    for k, v in rows:
        if v is None and k not in always:
            continue
        t.add_row(k, "n/a (not in the log)" if v is None else str(v))
    console.print(t)


def run(args: argparse.Namespace) -> int:
    import json
    import signal
    import sys
    import time

    from rich.console import Console

    from tokcheck.cli.live import live_steps
    from tokcheck.engines.lifecycle import serve
    from tokcheck.engines.registry import get_engine
    from tokcheck.errors import TokcheckError
    from tokcheck.flows.pipeline import run_conditions

    cfg = config_from_args(args)
    # With --json stdout carries the JSON line alone; everything else goes to stderr.
    console = Console(stderr=bool(args.json))
    out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        console.print(line, highlight=False, markup=False)

    if cfg.python is None:  # the first use installs the engine: one live line, the log in a file
        with live_steps(console) as live:
            cfg.python = str(get_engine(cfg.engine).provision(progress=live))

    def _term(signum, frame):  # stop the engine on SIGTERM as on Ctrl-C
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _term)
    try:
        with serve(cfg, progress=say) as server:
            print_engine_report(server.engine_report, console)
            prec = run_conditions(server)["precision_report"]
            if args.json:
                print(json.dumps({"url": server.url, "openai_base_url": f"{server.url}/v1",
                                  "log": str(server.log_path), "pid": server.pid,
                                  "startup_s": round(server.startup_s, 2),
                                  "engine_report": server.engine_report.to_dict(),
                                  "precision": prec}), flush=True)
            print(f"Precision: {prec['verdict']}"
                  f" ({prec.get('precision') or prec.get('method') or 'n/a'})", file=out, flush=True)
            print(f"Serving {cfg.model} at {server.url}/v1 — log {server.log_path}. "
                  "Ctrl-C stops it.", file=out, flush=True)
            while server.process.poll() is None:
                time.sleep(0.5)
            raise TokcheckError(f"the engine exited by itself (code {server.process.returncode});"
                                f" see {server.log_path}")
    except KeyboardInterrupt:
        print("Stopped.", file=out, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
