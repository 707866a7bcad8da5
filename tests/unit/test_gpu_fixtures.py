"""The analysis behind the NVML adapter, on GPU fixtures in tests/fixtures/gpu/.

`documented_h200_not_recorded.json` was written by hand from NVML's documented units and bit
values and the H200 datasheet — it was NOT recorded on a real GPU (its `provenance` says so).
`scripts/gpu_check.py` run on a real GPU adds `recorded_<gpu>.json`; every test marked
"all fixtures" then checks that recording too, by invariants that hold for any real series.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokcheck.machine.doctor import ChecklistInputs, environment_report, evaluate_checklist
from tokcheck.machine.nvml import GpuSample, NvmlReport
from tokcheck.machine.telemetry import headline_gpu, summarize_gpu_samples
from tokcheck.machine.throttle import THROTTLING_REASONS, decode_clock_event_reasons

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gpu"
ALL = sorted(FIXTURES.glob("*.json"))
DOCUMENTED = FIXTURES / "documented_h200_not_recorded.json"
MiB = 1024**2


def _load(path: Path) -> tuple[dict, list[GpuSample]]:
    doc = json.loads(path.read_text())
    return doc, [GpuSample.from_dict(s) for s in doc["samples"]]


def test_documented_fixture_says_it_was_not_recorded() -> None:
    doc = json.loads(DOCUMENTED.read_text())
    assert doc["recorded_on_real_gpu"] is False
    assert "NOT RECORDED ON A REAL GPU" in doc["provenance"]


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_all_fixtures_report_round_trips(path: Path) -> None:
    doc, _ = _load(path)
    report = NvmlReport.from_dict(doc["environment"]["gpu"])
    assert report.available
    assert NvmlReport.from_dict(report.to_dict()) == report
    for g in report.gpus:
        assert g.memory_total_bytes and g.memory_used_bytes is not None
        assert g.memory_used_bytes <= g.memory_total_bytes


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_all_fixtures_peak_and_means_are_invariants_of_the_series(path: Path) -> None:
    _, samples = _load(path)
    summary = summarize_gpu_samples(samples)
    assert summary["sample_count"] == len(samples)
    for index, g in summary["gpus"].items():
        mine = [s for s in samples if str(s.index) == index]
        mem = [s.memory_used_bytes for s in mine if s.memory_used_bytes is not None]
        assert g["memory_used_peak_bytes"] == max(mem)
        assert all(m <= g["memory_used_peak_bytes"] for m in mem)
        assert 0 <= g["utilization_mean_pct"] <= g["utilization_max_pct"] <= 100
        union = 0
        for s in mine:
            union |= s.clock_event_reasons_mask or 0
        assert g["clock_event_reasons_seen"] == decode_clock_event_reasons(union)
        assert set(g["throttling_seen"]) <= THROTTLING_REASONS
        assert 0 <= g["throttled_sample_fraction"] <= 1


def test_documented_series_peak_and_throttling() -> None:
    _, samples = _load(DOCUMENTED)
    summary = summarize_gpu_samples(samples)
    g = summary["gpus"]["0"]
    # Written as 563 MiB idle + 4 × 512 MiB allocated under load.
    assert g["memory_used_peak_bytes"] == (563 + 2048) * MiB
    assert g["memory_used_first_bytes"] == 563 * MiB
    assert g["throttling_seen"] == ["sw_power_cap", "sw_thermal_slowdown"]
    assert g["clock_event_reasons_seen"] == ["gpu_idle", "sw_power_cap", "sw_thermal_slowdown"]
    assert g["sm_clock_min_mhz"] == 345
    # Only the load window: 40 samples at 100 % utilization.
    load = [s for s in samples if s.utilization_gpu_pct == 100]
    assert summarize_gpu_samples(load)["gpus"]["0"]["utilization_mean_pct"] == 100
    head = headline_gpu(summary)
    assert head["memory_used_peak_bytes"] == g["memory_used_peak_bytes"]
    assert head["throttling_seen"] == ["sw_power_cap", "sw_thermal_slowdown"]


def test_idle_samples_are_not_throttling() -> None:
    _, samples = _load(DOCUMENTED)
    idle = [s for s in samples if s.clock_event_reasons_mask == 0x1]
    assert idle
    g = summarize_gpu_samples(idle)["gpus"]["0"]
    assert g["clock_event_reasons_seen"] == ["gpu_idle"]
    assert g["throttling_seen"] == []
    assert g["throttled_sample_fraction"] == 0


def test_no_samples_is_said_not_zero() -> None:
    summary = summarize_gpu_samples([])
    assert summary["sample_count"] == 0 and summary["reason"]
    assert headline_gpu(summary) == {"memory_used_peak_bytes": None,
                                     "utilization_mean_pct": None, "throttling_seen": None}


_TOOLCHAIN_CU13 = {
    "python": {"version": "3.11.7", "executable": "/usr/bin/python3"},
    "nvcc": {"found": True, "path": "/usr/local/bin/nvcc", "release": "13.0",
             "version": "13.0.88"},
    "environments": [{"python": "/venv/bin/python", "python_version": "3.11.7", "engines": {},
                      "torch": {"version": "2.9.0+cu130", "cuda_build": "13.0",
                                "cuda_available": False, "device_count": 0}}],
}


def test_documented_driver_against_a_newer_toolchain_is_named() -> None:
    doc, _ = _load(DOCUMENTED)
    env = environment_report(gpu=doc["environment"]["gpu"], toolchain=_TOOLCHAIN_CU13)
    text = " | ".join(env["mismatches"])
    assert "nvcc is CUDA 13.0 but the driver 570.124.06 supports CUDA up to 12.8" in text
    assert "built for CUDA 13.0, newer than the driver's CUDA 12.8" in text
    assert "does not see the GPU" in text
    assert env["gpu"]["gpus"][0]["clock_event_reasons"] == ["gpu_idle"]


def test_checklist_uses_the_documented_gpu_memory() -> None:
    doc, _ = _load(DOCUMENTED)
    g = doc["environment"]["gpu"]["gpus"][0]
    base = dict(gpu_present=True, gpu_memory_total_bytes=g["memory_total_bytes"])
    ok = {c.key: c for c in evaluate_checklist(ChecklistInputs(
        **base, gpu_memory_used_bytes=g["memory_used_bytes"], gpu_memory_utilization=0.9))}
    assert ok["gpu_memory_utilization"].status == "pass"
    # Another process holding 20 GiB of 140.4 GiB leaves less than the 10 % margin of 0.9.
    busy = {c.key: c for c in evaluate_checklist(ChecklistInputs(
        **base, gpu_memory_used_bytes=20 * 1024**3, gpu_memory_utilization=0.9))}
    assert busy["gpu_memory_utilization"].status == "fail"
    assert "already in use" in busy["gpu_memory_utilization"].evidence


ENERGY = [p for p in ALL if "energy" in json.loads(p.read_text())]


@pytest.mark.parametrize("path", ENERGY, ids=[p.name for p in ENERGY])
def test_all_fixtures_energy_counter_agrees_with_the_power_samples(path: Path) -> None:
    # NVML's total-energy counter over the load window, divided by its duration, is the mean
    # power the samples saw over the same window (15 %: NVML's power reading is itself an
    # average over up to 1 s, and the window's edges ramp)
    from tokcheck.machine.telemetry import energy_figures

    doc, samples = _load(path)
    e = doc["energy"]
    (r0, r1) = e["readings"][0], e["readings"][-1]
    before = {int(k): v for k, v in r0["energy_mj"].items()}
    after = {int(k): v for k, v in r1["energy_mj"].items()}
    fig = energy_figures(before, after, r0["t_ns"], r1["t_ns"], e["compute_gpus"], "fixture", tokens=None)
    assert fig["energy_j"] > 0 and fig["energy_reason"] == "no output tokens counted in the level"
    for g in e["compute_gpus"]:
        window = [s.power_draw_w for s in samples
                  if s.index == g and r0["t_ns"] <= s.t_ns <= r1["t_ns"] and s.power_draw_w is not None]
        mean_w = sum(window) / len(window)
        assert fig["energy_by_gpu_j"][str(g)] / fig["energy_window_s"] == pytest.approx(mean_w, rel=0.15)


def test_documented_fixture_energy_is_the_integral_of_its_power() -> None:
    # written by hand: the counter difference is the trapezoid integral of the power samples
    doc, samples = _load(DOCUMENTED)
    r0, r1 = doc["energy"]["readings"]
    inside = [s for s in samples if r0["t_ns"] <= s.t_ns <= r1["t_ns"]]
    integral = sum((a.power_draw_w + b.power_draw_w) / 2 * (b.t_ns - a.t_ns) / 1e9 for a, b in zip(inside, inside[1:]))
    assert (r1["energy_mj"]["0"] - r0["energy_mj"]["0"]) / 1000 == pytest.approx(integral, abs=0.001)
    assert integral == pytest.approx(2671.84)
