"""Thirteenth round of catalog entries that real claims name (devices): the NVIDIA P104-100 mining card
(and its P104-101 sibling, so that the "P104" alias does not swallow it), the AMD Radeon Pro 5600M, one
Tenstorrent Wormhole chip, and the systems counted in those chips: the Tenstorrent T3000 / T3K /
TT-LoudBox (8 chips) and the Wormhole Galaxy (32). Each device resolves by the names people write, its
neighbours keep resolving to themselves, its bandwidth agrees with the figure of the source cited
(docs/catalog-gpus.md, thirteenth round), and a system expands to its count."""

import pytest

from tokcheck.core.catalog import find_gpu, gpus, systems
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


@pytest.mark.parametrize("query, expected", [
    ("P104-100", "P104-100"), ("P104", "P104-100"), ("NVIDIA P104-100", "P104-100"), ("p104 100", "P104-100"),
    ("P104-101", "P104-101"), ("NVIDIA P104-101", "P104-101"),
    ("Radeon Pro 5600M", "Radeon Pro 5600M"), ("AMD Radeon Pro 5600M", "Radeon Pro 5600M"),
    ("Radeon PRO 5600M", "Radeon Pro 5600M"), ("Pro 5600M", "Radeon Pro 5600M"),
    ("Tenstorrent Wormhole", "Tenstorrent Wormhole"), ("Wormhole chip", "Tenstorrent Wormhole"),
    ("Wormhole ASIC", "Tenstorrent Wormhole"), ("Wormhole Tensix Processor", "Tenstorrent Wormhole"),
    # neighbours keep resolving to themselves
    ("GTX 1080", "GTX 1080"), ("1080", "GTX 1080"), ("GeForce GTX 1080", "GTX 1080"), ("GTX 1070", "GTX 1070"),
    ("GTX 1080 Ti", "GTX 1080 Ti"), ("P100", "Tesla P100 16GB"), ("Tesla P100", "Tesla P100 16GB"),
    ("P100 12GB", "Tesla P100 12GB"), ("CMP 30HX", "CMP 30HX"), ("Radeon PRO W7900", "Radeon PRO W7900"),
    ("n150", "Tenstorrent Wormhole n150"), ("Wormhole n150", "Tenstorrent Wormhole n150"),
    ("Tenstorrent n150d", "Tenstorrent Wormhole n150"), ("n300", "Tenstorrent Wormhole n300"),
    ("Wormhole n300s", "Tenstorrent Wormhole n300"), ("n300 Wormhole", "Tenstorrent Wormhole n300"),
    ("Tenstorrent Wormhole n300", "Tenstorrent Wormhole n300"), ("p150a", "Tenstorrent Blackhole p150"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


@pytest.mark.parametrize("name", [
    # a bare "Wormhole" names no one board (n150, n300 or a chip); "n300 Wormhole" must stay an n300
    "Wormhole",
    # the Radeon RX 5600M (Navi 10, 6 GB GDDR6) is another GPU and not a row
    "RX 5600M", "Radeon RX 5600M", "AMD Radeon RX 5600M",
    # other mining cards were not asked for
    "P102-100", "P106-100",
    # no source gives the iPhone chips' bandwidth (docs/catalog-gpus.md)
    "Apple A17 Pro", "A18 Pro",
])
def test_names_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_gpu(name)


@pytest.mark.parametrize("name, memory_gb, bandwidth_gb_s", [
    ("P104-100", 4, 320.3),           # TechPowerUp c2981: 4 GB GDDR5X, 256-bit, 10 Gbps
    ("P104-101", 4, 256.3),           # TechPowerUp c3064: 4 GB GDDR5, 256-bit, 8 Gbps
    ("Radeon Pro 5600M", 8, 394.2),   # TechPowerUp c3612 (AMD: 394 GB/s): 8 GB HBM2, 2048-bit
    ("Tenstorrent Wormhole", 12, 288),  # Tenstorrent spec page: 12 GB GDDR6, 192-bit, 12 GT/s
])
def test_figures_match_the_source(name, memory_gb, bandwidth_gb_s):
    g = find_gpu(name)
    assert g.peak_bandwidth_bytes_per_s / 1e9 == pytest.approx(bandwidth_gb_s, rel=1e-3)
    assert g.memory_gb == pytest.approx(memory_gb)
    assert g.source


def test_bandwidth_is_the_bus_arithmetic():
    # 256 bit / 8 x 10 Gbps; 2048 bit / 8 x 1.54 Gbps; 192 bit / 8 x 12 GT/s
    assert find_gpu("P104-100").peak_bandwidth_bytes_per_s == pytest.approx(256 / 8 * 10.008e9, rel=1e-3)
    assert find_gpu("Radeon Pro 5600M").peak_bandwidth_bytes_per_s == pytest.approx(2048 / 8 * 1.54e9, rel=1e-3)
    assert find_gpu("Wormhole chip").peak_bandwidth_bytes_per_s == pytest.approx(192 / 8 * 12e9)
    # the P104-100 has the GTX 1080's memory system
    assert find_gpu("P104-100").peak_bandwidth_bytes_per_s == find_gpu("GTX 1080").peak_bandwidth_bytes_per_s


def test_a_wormhole_chip_is_half_an_n300_and_an_n150():
    chip, n150, n300 = find_gpu("Wormhole chip"), find_gpu("n150"), find_gpu("n300")
    assert chip.peak_bandwidth_bytes_per_s == n150.peak_bandwidth_bytes_per_s == n300.peak_bandwidth_bytes_per_s / 2
    assert chip.memory_bytes == n150.memory_bytes == n300.memory_bytes // 2
    # tensor rates: the n300's per-ASIC share (131 / 2 FP16, 466 / 2 FP8)
    assert (chip.bf16_dense_tflops, chip.fp8_dense_tflops) == (pytest.approx(131 / 2), pytest.approx(466 / 2))


def test_kinds_and_checked_marks():
    assert find_gpu("P104-100").kind == find_gpu("GTX 1080").kind == "consumer"
    assert find_gpu("P104-100").bf16_dense_tflops is None   # no tensor cores
    assert find_gpu("Radeon Pro 5600M").kind == "amd_consumer"
    assert find_gpu("Radeon Pro 5600M").bf16_dense_tflops is None
    assert find_gpu("Tenstorrent Wormhole").kind == find_gpu("n300").kind == "workstation"
    assert find_gpu("Tenstorrent Wormhole").checked == "yes"
    for name in ("P104-100", "P104-101", "Radeon Pro 5600M"):
        assert find_gpu(name).checked == "partly"


def test_systems_name_a_catalog_gpu():
    names = {g.name for g in gpus()}
    rows = {s["name"]: s for s in systems()}
    assert (rows["Tenstorrent T3000"]["gpu"], rows["Tenstorrent T3000"]["count"]) == ("Tenstorrent Wormhole", 8)
    assert (rows["Tenstorrent Galaxy (Wormhole)"]["gpu"], rows["Tenstorrent Galaxy (Wormhole)"]["count"]) == \
        ("Tenstorrent Wormhole", 32)
    assert rows["Tenstorrent T3000"]["gpu"] in names


@pytest.mark.parametrize("text, gpu, count", [
    ("LLaMA-2-70B-decode on a T3000 (batch 32) runs at 8.5 t/s/u - 272 t/s end-to-end.", "Tenstorrent Wormhole", 8),
    ("Llama 3.1 70B on a T3K at 15 tok/s", "Tenstorrent Wormhole", 8),
    ("Llama 3.1 70B on a TT-LoudBox at 15 t/s/u", "Tenstorrent Wormhole", 8),
    ("Llama 3.1 70B on a T3000 (8 Wormhole chips) at 15 tok/s", "Tenstorrent Wormhole", 8),
    ("Llama 3.1 70B on a Wormhole Galaxy at 20 t/s/u", "Tenstorrent Wormhole", 32),
    ("Llama 3.1 8B on 8 Wormhole chips at 30 tok/s", "Tenstorrent Wormhole", 8),
    ("Llama 3.1 8B on a Tenstorrent n300 (two Wormhole chips) at 20 tok/s", "Tenstorrent Wormhole", 2),
    # the card's name keeps the card: "Wormhole" after "n300" is not one chip
    ("Llama 3.1 8B on an n300 Wormhole card at 20 tok/s", "Tenstorrent Wormhole n300", 1),
    ("Llama 2 7B on a P104-100 at 30 tok/s", "P104-100", 1),
    ("Llama 3 8B on a Radeon Pro 5600M at 20 tok/s", "Radeon Pro 5600M", 1),
    ("Llama 3 8B on a GTX 1080 at 40 tok/s", "GTX 1080", 1),
])
def test_claims_read_the_devices(text, gpu, count):
    f = parse_claim(text).fields
    assert (f.get("gpu"), f.get("gpu_count")) == (gpu, count)


# a mesh's shape written after the system is not a count of the cards the run had
def test_a_t3000_written_as_a_mesh_is_eight_chips():
    f = parse_claim("LLaMA-2-70B on a T3000 (2x4 mesh of Wormhole chips) at 10 tok/s").fields
    assert (f.get("gpu"), f.get("gpu_count")) == ("Tenstorrent Wormhole", 8)


@pytest.mark.parametrize("text", [
    # a bare Galaxy is a phone (or a Blackhole Galaxy): no system is read
    "Llama 3.2 1B on a Samsung Galaxy S24 at 5 tok/s", "Llama 3.1 70B on a Galaxy at 20 tok/s",
    # a bare Wormhole names no board
    "Llama 3.1 8B on Wormhole at 20 tok/s",
])
def test_unqualified_names_read_no_device(text):
    assert parse_claim(text).fields.get("gpu") is None
