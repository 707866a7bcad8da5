"""Twelfth round of catalog entries that real claims name (models only): MiniCPM-2B, Command R (v01) and
Command R+, MOSS (moss-moon-003), the first CodeGeeX (13B), CodeGeeX2-6B and CodeGeeX4-ALL-9B. MOSS and
CodeGeeX have a plain two-matrix GELU MLP (model types moss / codegeex join the plain-MLP list), and
"Command R+" loses its "+" in name keys, so find_model reads a glued "+" as "Plus"; both are tested here.
Each entry resolves by the names people write, its neighbours keep resolving to themselves, and the
parameters tokcheck counts agree with the stated size (docs/catalog-models.md, twelfth round)."""

import pytest

from tokcheck.core.architecture import kv_values_per_token, total_params
from tokcheck.core.catalog import find_model, spec_from_hf_config
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


@pytest.mark.parametrize("query, expected", [
    ("MiniCPM-2B", "MiniCPM-2B"), ("MiniCPM 2B", "MiniCPM-2B"), ("MiniCPM", "MiniCPM-2B"), ("minicpm:2b", "MiniCPM-2B"),
    ("openbmb/MiniCPM-2B-sft-bf16", "MiniCPM-2B"), ("openbmb/MiniCPM-2B-dpo-bf16", "MiniCPM-2B"),
    ("MiniCPM-2B-sft-bf16", "MiniCPM-2B"), ("MiniCPM-2.4B", "MiniCPM-2B"),
    ("Command R", "Command R"), ("Command-R", "Command R"), ("command-r", "Command R"), ("command-r:35b", "Command R"),
    ("c4ai-command-r-v01", "Command R"), ("CohereForAI/c4ai-command-r-v01", "Command R"), ("Command R 35B", "Command R"),
    ("Command R+", "Command R+"), ("Command-R+", "Command R+"), ("command-r-plus", "Command R+"),
    ("Command R Plus", "Command R+"), ("c4ai-command-r-plus", "Command R+"), ("CohereForAI/c4ai-command-r-plus", "Command R+"),
    ("command-r-plus:104b", "Command R+"), ("Command R+ 104B", "Command R+"),
    ("MOSS", "MOSS"), ("moss-moon-003-sft", "MOSS"), ("fnlp/moss-moon-003-sft", "MOSS"), ("moss-moon-003-base", "MOSS"),
    ("fnlp/moss-moon-003-sft-plugin", "MOSS"),
    ("CodeGeeX", "CodeGeeX-13B"), ("CodeGeeX-13B", "CodeGeeX-13B"), ("CodeGeeX 13B", "CodeGeeX-13B"),
    ("CodeGeeX2-6B", "CodeGeeX2-6B"), ("CodeGeeX2", "CodeGeeX2-6B"), ("THUDM/codegeex2-6b", "CodeGeeX2-6B"),
    ("codegeex2-6b", "CodeGeeX2-6B"),
    ("codegeex4-all-9b", "CodeGeeX4-ALL-9B"), ("CodeGeeX4-ALL-9B", "CodeGeeX4-ALL-9B"), ("THUDM/codegeex4-all-9b", "CodeGeeX4-ALL-9B"),
    ("codegeex4:9b", "CodeGeeX4-ALL-9B"), ("CodeGeeX4", "CodeGeeX4-ALL-9B"), ("CodeGeeX4 9B", "CodeGeeX4-ALL-9B"),
    # neighbours keep resolving to themselves
    ("ChatGLM2-6B", "ChatGLM2-6B"), ("chatglm2-6b", "ChatGLM2-6B"), ("ChatGLM2", "ChatGLM2-6B"),
    ("ChatGLM3-6B", "ChatGLM3-6B"), ("GLM-4-9B", "GLM-4-9B-Chat"), ("glm4:9b", "GLM-4-9B-Chat"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


def test_neighbours_are_not_each_other():
    assert find_model("Command R+").name != find_model("Command R").name
    assert find_model("Command R").name == "Command R" and find_model("Command R+").name == "Command R+"
    assert find_model("CodeGeeX").name not in ("CodeGeeX2-6B", "CodeGeeX4-ALL-9B")
    assert find_model("ChatGLM2-6B").name != find_model("CodeGeeX2-6B").name
    assert find_model("GLM-4-9B").name != find_model("CodeGeeX4-ALL-9B").name


@pytest.mark.parametrize("name", [
    # other MiniCPM generations are other shapes, not in the catalog (no config.json found this round)
    "MiniCPM4-8B", "MiniCPM4.1-8B", "MiniCPM3-4B", "MiniCPM-1B",
    # a CodeGeeX generation that was never released openly
    "CodeGeeX3",
])
def test_other_generations_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_model(name)


@pytest.mark.parametrize("name, stated, tol", [
    ("MiniCPM-2B", 2.7e9, 0.02),          # 2.725B; README: 2.4B without embeddings, 2.7B in total
    ("Command R", 35e9, 0.01),             # 34.98B; card: 35 billion
    ("Command R+", 104e9, 0.01),           # 103.81B; card: 104 billion
    ("MOSS", 16e9, 0.05),                  # 16.72B (no MLP / lm_head biases); README: 16B
    ("CodeGeeX-13B", 13e9, 0.02),          # 12.85B (position embeddings not counted); README: 13 billion
    ("CodeGeeX2-6B", 6e9, 0.05),           # 6.24B, as ChatGLM2-6B; name: 6B
    ("CodeGeeX4-ALL-9B", 9e9, 0.05),       # 9.40B, as GLM-4-9B; name: 9B
])
def test_added_models_match_stated_size(name, stated, tol):
    m = find_model(name)
    assert m.source and m.checked in ("partly", "no")
    assert m.total_params_stated == stated
    assert total_params(m) == pytest.approx(stated, rel=tol)


def test_checked_marks():
    # Command R+ rests on a port's table, CodeGeeX2-6B on ChatGLM2-6B's file: neither file was read
    assert find_model("Command R+").checked == "no" and find_model("CodeGeeX2-6B").checked == "no"
    for name in ("MiniCPM-2B", "Command R", "MOSS", "CodeGeeX-13B", "CodeGeeX4-ALL-9B"):
        assert find_model(name).checked == "partly"


def test_shapes_match_their_sources():
    mini = find_model("MiniCPM-2B")
    # mlc-llm preset minicpm_2b_sft_bf16
    assert (mini.num_layers, mini.hidden_size, mini.num_heads, mini.num_kv_heads, mini.intermediate_size) == (40, 2304, 36, 36, 5760)
    assert mini.vocab_size == 122753 and mini.tie_embeddings and mini.max_position_embeddings == 4096
    r = find_model("Command R")
    # transformers' CohereConfig defaults (c4ai-command-r-v01) and the v01 GGUF metadata
    assert (r.num_layers, r.hidden_size, r.num_heads, r.num_kv_heads, r.intermediate_size) == (40, 8192, 64, 64, 22528)
    assert r.vocab_size == 256000 and r.tie_embeddings and r.head_dim == 128
    assert kv_values_per_token(r) == 40 * 2 * 64 * 128
    rp = find_model("Command R+")
    assert (rp.num_layers, rp.hidden_size, rp.num_heads, rp.num_kv_heads, rp.intermediate_size) == (64, 12288, 96, 8, 33792)
    assert kv_values_per_token(rp) == 64 * 2 * 8 * 128
    moss = find_model("MOSS")
    # OpenMOSS/MOSS moss_inference.py: 34 layers, 24 heads of 256, vocabulary 107008
    assert (moss.num_layers, moss.num_heads, moss.head_dim, moss.hidden_size, moss.vocab_size) == (34, 24, 256, 6144, 107008)
    assert moss.intermediate_size == 4 * 6144 and moss.mlp_matrices == 2 and not moss.tie_embeddings
    assert moss.released_weights["default"] == "FP16"
    geex = find_model("CodeGeeX")
    # THUDM/CodeGeeX configs/codegeex_13b.sh (39 layers + the top-query layer), README: FFN 20,480
    assert (geex.num_layers, geex.hidden_size, geex.num_heads, geex.intermediate_size, geex.vocab_size) == (40, 5120, 40, 20480, 52224)
    assert geex.mlp_matrices == 2 and geex.tie_embeddings and geex.max_position_embeddings == 2048
    g2 = find_model("CodeGeeX2-6B")
    assert (g2.num_layers, g2.num_kv_heads, g2.vocab_size, g2.max_position_embeddings) == (28, 2, 65024, 8192)
    assert total_params(g2) == pytest.approx(total_params(find_model("ChatGLM2-6B")))
    g4 = find_model("CodeGeeX4-ALL-9B")
    # THUDM/CodeGeeX4 candle_demo Config::codegeex4()
    assert (g4.num_layers, g4.num_kv_heads, g4.vocab_size, g4.max_position_embeddings) == (40, 2, 151552, 131072)
    assert total_params(g4) == pytest.approx(total_params(find_model("GLM-4-9B")))


def test_codegen_style_keys_are_read_with_a_plain_mlp():
    # MOSS / CodeGen name their sizes GPT-2's way and have a two-matrix MLP of n_inner or 4 x n_embd
    cfg = {"model_type": "moss", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100}
    m = spec_from_hf_config(cfg)
    assert (m.hidden_size, m.num_layers, m.num_heads, m.num_kv_heads, m.intermediate_size) == (64, 2, 4, 4, 256)
    assert m.mlp_matrices == 2
    assert spec_from_hf_config({**cfg, "model_type": "codegen", "n_inner": 128}).intermediate_size == 128
    # a gated model keeps three matrices
    assert spec_from_hf_config({**cfg, "model_type": "llama"}).mlp_matrices == 3


def test_a_glued_plus_reads_as_plus():
    assert find_model("command-r+").name == "Command R+"
    assert find_model("Command R+ 104B").name == "Command R+"
    # without the "+" it stays Command R, whose file sorts first among the two "commandr" keys
    assert find_model("Command R").name == "Command R" and find_model("command r").name == "Command R"


@pytest.mark.parametrize("text, model", [
    ("Command R+ on 4x A100 80GB at 15 tok/s", "Command R+"),
    ("command-r-plus runs at 10 tokens/s on 2x RTX 6000 Ada", "Command R+"),
    ("Command R on 2x RTX 3090 at 18 tok/s", "Command R"),
    ("MiniCPM-2B on a Snapdragon 8 Gen 3 at 20 tok/s", "MiniCPM-2B"),
    ("CodeGeeX2-6B on an RTX 4090 at 90 tok/s", "CodeGeeX2-6B"),
    ("codegeex4-all-9b on an RTX 4090 at 60 tok/s", "CodeGeeX4-ALL-9B"),
    ("moss-moon-003-sft on an A100 at 20 tok/s", "MOSS"),
])
def test_models_in_claims(text, model):
    assert parse_claim(text).fields["model"] == model
