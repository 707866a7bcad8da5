"""Roofline (B1), memory budget (B3), precision options (B4) against values computed by hand."""

import pytest

from tokcheck.core.catalog import find_gpu, find_model
from tokcheck.errors import TokcheckError
from tokcheck.core.precision import bytes_per_param, canonical_precision
from tokcheck.core.roofline import (
    WeightsOnly,
    aggregate_bound,
    decode_bound,
    expected_accepted_length,
    implied_bytes_per_token,
    memory_budget,
    precision_options,
    weights_bytes,
)


def test_seed_worked_example_120gb_at_3_3_tb_s():
    b = decode_bound(WeightsOnly(120e9), 3.3e12)
    assert b.hard_tok_s == pytest.approx(27.5)
    assert b.realistic_tok_s < b.hard_tok_s


@pytest.mark.parametrize("name, expected", [("FP32", 4), ("BF16", 2), ("FP16", 2), ("FP8", 1), ("INT8", 1)])
def test_bytes_per_param_seed_table(name, expected):
    assert bytes_per_param(name) == expected


def test_four_bit_formats_include_scales():
    assert bytes_per_param("MXFP4") == pytest.approx(0.5 + 1 / 32)
    assert bytes_per_param("NVFP4") == pytest.approx(0.5 + 1 / 16)
    assert 0.5 < bytes_per_param("INT4") < 0.52


def test_full_precision_means_bf16():
    assert canonical_precision("full") == "BF16"
    assert canonical_precision("bfloat16") == "BF16"
    with pytest.raises(TokcheckError):
        canonical_precision("FP7")


def test_qwen3_30b_a3b_bound_rests_on_active_not_total_params():
    m = find_model("Qwen3-30B-A3B")
    b = decode_bound(m, "H100", "BF16", context_tokens=0)
    # 3.04 B active without the embedding table (3.35 B with it; the card says 3.3 B) at 2 bytes,
    # plus one embedding row — far below the 30.5 B total.
    assert b.weights_bytes_per_token == pytest.approx(3.04e9 * 2, rel=0.02)
    assert b.weights_bytes_per_token < 0.15 * weights_bytes(m, "BF16")


def test_kv_bytes_per_token_llama_8b_bf16_is_128_kib():
    mem = memory_budget(find_model("Llama 3.1 8B"), "H100", "BF16", max_model_len=4096)
    assert mem.kv_bytes_per_token == 131072


def test_kv_bytes_per_token_deepseek_v3_mla_bf16():
    mem = memory_budget(find_model("DeepSeek V3"), "H200", "BF16", max_model_len=4096)
    assert mem.kv_bytes_per_token == 61 * 576 * 2


def test_kv_read_grows_with_context_for_dense_model():
    m = find_model("Llama 3.1 8B")
    b0 = decode_bound(m, "H100", "BF16", 0)
    b1 = decode_bound(m, "H100", "BF16", 10_000)
    assert b1.kv_bytes_per_token_read - b0.kv_bytes_per_token_read == 10_000 * 131072


def test_sliding_window_layers_cap_kv_read():
    m = find_model("gpt-oss-120b")
    a = decode_bound(m, None, "BF16", 10_000).kv_bytes_per_token_read
    per_layer = 2 * 8 * 64 * 2
    assert a == 18 * 10_000 * per_layer + 18 * 128 * per_layer


def test_tensor_parallel_divides_bytes_per_gpu():
    m = find_model("Llama 3.1 70B")
    b1 = decode_bound(m, "H100", "BF16", 1500, 1)
    b4 = decode_bound(m, "H100", "BF16", 1500, 4)
    assert b4.bytes_per_token_per_gpu == pytest.approx(b1.bytes_per_token / 4)
    assert b4.hard_tok_s == pytest.approx(4 * b1.hard_tok_s)


def test_bound_without_gpu_has_bytes_and_reason_not_zero():
    b = decode_bound(find_model("Qwen3-8B"), None, "BF16")
    assert b.hard_tok_s is None and b.hard_tok_s_reason
    m = find_model("Qwen3-8B")
    from tokcheck.core.architecture import total_params

    # all weights but the embedding table (one row read), plus 1500 tokens of GQA KV in BF16
    expected = 2 * (total_params(m) - m.vocab_size * m.hidden_size + m.hidden_size) + 1500 * 2 * 36 * 8 * 128 * 2
    assert b.bytes_per_token == pytest.approx(expected)


def test_realistic_bound_uses_cited_fraction():
    b = decode_bound(find_model("Qwen3-8B"), "MI300X", "BF16")
    assert b.realistic_tok_s == pytest.approx(0.74 * b.hard_tok_s)
    assert "rocprofiler" in b.achievable_source


def test_expected_accepted_length_formula():
    assert expected_accepted_length(0.8, 3) == pytest.approx((1 - 0.8 ** 4) / 0.2)
    assert expected_accepted_length(0.0, 3) == 1
    assert expected_accepted_length(1.0, 3) == 4
    with pytest.raises(TokcheckError):
        expected_accepted_length(1.5, 3)


def test_speculative_decoding_raises_dense_bound_by_accepted_length():
    m = find_model("Llama 3.1 8B")
    plain = decode_bound(m, "H100", "BF16", 1500)
    spec = decode_bound(m, "H100", "BF16", 1500, acceptance_rate=0.8, draft_tokens=3)
    assert spec.hard_tok_s == pytest.approx(plain.hard_tok_s * expected_accepted_length(0.8, 3), rel=0.01)


def test_speculative_decoding_in_moe_touches_more_experts():
    m = find_model("Qwen3-30B-A3B")
    plain = decode_bound(m, "H100", "BF16", 1500)
    spec = decode_bound(m, "H100", "BF16", 1500, acceptance_rate=0.8, draft_tokens=3)
    gain = spec.hard_tok_s / plain.hard_tok_s
    assert 1 < gain < expected_accepted_length(0.8, 3)


def test_reverse_implied_bytes():
    r = implied_bytes_per_token(278, find_gpu("H100 SXM"))
    assert r["hard_bytes"] == pytest.approx(3.35e12 / 278)


def test_memory_budget_deepseek_v4_flash_bf16_does_not_fit_one_h200():
    m = find_model("DeepSeek V4 Flash")
    mem = memory_budget(m, "H200", "BF16", 8192)
    assert mem.weights_bytes == pytest.approx(568e9, rel=0.01)
    assert mem.fits is False and mem.min_tensor_parallel == 8
    released = memory_budget(m, "H200", "released", 8192)
    assert 150e9 < released.weights_bytes < 170e9  # ~158–167 GB on disk


def test_memory_budget_llama_8b_fits_h100_and_counts_sequences():
    m = find_model("Llama 3.1 8B")
    mem = memory_budget(m, "H100", "BF16", max_model_len=8192, concurrency=4)
    assert mem.fits
    free = mem.available_bytes - mem.weights_bytes - mem.overhead_bytes
    assert mem.max_concurrent_seqs == int(free // (131072 * 8192))
    assert mem.required_bytes == pytest.approx(mem.weights_bytes + 4 * 8192 * 131072 + mem.overhead_bytes)


@pytest.mark.parametrize("kwargs", [dict(max_model_len=0), dict(concurrency=0), dict(gpu_memory_utilization=1.5),
                                    dict(tensor_parallel=0)])
def test_memory_budget_rejects_bad_numbers(kwargs):
    with pytest.raises(TokcheckError):
        memory_budget(find_model("Qwen3-8B"), "H100", "BF16", **{"max_model_len": 8192, **kwargs})


def test_precision_options_order_by_bytes():
    opts = precision_options(find_model("Llama 3.1 70B"), "H100")
    assert [o.precision for o in opts] == ["BF16", "FP8", "INT4"]
    assert opts[0].weights_bytes > opts[1].weights_bytes > opts[2].weights_bytes
    assert opts[0].hard_tok_s < opts[1].hard_tok_s < opts[2].hard_tok_s
    assert opts[0].fits is False and opts[2].fits is True


def test_aggregate_bound_grows_with_concurrency_and_respects_compute():
    m = find_model("Qwen3-32B")
    a1 = aggregate_bound(m, "H100", "BF16", 1500, 1)
    a32 = aggregate_bound(m, "H100", "BF16", 1500, 32)
    assert a32["hard_tok_s"] > 10 * a1["hard_tok_s"]
    assert a32["hard_tok_s"] <= a32["compute_tok_s"]


def test_max_model_len_sweep_llama_8b_h100():
    from tokcheck.core.roofline import max_seqs_by_max_model_len

    seqs = max_seqs_by_max_model_len(find_model("Llama 3.1 8B"), "H100", "BF16")
    assert seqs[4096] == 2 * seqs[8192] or seqs[4096] == 2 * seqs[8192] + 1
    assert seqs[4096] > seqs[32768] > seqs[131072]
