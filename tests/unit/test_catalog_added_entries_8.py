"""Eighth round of catalog entries that real claims name. Device: Snapdragon 8 Elite Gen 5 (a phone
SoC beside the Snapdragon 8 Elite, which keeps its own names). Models: Mistral Large 2 (123B dense),
GLM-4.5V (the GLM-4.5-Air decoder with a vision tower), Qwen1.5-7B and Qwen1.5-72B. Each resolves by
the names people write, its neighbours keep resolving to themselves, and a number agrees with the
source cited (docs/catalog-gpus.md, docs/catalog-models.md, eighth round)."""

import pytest

from tokcheck.core.architecture import active_params, total_params
from tokcheck.core.catalog import find_gpu, find_model
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


# ---------------------------------------------------------------- device

@pytest.mark.parametrize("query, expected", [
    ("Snapdragon 8 Elite Gen 5", "Snapdragon 8 Elite Gen 5"), ("Snapdragon 8 Elite Gen5", "Snapdragon 8 Elite Gen 5"),
    ("Qualcomm Snapdragon 8 Elite Gen 5", "Snapdragon 8 Elite Gen 5"), ("SM8850", "Snapdragon 8 Elite Gen 5"),
    ("骁龙 8 Elite Gen5", "Snapdragon 8 Elite Gen 5"), ("第五代骁龙 8 至尊版", "Snapdragon 8 Elite Gen 5"),
    ("Adreno 840", "Snapdragon 8 Elite Gen 5"),
    # the older chip keeps its names (and gains its Chinese one)
    ("Snapdragon 8 Elite", "Snapdragon 8 Elite"), ("Qualcomm Snapdragon 8 Elite", "Snapdragon 8 Elite"),
    ("Snapdragon 8 Gen 4", "Snapdragon 8 Elite"), ("SM8750", "Snapdragon 8 Elite"), ("Adreno 830", "Snapdragon 8 Elite"),
    ("骁龙 8 至尊版", "Snapdragon 8 Elite"), ("骁龙8至尊版", "Snapdragon 8 Elite"),
    ("Snapdragon X Elite", "Snapdragon X Elite"),
])
def test_snapdragon_names_resolve(query, expected):
    assert find_gpu(query).name == expected


def test_snapdragon_8_elite_gen_5_numbers_match_its_sources():
    g = find_gpu("Snapdragon 8 Elite Gen 5")
    # Lowyat.NET: up to 24 GB LPDDR5X at up to 5,300 MHz; the 8 Elite's 64-bit bus assumed
    assert g.memory_gb == pytest.approx(24)
    assert g.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(64 / 8 * 5300 * 2 / 1e3)
    assert g.kind == "soc" and g.checked == "no" and g.source
    assert g.bf16_dense_tflops is None and g.fp8_dense_tflops is None
    assert g.achievable_fraction == find_gpu("Snapdragon 8 Elite").achievable_fraction


@pytest.mark.parametrize("text, gpu", [
    ("Qwen2.5-1.5B on a Snapdragon 8 Elite Gen 5 phone at 20 tok/s", "Snapdragon 8 Elite Gen 5"),
    ("Qwen3-4B Q4 on SM8850 at 12 tok/s", "Snapdragon 8 Elite Gen 5"),
    ("Qwen2.5-3B 在骁龙 8 Elite Gen5 上跑到 18 tok/s", "Snapdragon 8 Elite Gen 5"),
    ("Llama 3.2 3B on Snapdragon 8 Elite at 15 tok/s", "Snapdragon 8 Elite"),
])
def test_device_names_in_claims(text, gpu):
    assert parse_claim(text).fields["gpu"] == gpu


# ---------------------------------------------------------------- models

MISTRAL_LARGE = "Mistral Large 2 (123B)"


@pytest.mark.parametrize("query, expected", [
    ("Mistral Large 2", MISTRAL_LARGE), ("Mistral-Large-2", MISTRAL_LARGE), ("mistral-large:123b", MISTRAL_LARGE),
    ("Mistral-Large-Instruct-2407", MISTRAL_LARGE), ("mistralai/Mistral-Large-Instruct-2407", MISTRAL_LARGE),
    ("Mistral Large 2407", MISTRAL_LARGE), ("Mistral-Large-Instruct-2411", MISTRAL_LARGE),
    ("GLM-4.5V", "GLM-4.5V"), ("GLM 4.5V", "GLM-4.5V"), ("GLM-4.5VL", "GLM-4.5V"), ("zai-org/GLM-4.5V", "GLM-4.5V"),
    ("Qwen1.5-7B", "Qwen1.5-7B"), ("Qwen/Qwen1.5-7B-Chat", "Qwen1.5-7B"),
    ("Qwen1.5-72B", "Qwen1.5-72B"), ("Qwen/Qwen1.5-72B-Chat", "Qwen1.5-72B"),
    # neighbours keep resolving to themselves
    ("Mistral Small 3", "Mistral Small 3 (24B)"), ("Mistral 7B", "Mistral 7B v0.3"), ("Mixtral 8x22B", "Mixtral 8x22B"),
    ("GLM-4.5-Air", "GLM-4.5-Air"), ("GLM 4.5 Air", "GLM-4.5-Air"), ("GLM-4.5", "GLM-4.5"), ("GLM-4.6", "GLM-4.6"),
    ("Qwen-72B", "Qwen-72B"), ("Qwen 72B", "Qwen-72B"), ("qwen:72b", "Qwen-72B"), ("Qwen2-72B", "Qwen2-72B"),
    ("Qwen2.5-72B", "Qwen2.5-72B"), ("Qwen2-7B", "Qwen2-7B"), ("Qwen2.5-7B", "Qwen2.5-7B"),
    ("Qwen1.5-14B", "Qwen1.5-14B"), ("Qwen1.5-110B", "Qwen1.5-110B"), ("Qwen1.5-32B", "Qwen1.5-32B"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name", [
    # other models that share a word with the added ones stay unknown
    "Mistral Large 3", "Mistral-Large-3-675B-Instruct-2512", "Mistral Large 2512", "Pixtral Large", "Qwen-7B", "qwen:7b",
    # still no copy of their files (see docs/catalog-models.md, eighth round; DBRX was added in the eleventh)
    "DeepSeek-Coder-33B", "deepseek-coder:6.7b",
])
def test_names_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_model(name)


@pytest.mark.parametrize("name, tol", [
    ("Mistral Large 2", 0.01),   # 122.61B counted against Mistral's 123B
    ("GLM-4.5V", 0.01),          # 106.85B decoder against the 107.71B checkpoint (vision ~0.86B)
    ("Qwen1.5-7B", 0.001),       # stated = the count of the tabulated shape
    ("Qwen1.5-72B", 0.01),       # 72.29B counted against the name's 72B
])
def test_added_models_match_stated_size(name, tol):
    m = find_model(name)
    assert m.source and m.checked in ("yes", "partly", "no")
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=tol)


def test_added_model_shapes():
    ml = find_model("Mistral Large 2")
    assert (ml.num_layers, ml.hidden_size, ml.num_heads, ml.num_kv_heads, ml.head_dim) == (88, 12288, 96, 8, 128)
    assert ml.checked == "no" and not ml.tie_embeddings and ml.num_experts == 0
    assert active_params(ml) == pytest.approx(total_params(ml))
    # the 2411 plan's own count from the same fields: ~122.6B
    assert total_params(ml) == pytest.approx(122.6e9, rel=0.001)

    v, air = find_model("GLM-4.5V"), find_model("GLM-4.5-Air")
    assert v.checked == "partly"
    # the decoder is GLM-4.5-Air's shape: same counts, same KV cache per token
    assert total_params(v) == pytest.approx(total_params(air))
    assert active_params(v) == pytest.approx(active_params(air))
    assert (v.num_layers, v.num_kv_heads, v.head_dim, v.num_experts, v.experts_per_token) == (46, 8, 128, 128, 8)
    # the vision tower is in the stated total (107,710,933,120) but not in the decoder count
    assert 0.8e9 < v.total_params_stated - total_params(v) < 0.9e9

    q7, q72 = find_model("Qwen1.5-7B"), find_model("Qwen1.5-72B")
    assert (q7.num_heads, q7.num_kv_heads, q7.num_layers) == (32, 32, 32)
    assert (q72.num_heads, q72.num_kv_heads, q72.num_layers) == (64, 64, 80)
    assert total_params(q72) == pytest.approx(72e9, rel=0.01)


@pytest.mark.parametrize("text, model", [
    ("Mistral Large 2 on 4x A100 80GB at 25 tok/s", MISTRAL_LARGE),
    ("mistral-large:123b Q4 on a Mac Studio M2 Ultra 192GB: 8 tok/s", MISTRAL_LARGE),
    ("GLM-4.5V on 4x H100 at 50 tok/s", "GLM-4.5V"),
    ("GLM 4.5V runs at 30 tok/s on 2x H200", "GLM-4.5V"),
    ("Qwen1.5-72B-Chat on 2x A100 80GB at 15 tok/s", "Qwen1.5-72B"),
    ("Qwen1.5-7B-Chat runs at 40 tok/s on an RTX 3090", "Qwen1.5-7B"),
])
def test_models_in_claims(text, model):
    assert parse_claim(text).fields["model"] == model
