"""Writes small run directories in the contract's K2 format with chosen true values, for unit
tests of the pure readers (verify, compare, report). A synthetic record, named for what it is:
integration tests use real ones written by `tokcheck bench`."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any


def _stat(values: list[float], rounds: list[float]) -> dict[str, Any]:
    vs = sorted(values)
    pick = lambda q: vs[min(len(vs) - 1, int(q * len(vs)))]  # noqa: E731
    trimmed = sorted(rounds)[1:-1] if len(rounds) >= 3 else rounds
    return {"mean": statistics.fmean(vs), "median": statistics.median(trimmed), "p90": pick(0.9),
            "p99": pick(0.99), "rounds": rounds, "spread": max(trimmed) - min(trimmed)}


def write_run_dir(
    out: Path,
    *,
    levels: dict[int, dict[str, float]],
    input_len: int = 128,
    output_len: int = 64,
    rounds: int = 3,
    per_round: int = 4,
    model: str = "tiny-llama",
    engine_report: dict | None = None,
    precision_report: dict | None = None,
    environment: dict | None = None,
    serve: dict | None = None,
    telemetry: dict | None = None,
    usage_off_by: int = 0,
    early_stop_every: int = 0,
    server_log: str | None = None,
    text_prefix: str = "out",
    temperature: float = 0.0,
    gpu_samples: list[dict] | None = None,
    level_telemetry: dict | None = None,
) -> Path:
    """A run directory at ``out`` whose requests have exactly the given per-level truths:
    ``levels = {concurrency: {"ttft_ms": .., "gen_tok_s": ..}}``. Each request's ``n_out``
    is ``output_len`` (or half of it for every ``early_stop_every``-th request)."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = 1_000_000_000
    reqs: list[dict] = []
    summary_levels = []
    clock = t0
    for conc, truth in levels.items():
        label = f"c{conc}"
        ttft_ns = int(truth["ttft_ms"] * 1e6)
        itl_ns = int(1e9 / truth["gen_tok_s"])
        per_level: dict[str, list[float]] = {k: [] for k in ("ttft", "tpot", "gen", "e2e", "e2e_tok", "itl")}
        round_meds: dict[str, list[float]] = {k: [] for k in per_level}
        window_start = clock
        n_total = 0
        early = 0
        for rnd in range(rounds):
            rvals: dict[str, list[float]] = {k: [] for k in per_level}
            for i in range(per_round):
                idx = rnd * per_round + i
                n = output_len
                if early_stop_every and (idx + 1) % early_stop_every == 0:
                    n = output_len // 2
                    early += 1
                send = clock + i * 1000
                first = send + ttft_ns
                last = first + (n - 1) * itl_ns
                end = last + 100_000
                chunks = [[first + k * itl_ns, 1] for k in range(n)]
                tpot = (last - first) / (n - 1) / 1e6
                rec = {
                    "level": label, "round": rnd, "index": idx, "warmup": False,
                    "prompt_index": i, "t_due_ns": send, "t_send_ns": send, "t_first_ns": first,
                    "t_last_ns": last, "t_end_ns": end, "chunks": chunks,
                    "n_out_usage": n + usage_off_by, "n_out_tokenizer": n, "n_prompt_usage": input_len,
                    "text": f"{text_prefix} {i} " + "tok " * 5, "error": None, "early_stop": n != output_len,
                    "ttft_ms": ttft_ns / 1e6, "tpot_ms": tpot, "e2e_latency_ms": (end - send) / 1e6,
                    "generation_tok_s": 1000.0 / tpot, "e2e_tok_s": n / ((end - send) / 1e9),
                    "queue_delay_ms": 0.0,
                }
                reqs.append(rec)
                n_total += n
                for k, v in (("ttft", rec["ttft_ms"]), ("tpot", tpot), ("gen", rec["generation_tok_s"]),
                             ("e2e", rec["e2e_latency_ms"]), ("e2e_tok", rec["e2e_tok_s"]), ("itl", itl_ns / 1e6)):
                    rvals[k].append(v)
                    per_level[k].append(v)
                clock = max(clock, end)
            for k in per_level:
                round_meds[k].append(statistics.median(rvals[k]))
            clock += 1_000_000
        window_s = (clock - window_start) / 1e9
        agg = truth.get("agg_tok_s", conc * truth["gen_tok_s"] * 0.9)
        summary_levels.append({
            "label": label, "concurrency": conc, "requests_ok": rounds * per_round, "requests_failed": 0,
            "errors": {}, "early_stops": early, "output_throughput_tok_s": agg,
            "request_throughput_rps": rounds * per_round / window_s,
            "ttft_ms": _stat(per_level["ttft"], round_meds["ttft"]),
            "tpot_ms": _stat(per_level["tpot"], round_meds["tpot"]),
            "itl_ms": _stat(per_level["itl"], round_meds["itl"]),
            "e2e_latency_ms": _stat(per_level["e2e"], round_meds["e2e"]),
            "generation_tok_s": _stat(per_level["gen"], round_meds["gen"]),
            "e2e_tok_s": _stat(per_level["e2e_tok"], round_meds["e2e_tok"]),
            "queue_delay_ms": _stat([0.0] * 3, [0.0, 0.0, 0.0]),
            "tokens_per_chunk": _stat([1.0] * 3, [1.0, 1.0, 1.0]),
        })
        if level_telemetry is not None:
            summary_levels[-1]["telemetry"] = level_telemetry
    run = {
        "tokcheck_version": "0.1.0", "schema_version": 1, "run_id": out.name,
        "created_at": "2026-11-30T02:00:00Z",
        "clock": {"perf_counter_ns_at_start": t0, "unix_ns_at_start": 1_790_000_000_000_000_000},
        "endpoint": {"url": "http://127.0.0.1:8000", "api": "completions", "model": model},
        "server": {"version": "0.32.0", "models": [model]},
        "tokenizer": {"source": "/models/tiny/tokenizer.json", "sha256": "ab" * 32, "vocab_size": 4096},
        "workload": {"input_len": input_len, "output_len": output_len, "prompts_sha256": "cd" * 32,
                     "output_forcing": "ignore_eos+min_tokens", "temperature": temperature},
        "load": {"mode": "closed", "concurrency": list(levels), "request_rate": None, "rounds": rounds,
                 "warmup": 1, "requests_per_round": per_round},
        "stream_options": {"include_usage": True},
        "client": {"host": "test", "python": "3.11", "platform": "linux"},
    }
    for key, val in (("engine_report", engine_report), ("precision_report", precision_report),
                     ("environment", environment), ("serve", serve), ("telemetry", telemetry)):
        if val is not None:
            run[key] = val
    (out / "run.json").write_text(json.dumps(run, indent=1))
    (out / "summary.json").write_text(json.dumps({"tokcheck_version": "0.1.0", "schema_version": 1,
                                                  "levels": summary_levels}, indent=1))
    with (out / "requests.jsonl").open("w") as fh:
        for r in reqs:
            fh.write(json.dumps(r) + "\n")
    if gpu_samples is not None:
        with (out / "gpu_samples.jsonl").open("w") as fh:
            for smp in gpu_samples:
                fh.write(json.dumps(smp) + "\n")
    if server_log is not None:
        (out / "server.log").write_text(server_log)
    return out


VLLM_CPU_ENGINE_REPORT = {
    "engine": "vllm", "version": "0.32.0", "dtype": "bfloat16", "quantization": None,
    "kv_cache_dtype": "auto", "speculative_config": None, "enable_prefix_caching": True,
    "enforce_eager": True, "max_seq_len": 2048, "kv_cache_tokens": 524288, "max_concurrency": 256.0,
    "device": "cpu",
}
FULL_PRECISION_REPORT = {"full_precision": True, "reasons": ["all 3.4M parameters are BF16"]}
# As tokcheck.machine.doctor.environment_report() writes it on a machine without an NVIDIA GPU.
CPU_ENVIRONMENT = {"gpu": {"available": False, "reason": "NVML: driver not loaded", "gpus": []},
                   "toolchain": {}, "mismatches": []}


def as_open_loop_v1(run_dir: Path, rates: dict[str, float], max_in_flight: int | None) -> Path:
    """Rewrite a directory of :func:`write_run_dir` as schema 1 bench wrote an open-loop run
    (``--request-rate … --max-in-flight N``): each level in ``rates`` (old label → rate) gets
    the label ``rate=R``, ``request_rate`` R and — schema 1's way — the cap on requests in
    flight under ``concurrency``; its requests get the new label too."""
    summary = json.loads((run_dir / "summary.json").read_text())
    new_label = {}
    for lv in summary["levels"]:
        if lv["label"] in rates:
            rate = rates[lv["label"]]
            new_label[lv["label"]] = f"rate={rate:g}"
            lv.update(label=f"rate={rate:g}", request_rate=rate, concurrency=max_in_flight)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    run = json.loads((run_dir / "run.json").read_text())
    run["load"].update(mode="open", concurrency=None, max_in_flight=max_in_flight,
                       request_rate=sorted(rates.values()))
    (run_dir / "run.json").write_text(json.dumps(run, indent=1))
    lines = [json.loads(line) for line in (run_dir / "requests.jsonl").read_text().splitlines()]
    with (run_dir / "requests.jsonl").open("w") as fh:
        for r in lines:
            r["level"] = new_label.get(r["level"], r["level"])
            fh.write(json.dumps(r) + "\n")
    return run_dir
