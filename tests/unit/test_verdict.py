"""B2: verdicts for the seed's table and the issue's example claims."""

import pytest

from tokcheck.core.claim import apply_overrides, parse_claim
from tokcheck.core.roofline import WeightsOnly
from tokcheck.core.verdict import analyze_claim

JSON_KEYS = {"fields", "missing", "present_count", "reference_only", "bound", "memory", "verdict", "explanations"}


def test_seed_table_278_single_request_3gb_is_plausible():
    a = analyze_claim(parse_claim("single request 278 tok/s on H100"), model=WeightsOnly(3e9))
    assert a.verdict == "plausible"


def test_seed_table_278_single_request_140gb_is_implausible():
    a = analyze_claim(parse_claim("single request 278 tok/s on H100"), model=WeightsOnly(140e9))
    assert a.verdict == "implausible"
    assert any("speculative decoding" in e for e in a.explanations)


def test_seed_table_278_unstated_metric_140gb_needs_spec_decoding_or_concurrency():
    a = analyze_claim(parse_claim("278 tok/s on H100"), model=WeightsOnly(140e9))
    assert a.verdict == "needs_explanation"
    text = " ".join(a.explanations)
    assert "concurrent requests" in text and "mean accepted length" in text


def test_seed_table_278_aggregate_at_concurrency_32_mid_size_is_plausible():
    a = analyze_claim(parse_claim("Qwen3-32B on H100, 278 tok/s aggregate throughput at concurrency 32"))
    assert a.verdict == "plausible"
    assert a.bound["aggregate"]["concurrency"] == 32


def test_deepseek_v4_flash_full_precision_on_h200():
    c = apply_overrides(parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"), gpu="H200")
    a = analyze_claim(c)
    data = a.to_json()
    assert JSON_KEYS <= set(data)
    assert data["reference_only"] is True
    assert data["bound"]["precision"] == "BF16"
    assert set(data["bound"]) >= {"bytes_per_token", "hard_tok_s", "realistic_tok_s", "context_tokens"}
    assert data["bound"]["context_tokens"] == 1500
    assert data["memory"]["fits"] is False and data["memory"]["min_tensor_parallel"] == 8
    assert "BF16" in data["full_precision"]["meaning"] and data["full_precision"]["released_differs"]
    assert data["full_precision"]["bf16_bytes"] == pytest.approx(568e9, rel=0.01)
    assert data["released_bound"]["hard_tok_s"] > data["bound"]["hard_tok_s"]
    assert a.verdict == "needs_explanation"
    assert a.bound["hard_tok_s"] == pytest.approx(4.8e12 / a.bound["bytes_per_token"])


def test_without_gpu_verdict_is_unknown_but_bytes_are_given():
    a = analyze_claim(parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"))
    assert a.verdict == "unknown"
    assert a.bound["bytes_per_token"] > 0 and a.bound["hard_tok_s"] is None
    assert any("needs a GPU" in e for e in a.explanations)


def test_ttft_claim_is_not_bounded_by_decode_roofline():
    a = analyze_claim(parse_claim("Qwen3-8B 首 token 延迟 350ms，单卡 H100"))
    assert a.verdict == "unknown"
    assert any("TTFT" in e for e in a.explanations)


def test_weights_that_do_not_fit_the_stated_gpu_need_explanation():
    a = analyze_claim(parse_claim("gpt-oss-120b runs at 180 tok/s on an RTX 5090 with llama.cpp (MXFP4)"))
    assert a.precision_used == "released"
    assert a.verdict == "needs_explanation"
    assert any("offload" in e for e in a.explanations)


def test_chinese_single_request_claim_is_plausible():
    a = analyze_claim(parse_claim("单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000"))
    assert a.verdict == "plausible"
    assert a.bound["context_tokens"] == 1500


def test_unknown_model_in_text_gives_unknown_verdict():
    a = analyze_claim(parse_claim("Foo-7B runs at 100 tok/s on H100"))
    assert a.verdict == "unknown"
    assert a.bound is None


def test_bandwidth_override():
    a = analyze_claim(parse_claim("single request 20 tok/s"), model=WeightsOnly(120e9), bandwidth_bytes_per_s=3.3e12)
    assert a.bound["hard_tok_s"] == pytest.approx(27.5)
    assert a.verdict == "plausible"


def test_per_request_speed_under_concurrency_uses_shared_step():
    c = parse_claim("Llama 3.1 8B on H100, 64 concurrent requests, 120 tok/s per request generation speed")
    a = analyze_claim(c)
    per = a.bound["per_request_at_concurrency"]
    assert per["concurrency"] == 64
    assert per["realistic_tok_s"] < a.bound["realistic_tok_s"]
    assert a.verdict in ("needs_explanation", "implausible")
    assert analyze_claim(parse_claim("Llama 3.1 8B on H100, 64 concurrent requests, 20 tok/s per request")).verdict \
        == "plausible"
