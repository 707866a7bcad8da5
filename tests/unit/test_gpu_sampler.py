"""GpuSampler: the thread, the level windows and the run record. NVML itself cannot run on a
machine without a GPU, so the sampler's source here replays the GPU fixture's values
(written from NVML's documentation, not recorded — see tests/fixtures/gpu/) with fresh
perf_counter_ns stamps; the real NVML path is exercised by the no-GPU test below and, on a
GPU machine, by scripts/gpu_check.py."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tokcheck.machine.nvml import GpuSample, NvmlSession, read_report
from tokcheck.machine.telemetry import GpuSampler

FIXTURE = Path(__file__).parent.parent / "fixtures" / "gpu" / "documented_h200_not_recorded.json"
SERIES = [GpuSample.from_dict(s) for s in json.loads(FIXTURE.read_text())["samples"]]


class ReplayedNvmlValues:
    """A sample source that replays the fixture's series, one sample per call, looping."""

    available = True
    reason = None

    def __init__(self) -> None:
        self.errors: dict[str, str] = {}
        self.calls = 0
        self.closed = False

    def sample(self) -> list[GpuSample]:
        s = SERIES[self.calls % len(SERIES)]
        self.calls += 1
        return [replace(s, t_ns=time.perf_counter_ns())]

    def close(self) -> None:
        self.closed = True


def _wait_samples(sampler: GpuSampler, n: int) -> None:
    deadline = time.monotonic() + 10
    while len(sampler.samples) < n:
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_hooks_record_levels_and_write_samples(tmp_path: Path) -> None:
    sources: list[ReplayedNvmlValues] = []

    def factory() -> ReplayedNvmlValues:
        sources.append(ReplayedNvmlValues())
        return sources[-1]

    sampler = GpuSampler(interval_s=0.01, session_factory=factory)
    sampler.on_run_start(tmp_path)
    sampler.before_level("c1")
    _wait_samples(sampler, len(sampler.samples) + 5)
    level = sampler.after_level("c1")["gpu"]
    assert level["available"] is True
    assert level["sample_count"] >= 5
    end = sampler.on_run_end()["gpu"]
    assert sources[0].closed
    assert end["sample_count"] == len(sampler.samples) >= level["sample_count"]
    lines = (tmp_path / end["samples_file"]).read_text().splitlines()
    assert len(lines) == len(sampler.samples)
    stamps = [json.loads(line)["t_ns"] for line in lines]
    assert stamps == sorted(stamps)
    mem = [json.loads(line)["memory_used_bytes"] for line in lines]
    assert end["gpus"]["0"]["memory_used_peak_bytes"] == max(mem)
    assert end["headline"]["memory_used_peak_bytes"] == max(mem)


def test_level_window_only_counts_its_own_samples(tmp_path: Path) -> None:
    sampler = GpuSampler(interval_s=0.01, session_factory=ReplayedNvmlValues)
    sampler.on_run_start(tmp_path)
    _wait_samples(sampler, 3)
    before = len(sampler.samples)
    sampler.before_level("c2")
    _wait_samples(sampler, before + 3)
    level = sampler.after_level("c2")["gpu"]
    sampler.on_run_end()
    assert level["sample_count"] <= len(sampler.samples) - before + 1
    assert level["sample_count"] < len(sampler.samples)


def test_bad_interval_is_an_error() -> None:
    with pytest.raises(ValueError):
        GpuSampler(interval_s=0)


def test_real_nvml_here() -> None:
    """Real NVML on this machine: without a GPU one clear state, no exception; with one,
    real readings."""
    report = read_report()
    sampler = GpuSampler(interval_s=0.05)
    sampler.on_run_start(Path("."))
    sampler.before_level("x")
    time.sleep(0.2)
    level = sampler.after_level("x")["gpu"]
    end = sampler.on_run_end()["gpu"]
    if not report.available:
        assert report.reason and "\n" not in report.reason
        assert report.gpus == ()
        assert level == {"available": False, "reason": report.reason}
        assert end["available"] is False
        with NvmlSession() as session:
            assert session.sample() == [] and not session.available
    else:
        assert report.gpus[0].memory_total_bytes > 0
        assert level["sample_count"] >= 1
        assert end["gpus"]["0"]["memory_used_peak_bytes"] > 0


def test_telemetry_table_shows_gpu_rows(tmp_path: Path) -> None:
    from rich.console import Console

    from tokcheck.cli.telemetry_view import render_telemetry

    sampler = GpuSampler(interval_s=0.005, session_factory=ReplayedNvmlValues)
    sampler.on_run_start(tmp_path)
    sampler.before_level("c1")
    # Enough replayed samples to reach the fixture's peak memory and power cap (from sample 17).
    _wait_samples(sampler, 55)
    tele = sampler.after_level("c1")
    sampler.on_run_end()
    console = Console(record=True, width=120)
    render_telemetry([("c1", tele)], console=console)
    text = console.export_text()
    assert "GPU memory peak" in text and "2.55 GiB" in text  # 563 + 2048 MiB
    assert "sw_power_cap" in text
    assert "GPU telemetry: none" not in text
