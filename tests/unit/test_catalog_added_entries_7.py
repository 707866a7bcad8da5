"""Seventh round of catalog entries that real claims name, and two name-matching fixes: a size
written in a name must be the model's own ("DeepSeek-Coder-33B" is no DeepSeek V3 through the bare
"DeepSeek"), and a vendor-rounded size stated in the model file names it ("Gemma 2B" holds 2.51B).
Devices: Intel Arc A730M/A570M/A550M/A380/A310, RTX 2000/4500 Ada, GTX 1060/1650, RTX 3050/4050/4080
laptop GPUs, RX 580, RX 6600 (XT), Radeon VII. Models: Gemma 2B, Gemma 2 2B, Gemma 7B, Qwen1.5-110B,
Qwen2-57B-A14B, Yi-1.5-34B/6B, Yi-34B/6B, Phi-3.5-MoE. Each resolves by the names people write, its
neighbours keep resolving to themselves, and a number agrees with the source cited
(docs/catalog-gpus.md, docs/catalog-models.md, seventh round)."""

import pytest

from tokcheck.core.architecture import active_params, total_params
from tokcheck.core.catalog import SIZE_TOLERANCE, find_gpu, find_model, names_size
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


# ---------------------------------------------------------------- name matching

@pytest.mark.parametrize("name", ["DeepSeek-Coder-33B", "DeepSeek Coder 33B", "deepseek-coder-33b-instruct",
                                  "DeepSeek-Coder 6.7B", "deepseek-coder:6.7b", "DeepSeek 33B"])
def test_a_size_near_only_an_unnamed_active_count_names_no_model(name):
    """DeepSeek V3's 37B active parameters are stated by none of its names, so a 33B name that reaches
    it through the bare 'DeepSeek' alias raises the usual unknown-model error with suggestions."""
    with pytest.raises(TokcheckError, match="unknown model") as err:
        find_model(name)
    assert "did you mean" in str(err.value)


@pytest.mark.parametrize("query, expected", [
    # named by their active count: their own names state 17B
    ("Llama-4-Scout-17B-16E-Instruct", "Llama 4 Scout"), ("Llama 4 Maverick 17B", "Llama 4 Maverick"),
    # named by their total
    ("DeepSeek 671B", "DeepSeek V3"), ("DeepSeek", "DeepSeek V3"), ("Qwen3-30B-A3B", "Qwen3-30B-A3B"),
    ("gpt-oss-20b", "gpt-oss-20b"), ("Qwen1.5-MoE-A2.7B", "Qwen1.5-MoE-A2.7B"), ("Mixtral 8x7B", "Mixtral 8x7B"),
    ("DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B"), ("Llama 2 70B", "Llama 2 70B"),
])
def test_sizes_that_name_their_models_still_do(query, expected):
    assert find_model(query).name == expected


def test_the_nominal_size_is_the_files_and_loosens_nothing_else():
    gemma = find_model("Gemma 2B")
    assert total_params(gemma) > 2e9 * SIZE_TOLERANCE  # 2.51B: outside the tolerance of 2B on its own
    assert names_size(gemma, 2e9) and not names_size(gemma, 1.2e9)
    # an entry without the key gains nothing: Qwen3-1.7B (1.72B) is still no "2.2B" model
    assert not names_size(find_model("Qwen3-1.7B"), 2.2e9)
    v3 = find_model("DeepSeek V3")
    assert names_size(v3, 671e9) and not names_size(v3, 37e9)
    assert names_size(find_model("Llama 4 Scout"), 17e9)
    # "Qwen2 57B" would be the exact key of "Qwen2.5-7B" (dots are ignored): no such alias exists
    assert find_model("Qwen2.5-7B").name == "Qwen2.5-7B" and find_model("qwen2.5:7b").name == "Qwen2.5-7B"
    with pytest.raises(TokcheckError):
        find_model("Qwen2 57B")


# ---------------------------------------------------------------- devices

@pytest.mark.parametrize("query, expected", [
    ("Arc A730M", "Arc A730M"), ("A730M", "Arc A730M"), ("Intel Arc A570M", "Arc A570M"), ("A550M", "Arc A550M"),
    ("Arc A380", "Arc A380"), ("A380", "Arc A380"), ("Intel Arc A310", "Arc A310"),
    ("RTX 2000 Ada", "RTX 2000 Ada"), ("RTX 2000 Ada Generation", "RTX 2000 Ada"),
    ("RTX 4500 Ada", "RTX 4500 Ada"), ("NVIDIA RTX 4500 Ada", "RTX 4500 Ada"),
    ("GTX 1060", "GTX 1060 6GB"), ("GeForce GTX 1060 6GB", "GTX 1060 6GB"), ("GTX 1060 3GB", "GTX 1060 3GB"),
    ("GTX 1650", "GTX 1650"), ("GTX 1650 GDDR6", "GTX 1650 GDDR6"), ("GTX 1650 Super", "GTX 1650 Super"),
    ("RTX 3050 Laptop", "RTX 3050 Laptop GPU"), ("RTX 3050 Mobile", "RTX 3050 Laptop GPU"),
    ("RTX 4050 Laptop", "RTX 4050 Laptop GPU"), ("RTX 4050", "RTX 4050 Laptop GPU"),
    ("RTX 4080 Laptop GPU", "RTX 4080 Laptop GPU"), ("4080M", "RTX 4080 Laptop GPU"),
    ("RX 580", "RX 580 8GB"), ("Radeon RX 580", "RX 580 8GB"), ("RX 6600", "RX 6600"), ("RX 6600 XT", "RX 6600 XT"),
    ("Radeon VII", "Radeon VII"), ("AMD Radeon VII", "Radeon VII"),
    # neighbours keep resolving to themselves
    ("RTX 3050", "RTX 3050 8GB"), ("RTX 4080", "RTX 4080"), ("4080", "RTX 4080"), ("RTX 4080 Super", "RTX 4080 Super"),
    ("RTX 4000 Ada", "RTX 4000 Ada"), ("RTX 5000 Ada", "RTX 5000 Ada"), ("GTX 1660 Super", "GTX 1660 Super"),
    ("GTX 1080", "GTX 1080"), ("Arc A770", "Arc A770 16GB"), ("Arc A770M", "Arc A770M"), ("Arc A750", "Arc A750"),
    ("RX 6700 XT", "RX 6700 XT"), ("RX 6800", "RX 6800"), ("RX 7600 XT", "RX 7600 XT"), ("MI50", "MI50 32GB"),
    ("RTX 4060 Laptop", "RTX 4060 Laptop GPU"), ("L40", "L40"), ("L40S", "L40S"), ("M4 Max", "Apple M4 Max"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


@pytest.mark.parametrize("name", ["Ascend 310P", "Atlas 300I Pro", "L40G", "Radeon Pro VII"])
def test_devices_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_gpu(name)


def test_added_devices_numbers_match_their_sources():
    bw = lambda g: g.peak_bandwidth_bytes_per_s / 1e9  # noqa: E731
    # TechPowerUp (bus width x data rate)
    for q, mem, gbs in [("Arc A730M", 12, 192 / 8 * 14), ("Arc A570M", 8, 128 / 8 * 14), ("Arc A550M", 8, 224),
                        ("Arc A380", 6, 186), ("Arc A310", 4, 124), ("RTX 2000 Ada", 16, 256), ("RTX 4500 Ada", 24, 432),
                        ("GTX 1060", 6, 192.2), ("GTX 1060 3GB", 3, 192.2), ("GTX 1650", 4, 128.1),
                        ("GTX 1650 GDDR6", 4, 192), ("GTX 1650 Super", 4, 192),
                        ("RTX 3050 Laptop", 4, 192), ("RTX 4050 Laptop", 6, 96 / 8 * 16), ("RTX 4080 Laptop", 12, 432),
                        ("RX 580", 8, 256 / 8 * 8), ("RX 6600", 8, 224), ("RX 6600 XT", 8, 256), ("Radeon VII", 16, 4096 / 8 * 2)]:
        g = find_gpu(q)
        assert (g.memory_gb, bw(g)) == (pytest.approx(mem), pytest.approx(gbs)), q
        assert g.source and g.checked == "partly" and g.kind, q
    # workstation Ada: SMs x boost clock x 1024 (BF16, full-rate accumulate) / 2048 (FP8)
    assert find_gpu("RTX 2000 Ada").bf16_dense_tflops == pytest.approx(22 * 2.130 * 1024 / 1e3, abs=0.05)
    assert find_gpu("RTX 2000 Ada").fp8_dense_tflops == pytest.approx(22 * 2.130 * 2048 / 1e3, abs=0.05)
    assert find_gpu("RTX 4500 Ada").bf16_dense_tflops == pytest.approx(60 * 2.580 * 1024 / 1e3, abs=0.05)
    assert find_gpu("RTX 4500 Ada").fp8_dense_tflops == pytest.approx(60 * 2.580 * 2048 / 1e3, abs=0.05)
    for q in ("Arc A380", "GTX 1060", "GTX 1650", "RTX 4080 Laptop", "RX 580", "RX 6600", "Radeon VII"):
        assert find_gpu(q).bf16_dense_tflops is None, q  # no matrix units, a laptop TGP, or not read
    assert find_gpu("Radeon VII").achievable_fraction == find_gpu("MI50").achievable_fraction  # same Vega 20 HBM2


@pytest.mark.parametrize("text, gpu", [
    ("Llama 3.1 8B on an RTX 4080 Laptop GPU at 60 tok/s", "RTX 4080 Laptop GPU"),
    ("Qwen2.5-7B Q4 on a GTX 1060 6GB: 25 tok/s", "GTX 1060 6GB"),
    ("Llama 3.1 8B on an Intel Arc A380 at 12 tok/s", "Arc A380"),
    ("Gemma 2 2B on a Radeon VII: 90 tok/s", "Radeon VII"),
    ("Qwen3-8B on RTX 4080 at 80 tok/s", "RTX 4080"),
])
def test_names_in_claims(text, gpu):
    assert parse_claim(text).fields["gpu"] == gpu


# ---------------------------------------------------------------- models

@pytest.mark.parametrize("query, expected", [
    ("Gemma 2B", "Gemma 2B"), ("gemma-2b-it", "Gemma 2B"), ("google/gemma-2b", "Gemma 2B"), ("gemma:2b", "Gemma 2B"),
    ("gemma-1.1-2b-it", "Gemma 2B"),
    ("Gemma 2 2B", "Gemma 2 2B"), ("gemma-2-2b-it", "Gemma 2 2B"), ("google/gemma-2-2b", "Gemma 2 2B"), ("gemma2:2b", "Gemma 2 2B"),
    ("Gemma 7B", "Gemma 7B"), ("gemma-7b-it", "Gemma 7B"), ("gemma:7b", "Gemma 7B"),
    ("Qwen1.5-110B", "Qwen1.5-110B"), ("Qwen/Qwen1.5-110B-Chat", "Qwen1.5-110B"), ("qwen:110b", "Qwen1.5-110B"),
    ("Qwen2-57B-A14B", "Qwen2-57B-A14B"), ("Qwen/Qwen2-57B-A14B-Instruct", "Qwen2-57B-A14B"), ("qwen2:57b-a14b", "Qwen2-57B-A14B"),
    ("Yi-1.5-34B-Chat", "Yi-1.5-34B"), ("01-ai/Yi-1.5-6B", "Yi-1.5-6B"), ("Yi-34B", "Yi-34B"), ("Yi-34B-Chat", "Yi-34B"),
    ("01-ai/Yi-6B", "Yi-6B"), ("Phi-3.5-MoE-instruct", "Phi-3.5-MoE"), ("microsoft/Phi-3.5-MoE-instruct", "Phi-3.5-MoE"),
    # neighbours keep resolving to themselves
    ("Gemma 2 9B", "Gemma 2 9B"), ("gemma2:9b", "Gemma 2 9B"), ("Gemma 2 27B", "Gemma 2 27B"), ("Gemma 3 1B", "Gemma 3 1B"),
    ("Gemma 3 4B", "Gemma 3 4B"), ("Gemma 3 27B", "Gemma 3 27B"),
    ("Qwen2.5-7B", "Qwen2.5-7B"), ("Qwen2-7B", "Qwen2-7B"), ("Qwen2-72B", "Qwen2-72B"), ("Qwen1.5-32B", "Qwen1.5-32B"),
    ("Qwen1.5-MoE-A2.7B", "Qwen1.5-MoE-A2.7B"), ("Phi-3.5-mini", "Phi-3.5-mini"), ("phi3.5", "Phi-3.5-mini"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name, tol", [
    ("Gemma 2B", 0.01), ("Gemma 2 2B", 0.01), ("Gemma 7B", 0.01), ("Phi-3.5-MoE", 0.01),
    # sizes from the name: the checkpoints hold a little more or less (docs/catalog-models.md, seventh round)
    ("Qwen1.5-110B", 0.02), ("Qwen2-57B-A14B", 0.02), ("Yi-1.5-34B", 0.02), ("Yi-34B", 0.02),
    ("Yi-1.5-6B", 0.02), ("Yi-6B", 0.02),
])
def test_added_models_match_stated_size(name, tol):
    m = find_model(name)
    assert m.source and m.checked in ("yes", "partly", "no")
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=tol)


def test_added_model_shapes():
    g = find_model("Gemma 2B")  # multi-query attention, tied embeddings
    assert (g.num_kv_heads, g.head_dim, g.tie_embeddings, g.sliding_layers) == (1, 256, True, 0)
    g2 = find_model("Gemma 2 2B")  # alternating local / global layers
    assert (g2.num_layers, g2.sliding_layers, g2.sliding_window, g2.num_kv_heads) == (26, 13, 4096, 4)
    g7 = find_model("Gemma 7B")  # head_dim 256 > 3072 / 16
    assert (g7.num_heads, g7.num_kv_heads, g7.head_dim) == (16, 16, 256)
    q57 = find_model("Qwen2-57B-A14B")
    assert (q57.num_experts, q57.experts_per_token, q57.shared_expert_intermediate_size) == (64, 8, 20480)
    assert active_params(q57) == pytest.approx(14e9, rel=0.02)
    phi = find_model("Phi-3.5-MoE")
    assert (phi.num_experts, phi.experts_per_token, phi.moe_intermediate_size) == (16, 2, 6400)
    assert active_params(phi) == pytest.approx(phi.active_params_stated, rel=0.01)
    assert find_model("Yi-34B").checked == "no" and find_model("Yi-1.5-34B").checked == "partly"
    assert find_model("Yi-6B").num_kv_heads == 4 and find_model("Qwen1.5-110B").num_kv_heads == 8


@pytest.mark.parametrize("text, model", [
    ("Gemma 2B on a Raspberry Pi 5 at 5 tok/s", "Gemma 2B"),
    ("gemma-2-2b-it runs at 40 tok/s on an RTX 3060", "Gemma 2 2B"),
    ("Qwen1.5-110B-Chat on 4x A100 at 12 tok/s", "Qwen1.5-110B"),
    ("Yi-34B-Chat on 2x RTX 3090 at 20 tok/s", "Yi-34B"),
])
def test_models_in_claims(text, model):
    assert parse_claim(text).fields["model"] == model


# Qwen1.5-7B / -72B and Mistral Large 2 were added in the eighth round (test_catalog_added_entries_8.py);
# Mistral Nemo, Falcon-40B / -180B, DBRX and Seed-OSS-36B in the eleventh (test_catalog_added_entries_11.py)
@pytest.mark.parametrize("name", ["Qwen-7B", "Codestral-22B", "CodeLlama-70B", "Grok-1",
                                  "Phi-3-medium", "BitNet b1.58 2B4T", "Hunyuan-A13B", "ERNIE-4.5-21B-A3B",
                                  "MiniCPM4-8B"])
def test_models_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_model(name)
