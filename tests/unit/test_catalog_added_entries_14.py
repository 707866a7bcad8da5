"""Fourteenth round of catalog entries (models only): GLM-4.7-Flash (zai-org/GLM-4.7-Flash, model type
glm4_moe_lite: DeepSeek-V2-style MLA with a dense first layer and 64 experts top-4 + 1 shared). Its names
resolve to it and not to GLM-4.6 (which GLM-4.7 is an alias of), its neighbours keep resolving to themselves,
and the parameters tokcheck counts agree with the card's 30B-A3B (docs/catalog-models.md, fourteenth round).
MiniCPM3-4B is still not an entry; Qwen3-Coder-30B-A3B already had its own."""

import pytest

from tokcheck.core.architecture import active_params, kv_values_per_token, total_params
from tokcheck.core.catalog import SIZE_TOLERANCE, find_model
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


@pytest.mark.parametrize("query, expected", [
    ("GLM-4.7-Flash", "GLM-4.7-Flash"), ("GLM4.7-Flash", "GLM-4.7-Flash"), ("glm-4.7-flash", "GLM-4.7-Flash"),
    ("GLM4.7-30B-FLASH", "GLM-4.7-Flash"), ("zai-org/GLM-4.7-Flash", "GLM-4.7-Flash"), ("GLM 4.7 Flash", "GLM-4.7-Flash"),
    ("GLM-4.7-Flash-30B-A3B", "GLM-4.7-Flash"),
    # neighbours keep resolving to themselves
    ("GLM-4.7", "GLM-4.6"), ("zai-org/GLM-4.7", "GLM-4.6"), ("GLM-4.7-FP8", "GLM-4.6"), ("GLM-4.6", "GLM-4.6"),
    ("GLM-4.5-Air", "GLM-4.5-Air"), ("GLM-4.5", "GLM-4.5"), ("MiniCPM-2B", "MiniCPM-2B"),
    ("Qwen3-30B-A3B", "Qwen3-30B-A3B"),
    # already its own entry before this round (same architecture as Qwen3-30B-A3B, separate file)
    ("Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B"), ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B"),
])
def test_names_resolve(query, expected):
    assert find_model(query).name == expected


def test_flash_is_not_glm_4_7_nor_air():
    flash = find_model("GLM-4.7-Flash")
    assert flash.name not in (find_model("GLM-4.7").name, find_model("GLM-4.5-Air").name)
    # another Flash tier of a GLM version with no entry stays unknown
    with pytest.raises(TokcheckError):
        find_model("GLM-4.5-Flash")


@pytest.mark.parametrize("name", ["MiniCPM3-4B", "MiniCPM3"])
def test_minicpm3_still_unknown(name):
    with pytest.raises(TokcheckError):
        find_model(name)


def test_glm_4_7_flash_matches_card():
    m = find_model("GLM-4.7-Flash")
    assert m.source and m.checked == "partly"
    # card: "a 30B-A3B MoE model"
    assert (m.total_params_stated, m.active_params_stated) == (30e9, 3e9)
    assert total_params(m) == pytest.approx(30e9, rel=0.02)            # 29.94B
    # "A3B" is rounded: 3.58B without the embedding, within the tolerance a size in a name gets
    without = active_params(m, with_embedding=False)
    assert without == pytest.approx(3.58e9, rel=0.01)
    assert 1 / SIZE_TOLERANCE <= without / 3e9 <= SIZE_TOLERANCE
    assert active_params(m) == pytest.approx(without + 154880 * 2048)   # GLM files count the embedding in


def test_glm_4_7_flash_shape():
    m = find_model("GLM-4.7-Flash")
    assert m.model_type == "glm4_moe_lite" and m.attention == "mla"
    assert (m.num_layers, m.hidden_size, m.num_heads, m.vocab_size) == (47, 2048, 20, 154880)
    assert (m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim) == (768, 512, 192, 64, 256)
    assert (m.num_experts, m.experts_per_token, m.num_shared_experts, m.moe_intermediate_size) == (64, 4, 1, 1536)
    assert m.moe_layers == 46 and m.dense_layers == 1 and m.intermediate_size == 10240
    assert m.mtp_layers == 1 and not m.tie_embeddings and m.max_position_embeddings == 202752
    assert m.released_weights["default"] == "BF16"
    assert kv_values_per_token(m) == 47 * (512 + 64)


@pytest.mark.parametrize("text, model", [
    ("GLM-4.7-Flash on an RTX 4090 at 120 tok/s", "GLM-4.7-Flash"),
    ("glm-4.7-flash runs at 80 tokens/s on an RTX 3090", "GLM-4.7-Flash"),
    ("GLM-4.7 on 8x H200 at 50 tok/s", "GLM-4.6"),
])
def test_models_in_claims(text, model):
    assert parse_claim(text).fields["model"] == model
