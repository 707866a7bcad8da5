"""Fourth round of catalog entries that real claims name (ChatGLM2/3-6B and GLM-4-9B, whose
config.json uses ChatGLM's own keys; Qwen3-VL-4B/2B, Qwen2.5-Coder-1.5B/14B, LLaMA 13B,
Ministral 3 3B; devices below): each resolves by the names people write, its neighbours keep
resolving to themselves, and a number agrees with the source cited in the row
(docs/catalog-gpus.md, docs/catalog-models.md)."""

import pytest

from tokcheck.core.architecture import kv_values_per_token, total_params
from tokcheck.core.catalog import find_model, spec_from_hf_config
from tokcheck.errors import TokcheckError

# THUDM/chatglm2-6b/config.json as copied in the public copies the catalog entry cites
CHATGLM2_6B = {
    "model_type": "chatglm", "architectures": ["ChatGLMModel"], "add_bias_linear": False, "add_qkv_bias": True,
    "ffn_hidden_size": 13696, "hidden_size": 4096, "kv_channels": 128, "layernorm_epsilon": 1e-05,
    "multi_query_attention": True, "multi_query_group_num": 2, "num_attention_heads": 32, "num_layers": 28,
    "padded_vocab_size": 65024, "rmsnorm": True, "seq_length": 32768, "tie_word_embeddings": False,
    "torch_dtype": "float16",
}


def test_chatglm_keys_are_read():
    m = spec_from_hf_config(CHATGLM2_6B, name="chatglm2-6b")
    assert (m.num_layers, m.vocab_size, m.intermediate_size) == (28, 65024, 13696)
    assert (m.num_kv_heads, m.head_dim, m.max_position_embeddings) == (2, 128, 32768)
    # 2 KV groups x 128 dims x 28 layers x (K and V)
    assert kv_values_per_token(m) == 2 * 128 * 28 * 2
    # about 6.2B: Hugging Face counts 6,243,584,000; the QKV bias is read, the dense layer's
    # absent bias (add_bias_linear false) adds 28 x 4096 here
    assert total_params(m) == pytest.approx(6_243_584_000, rel=1e-4)
    assert m.released_weights == {"default": "FP16"}


def test_chatglm_without_multi_query_is_multi_head():
    cfg = dict(CHATGLM2_6B, multi_query_attention=False)
    assert spec_from_hf_config(cfg).num_kv_heads == 32


def test_standard_keys_still_win_and_a_config_without_vocabulary_is_refused():
    cfg = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
           "multi_query_group_num": 2, "multi_query_attention": True, "seq_length": 4096}
    m = spec_from_hf_config(cfg)
    assert (m.num_kv_heads, m.intermediate_size, m.max_position_embeddings) == (8, 14336, None)
    with pytest.raises(TokcheckError):
        spec_from_hf_config({k: v for k, v in CHATGLM2_6B.items() if k != "padded_vocab_size"})


@pytest.mark.parametrize("query, expected", [
    ("ChatGLM2-6B", "ChatGLM2-6B"), ("chatglm2-6b", "ChatGLM2-6B"), ("THUDM/chatglm2-6b", "ChatGLM2-6B"),
    ("ChatGLM2", "ChatGLM2-6B"),
    ("ChatGLM3-6B", "ChatGLM3-6B"), ("THUDM/chatglm3-6b", "ChatGLM3-6B"), ("chatglm3-6b-base", "ChatGLM3-6B"),
    ("GLM-4-9B", "GLM-4-9B-Chat"), ("glm-4-9b-chat", "GLM-4-9B-Chat"), ("THUDM/glm-4-9b-chat", "GLM-4-9B-Chat"),
    ("glm4:9b", "GLM-4-9B-Chat"),
    ("Qwen3-VL-4B", "Qwen3-VL-4B"), ("Qwen/Qwen3-VL-4B-Instruct", "Qwen3-VL-4B"), ("qwen3-vl:4b", "Qwen3-VL-4B"),
    ("Qwen3-VL-2B", "Qwen3-VL-2B"), ("Qwen/Qwen3-VL-2B-Instruct", "Qwen3-VL-2B"),
    ("Qwen2.5-Coder-1.5B", "Qwen2.5-Coder-1.5B"), ("Qwen/Qwen2.5-Coder-1.5B-Instruct", "Qwen2.5-Coder-1.5B"),
    ("Qwen2.5-Coder-14B", "Qwen2.5-Coder-14B"), ("qwen2.5-coder:14b", "Qwen2.5-Coder-14B"),
    ("LLaMA-13B", "LLaMA 13B"), ("llama-13b", "LLaMA 13B"), ("LLaMA 1 13B", "LLaMA 13B"),
    ("Ministral-3-3B", "Ministral 3 3B"), ("mistralai/Ministral-3-3B-Instruct-2512", "Ministral 3 3B"),
    # neighbours keep resolving to themselves
    ("GLM-4.5", "GLM-4.5"), ("GLM-4.5-Air", "GLM-4.5-Air"), ("GLM-4.6", "GLM-4.6"), ("GLM-5", "GLM-5"),
    ("Qwen3-VL-8B", "Qwen3-VL-8B"), ("Qwen3-VL-32B", "Qwen3-VL-32B"), ("Qwen3-4B", "Qwen3-4B"),
    ("Qwen3-1.7B", "Qwen3-1.7B"), ("Qwen3-VL-30B-A3B", "Qwen3-VL-30B-A3B"),
    ("Qwen2.5-Coder-7B", "Qwen2.5-Coder-7B"), ("Qwen2.5-Coder-32B", "Qwen2.5-Coder-32B"),
    ("Qwen2.5-14B", "Qwen2.5-14B"), ("Qwen2.5-1.5B", "Qwen2.5-1.5B"),
    ("LLaMA-7B", "LLaMA 7B"), ("llama-7b", "LLaMA 7B"), ("LLaMA 1 7B", "LLaMA 7B"), ("LLaMA-65B", "LLaMA 65B"),
    ("Llama 2 7B", "Llama 2 7B"), ("Llama 2 13B", "Llama 2 13B"), ("Llama-2-13b-hf", "Llama 2 13B"),
    ("Ministral 8B", "Ministral 8B"), ("Ministral-8B-Instruct-2410", "Ministral 8B"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name", ["Ministral-3-8B", "Ministral 3 14B", "ChatGLM-6B"])
def test_models_left_out_stay_unknown(name):
    """Ministral 3 8B/14B: no whole config found (left out); ChatGLM-6B (the first one, MHA, FFN
    16384, vocabulary 130528) is not ChatGLM2/3."""
    with pytest.raises(TokcheckError):
        find_model(name)


@pytest.mark.parametrize("name, rel", [
    ("ChatGLM2-6B", 0.05), ("ChatGLM3-6B", 0.05), ("GLM-4-9B-Chat", 0.05), ("Qwen3-VL-4B", 0.02),
    ("Qwen3-VL-2B", 0.15), ("Qwen2.5-Coder-1.5B", 0.02), ("Qwen2.5-Coder-14B", 0.06), ("LLaMA 13B", 0.02),
    ("Ministral 3 3B", 0.15),
])
def test_added_models_match_stated_size(name, rel):
    m = find_model(name)
    assert m.source and m.checked in ("yes", "partly", "no")
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=rel)


def test_added_model_shapes():
    g3, g2 = find_model("ChatGLM3-6B"), find_model("ChatGLM2-6B")
    assert total_params(g3) == pytest.approx(total_params(g2))  # same shape, 8K context
    assert (g3.max_position_embeddings, g2.max_position_embeddings) == (8192, 32768)
    glm4 = find_model("GLM-4-9B")  # 40 layers, vocabulary 151552, 9.40B, 128K context
    assert (glm4.num_layers, glm4.vocab_size, glm4.max_position_embeddings) == (40, 151552, 131072)
    assert total_params(glm4) / 1e9 == pytest.approx(9.40, abs=0.01)
    assert kv_values_per_token(glm4) == 2 * 128 * 40 * 2
    # the VL decoders are their Qwen3 siblings' (tied); the vision towers are not counted
    assert total_params(find_model("Qwen3-VL-4B")) == pytest.approx(total_params(find_model("Qwen3-4B")), rel=1e-3)
    assert total_params(find_model("Qwen3-VL-2B")) == pytest.approx(total_params(find_model("Qwen3-1.7B")), rel=1e-3)
    l13 = find_model("LLaMA 13B")  # LLaMA paper: dim 5120, 40 heads, 40 layers; 2048 context
    assert (l13.hidden_size, l13.num_heads, l13.num_layers, l13.max_position_embeddings) == (5120, 40, 40, 2048)
    m3 = find_model("Ministral 3 3B")  # hidden 3072, 26 layers, 32/8 heads, tied 131072 vocabulary
    assert (m3.hidden_size, m3.num_layers, m3.num_kv_heads, m3.tie_embeddings) == (3072, 26, 8, True)


# ------------------------------------------------------------------ devices

from tokcheck.core.catalog import find_gpu, gpus  # noqa: E402
from tokcheck.core.claim import parse_claim  # noqa: E402


@pytest.mark.parametrize("query, expected", [
    ("Radeon AI PRO R9700", "Radeon AI PRO R9700"), ("AMD Radeon AI PRO R9700", "Radeon AI PRO R9700"),
    ("R9700", "Radeon AI PRO R9700"),
    ("MLU370-X8", "Cambricon MLU370-X8"), ("寒武纪 MLU370-X8", "Cambricon MLU370-X8"),
    ("p150a", "Tenstorrent Blackhole p150"), ("p150b", "Tenstorrent Blackhole p150"),
    ("Tenstorrent Blackhole p150a", "Tenstorrent Blackhole p150"), ("p100a", "Tenstorrent Blackhole p100a"),
    ("Jetson AGX Orin 32GB", "Jetson AGX Orin 32GB"), ("AGX Orin 32GB", "Jetson AGX Orin 32GB"),
    ("Jetson Orin NX 16GB", "Jetson Orin NX 16GB"), ("Jetson Orin NX", "Jetson Orin NX 16GB"),
    ("Snapdragon X Elite", "Snapdragon X Elite"), ("Qualcomm Snapdragon X Elite", "Snapdragon X Elite"),
    # neighbours keep resolving to themselves
    ("RX 9070 XT", "RX 9070 XT"), ("9070 XT", "RX 9070 XT"), ("n150", "Tenstorrent Wormhole n150"),
    ("n300", "Tenstorrent Wormhole n300"), ("Jetson AGX Orin", "Jetson AGX Orin 64GB"),
    ("Jetson AGX Orin 64GB", "Jetson AGX Orin 64GB"), ("Jetson Orin Nano", "Jetson Orin Nano 8GB"),
    ("Orin Nano Super", "Jetson Orin Nano Super"), ("Ryzen AI Max+ 395", "Ryzen AI Max+ 395"),
    ("Atlas 300I Duo", "Atlas 300I Duo"), ("DGX Spark", "DGX Spark"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


def test_added_devices_numbers_match_their_sources():
    r = find_gpu("R9700")  # TechPowerUp: 32 GB GDDR6, 644.6 GB/s; 64 CUs x 2.92 GHz x 1024
    assert r.memory_gb == pytest.approx(32) and r.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(644.6)
    assert r.bf16_dense_tflops == pytest.approx(64 * 2.92e9 * 1024 / 1e12, abs=0.05)
    m = find_gpu("MLU370-X8")  # Cambricon: 48 GB LPDDR5, 614.4 GB/s, 96 TFLOPS FP16/BF16
    assert m.memory_gb == pytest.approx(48) and m.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(614.4)
    assert m.bf16_dense_tflops == 96
    p150, p100 = find_gpu("p150a"), find_gpu("p100a")  # Tenstorrent spec page: 512 / 448 GB/s
    assert (p150.memory_gb, p150.peak_bandwidth_bytes_per_s / 1e9) == (pytest.approx(32), pytest.approx(512))
    assert (p100.memory_gb, p100.peak_bandwidth_bytes_per_s / 1e9) == (pytest.approx(28), pytest.approx(448))
    assert p150.checked == "yes" and p150.bf16_dense_tflops is None  # rates not reconciled: blank
    agx32, nx = find_gpu("Jetson AGX Orin 32GB"), find_gpu("Jetson Orin NX 16GB")
    assert agx32.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(204.8) and agx32.memory_gb == pytest.approx(32)
    assert nx.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(102.4) and nx.memory_gb == pytest.approx(16)
    x = find_gpu("Snapdragon X Elite")  # 8 x 16 bit x 8533 MT/s, Qualcomm's 136 GB/s
    assert x.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(136) and x.memory_gb == pytest.approx(64)
    for g in (r, m, p150, p100, agx32, nx, x):
        assert g.source and g.checked in ("yes", "partly", "no")
    for g in (agx32, nx, x):
        assert g.kind == "soc"  # unified memory: no host to offload to


def test_host_memory_rows_are_in_tb_per_s():
    """Seven host-memory rows carried their bandwidth in GB/s / 1000 (0.042656 'TB/s' was written
    as 4.2656e-05): every host_memory row is channels x 8 B x MT/s."""
    import re
    for g in gpus():
        if g.kind != "host_memory":
            continue
        m = re.match(r"(\d+|Dual|Quad)-channel DDR\d-(\d+)$", g.name)
        ch = {"Dual": 2, "Quad": 4}.get(m.group(1)) or int(m.group(1))
        assert g.peak_bandwidth_bytes_per_s == pytest.approx(ch * 8 * int(m.group(2)) * 1e6), g.name


@pytest.mark.parametrize("text, gpu", [
    ("Qwen3-8B on a Jetson Orin NX 16GB: 12 tok/s", "Jetson Orin NX 16GB"),
    ("Llama 3.1 8B on a Radeon AI PRO R9700: 70 tok/s", "Radeon AI PRO R9700"),
    ("Llama 3.1 8B on an RX 9070 XT: 70 tok/s", "RX 9070 XT"),
])
def test_names_in_claims(text, gpu):
    assert parse_claim(text).fields["gpu"] == gpu
