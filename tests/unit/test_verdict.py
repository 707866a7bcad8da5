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
    """'full precision, no quantization' of a model that ships FP8 + MXFP4 experts: both readings.
    Released: 155.6 GB, more than one H200's 141 GB × 0.9 → the unstated count is sized to 2 × H200
    (TP 2). BF16: 568.7 GB → 8 × H200 (TP 8): hard bound = 8 × 4.8e12 / 26.6e9 ≈ 1,440 tok/s, so
    278 tok/s is ~19 % of it at BF16 too."""
    c = apply_overrides(parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"), gpu="H200")
    a = analyze_claim(c)
    data = a.to_json()
    assert JSON_KEYS <= set(data)
    assert data["reference_only"] is True
    assert data["bound"]["context_tokens"] == 1500
    labels = [r["precision"] for r in data["readings"]]
    assert labels[0].startswith("released") and "BF16" in labels
    bf16 = next(r for r in data["readings"] if r["precision"] == "BF16")
    assert bf16["weights_bytes"] == pytest.approx(568.7e9, rel=0.01)
    assert bf16["single_stream_hard_tok_s"] == pytest.approx(8 * 4.8e12 / 26.6e9, rel=0.02)
    assert "BF16" in data["full_precision"]["meaning"] and data["full_precision"]["released_differs"]
    assert data["full_precision"]["bf16_bytes"] == pytest.approx(568e9, rel=0.01)
    assert data["layout"]["gpu_count"] == 2 and "not stated" in data["layout"]["why"]
    assert a.verdict == "plausible"
    assert a.bound["hard_tok_s"] == pytest.approx(2 * 4.8e12 / a.bound["bytes_per_token"])


def test_without_gpu_requirements_for_bf16_and_released():
    """No GPU: what it would take, at the released weights and at BF16. Released FP8 + MXFP4:
    10.8 GB read per token → 278 tok/s needs 278 × 10.8e9 = 3.0 TB/s and 157.8 GB of memory (one
    MI300X holds it: 5.3e12 / 10.8e9 = 488 tok/s); BF16: 26.6 GB per token → 7.4 TB/s and 570 GB."""
    a = analyze_claim(parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"))
    data = a.to_json()
    req = data["requirements"]
    by = {p["precision"].split()[0]: p for p in req["by_precision"]}
    assert set(by) == {"released", "BF16"}
    assert by["BF16"]["min_bandwidth_bytes_per_s"] == pytest.approx(278 * by["BF16"]["bytes_per_token"])
    assert by["BF16"]["min_memory_bytes"] > 568e9 and by["released"]["min_memory_bytes"] < 160e9
    assert by["released"]["setups"][0]["count"] == 1 and by["BF16"]["setups"][0]["count"] == 4
    assert all(s["fits"] and s["hard_tok_s"] * 0.9 >= 278 for p in req["by_precision"] for s in p["setups"])
    assert a.bound["bytes_per_token"] > 0 and a.bound["hard_tok_s"] is None
    assert a.verdict == "plausible"


def test_ttft_claim_is_judged_against_the_shortest_prefill():
    """TTFT cannot beat one weight read: Qwen3-8B BF16 16.4 GB / 3.35 TB/s = 4.9 ms on an H100,
    so 350 ms is plausible and 1 ms is not."""
    a = analyze_claim(parse_claim("Qwen3-8B 首 token 延迟 350ms，单卡 H100"))
    assert a.verdict == "plausible"
    assert any("TTFT" in e for e in a.explanations)
    b = analyze_claim(parse_claim("Qwen3-8B 首 token 延迟 1ms，单卡 H100"))
    assert b.verdict == "implausible"


def test_weights_that_do_not_fit_the_stated_gpu_are_offloaded():
    """gpt-oss-120b's MXFP4 GGUF (experts MXFP4, the rest Q8_0: 63 GB) on a 32 GB RTX 5090: about
    half the experts live in host RAM (a desktop's dual-channel DDR5-5600, 89.6 GB/s, assumed), so
    a token reads ~1 GB from the host: ~80 tok/s at most — 180 tok/s needs explaining."""
    a = analyze_claim(parse_claim("gpt-oss-120b runs at 180 tok/s on an RTX 5090 with llama.cpp (MXFP4)"))
    assert "MXFP4" in a.precision_used
    assert a.offload is not None and "DDR5" in a.offload["host_memory"]
    assert a.verdict == "needs_explanation"
    assert any("offload" in e for e in a.explanations)


def test_chinese_single_request_claim_is_plausible():
    a = analyze_claim(parse_claim("单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000"))
    assert a.verdict == "plausible"
    assert a.bound["context_tokens"] == 1500


def test_unknown_model_in_text_gives_unknown_verdict():
    a = analyze_claim(parse_claim("FooBar runs at 100 tok/s on H100"))
    assert a.verdict == "unknown"
    assert a.bound is None


def test_unknown_model_with_a_size_is_judged_with_a_dense_stand_in():
    """'Foo-7B' is not in the catalog, but its name says 7 B parameters: judged as the catalog's
    dense 16-bit model nearest 7 B (Mistral 7B v0.1, 7.24 B: 14.5 GB → 3.35e12 / 14.5e9 ≈ 230 tok/s
    on an H100 SXM), and the notes say so."""
    a = analyze_claim(parse_claim("Foo-7B runs at 100 tok/s on H100"))
    assert a.verdict == "plausible"
    assert a.stand_in and a.stand_in[0]["model"] == "Mistral 7B v0.1"
    assert any("judged as Mistral 7B v0.1" in n for n in a.notes)


def test_a_stand_in_comes_from_the_unknown_models_own_family_when_one_is_near():
    """'Llama 9 8B' is unknown; Ministral 8B (8.02 B) and Llama 3.1 8B (8.03 B) are both within
    the tolerance of 8 B: the Llama is taken, and the note says it is the family's."""
    a = analyze_claim(parse_claim("Llama 9 8B at 120 tok/s on an RTX 4090"))
    assert a.stand_in[0]["model"] == "Llama 3.1 8B"
    assert any("judged as Llama 3.1 8B (the catalog's dense Llama model" in n for n in a.notes)
    # no family word in the catalog: the nearest size of any family, named as such
    a = analyze_claim(parse_claim("Foo-7B runs at 100 tok/s on H100"))
    assert any("(the catalog's dense model nearest" in n for n in a.notes)


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
