"""``tokcheck bench``: stream requests to an OpenAI-compatible server and measure."""

from __future__ import annotations

import argparse
import os
import sys

from tokcheck.core.units import parse_count_list


def _float_list(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 0.5,2, got {text!r}") from None


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="measure TTFT, TPOT, ITL and throughput of an OpenAI-compatible server",
        description="Stream requests of exact input/output length to an OpenAI-compatible server and "
        "measure TTFT, TPOT, ITL, generation tok/s, E2E latency and aggregate throughput; write a run "
        "directory (run.json, requests.jsonl, summary.json).",
    )
    p.add_argument("--url", required=True, help="server base URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--model", required=True, help="model name as the server knows it")
    p.add_argument("--tokenizer", required=True, help="the model's tokenizer.json or model directory")
    p.add_argument("--api", choices=["completions", "chat"], default="completions")
    p.add_argument("--input-len", type=int, default=1000, help="prompt tokens (default 1000)")
    p.add_argument("--output-len", type=int, default=1000, help="output tokens (default 1000)")
    p.add_argument("--concurrency", type=lambda t: parse_count_list(t, "--concurrency"), default=None,
                   help="closed-loop levels, e.g. 1,4,16 (default 1)")
    p.add_argument("--request-rate", type=_float_list, default=None,
                   help="open loop: Poisson request rates per second, e.g. 0.5,2 (replaces --concurrency)")
    p.add_argument("--max-in-flight", type=int, default=None,
                   help="open loop: cap on requests in flight (the wait is reported as queue delay)")
    p.add_argument("--rounds", type=int, default=5, help="rounds per level (default 5; median of the middle ones)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up requests per level, not measured (default 1)")
    p.add_argument("--requests-per-round", type=int, default=None,
                   help="default: 2 × concurrency (at least 4); open loop: 20 s of arrivals")
    p.add_argument("--out", default=None, help="run directory (default runs/<model>-<time>)")
    p.add_argument("--timeout", type=float, default=600.0, help="per-request timeout in seconds")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0, help="prompt and schedule seed")
    p.add_argument("--api-key", default=None,
                   help="bearer token (default $OPENAI_API_KEY); sent, never written")
    p.add_argument("--slo", metavar="SPEC", default=None,
                   help="judge each level by an SLO and report goodput: ttft_ms=500,tpot_ms=30 (also itl_ms, "
                        "e2e_ms; @p50/@p90/@p99 per objective, p99 by default) or an MLPerf preset such as "
                        "mlperf:llama3.1-8b-interactive")
    p.add_argument("--connections", choices=["reuse", "new"], default="reuse",
                   help="reuse keep-alive connections (default) or open a new one per request")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="send the load from N processes, each with its own event loop (closed loop: the "
                        "concurrency is split; open loop: the arrival schedule); one merged run directory")
    p.add_argument("--ray", metavar="auto|ADDRESS", default=None,
                   help="place the --workers as Ray actors on a Ray cluster (auto: the cluster of this host, "
                        "else a local one; or the head's host:port); needs tokcheck[ray]")
    p.add_argument("--ray-node", metavar="IP[,IP…]", default=None,
                   help="with --ray: the node (IP or node id) of each worker in turn (default: spread)")
    p.add_argument("--wait-for-server", type=float, default=0.0, metavar="SECONDS",
                   help="wait up to this long for the server to answer GET /v1/models before the "
                        "first request (for a server started just before, e.g. `tokcheck serve … &`); "
                        "default 0: it must answer now")
    p.add_argument("--json", action="store_true",
                   help="print the summary as JSON, with the run read under other tools' definitions")
    p.add_argument("--no-telemetry", action="store_true",
                   help="skip the server's /metrics scraping, GPU sampling and environment report")
    p.add_argument("--server-log", metavar="FILE", default=None,
                   help="the engine's log (e.g. from tokcheck serve): its engine report and precision "
                        "report go into run.json and a copy into the run directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from tokcheck.loadgen.bench import BenchConfig, run_bench, summary_json
    from tokcheck.cli.bench_view import LiveProgress, render_summary
    from tokcheck.errors import TokcheckError

    if args.request_rate and args.concurrency:
        raise TokcheckError("--concurrency is for the closed loop; with --request-rate use --max-in-flight")
    if args.max_in_flight and not args.request_rate:
        raise TokcheckError("--max-in-flight needs --request-rate (open loop)")
    try:
        config = BenchConfig(
            url=args.url, model=args.model, tokenizer=args.tokenizer, api=args.api,
            input_len=args.input_len, output_len=args.output_len, concurrency=args.concurrency or [1],
            request_rate=args.request_rate, max_in_flight=args.max_in_flight, rounds=args.rounds,
            warmup=args.warmup, requests_per_round=args.requests_per_round, out=args.out,
            api_key=args.api_key or os.environ.get("OPENAI_API_KEY") or None, timeout_s=args.timeout,
            temperature=args.temperature, seed=args.seed, slo=args.slo, connections=args.connections,
        )
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise TokcheckError(f"bad option {where}: {first['msg']}") from None
    if args.slo:
        from tokcheck.core.slo import parse_slo

        parse_slo(args.slo)  # a bad SLO is a one-line error before anything is sent
    if args.wait_for_server > 0:
        wait_for_server(config.url, args.wait_for_server,
                        api_key=config.api_key.get_secret_value() if config.api_key else None)
    hooks, extra = _telemetry(args, config.url)
    if args.server_log:
        from tokcheck.engines.lifecycle import ServerLogHook
        from tokcheck.machine.weights import conditions_from_server_log

        extra.update(conditions_from_server_log(args.server_log))
        hooks.append(ServerLogHook(args.server_log))
    distributed = args.workers != 1 or args.ray is not None
    if args.workers < 1:
        raise TokcheckError("--workers must be at least 1")
    if args.ray_node and args.ray is None:
        raise TokcheckError("--ray-node needs --ray")
    if config.out is None:  # named here, so that a Ctrl-C can say where the partial record is
        from tokcheck.loadgen.bench import _default_out

        config.out = str(_default_out(config))
    if distributed:
        from tokcheck.loadgen.workers import run_bench_workers

        nodes = [x.strip() for x in args.ray_node.split(",") if x.strip()] if args.ray_node else None

        def run_bench(config, **kw):  # noqa: F811 - the same call, from several workers
            return run_bench_workers(config, workers=args.workers, ray_address=args.ray, ray_nodes=nodes, **kw)
    try:
        if args.json:
            summary = run_bench(config, conditions_extra=extra, hooks=hooks)
            print(_json_with_definitions(summary, summary_json(summary)))
            return 0
        with LiveProgress(config) as live:
            summary = run_bench(config, progress=live.update, conditions_extra=extra, hooks=hooks)
    except KeyboardInterrupt:
        from pathlib import Path

        if (Path(config.out) / "run.json").exists():
            print(f"Interrupted: the partial record is in {config.out} (summary.json covers the requests "
                  "that completed).", file=sys.stderr)
        raise
    render_summary(summary)
    if distributed:
        import json
        from pathlib import Path

        from tokcheck.loadgen.workers import describe_workers

        line = describe_workers(json.loads((Path(summary.run_dir) / "run.json").read_text()))
        if line:
            print(line)
    from tokcheck.cli.telemetry_view import render_telemetry

    render_telemetry([(lv.label, lv.telemetry) for lv in summary.levels])
    return 0


def wait_for_server(url: str, timeout_s: float, api_key: str | None = None, poll_s: float = 1.0) -> float:
    """Poll ``GET {url}/v1/models`` until it answers 200 (any OpenAI-compatible server lists its
    models there); returns the seconds waited.

    Raises:
        TokcheckError: no 200 within ``timeout_s`` (one line, with the last error seen).
    """
    import time

    import httpx

    from tokcheck.errors import TokcheckError

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    t0 = time.monotonic()
    last = "no answer"
    with httpx.Client(trust_env=False, timeout=5.0) as client:
        while True:
            try:
                r = client.get(f"{url.rstrip('/')}/v1/models", headers=headers)
                if r.status_code == 200:
                    return time.monotonic() - t0
                last = f"HTTP {r.status_code}"
            except httpx.HTTPError as err:
                last = type(err).__name__
            if time.monotonic() - t0 >= timeout_s:
                raise TokcheckError(f"the server at {url} did not answer GET /v1/models within "
                                    f"{timeout_s:g} s (last: {last})")
            time.sleep(poll_s)


def _json_with_definitions(summary, text: str) -> str:
    """``summary.json``'s JSON with ``definitions`` added: per level, the run read under every
    tool's definitions (``{level: {tool: {metric: value}}}``) and ``definitions_sources``."""
    import json

    from tokcheck.analysis.definitions import definitions_by_level, sources
    from tokcheck.record.store import load_run

    data = json.loads(text)
    data["definitions"] = definitions_by_level(load_run(summary.run_dir))
    data["definitions_sources"] = sources()
    return json.dumps(data, indent=2)


def _telemetry(args: argparse.Namespace, url: str) -> tuple[list, dict]:
    """Hooks (the server's /metrics; GPU sampling when the server is on this machine) and
    run.json ``environment`` (the doctor's report, for a local server only)."""
    if args.no_telemetry:
        return [], {}
    from tokcheck.machine.run_telemetry import telemetry_for

    return telemetry_for(url)
