"""End to end on real vLLM (CPU): the tiny Llama benched through the chat API with an SLO, then
read under other tools' definitions, with a receipt; energy is null with NVML's reason here."""

from __future__ import annotations

import pytest

from tokcheck.analysis.definitions import definitions
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.lifecycle import serve
from tokcheck.flows.pipeline import run_conditions
from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.machine.run_telemetry import telemetry_for
from tokcheck.record.receipt import check_receipt, make_receipt
from tokcheck.record.store import load_run

pytestmark = pytest.mark.e2e


def test_slo_definitions_receipt_on_vllm_chat(tiny_llama, vllm_python, tmp_path):
    cfg = ServeSettings(model=str(tiny_llama), python=str(vllm_python), dtype="bfloat16", max_model_len=2048,
                        served_model_name="tiny", enforce_eager=True, log_dir=str(tmp_path / "server"),
                        startup_timeout_s=400)
    with serve(cfg) as server:
        hooks, extra = telemetry_for(server.url)
        run_bench(BenchConfig(url=server.url, model="tiny", tokenizer=str(tiny_llama), api="chat", input_len=64,
                              output_len=32, concurrency=[1, 2], rounds=3, warmup=1, requests_per_round=4,
                              out=str(tmp_path / "run"), slo="ttft_ms=60000,tpot_ms=60000"),
                  conditions_extra={**run_conditions(server), **extra}, hooks=hooks + [server.log_hook()])
    run = load_run(tmp_path / "run")
    for lv in run.levels:
        # a generous SLO every request meets: goodput is the throughput
        assert lv.slo.met is True and lv.slo.share_met_all == 1.0
        assert lv.slo.goodput_tok_s == lv.output_throughput_tok_s
        assert lv.figure("ttft_ms").ci95 is not None and "ttft_ms" in lv.ci95
        # no NVIDIA GPU on this machine: energy is null with NVML's reason
        energy = lv.figure("energy_j_per_token")
        assert energy.value is None and energy.reason
    recs = run.measured_requests()
    # vLLM's chat stream opens with a role-only delta before the first token
    assert all(r.empty_choice_ns and r.empty_choice_ns[0] <= r.t_first_ns for r in recs)
    assert all(r.t_last_event_ns is not None and r.t_last_event_ns >= r.t_last_ns for r in recs)
    d = definitions(run, run.levels[0].level)
    # vllm bench serve's TTFT is the role-only delta: never later than tokcheck's first token
    assert d["vllm-bench"]["ttft_ms"] <= d["tokcheck"]["ttft_ms"]
    assert {d[t]["output_tokens"] for t in ("tokcheck", "vllm-bench", "aiperf")} == {32}
    receipt = make_receipt(run.path)
    assert {"run.json", "requests.jsonl", "summary.json", "server.log"} <= set(receipt["files"])
    assert receipt["conditions"]["engine"]["version"] == "0.32.0" and check_receipt(run.path).ok
