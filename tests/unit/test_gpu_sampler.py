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
    assert "GPU memory peak" in text and "2.74 GB" in text  # 563 + 2048 MiB = 2.736e9 bytes
    assert "sw_power_cap" in text
    assert "GPU telemetry: none" not in text


# --------------------------------------------------------------------------- energy

ENERGY = json.loads(FIXTURE.read_text())["energy"]
READINGS = [{int(k): v for k, v in r["energy_mj"].items()} for r in ENERGY["readings"]]
DELTA_J = (READINGS[1][0] - READINGS[0][0]) / 1000  # 2,671.84 J: the fixture's load window


class ReplayedNvmlEnergy(ReplayedNvmlValues):
    """The fixture's samples, and its two energy-counter readings in turn (then the last again)."""

    def __init__(self) -> None:
        super().__init__()
        self.energy_calls = 0

    def energy_mj(self) -> dict[int, int | None]:
        r = READINGS[min(self.energy_calls, len(READINGS) - 1)]
        self.energy_calls += 1
        return dict(r)

    def compute_gpus(self) -> list[int]:
        return list(ENERGY["compute_gpus"])


def test_energy_per_level_from_the_counter(tmp_path: Path) -> None:
    sampler = GpuSampler(interval_s=0.01, session_factory=ReplayedNvmlEnergy)
    sampler.on_run_start(tmp_path)
    sampler.before_level("c1")
    _wait_samples(sampler, 3)
    gpu = sampler.after_level("c1", counted_tokens=10_000)["gpu"]
    sampler.on_run_end()
    assert gpu["energy_gpus"] == [0] and "compute process" in gpu["energy_gpus_rule"]
    assert gpu["energy_j"] == pytest.approx(DELTA_J) and gpu["energy_by_gpu_j"] == {"0": pytest.approx(DELTA_J)}
    assert gpu["energy_j_per_token"] == pytest.approx(DELTA_J / 10_000)  # 0.267184 J per token
    assert gpu["energy_tokens"] == 10_000 and gpu["energy_reason"] is None
    assert gpu["energy_power_w"] == pytest.approx(DELTA_J / gpu["energy_window_s"])


def test_energy_figures_over_the_fixture_window() -> None:
    from tokcheck.machine.telemetry import energy_figures

    t0, t1 = (r["t_ns"] for r in ENERGY["readings"])
    fig = energy_figures(READINGS[0], READINGS[1], t0, t1, [0], "fixture", 10_000)
    assert fig["energy_window_s"] == pytest.approx(4.0)
    assert fig["energy_power_w"] == pytest.approx(667.96)  # 2,671.84 J over 4 s


def test_energy_sums_only_the_serving_gpus_and_says_why_not() -> None:
    from tokcheck.machine.telemetry import energy_figures

    before = {0: 1_000_000, 1: 5_000_000, 2: 7_000}
    after = {0: 1_600_000, 1: 5_400_000, 2: 9_000}
    fig = energy_figures(before, after, 0, 2_000_000_000, [0, 1], "GPUs holding a compute process", 500)
    assert fig["energy_j"] == pytest.approx(1000.0)          # 600 J + 400 J; GPU 2 not serving
    assert fig["energy_j_per_token"] == pytest.approx(2.0) and fig["energy_power_w"] == pytest.approx(500.0)
    # every GPU when the serving ones are not known
    assert energy_figures(before, after, 0, 10**9, None, "every GPU", 1)["energy_j"] == pytest.approx(1002.0)
    # a counter that went down (the driver reloaded) or cannot be read: null with the reason
    down = energy_figures(before, {**after, 1: 10}, 0, 10**9, [0, 1], "r", 500)
    assert down["energy_j"] is None and down["energy_j_per_token"] is None
    assert "went down" in down["energy_reason"]
    missing = energy_figures(before, {**after, 0: None}, 0, 10**9, [0], "r", 500)
    assert missing["energy_j"] is None and "no energy counter reading" in missing["energy_reason"]
    no_tokens = energy_figures(before, after, 0, 10**9, [0], "r", 0)
    assert no_tokens["energy_j"] == pytest.approx(600.0) and no_tokens["energy_j_per_token"] is None
    assert "no output tokens" in no_tokens["energy_reason"]


def test_a_source_without_an_energy_counter_says_so(tmp_path: Path) -> None:
    sampler = GpuSampler(interval_s=0.01, session_factory=ReplayedNvmlValues)
    sampler.on_run_start(tmp_path)
    sampler.before_level("c1")
    gpu = sampler.after_level("c1")["gpu"]
    sampler.on_run_end()
    assert gpu["available"] is True and gpu["energy_reason"] == "the GPU source has no energy counter"
    assert "energy_j" not in gpu


def test_energy_is_null_with_the_reason_without_a_gpu() -> None:
    """Real NVML on this machine: without a GPU the level's energy metric is null with NVML's
    reason; with one, the counter is read (or its absence said)."""
    from tokcheck.record.schema import LevelSummary, Telemetry

    report = read_report()
    sampler = GpuSampler(interval_s=0.05)
    sampler.on_run_start(Path("."))
    sampler.before_level("x")
    tele = sampler.after_level("x", counted_tokens=100)
    sampler.on_run_end()
    lv = LevelSummary(label="c=1", concurrency=1, telemetry=Telemetry.model_validate(tele))
    fig = lv.figure("energy_j_per_token")
    if not report.available:
        assert fig.value is None and fig.reason == report.reason and "NVML" in fig.reason
        with NvmlSession() as session:
            assert session.energy_mj() == {} and session.compute_gpus() is None
    else:
        assert (fig.value is not None) or fig.reason
