"""Third round of catalog entries that real claims name (Gaudi 2/3, Ascend 910C and CloudMatrix384,
Moore Threads S4000/S5000, RTX 40 laptop GPUs, four CPUs, four models): each resolves by the names
people write, its neighbours keep resolving to themselves, and a number agrees with the source
cited in the row (docs/catalog-gpus.md, docs/catalog-models.md)."""

import pytest

from tokcheck.core.architecture import kv_values_per_token, total_params
from tokcheck.core.catalog import find_gpu, find_model, systems
from tokcheck.core.claim import parse_claim
from tokcheck.core.hostmem import find_host_memory
from tokcheck.errors import TokcheckError


@pytest.mark.parametrize("query, expected", [
    ("Gaudi 3", "Gaudi 3"), ("Gaudi3", "Gaudi 3"), ("Intel Gaudi 3", "Gaudi 3"), ("Intel Gaudi3", "Gaudi 3"),
    ("Gaudi 2", "Gaudi 2"), ("Gaudi2", "Gaudi 2"), ("Intel Gaudi 2", "Gaudi 2"), ("Habana Gaudi2", "Gaudi 2"),
    ("Ascend 910C", "Ascend 910C"), ("910C", "Ascend 910C"), ("Huawei Ascend 910C", "Ascend 910C"),
    ("昇腾910C", "Ascend 910C"),
    ("MTT S4000", "MTT S4000"), ("Moore Threads MTT S4000", "MTT S4000"),
    ("MTT S5000", "MTT S5000"), ("Moore Threads MTT S5000", "MTT S5000"),
    ("RTX 4060 Laptop", "RTX 4060 Laptop GPU"), ("GeForce RTX 4060 Laptop GPU", "RTX 4060 Laptop GPU"),
    ("RTX 4060 Mobile", "RTX 4060 Laptop GPU"),
    ("RTX 4070 Laptop", "RTX 4070 Laptop GPU"), ("RTX 4070 Laptop GPU", "RTX 4070 Laptop GPU"),
    ("RTX 4090 Laptop", "RTX 4090 Laptop GPU"), ("NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 4090 Laptop GPU"),
    # neighbours keep resolving to themselves: the desktop cards, the other Ascends
    ("RTX 4090", "RTX 4090"), ("4090", "RTX 4090"), ("GeForce RTX 4090", "RTX 4090"), ("RTX 4090 D", "RTX 4090 D"),
    ("RTX 4070", "RTX 4070"), ("4070", "RTX 4070"), ("RTX 4060 Ti", "RTX 4060 Ti 16GB"),
    ("Ascend 910", "Ascend 910"), ("Ascend 910B", "Ascend 910B"), ("910B", "Ascend 910B"), ("昇腾910", "Ascend 910"),
    ("RTX A4000", "RTX A4000"), ("H100", "H100 SXM"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


def test_laptop_rows_are_not_the_desktop_cards():
    assert find_gpu("RTX 4060 Laptop").name != find_gpu("RTX 4060 Ti").name
    assert find_gpu("RTX 4090 Laptop").memory_gb == pytest.approx(16)
    assert find_gpu("RTX 4090").memory_gb == pytest.approx(24)


def test_added_devices_numbers_match_their_sources():
    g3, g2 = find_gpu("Gaudi 3"), find_gpu("Gaudi 2")
    # 128 GB HBM2e at 3.7 TB/s, 1835 BF16 = FP8; Gaudi 2: 96 GB, 2.45 TB/s, 432 BF16
    assert g3.memory_gb == pytest.approx(128) and g3.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(3.7)
    assert (g3.bf16_dense_tflops, g3.fp8_dense_tflops) == (1835, 1835)
    assert g2.memory_gb == pytest.approx(96) and g2.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(2.45)
    assert g2.bf16_dense_tflops == 432
    c = find_gpu("Ascend 910C")  # 3.2 TB/s, 780 BF16 (DigiTimes via TechPowerUp), ~128 GB
    assert c.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(3.2) and c.bf16_dense_tflops == 780
    assert c.memory_gb == pytest.approx(128) and c.checked == "no"
    s4, s5 = find_gpu("MTT S4000"), find_gpu("MTT S5000")
    assert s4.memory_gb == pytest.approx(48) and s4.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(768)
    assert s5.memory_gb == pytest.approx(80) and s5.peak_bandwidth_bytes_per_s / 1e12 == pytest.approx(1.6)
    assert s4.bf16_dense_tflops is None and s5.bf16_dense_tflops is None  # not found: left blank
    l60, l70, l90 = find_gpu("RTX 4060 Laptop"), find_gpu("RTX 4070 Laptop"), find_gpu("RTX 4090 Laptop")
    # 128-bit x 16 Gbps = 256 GB/s (4060/4070 Laptop); 256-bit x 18 Gbps = 576 GB/s (4090 Laptop)
    assert l60.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(256)
    assert l70.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(256) and l70.memory_gb == pytest.approx(8)
    assert l90.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(576)
    # SMs x boost x 512 FLOP/clk: 24 x 2370, 36 x 2175, 76 x 1950 MHz
    for g, sms, mhz in ((l60, 24, 2370), (l70, 36, 2175), (l90, 76, 1950)):
        assert g.bf16_dense_tflops == pytest.approx(sms * mhz * 1e6 * 512 / 1e12, abs=0.05)
        assert g.fp8_dense_tflops == pytest.approx(2 * g.bf16_dense_tflops, abs=0.1)
    for g in (g3, g2, c, s4, s5, l60, l70, l90):
        assert g.source and g.checked in ("yes", "partly", "no")


def test_the_vendor_name_is_no_card():
    with pytest.raises(TokcheckError):
        find_gpu("摩尔线程")


def test_cloudmatrix384_is_384_ascend_910c():
    row = next(s for s in systems() if s["name"] == "CloudMatrix384")
    assert (row["gpu"], row["count"]) == ("Ascend 910C", 384) and "2506.12708" in row["source"]
    c = parse_claim("DeepSeek-R1 served on CloudMatrix384: 1943 token/s per NPU in decode")
    assert c.fields["gpu"] == "Ascend 910C" and c.fields["gpu_count"] == 384
    c = parse_claim("Huawei CloudMatrix 384 runs DeepSeek-R1 at 1943 token/s")
    assert c.fields["gpu"] == "Ascend 910C" and c.fields["gpu_count"] == 384


@pytest.mark.parametrize("text, gpu", [
    ("Llama 3.1 8B on one RTX 4060 Laptop GPU: 40 tok/s", "RTX 4060 Laptop GPU"),
    ("Llama 3.1 8B on an RTX 4090: 120 tok/s", "RTX 4090"),
    ("Llama 3.1 8B on an RTX 4090 laptop: 90 tok/s", "RTX 4090 Laptop GPU"),
    ("Llama 3.1 70B on 8 Gaudi 3 HPUs: 2000 tok/s", "Gaudi 3"),
])
def test_names_in_claims(text, gpu):
    assert parse_claim(text).fields["gpu"] == gpu


@pytest.mark.parametrize("text, gbs", [
    ("llama.cpp CPU-only on an EPYC 9754", 460.8),           # 12 x 8 B x 4800
    ("EPYC 9554 server, CPU inference", 460.8),
    ("EPYC 7282 with 8x DDR4-3200", 102.4),                  # optimized for 4 channels: 4 x 8 B x 3200
    ("Ryzen AI 9 HX 370 laptop, CPU only", 120.0),           # 128 bit LPDDR5X-7500
])
def test_added_cpu_memory_platforms(text, gbs):
    h = find_host_memory(text)
    assert h.stated and h.bandwidth_bytes_per_s / 1e9 == pytest.approx(gbs)


def test_added_cpus_do_not_capture_other_cpus():
    assert find_host_memory("EPYC 9654 CPU").bandwidth_bytes_per_s / 1e9 == pytest.approx(460.8)
    assert find_host_memory("EPYC 7343 CPU").bandwidth_bytes_per_s / 1e9 == pytest.approx(204.8)
    assert find_host_memory("EPYC Rome server").bandwidth_bytes_per_s / 1e9 == pytest.approx(204.8)
    assert find_host_memory("Ryzen AI Max+ 395").bandwidth_bytes_per_s / 1e9 != pytest.approx(120.0)


@pytest.mark.parametrize("query, expected", [
    ("Phi-3-mini", "Phi-3-mini"), ("Phi-3-mini-4k-instruct", "Phi-3-mini"),
    ("microsoft/Phi-3-mini-4k-instruct", "Phi-3-mini"), ("phi3:mini", "Phi-3-mini"),
    ("Gemma 3 270M", "Gemma 3 270M"), ("google/gemma-3-270m-it", "Gemma 3 270M"), ("gemma3:270m", "Gemma 3 270M"),
    ("GPT-J-6B", "GPT-J-6B"), ("EleutherAI/gpt-j-6b", "GPT-J-6B"), ("GPT-J", "GPT-J-6B"),
    ("Qwen3-VL-32B", "Qwen3-VL-32B"), ("Qwen/Qwen3-VL-32B-Instruct", "Qwen3-VL-32B"),
    # neighbours keep resolving to themselves
    ("Phi-4-mini", "Phi-4-mini"), ("Phi-4", "Phi-4"), ("Gemma 3 1B", "Gemma 3 1B"), ("gemma3:1b", "Gemma 3 1B"),
    ("Gemma 3 27B", "Gemma 3 27B"), ("Qwen3-VL-8B", "Qwen3-VL-8B"), ("Qwen3-32B", "Qwen3-32B"),
    ("qwen3:32b", "Qwen3-32B"), ("Qwen2.5-VL-32B", "Qwen2.5-VL-32B"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name", ["Phi-3-mini", "Gemma 3 270M", "GPT-J-6B", "Qwen3-VL-32B"])
def test_added_models_match_stated_size(name):
    m = find_model(name)
    assert m.source and m.checked in ("yes", "partly", "no")
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=0.02)


def test_added_model_shapes():
    phi = find_model("Phi-3-mini")  # full multi-head attention, untied: 32 layers x 2 x 3072
    assert not phi.tie_embeddings and kv_values_per_token(phi) == 32 * 2 * 3072
    gptj = find_model("GPT-J-6B")  # GPT-2-style keys read: n_inner null = 4 x 4096
    assert gptj.num_layers == 28 and gptj.intermediate_size == 4 * 4096
    assert total_params(gptj) == pytest.approx(6_053_381_344, rel=0.001)
    g = find_model("Gemma 3 270M")  # tied: 170M embedding + 100M transformer
    assert g.tie_embeddings and g.num_layers == 18
    assert total_params(find_model("Qwen3-VL-32B")) == pytest.approx(total_params(find_model("Qwen3-32B")), rel=0.001)
