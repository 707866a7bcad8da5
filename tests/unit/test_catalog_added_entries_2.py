"""Second round of catalog entries that real claims name: each resolves by the names people
write, its neighbours keep resolving to themselves, and a derived number agrees with the source
cited in the row (docs/catalog-gpus.md, docs/catalog-models.md)."""

import pytest

from tokcheck.core.architecture import kv_values_per_token, total_params
from tokcheck.core.catalog import find_gpu, find_model
from tokcheck.core.hostmem import find_host_memory


@pytest.mark.parametrize("query, expected", [
    ("Ascend 910", "Ascend 910"), ("Huawei Ascend 910", "Ascend 910"), ("昇腾910", "Ascend 910"),
    ("昇腾 910", "Ascend 910"),
    # the first-generation 910 must not capture the 910B
    ("910B", "Ascend 910B"), ("Ascend 910B", "Ascend 910B"), ("昇腾910B", "Ascend 910B"),
    ("Ascend 910B3", "Ascend 910B"), ("Huawei Ascend 910B 64GB", "Ascend 910B"),
    ("Atlas 300I Duo", "Atlas 300I Duo"), ("Huawei Atlas 300I Duo 96GB", "Atlas 300I Duo"),
    ("Jetson Orin Nano", "Jetson Orin Nano 8GB"), ("Jetson Orin Nano 8GB", "Jetson Orin Nano 8GB"),
    ("Jetson Orin Nano Super", "Jetson Orin Nano Super"),
    ("Jetson Orin Nano Super Developer Kit", "Jetson Orin Nano Super"),
    ("Jetson AGX Orin", "Jetson AGX Orin 64GB"),
    ("n150", "Tenstorrent Wormhole n150"), ("Tenstorrent n150d", "Tenstorrent Wormhole n150"),
    ("Wormhole n300s", "Tenstorrent Wormhole n300"), ("n300", "Tenstorrent Wormhole n300"),
    # neighbours
    ("A100", "A100 80GB SXM"), ("A10", "A10"), ("H100", "H100 SXM"), ("4090", "RTX 4090"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


def test_added_devices_numbers_match_their_sources():
    n150, n300 = find_gpu("n150"), find_gpu("n300")
    # docs.tenstorrent.com: 288 / 576 GB/s, 12 / 24 GB GDDR6, 74 / 131 FP16, 262 / 466 FP8 TFLOPS
    assert n150.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(0.288)
    assert n300.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(0.576)
    assert n150.memory_gb == pytest.approx(12) and n300.memory_gb == pytest.approx(24)
    assert (n150.bf16_dense_tflops, n150.fp8_dense_tflops) == (74, 262)
    assert (n300.bf16_dense_tflops, n300.fp8_dense_tflops) == (131, 466)
    a910 = find_gpu("Ascend 910")  # 32 GB HBM2, 256 FP16 TFLOPS, 1.2 TB/s (secondary)
    assert a910.memory_gb == pytest.approx(32) and a910.bf16_dense_tflops == 256
    assert a910.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(1.2) and a910.checked == "no"
    duo = find_gpu("Atlas 300I Duo")  # 96 GB LPDDR4X, 408 GB/s
    assert duo.memory_gb == pytest.approx(96) and duo.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(0.408)
    nano, sup = find_gpu("Jetson Orin Nano"), find_gpu("Jetson Orin Nano Super")
    assert nano.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(68)
    assert sup.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(102)
    assert nano.kind == sup.kind == "soc" and nano.memory_gb == pytest.approx(8)
    for g in (n150, n300, a910, duo, nano, sup):
        assert g.source and g.checked in ("yes", "partly", "no")


@pytest.mark.parametrize("text", ["CPU-only on an Ampere Altra Max M128-30", "Ampere Altra Q80-30 server",
                                  "llama.cpp on Altra Max, 128 cores"])
def test_ampere_altra_memory_platform(text):
    h = find_host_memory(text)
    # 8 channels x 8 B x 3200 MT/s = 204.8 GB/s
    assert h.stated and h.bandwidth_bytes_per_s / 1e9 == pytest.approx(204.8)
    assert "Ampere Altra" in h.why


def test_ampere_altra_does_not_capture_other_cpus():
    assert find_host_memory("EPYC 9654 with 12 channels").bandwidth_bytes_per_s / 1e9 == pytest.approx(460.8)


@pytest.mark.parametrize("query, expected", [
    ("Qwen2.5-0.5B", "Qwen2.5-0.5B"), ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen2.5-0.5B"), ("qwen2.5:0.5b", "Qwen2.5-0.5B"),
    ("Qwen2.5-1.5B", "Qwen2.5-1.5B"), ("Qwen/Qwen2.5-1.5B-Instruct", "Qwen2.5-1.5B"), ("qwen2.5:1.5b", "Qwen2.5-1.5B"),
    ("DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B"),
    ("deepseek-r1:1.5b", "DeepSeek-R1-Distill-Qwen-1.5B"),
    ("Qwen2.5-VL-7B", "Qwen2.5-VL-7B"), ("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen2.5-VL-7B"),
    ("Qwen2.5-VL-32B", "Qwen2.5-VL-32B"), ("Qwen/Qwen2.5-VL-32B-Instruct", "Qwen2.5-VL-32B"),
    # neighbours keep resolving to themselves
    ("Qwen2.5-32B", "Qwen2.5-32B"), ("qwen2.5:32b", "Qwen2.5-32B"), ("Qwen2.5-7B", "Qwen2.5-7B"),
    ("Qwen2.5-3B", "Qwen2.5-3B"), ("Qwen2.5-VL-3B", "Qwen2.5-VL-3B"), ("Qwen2-1.5B", "Qwen2-1.5B"),
    ("DeepSeek-R1", "DeepSeek R1"), ("DeepSeek R1", "DeepSeek R1"),
    ("DeepSeek-R1-Distill-Qwen-7B", "DeepSeek-R1-Distill-Qwen-7B"), ("deepseek-r1:7b", "DeepSeek-R1-Distill-Qwen-7B"),
    ("DeepSeek-R1-Distill-Qwen-14B", "DeepSeek-R1-Distill-Qwen-14B"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name", ["Qwen2.5-0.5B", "Qwen2.5-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B",
                                  "Qwen2.5-VL-7B", "Qwen2.5-VL-32B"])
def test_added_models_match_stated_size(name):
    m = find_model(name)
    assert m.source and m.checked in ("yes", "partly", "no")
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=0.02)


def test_added_model_shapes():
    assert find_model("Qwen2.5-0.5B").tie_embeddings
    assert kv_values_per_token(find_model("Qwen2.5-0.5B")) == 24 * 2 * 2 * 64
    assert kv_values_per_token(find_model("Qwen2.5-1.5B")) == 28 * 2 * 2 * 128
    r1 = find_model("DeepSeek-R1-Distill-Qwen-1.5B")  # untied lm_head: 1.777B, the base ties it (1.544B)
    assert not r1.tie_embeddings and total_params(r1) == pytest.approx(1_777_088_000, rel=0.001)
    vl7 = find_model("Qwen2.5-VL-7B")  # the decoder only, Qwen2.5-7B's shape
    assert total_params(vl7) == pytest.approx(total_params(find_model("Qwen2.5-7B")), rel=0.001)
    assert total_params(find_model("Qwen2.5-VL-32B")) == pytest.approx(total_params(find_model("Qwen2.5-32B")), rel=0.001)
