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
