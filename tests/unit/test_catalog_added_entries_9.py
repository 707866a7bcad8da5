"""Ninth round of catalog entries that real claims name. Devices: Rockchip RK3588 (SBC SoC), Snapdragon
8 Gen 3 and 8 Gen 2 (phone SoCs beside the 8 Elite rows, which keep their names), Intel Arc Pro B70
(Battlemage workstation card) and the TT-QuietBox (Blackhole), a system of four Blackhole p150 cards.
Models: Qwen2-VL-2B, Qwen2-VL-7B and Qwen3-Coder-Next (the Qwen3-Next-80B-A3B shape). Each resolves by
the names people write, its neighbours keep resolving to themselves, and a number agrees with the
source cited (docs/catalog-gpus.md, docs/catalog-models.md, ninth round)."""

import pytest

from tokcheck.core.architecture import active_params, total_params
from tokcheck.core.catalog import find_gpu, find_model, systems
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


def bw(g):
    return g.peak_bandwidth_bytes_per_s / 1e9


# ---------------------------------------------------------------- devices

@pytest.mark.parametrize("query, expected", [
    ("RK3588", "Rockchip RK3588"), ("RK3588S", "Rockchip RK3588"), ("Rockchip RK3588", "Rockchip RK3588"),
    ("Rockchip RK3588S", "Rockchip RK3588"),
    ("Snapdragon 8 Gen 3", "Snapdragon 8 Gen 3"), ("Snapdragon 8 Gen3", "Snapdragon 8 Gen 3"),
    ("Qualcomm Snapdragon 8 Gen 3", "Snapdragon 8 Gen 3"), ("骁龙8 Gen3", "Snapdragon 8 Gen 3"),
    ("骁龙 8 Gen 3", "Snapdragon 8 Gen 3"), ("SM8650", "Snapdragon 8 Gen 3"), ("Adreno 750", "Snapdragon 8 Gen 3"),
    ("Snapdragon 8 Gen 2", "Snapdragon 8 Gen 2"), ("Snapdragon 8 Gen2", "Snapdragon 8 Gen 2"),
    ("SM8550", "Snapdragon 8 Gen 2"), ("骁龙8 Gen2", "Snapdragon 8 Gen 2"),
    ("Arc Pro B70", "Arc Pro B70"), ("Intel Arc Pro B70", "Arc Pro B70"), ("Arc Pro B70 32GB", "Arc Pro B70"),
    # neighbours keep their names
    ("Snapdragon 8 Elite", "Snapdragon 8 Elite"), ("Snapdragon 8 Gen 4", "Snapdragon 8 Elite"),
    ("SM8750", "Snapdragon 8 Elite"), ("Snapdragon 8 Elite Gen 5", "Snapdragon 8 Elite Gen 5"),
    ("SM8850", "Snapdragon 8 Elite Gen 5"), ("Snapdragon X Elite", "Snapdragon X Elite"),
    ("Arc Pro B60", "Arc Pro B60"), ("Intel Arc Pro B60", "Arc Pro B60"), ("Arc B580", "Arc B580"),
    ("p150c", "Tenstorrent Blackhole p150"), ("n300", "Tenstorrent Wormhole n300"),
])
def test_added_devices_resolve(query, expected):
    assert find_gpu(query).name == expected


@pytest.mark.parametrize("name", [
    # a different chip (SM8635) and the chips no source gave a bus width or bandwidth for
    "Snapdragon 8s Gen 3", "Apple A17 Pro", "A18 Pro", "Allwinner A733", "A733", "MTT M1000", "Arc Pro B50",
])
def test_devices_left_out_stay_unknown(name):
    with pytest.raises(TokcheckError):
        find_gpu(name)


def test_rk3588_numbers_match_its_sources():
    g = find_gpu("RK3588")
    # 64-bit bus (4 x 16-bit channels), LPDDR5 at 4800 MT/s in Rockchip's current DDR blobs, 32 GB ceiling
    assert bw(g) == pytest.approx(64 / 8 * 4800 / 1e3)
    assert g.memory_gb == pytest.approx(32)
    assert g.kind == "soc" and g.checked == "no" and g.source
    assert g.bf16_dense_tflops is None and g.fp8_dense_tflops is None


@pytest.mark.parametrize("name, mhz, mem", [("Snapdragon 8 Gen 3", 4800, 24), ("Snapdragon 8 Gen 2", 4200, 16)])
def test_snapdragon_numbers_match_their_sources(name, mhz, mem):
    g, elite = find_gpu(name), find_gpu("Snapdragon 8 Elite")
    # LPDDR5X at the launch reports' MHz (DDR: twice the MT/s) on the 8 Elite's 64-bit bus (assumed)
    assert bw(g) == pytest.approx(64 / 8 * mhz * 2 / 1e3)
    assert g.memory_gb == pytest.approx(mem)
    assert g.kind == "soc" and g.checked == "no"
    assert g.achievable_fraction == elite.achievable_fraction
    assert bw(g) < bw(elite)  # older chips, slower memory


def test_arc_pro_b70_numbers_match_its_sources():
    g, b60 = find_gpu("Arc Pro B70"), find_gpu("Arc Pro B60")
    # 32 GB GDDR6 on 256 bits at 19 Gbps = 608 GB/s
    assert g.memory_gb == pytest.approx(32)
    assert bw(g) == pytest.approx(256 / 8 * 19)
    assert g.kind == "workstation" and g.checked == "no"
    assert g.achievable_fraction == b60.achievable_fraction
    assert g.bf16_dense_tflops is None


def test_quietbox_is_four_blackhole_p150():
    (qb,) = [s for s in systems() if s["name"] == "TT-QuietBox (Blackhole)"]
    assert qb["gpu"] == "Tenstorrent Blackhole p150" and qb["count"] == 4 and qb["source"]
    p150 = find_gpu(qb["gpu"])
    assert p150.memory_gb * qb["count"] == pytest.approx(128)


@pytest.mark.parametrize("text, gpu, count", [
    ("an Intel Arc Pro B70 runs Qwen3 8B at 40 tok/s", "Arc Pro B70", None),
    ("Qwen3 8B on Arc Pro B70: 40 tok/s", "Arc Pro B70", None),
    ("Qwen2.5-1.5B on RK3588 NPU at 15 tok/s", "Rockchip RK3588", None),
    ("Qwen2.5 1.5B 在 RK3588 上 12 tok/s", "Rockchip RK3588", None),
    ("Qwen2.5-3B on a Snapdragon 8 Gen 3 phone at 15 tok/s", "Snapdragon 8 Gen 3", None),
    ("Llama 3.2 3B 在骁龙8 Gen3 上跑到 20 tok/s", "Snapdragon 8 Gen 3", None),
    ("Llama 3.2 1B on Snapdragon 8 Gen 2 at 25 tok/s", "Snapdragon 8 Gen 2", None),
    ("Llama 3.2 3B on Snapdragon 8 Elite at 15 tok/s", "Snapdragon 8 Elite", None),
    ("Llama 3.1 70B on a QuietBox Blackhole at 15 tok/s", "Tenstorrent Blackhole p150", 4),
    ("Llama 3.1 8B on a TT-QuietBox (Blackhole) at 30 tok/s", "Tenstorrent Blackhole p150", 4),
])
def test_device_names_in_claims(text, gpu, count):
    f = parse_claim(text).fields
    assert f["gpu"] == gpu
    if count:
        assert f["gpu_count"] == count


@pytest.mark.parametrize("text", [
    # which QuietBox (Wormhole, Blackhole, QuietBox 2) a bare name means is not stated: no system read
    "Llama 3.1 8B on a QuietBox at 10 tok/s", "Llama 3.1 70B on TT-QuietBox 2 at 10 tok/s",
])
def test_unqualified_quietbox_reads_no_system(text):
    assert parse_claim(text).fields.get("gpu") is None


# ---------------------------------------------------------------- models

@pytest.mark.parametrize("query, expected", [
    ("Qwen2-VL-2B", "Qwen2-VL-2B"), ("Qwen2-VL 2B", "Qwen2-VL-2B"), ("Qwen2-VL-2B-Instruct", "Qwen2-VL-2B"),
    ("Qwen/Qwen2-VL-2B-Instruct", "Qwen2-VL-2B"), ("qwen2-vl:2b", "Qwen2-VL-2B"),
    ("Qwen2-VL-7B", "Qwen2-VL-7B"), ("Qwen2-VL-7B-Instruct", "Qwen2-VL-7B"), ("Qwen/Qwen2-VL-7B-Instruct", "Qwen2-VL-7B"),
    ("Qwen3-Coder-Next", "Qwen3-Coder-Next"), ("qwen3-coder-next", "Qwen3-Coder-Next"),
    ("Qwen/Qwen3-Coder-Next", "Qwen3-Coder-Next"), ("Qwen3 Coder Next", "Qwen3-Coder-Next"),
    # neighbours keep resolving to themselves
    ("Qwen2-1.5B", "Qwen2-1.5B"), ("Qwen2-7B", "Qwen2-7B"), ("Qwen2.5-VL-7B", "Qwen2.5-VL-7B"),
    ("Qwen2.5-VL-3B", "Qwen2.5-VL-3B"), ("Qwen3-VL-2B", "Qwen3-VL-2B"), ("Qwen3-VL-8B", "Qwen3-VL-8B"),
    ("Qwen3-Next", "Qwen3-Next-80B-A3B"), ("Qwen3-Next-80B-A3B", "Qwen3-Next-80B-A3B"),
    ("Qwen3-Coder", "Qwen3-Coder-30B-A3B"), ("Qwen3-Coder-30B-A3B", "Qwen3-Coder-30B-A3B"),
    ("Qwen3-Coder-480B-A35B", "Qwen3-Coder-480B-A35B"),
])
def test_added_models_resolve(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("name, tol", [
    ("Qwen2-VL-2B", 0.01),       # 1.544B decoder against Qwen2-1.5B's stated 1.54B
    ("Qwen2-VL-7B", 0.01),       # 7.615B decoder against Qwen2-7B's stated 7.62B
    ("Qwen3-Coder-Next", 0.01),  # 79.67B against the card's 80B
])
def test_added_models_match_stated_size(name, tol):
    m = find_model(name)
    assert m.source and m.checked == "no"
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=tol)


def test_added_model_shapes():
    vl2, q15 = find_model("Qwen2-VL-2B"), find_model("Qwen2-1.5B")
    # the decoder is Qwen2-1.5B's: same counts, same KV cache per token
    assert (vl2.num_layers, vl2.hidden_size, vl2.num_heads, vl2.num_kv_heads) == (28, 1536, 12, 2)
    assert vl2.tie_embeddings
    assert total_params(vl2) == pytest.approx(total_params(q15), rel=1e-3)

    vl7, q7 = find_model("Qwen2-VL-7B"), find_model("Qwen2-7B")
    assert (vl7.num_layers, vl7.hidden_size, vl7.num_heads, vl7.num_kv_heads, vl7.head_dim) == (28, 3584, 28, 4, 128)
    assert not vl7.tie_embeddings
    assert total_params(vl7) == pytest.approx(total_params(q7), rel=1e-3)

    cn, nx = find_model("Qwen3-Coder-Next"), find_model("Qwen3-Next-80B-A3B")
    # the card's table: 48 layers, hidden 2048, 16 / 2 heads of 256, 512 experts with 10 routed
    assert (cn.num_layers, cn.hidden_size, cn.num_heads, cn.num_kv_heads, cn.head_dim) == (48, 2048, 16, 2, 256)
    assert (cn.num_experts, cn.experts_per_token) == (512, 10)
    assert total_params(cn) == pytest.approx(total_params(nx))
    assert active_params(cn) == pytest.approx(active_params(nx))


@pytest.mark.parametrize("text, model", [
    ("Qwen2-VL-2B on an RK3588 at 8 tok/s", "Qwen2-VL-2B"),
    ("Qwen2-VL 2B runs at 20 tok/s on Snapdragon 8 Gen 3", "Qwen2-VL-2B"),
    ("Qwen2-VL-7B-Instruct on an RTX 4090 at 60 tok/s", "Qwen2-VL-7B"),
    ("Qwen3-Coder-Next on an M4 Max at 50 tok/s", "Qwen3-Coder-Next"),
    ("Qwen3-Coder-Next Q4 on a Strix Halo at 35 tok/s", "Qwen3-Coder-Next"),
])
def test_models_in_claims(text, model):
    assert parse_claim(text).fields["model"] == model
