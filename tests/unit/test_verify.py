"""verify (V1, V2) on run directories written with known true values."""

from __future__ import annotations

import pytest

from rundirs import CPU_ENVIRONMENT, FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.record.store import load_run
from tokcheck.analysis.verify import CHECK_NAMES, verify

# A CPU run of the tiny model: 300 tok/s per request at concurrency 1, 250 at 4.
TRUTH = {1: {"ttft_ms": 10.0, "gen_tok_s": 300.0, "agg_tok_s": 280.0},
         4: {"ttft_ms": 20.0, "gen_tok_s": 250.0, "agg_tok_s": 900.0}}


@pytest.fixture
def cpu_run(tmp_path):
    return load_run(write_run_dir(tmp_path / "cpu", levels=TRUTH, engine_report=VLLM_CPU_ENGINE_REPORT,
                                  precision_report=FULL_PRECISION_REPORT, environment=CPU_ENVIRONMENT,
                                  serve={"dtype": "bfloat16", "max_model_len": 2048, "quantization": None,
                                         "gpu_memory_utilization": 0.9, "tensor_parallel_size": 1}))


def claim(value, **kw):
    fields = {"model": "tiny-llama", "metric": "generation_tok_s", "value": value, "unit": "tok/s",
              "concurrency": 1, "input_tokens": 128, "output_tokens": 64, "precision": "BF16",
              "quantization": "none", "engine": "vllm", "engine_version": "0.32.0"}
    fields.update(kw)
    return fields


def test_true_claim_is_reproduced(cpu_run):
    v = verify(claim(290), cpu_run)
    assert v.reproduced is True
    assert v.measured == pytest.approx(300.0, rel=1e-3)
    assert v.ratio == pytest.approx(300 / 290, rel=1e-3)
    d = v.to_dict()
    for key in ("metric", "claimed", "measured", "ratio", "reproduced", "conditions", "checks"):
        assert key in d
    assert d["conditions"]["model"] == "match"
    assert d["conditions"]["precision"] == "match"
    assert d["conditions"]["quantization"] == "match"
    assert d["conditions"]["engine_version"] == "match"
    assert d["conditions"]["concurrency"] == "match"
    assert d["conditions"]["gpu"] == "unknown"       # the claim names no GPU
    assert [c["name"] for c in d["checks"]] == list(CHECK_NAMES)
    assert d["checks"][0]["status"] == "pass"


def test_claim_three_times_higher_is_not_reproduced_with_evidence(cpu_run):
    v = verify(claim(900), cpu_run)
    assert v.reproduced is False
    assert v.ratio == pytest.approx(300 / 900, rel=1e-3)
    checks = {c.number: c for c in v.checks}
    assert [c.number for c in v.checks] == [1, 2, 3, 4, 5, 6, 7]
    # 1: counting was right, and 900 tok/s is the aggregate throughput at concurrency 4
    assert checks[1].status == "warn"
    assert any("aggregate_throughput at concurrency 4 = 900" in e for e in checks[1].evidence)
    assert any("equals usage" in e for e in checks[1].evidence)
    # 2: a CPU run, no GPU to be busy
    assert checks[2].status == "unknown" and "CPU" in checks[2].evidence[0]
    # 3: full precision both sides
    assert checks[3].status == "pass"
    assert any("precision_report.full_precision" in e for e in checks[3].evidence)
    # 4: KV cache is ample (524288 tokens ≥ 192)
    assert checks[4].status == "pass"
    assert any("524,288" in e for e in checks[4].evidence)
    # 6: same engine version
    assert checks[6].status == "pass"
    # 7: no GPU → no bound
    assert checks[7].status == "unknown"
    assert [s.symptom for s in v.symptoms] == ["slow generation"]


def test_slow_generation_on_a_cpu_run_gives_cpu_advice_not_nvidia_smi(cpu_run):
    v = verify(claim(900), cpu_run)
    (slow,) = v.symptoms
    assert slow.steps == [
        "a CPU run: the server and the client shared the CPU — check what else ran on it "
        "(`uptime` load average, `top`) and measure again on a quiet machine",
        "rounds that differ a lot (the spread) mean the load moved the result",
        "then the weights (precision, size: `tokcheck inspect`) and the engine's version and settings set "
        "the speed",
        "compare precision, speculative decoding and concurrency with the claim's",
        "check the CPU's clock is not lowered (power saving, temperature) and no other job shares it",
    ]
    advice = " ".join(slow.steps + [a for c in v.checks for a in c.advice])
    assert "nvidia-smi" not in advice


def test_aggregate_metric_uses_throughput_not_per_request_speed(cpu_run):
    v = verify(claim(900, metric="aggregate_throughput", concurrency=4), cpu_run)
    assert v.measured == 900.0 and v.reproduced is True
    v = verify(claim(900, metric="generation_tok_s", concurrency=4), cpu_run)
    assert v.measured == pytest.approx(250.0, rel=1e-3) and v.reproduced is False


def test_ttft_in_seconds_is_converted(cpu_run):
    v = verify(claim(0.011, metric="ttft", unit="s"), cpu_run)
    assert v.unit == "ms" and v.claimed == pytest.approx(11.0)
    assert v.measured == pytest.approx(10.0) and v.reproduced is True


def test_incomparable_when_concurrency_level_absent(cpu_run):
    v = verify(claim(300, concurrency=32), cpu_run)
    assert v.reproduced is None
    assert "no level at the claimed concurrency 32" in v.summary


def test_incomparable_when_workload_differs(cpu_run):
    v = verify(claim(300, input_tokens=1000, output_tokens=1000), cpu_run)
    assert v.reproduced is None
    assert v.to_dict()["conditions"]["input_tokens"] == "differ"
    assert any("input_tokens differs" in r for r in v.incomparable_reasons)


def test_unknown_metric_is_incomparable(cpu_run):
    v = verify(claim(300, metric=None), cpu_run)
    assert v.reproduced is None and "metric" in v.summary
    v = verify(claim(300, metric=None), cpu_run, metric="generation_tok_s")
    assert v.reproduced is True


def test_quantized_claim_explained_by_check_3(cpu_run):
    v = verify(claim(600, precision="INT4", quantization="awq"), cpu_run)
    assert v.reproduced is False
    c3 = v.checks[2]
    assert c3.status == "fail"
    # BF16 2 bytes vs INT4 0.515625 (4 bits + a 16-bit scale per 128 weights, the one
    # vocabulary in tokcheck.core.precision): 2 / 0.515625 ≈ 3.9
    assert "3.9× fewer weight bytes" in " ".join(c3.evidence)
    assert v.to_dict()["conditions"]["precision"] == "differ"


def test_spec_decoding_claim_explained_by_check_5(cpu_run):
    v = verify(claim(600, speculative_decoding=True), cpu_run)
    c5 = v.checks[4]
    assert c5.status == "fail"
    assert any("speculative decoding off" in e for e in c5.evidence)


def test_engine_version_differs(cpu_run):
    v = verify(claim(600, engine_version="0.6.3"), cpu_run)
    assert v.checks[5].status == "fail"
    assert v.reproduced is False      # engine version explains, it does not block


def test_bound_check(cpu_run):
    bound = {"hard_tok_s": 27.5, "realistic_tok_s": 22.0, "bytes_per_token": 120e9, "context_tokens": 1500}
    v = verify(claim(278), cpu_run, bound=bound)
    c7 = v.checks[6]
    assert c7.status == "fail"
    assert "exceeds the hard bound" in " ".join(c7.evidence)
    assert "10.11 tokens per step" in " ".join(c7.advice)
    v = verify(claim(20), cpu_run, bound=bound)
    assert v.checks[6].status == "pass"


def test_measurement_faults_fail_check_1(tmp_path):
    run = load_run(write_run_dir(tmp_path / "bad", levels={1: {"ttft_ms": 10, "gen_tok_s": 300}},
                                 usage_off_by=5, early_stop_every=3))
    v = verify(claim(300), run)
    c1 = v.checks[0]
    assert c1.status == "fail"
    text = " ".join(c1.evidence)
    assert "tokenizer count differs from usage" in text
    assert "requests delivered another output length than the asked 64 tokens" in text
    # with no engine report, no environment: the checks say unknown, not pass
    assert v.checks[1].status == "unknown"
    assert v.checks[2].status == "unknown"
    assert v.checks[3].status == "unknown"


def test_gpu_run_with_other_processes_and_throttling(tmp_path):
    # the shapes tokcheck.machine.doctor.environment_report() and the GPU sampler / /metrics hooks write
    env = {"gpu": {"available": True, "gpus": [
        {"index": 0, "name": "NVIDIA H200", "memory_total_bytes": 150754820096, "utilization_gpu_pct": 0,
         "processes": [{"pid": 7, "name": "python", "used_memory_bytes": 40 * 2**30, "kind": "compute"}]}]}}
    tel = {"gpu": {"available": True, "gpus": {"0": {"memory_used_peak_bytes": 60 * 2**30,
                                                     "utilization_mean_pct": 35.0,
                                                     "throttling_seen": ["sw_power_cap"]}}},
           "server_metrics": {"counters": {"preemptions": 0}, "during": {"requests_waiting_max": 0.0,
                                                                       "kv_cache_usage_fraction_max": 0.2},
                              "cross_check": {"server_generation_tokens": 770, "counted_tokens": 768,
                                              "difference": 2, "match": False}}}
    run = load_run(write_run_dir(tmp_path / "gpu", levels={1: {"ttft_ms": 30, "gen_tok_s": 20}},
                                 environment=env, level_telemetry=tel,
                                 engine_report=VLLM_CPU_ENGINE_REPORT | {"device": "cuda"}))
    v = verify(claim(27, gpu="H200"), run)
    assert v.to_dict()["conditions"]["gpu"] == "match"
    assert v.to_dict()["conditions"]["gpu_count"] == "unknown"
    c1, c2, c4 = v.checks[0], v.checks[1], v.checks[3]
    assert c1.status == "fail"
    assert "the server generated 770 tokens but tokcheck counted 768" in " ".join(c1.evidence)
    assert c2.status == "fail"
    assert "1 processes held 42.9 GB" in " ".join(c2.evidence)  # 40 GiB
    assert "sw_power_cap" in " ".join(c2.evidence)
    assert c4.status == "pass" and "peak KV cache usage 20%" in " ".join(c4.evidence)
    slow = [s for s in v.symptoms if s.symptom == "slow generation"][0]
    assert any("35 %" in e and "low" in e for e in slow.evidence)
    assert "client" in slow.steps[0]


def test_claim_on_a_gpu_is_incomparable_with_a_cpu_run(cpu_run):
    v = verify(claim(300, gpu="H200"), cpu_run)
    assert v.reproduced is None
    assert v.to_dict()["conditions"]["gpu"] == "differ"


def test_kv_cache_too_small_and_oom_log(tmp_path):
    er = VLLM_CPU_ENGINE_REPORT | {"kv_cache_tokens": 300}
    run = load_run(write_run_dir(tmp_path / "kv", levels={4: {"ttft_ms": 900, "gen_tok_s": 100}},
                                 engine_report=er,
                                 server_log="INFO ...\nERROR torch.OutOfMemoryError: CUDA out of memory.\n"))
    v = verify(claim(300, concurrency=4), run)
    c4 = v.checks[3]
    assert c4.status == "fail"
    assert "4 concurrent requests × 192 tokens = 768 > KV cache" in " ".join(c4.evidence)
    names = [s.symptom for s in v.symptoms]
    assert names[0].startswith("out of memory")
    assert "slow first token" in names
    oom = v.symptoms[0]
    assert "32768 → 8192" in " ".join(oom.steps)
