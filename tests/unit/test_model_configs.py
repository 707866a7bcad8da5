"""Configs as they really are: interleaved MoE layers, dense first layers, linear attention,
sliding-window patterns, nested text configs, and quantization as shipped (compressed-tensors,
ModelOpt, GPTQ/AWQ, bitsandbytes, MXFP4, FP8). Each docstring shows the arithmetic."""

import copy

import pytest

from tokcheck.core.architecture import (
    active_params,
    kv_cache_values,
    kv_values_per_token,
    linear_state_values,
    total_params,
)
from tokcheck.core.catalog import _model_entries, find_model, spec_from_hf_config
from tokcheck.core.precision import scheme_for
from tokcheck.core.quantization import part_of, quantization_scheme
from tokcheck.core.roofline import weights_bytes
from tokcheck.errors import TokcheckError


def _config(name: str) -> dict:
    return copy.deepcopy(next(e for e in _model_entries() if e["name"] == name)["config"])


def test_llama4_maverick_interleaves_dense_and_moe_layers():
    """48 layers, interleave_moe_layer_step 2 → 24 MoE + 24 dense. Per layer attention
    5120·40·128·2 + 2·5120·8·128 = 62.9 M (×48 = 3.02 B); dense MLP 3·5120·16384 = 251.7 M (×24 =
    6.04 B); one expert 3·5120·8192 = 125.8 M (×128 ×24 = 386.5 B) plus a shared expert of the
    same width (×24 = 3.02 B); embedding and lm_head 202048·5120 = 1.03 B each.
    Total ≈ 400.7 B (card: 400 B); active = attention + dense + shared + 1 routed expert ×24 +
    lm_head + embedding ≈ 17.2 B (card: 17 B)."""
    m = find_model("Llama 4 Maverick")
    assert m.moe_layers == 24 and m.dense_layers == 24
    assert total_params(m) == pytest.approx(400.7e9, rel=0.002)
    assert active_params(m) == pytest.approx(17.18e9, rel=0.005)


def test_llama4_scout_has_a_shared_expert_in_every_layer():
    """Scout: every layer MoE (step 1), 16 experts + one shared expert of 3·5120·8192 = 125.8 M.
    Total = 3.02 B attention + 48·(16+1)·125.8 M = 102.6 B + 2.07 B vocab ≈ 107.8 B (card 109 B,
    which counts the vision encoder); active ≈ 17.2 B (card 17 B)."""
    m = find_model("Llama 4 Scout")
    assert m.moe_layers == 48 and m.shared_expert_intermediate_size == 8192
    assert total_params(m) == pytest.approx(107.77e9, rel=0.002)
    assert active_params(m) == pytest.approx(17.17e9, rel=0.005)


@pytest.mark.parametrize("name, moe, layers", [("GLM-4.5", 89, 92), ("GLM-4.5-Air", 45, 46),
                                               ("Kimi K2", 60, 61), ("GLM-5", 75, 78)])
def test_first_k_dense_replace_applies_to_every_model_type(name, moe, layers):
    """first_k_dense_replace is not DeepSeek's alone: GLM-4.5 (3 dense of 92), GLM-4.5-Air (1 of
    46), Kimi K2 (1 of 61) and GLM-5 (3 of 78) start with dense layers."""
    m = find_model(name)
    assert (m.moe_layers, m.num_layers) == (moe, layers)


def test_glm45_total_matches_card_once_dense_layers_are_counted():
    """With 3 dense layers (3·5120·12288 each) instead of 3 more MoE layers the count falls from
    363.6 B to 352.8 B; the card says 355 B (-0.6 %)."""
    assert total_params(find_model("GLM-4.5")) == pytest.approx(355e9, rel=0.01)


def test_qwen35_linear_attention_layers_hold_a_fixed_state_not_a_kv_cache():
    """Qwen3.5-35B-A3B: 40 layers, every 4th full attention → 10 full + 30 Gated DeltaNet.
    KV per token: 10 · 2 · 2 kv heads · 256 = 10,240 values (not 40 · 1024 = 40,960).
    Fixed state per sequence: 30 · (32·128·128 + (2·16·128 + 32·128)·3) = 30 · 548,864 =
    16,465,920 values, whatever the context."""
    m = find_model("Qwen3.5-35B-A3B")
    assert m.linear_layers == 30 and m.full_attention_layers == 10
    assert kv_values_per_token(m) == 10_240
    assert linear_state_values(m) == 16_465_920
    assert kv_cache_values(m, 1000) == 10_240 * 1000 + 16_465_920
    assert total_params(m) == pytest.approx(35e9, rel=0.02)


def test_qwen3_next_gated_attention_and_linear_layers():
    """Qwen3-Next-80B-A3B: full_attention_interval 4 → 36 of 48 layers linear; its gated q_proj
    doubles the query width; total ≈ 79.7 B (card 80 B)."""
    m = find_model("Qwen3-Next-80B-A3B")
    assert m.linear_layers == 36 and m.attn_output_gate
    assert total_params(m) == pytest.approx(80e9, rel=0.01)


def test_gemma3_sliding_window_pattern_keeps_every_sixth_layer_global():
    """Gemma 3 12B: 48 layers, sliding_window_pattern 6 → 40 sliding (window 1024) + 8 global.
    At 32,768 tokens: 4096 values per token-layer · (8 · 32768 + 40 · 1024) = 1,241,513,984
    values, not 48 · 1024 · 4096 (every layer sliding) or 48 · 32768 · 4096 (none)."""
    m = find_model("Gemma 3 12B")
    assert (m.sliding_layers, m.sliding_window) == (40, 1024)
    assert kv_cache_values(m, 32768) == 4096 * (8 * 32768 + 40 * 1024)


def test_nested_text_config_takes_the_wrappers_quantization_config():
    """A multimodal wrapper whose quantization_config sits outside text_config: the decoder's
    experts are read as the wrapper declares (MXFP4 here)."""
    cfg = _config("gpt-oss-20b")
    wrapped = {"model_type": "wrapper", "text_config": {k: v for k, v in cfg.items() if k != "quantization_config"},
               "quantization_config": cfg["quantization_config"]}
    m = spec_from_hf_config(wrapped, name="wrapped")
    assert m.released_weights.get("experts") == "MXFP4"


def test_compressed_tensors_fp8_70b_is_about_72_gb_not_141():
    """compressed-tensors float 8-bit on Linear, lm_head ignored: 68.45 B linear weights × 1 byte
    + embedding and lm_head 2 × 1.05 B × 2 bytes = 72.7 GB (BF16 would be 141.1 GB)."""
    cfg = _config("Llama 3.1 70B")
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": 8, "type": "float", "strategy": "channel", "group_size": None}}}}
    m = spec_from_hf_config(cfg, name="Llama-3.1-70B-Instruct-FP8-dynamic")
    assert m.released_weights["attention"] == "FP8" and m.released_weights["lm_head"] == "BF16"
    assert weights_bytes(m, "released") == pytest.approx(72.7e9, rel=0.005)


def test_compressed_tensors_int4_group_32_counts_packed_words_as_weights():
    """Kimi K2.5 ships routed experts as pack-quantized int4, group 32: 4 bits + one 16-bit scale
    per 32 = 4.5 bits per weight (INT4-g32), attention and shared experts BF16; the int32 words on
    disk hold 8 weights each and count as those 8."""
    m = find_model("Kimi K2.5")
    assert m.released_weights["experts"] == "INT4-g32"
    s = scheme_for("released", m.released_weights)
    assert s["attention"] == "BF16" and s["shared_experts"] == "BF16"
    from tokcheck.core.precision import bytes_per_param
    assert bytes_per_param("INT4-g32") * 8 == pytest.approx(4.5)


def test_modelopt_nvfp4_excludes_mla_projections():
    """nvidia/DeepSeek-V3.1-NVFP4: hf_quant_config quant_algo NVFP4 (group 16: 4.5 bits) with the
    MLA projections excluded → attention BF16; experts 654 B × 0.5625 + the rest ≈ 397 GB."""
    m = find_model("DeepSeek V3.1 NVFP4")
    assert m.released_weights["default"] == "NVFP4" and m.released_weights["attention"] == "BF16"
    assert weights_bytes(m, "released") == pytest.approx(396.7e9, rel=0.01)


@pytest.mark.parametrize("qc, name", [
    ({"quant_method": "gptq", "bits": 4, "group_size": 128}, "INT4"),
    ({"quant_method": "awq", "bits": 4, "group_size": 64}, "INT4-g64"),
    ({"quant_method": "gptq", "bits": 8, "group_size": 128}, "INT8"),
    ({"quant_method": "gptq", "bits": 3, "group_size": 128}, "INT3-g128"),
])
def test_gptq_awq_bits_and_group_size(qc, name):
    """GPTQ/AWQ: bits and group size name the format; INT4-g64 = 4 + 16/64 = 4.25 bits."""
    parts, _ = quantization_scheme({"quantization_config": qc, "torch_dtype": "float16"})
    assert parts["default"] == name and parts["lm_head"] == "FP16"


def test_gptq_int4_72b_weighs_about_41_gb():
    """Qwen2.5-72B at INT4 group 128: 70.2 B linear weights × (0.5 + 2/128) bytes + embedding and
    lm_head 2 × 0.62 B × 2 bytes = 36.2 + 5.0 ≈ 41.2 GB."""
    assert weights_bytes(find_model("Qwen2.5-72B"), "INT4") == pytest.approx(41.19e9, rel=0.005)


@pytest.mark.parametrize("double, bits", [(False, 4.5), (True, 4 + 8 / 64 + 32 / (64 * 256))])
def test_bitsandbytes_4bit(double, bits):
    """bitsandbytes 4-bit: blocks of 64 with an FP32 absmax → 4 + 32/64 = 4.5 bits; with double
    quantization the absmax is 8-bit plus an FP32 per 256 blocks → 4.127 bits."""
    parts, detail = quantization_scheme({"quantization_config": {
        "quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
        "bnb_4bit_use_double_quant": double}})
    from tokcheck.core.precision import bytes_per_param
    assert bytes_per_param(parts["default"]) * 8 == pytest.approx(bits, rel=1e-3)


def test_mxfp4_gpt_oss_120b_is_65_gb():
    """gpt-oss-120b: 114.7 B expert weights × (0.5 + 1/32) bytes = 60.9 GB + 2.1 B other weights
    in BF16 = 4.3 GB → 65.2 GB."""
    m = find_model("gpt-oss-120b")
    assert m.released_weights == {"default": "BF16", "experts": "MXFP4"}
    assert weights_bytes(m, "released") == pytest.approx(65.2e9, rel=0.005)


def test_deepseek_v4_fp8_config_with_fp4_experts():
    """DeepSeek V4 Flash's config says quant_method fp8 and expert_dtype fp4: experts MXFP4,
    the rest FP8 → 155.6 GB, not 284 GB of FP8."""
    m = find_model("DeepSeek V4 Flash")
    assert m.released_weights["experts"] == "MXFP4" and m.released_weights["default"] == "FP8"
    assert weights_bytes(m, "released") == pytest.approx(155.6e9, rel=0.01)


def test_catalog_released_formats_agree_with_the_configs():
    """Every catalog entry that states released_weights and ships a quantization config: the
    per-part formats read from the config equal the stated ones."""
    for e in _model_entries():
        m = find_model(e["name"])
        if e.get("released_weights"):
            assert scheme_for("released", m.released_weights) == scheme_for("released", e["released_weights"]), e["name"]


@pytest.mark.parametrize("module, part", [
    ("model.layers.0.mlp.experts.7.up_proj", "experts"), ("lm_head", "lm_head"),
    ("model.layers.3.mlp.gate", "router"), ("model.layers.0.post_attention_layernorm", "other"),
    ("model.layers.1.self_attn.q_b_proj", "attention"), ("model.layers.2.mlp.shared_experts.down_proj", "shared_experts"),
])
def test_module_names_map_to_parts(module, part):
    assert part_of(module) == part


def test_unknown_quant_method_is_one_line_error():
    with pytest.raises(TokcheckError) as err:
        quantization_scheme({"quantization_config": {"quant_method": "quip#"}})
    assert "\n" not in str(err.value) and "quip#" in str(err.value)
