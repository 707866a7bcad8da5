"""Tenth round of catalog entries that real claims name. Devices: NVIDIA's Turing mining cards CMP 30HX,
CMP 40HX and CMP 50HX (beside the CMP 170HX row, which keeps its names) and Hygon's DCU K100-AI. The
Radeon 780M needs no row (the claim reader takes it as an integrated GPU reading system memory), and
the Apple A17 Pro and the plain Hygon K100 stay out for want of a bandwidth figure. Each added device
resolves by the names people write, its neighbours keep resolving to themselves, and a number agrees
with the source cited (docs/catalog-gpus.md, tenth round)."""

import pytest

from tokcheck.core.catalog import find_gpu
from tokcheck.core.claim import IGPU, parse_claim
from tokcheck.errors import TokcheckError


def bw(g):
    return g.peak_bandwidth_bytes_per_s / 1e9


# ---------------------------------------------------------------- devices

@pytest.mark.parametrize("query, expected", [
    ("CMP 30HX", "CMP 30HX"), ("NVIDIA CMP 30HX", "CMP 30HX"), ("CMP30HX", "CMP 30HX"), ("30HX", "CMP 30HX"),
    ("CMP 30HX 6GB", "CMP 30HX"),
    ("CMP 40HX", "CMP 40HX"), ("NVIDIA CMP 40HX", "CMP 40HX"), ("CMP40HX", "CMP 40HX"), ("CMP 40HX 8GB", "CMP 40HX"),
    ("CMP 50HX", "CMP 50HX"), ("NVIDIA CMP 50HX", "CMP 50HX"), ("CMP50HX", "CMP 50HX"),
    ("Hygon DCU K100-AI", "Hygon DCU K100-AI"), ("Hygon K100-AI", "Hygon DCU K100-AI"),
    ("K100_AI", "Hygon DCU K100-AI"), ("K100-AI", "Hygon DCU K100-AI"), ("K100 AI", "Hygon DCU K100-AI"),
    ("DCU K100-AI", "Hygon DCU K100-AI"), ("海光 K100_AI", "Hygon DCU K100-AI"), ("海光 DCU K100-AI", "Hygon DCU K100-AI"),
    ("DCU-K100AI", "Hygon DCU K100-AI"),
    # neighbours keep their names
    ("CMP 170HX", "CMP 170HX"), ("170HX", "CMP 170HX"), ("NVIDIA CMP 170HX", "CMP 170HX"),
    ("GTX 1660 Super", "GTX 1660 Super"), ("RTX 2070", "RTX 2070"), ("RTX 2080 Ti", "RTX 2080 Ti"),
    ("RTX 3060", "RTX 3060 12GB"), ("MI100", "MI100"), ("MI50", "MI50 32GB"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


@pytest.mark.parametrize("name", [
    # no source gave the A17 Pro's bus width or bandwidth; the Radeon 780M reads system memory (no row)
    "Apple A17 Pro", "A17 Pro", "A17", "苹果 A17", "A17 芯片", "Radeon 780M", "AMD Radeon 780M",
])
def test_devices_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_gpu(name)


@pytest.mark.parametrize("name, mem, bus, gbps, tpu", [
    # TechPowerUp GPU Database: memory, bus width, GDDR6 data rate
    ("CMP 30HX", 6, 192, 14, "cmp-30hx.c3780"),
    ("CMP 40HX", 8, 256, 14, "cmp-40hx.c3781"),
    ("CMP 50HX", 10, 320, 14, "cmp-50hx.c3782"),
])
def test_cmp_numbers_match_their_sources(name, mem, bus, gbps, tpu):
    g = find_gpu(name)
    assert g.memory_gb == pytest.approx(mem)
    assert bw(g) == pytest.approx(bus / 8 * gbps)
    assert g.kind == "consumer" and g.checked == "partly" and tpu in g.source
    assert g.achievable_fraction == find_gpu("RTX 2070").achievable_fraction
    # mining cards' compute is reported to be limited: no tensor rate taken (as for the CMP 170HX)
    assert g.bf16_dense_tflops is None and g.fp8_dense_tflops is None


def test_cmp_cards_share_their_geforce_siblings_memory_systems():
    assert bw(find_gpu("CMP 30HX")) == pytest.approx(bw(find_gpu("GTX 1660 Super")))
    assert bw(find_gpu("CMP 40HX")) == pytest.approx(bw(find_gpu("RTX 2070")))


def test_k100_ai_numbers_match_its_source():
    g = find_gpu("K100_AI")
    # wangzy0327/hblas-bench DCU-bench.md: K100 AI 64 GB, 896 GB/s, BF16 196 TFLOPS
    assert g.memory_gb == pytest.approx(64)
    assert bw(g) == pytest.approx(896)
    assert g.bf16_dense_tflops == pytest.approx(196)
    assert g.kind == "datacenter" and g.checked == "no" and "hblas-bench" in g.source


@pytest.mark.parametrize("text, gpu, count", [
    ("On an NVIDIA CMP 30HX (6 GB), Ollama's mistral:7b ran at 19.56 tokens/s", "CMP 30HX", 1),
    ("Qwen2.5-7B on a CMP 40HX at 30 tok/s", "CMP 40HX", 1),
    ("two CMP 50HX cards run Qwen2.5-14B at 20 tok/s", "CMP 50HX", 2),
    ("Qwen2.5-7B 在海光 K100_AI 上跑到 40 tok/s", "Hygon DCU K100-AI", 1),
    ("DeepSeek-R1-Distill-Llama-70B on 4x K100_AI with SGLang at 20 tok/s", "Hygon DCU K100-AI", 4),
    ("Llama 3.1 8B on a CMP 170HX at 90 tok/s", "CMP 170HX", 1),
])
def test_device_names_in_claims(text, gpu, count):
    f = parse_claim(text).fields
    assert f["gpu"] == gpu
    assert f["gpu_count"] == count


@pytest.mark.parametrize("text", [
    # the K100 without "AI" is another chip whose bandwidth no source gave: its name reads no row
    "Qwen2.5-7B on Hygon DCU K100 at 30 tok/s", "海光 DCU K100 上 Qwen2.5-7B 30 tok/s",
])
def test_plain_k100_reads_no_row(text):
    assert parse_claim(text).fields.get("gpu") is None


def test_radeon_780m_is_read_as_an_integrated_gpu():
    # no catalog row: the reader names the iGPU and the judge reads the system's memory
    f = parse_claim("On a Ryzen 7 7840HS with its Radeon 780M iGPU, llama.cpp ran Llama 3.1 8B Q4 "
                    "at 12 tok/s").fields
    assert f["gpu"] == "Radeon 780M" and f["gpu_count"] == 1
    assert IGPU.fullmatch(f["gpu"])
