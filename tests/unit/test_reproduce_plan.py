"""reproduce: the workload a claim implies, and the reasons to stop before serving (pure)."""

from __future__ import annotations

from tokcheck.core.claim import parse_claim
from tokcheck.flows.reproduce import Plan, plan_from_claim, preflight


def test_plan_from_a_complete_claim():
    f = parse_claim("Llama 3.1 70B on 2x H100 SXM, vLLM 0.6.3, BF16, 64 concurrent requests: 2,300 tok/s total").fields
    p = plan_from_claim(f, model_max_position=131072)
    assert (p.metric, p.concurrency, p.levels, p.dtype) == ("aggregate_throughput", 64, [1, 64], "bfloat16")
    assert (p.input_len, p.output_len, p.max_model_len) == (1000, 1000, 8192)   # the seed's defaults
    assert any("input length not stated" in n for n in p.notes)


def test_plan_uses_the_seed_defaults_and_model_limit():
    f = parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization").fields
    p = plan_from_claim(f, model_max_position=2048)
    assert p.metric == "generation_tok_s" and p.concurrency == 1 and p.levels == [1]
    assert p.max_model_len == 2048 and p.dtype == "bfloat16"
    assert any("generation tok/s assumed" in n for n in p.notes)


def test_plan_keeps_stated_lengths():
    f = parse_claim("单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000").fields
    p = plan_from_claim(f)
    assert (p.input_len, p.output_len, p.concurrency) == (1000, 1000, 1)
    assert not any("length not stated" in n for n in p.notes)


def _plan(**kw) -> Plan:
    base = dict(metric="generation_tok_s", concurrency=1, levels=[1], input_len=1000, output_len=1000,
                max_model_len=8192, dtype="bfloat16", rounds=3)
    base.update(kw)
    return Plan(**base)


def test_preflight_stops_on_quantized_weights_and_fit():
    checklist = [{"key": "unquantized", "status": "fail", "evidence": "AWQ 4-bit in quantize_config.json"},
                 {"key": "memory_fit", "status": "fail", "evidence": "needs 160 GB, 126 GB available"}]
    stop = preflight({"precision": "full"}, _plan(), checklist, 131072)
    assert stop[0].startswith("the weights are quantized") and "AWQ" in stop[0]
    assert stop[1].startswith("will not fit: needs 160 GB")
    # a claim about INT4 does not stop on quantized weights
    assert len(preflight({"precision": "INT4"}, _plan(), checklist[:1], None)) == 0


def test_preflight_context_limits():
    assert preflight({}, _plan(max_model_len=1024), [], None) == [
        "max_model_len 1024 is below input + output = 2000 tokens"]
    assert "exceeds the model's max_position_embeddings 1024" in preflight({}, _plan(), [], 1024)[0]
    ok = [{"key": "unquantized", "status": "pass", "evidence": "BF16"}, {"key": "memory_fit", "status": "unknown", "evidence": "no GPU"}]
    assert preflight({"precision": "full"}, _plan(), ok, 131072) == []
