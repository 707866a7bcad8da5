"""End to end on this machine: the tiny Llama served by real vLLM (CPU) in BF16, benched at
concurrency 1 and 4 with exact input and output lengths; every assertion reads the run record
that `tokcheck bench` wrote (run.json, requests.jsonl, summary.json)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.lifecycle import serve
from tokcheck.flows.pipeline import run_conditions

pytestmark = pytest.mark.e2e

INPUT_LEN, OUTPUT_LEN = 128, 64


def test_serve_and_bench_tiny_llama_in_bf16(tiny_llama, vllm_python, tmp_path, engine_processes):
    cfg = ServeSettings(model=str(tiny_llama), python=str(vllm_python), dtype="bfloat16",
                         max_model_len=2048, served_model_name="tiny", enforce_eager=True,
                         log_dir=str(tmp_path / "server"), startup_timeout_s=400)
    with serve(cfg) as server:
        pgid = server.pid
        assert httpx.get(f"{server.url}/health", trust_env=False).status_code == 200
        summary = run_bench(
            BenchConfig(url=server.url, model="tiny", tokenizer=str(tiny_llama),
                        input_len=INPUT_LEN, output_len=OUTPUT_LEN, concurrency=[1, 4],
                        rounds=2, warmup=1, out=str(tmp_path / "run")),
            conditions_extra=run_conditions(server), hooks=[server.log_hook()])
        url = server.url
        port = int(url.rsplit(":", 1)[1])
        assert engine_processes(port)  # the check below can see an engine

    # The server is gone: its process group is empty and nothing answers on its port.
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)
    assert engine_processes(port) == []
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", trust_env=False, timeout=2)

    run_dir = Path(summary.run_dir)
    run = json.loads((run_dir / "run.json").read_text())
    eng, prec = run["engine_report"], run["precision_report"]
    assert eng["version"] == "0.32.0" and run["server"]["version"] == "0.32.0"
    assert eng["dtype"] == "bfloat16"
    assert eng["quantization"] == "none"
    assert eng["kv_cache_dtype"] == "auto" and eng["enforce_eager"] is True
    assert prec["full_precision"] is True and prec["precision"] == "BF16"
    assert run["serve"]["dtype"] == "bfloat16"
    assert "Initializing a V1 LLM engine (v0.32.0)" in (run_dir / "server.log").read_text()

    requests = [json.loads(line) for line in (run_dir / "requests.jsonl").read_text().splitlines()]
    measured = [r for r in requests if not r["warmup"]]
    assert len(measured) == 2 * 4 + 2 * 8  # 2 rounds × max(4, 2·concurrency) per level
    for r in requests:
        assert r["error"] is None
        assert r["n_prompt_usage"] == INPUT_LEN
        assert r["n_out_usage"] == OUTPUT_LEN
        assert r["n_out_tokenizer"] == r["n_out_usage"]
        assert r["ttft_ms"] > 0

    levels = {lv["concurrency"]: lv for lv in
              json.loads((run_dir / "summary.json").read_text())["levels"]}
    assert levels[1]["requests_failed"] == levels[4]["requests_failed"] == 0
    assert levels[1]["ttft_ms"]["median"] > 0
    assert levels[1]["output_throughput_tok_s"] > 0 and levels[4]["output_throughput_tok_s"] > 0
    # concurrency 4 really overlapped requests and concurrency 1 never did (from the stamps;
    # whether 4 at once is faster on this shared 2-core machine is a benchmark's question, not a
    # test's: it was slower once in CI, 446 vs 516 tok/s)
    def most_in_flight(label):
        spans = [(r["t_send_ns"], r["t_end_ns"]) for r in measured if r["level"] == label]
        return max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)

    assert most_in_flight("c=1") == 1 and 2 <= most_in_flight("c=4") <= 4
    # TPOT is null (with a reason) when too many requests got every token in one read — a
    # loaded CPU vLLM often sends a whole short answer at once; never a silent 0
    tpot1 = levels[1]["tpot_ms"]
    if tpot1 is None:
        assert levels[1]["tpot_ms_reason"] and levels[1]["tpot_undefined_requests"] > 0
    else:
        assert tpot1["median"] > 0
    tpot_text = f"{tpot1['median']:.2f} ms" if tpot1 else f"null ({levels[1]['tpot_ms_reason']})"
    print(f"\nE2E figures: TTFT median c=1 {levels[1]['ttft_ms']['median']:.1f} ms, "
          f"c=4 {levels[4]['ttft_ms']['median']:.1f} ms; TPOT median c=1 "
          f"{tpot_text}; tokens per chunk (read) mean c=1 {levels[1]['tokens_per_chunk']['mean']:.1f}, "
          f"coalesced token share c=1 {levels[1]['coalesced_token_share']:.2f}; output throughput c=1 "
          f"{levels[1]['output_throughput_tok_s']:.0f} tok/s, c=4 "
          f"{levels[4]['output_throughput_tok_s']:.0f} tok/s; start-up {server.startup_s:.0f} s")
