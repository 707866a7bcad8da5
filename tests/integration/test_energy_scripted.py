"""Energy per output token through a whole bench run: real requests to the scripted-timing server,
and a GPU sampler whose source replays the GPU fixture's NVML values (tests/fixtures/gpu/:
written from NVML's documentation, not recorded — no GPU here). The counter's difference over
the level is the fixture's 2,671.84 J, the tokens are the run's own, so J per token is known."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from tokcheck.cli.bench_view import render_summary
from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.machine.nvml import GpuSample
from tokcheck.machine.telemetry import GpuSampler
from tokcheck.record.store import load_run

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gpu" / "documented_h200_not_recorded.json"
DOC = json.loads(FIXTURE.read_text())
READINGS = [{int(k): v for k, v in r["energy_mj"].items()} for r in DOC["energy"]["readings"]]
DELTA_J = (READINGS[1][0] - READINGS[0][0]) / 1000


class ReplayedNvml:
    """The fixture's samples one per call, its energy readings before and after each level."""

    available = True
    reason = None

    def __init__(self) -> None:
        self.errors: dict[str, str] = {}
        self.calls = 0
        self.energy_calls = 0

    def sample(self) -> list[GpuSample]:
        s = GpuSample.from_dict(DOC["samples"][self.calls % len(DOC["samples"])])
        self.calls += 1
        return [replace(s, t_ns=time.perf_counter_ns())]

    def energy_mj(self) -> dict[int, int | None]:
        r = READINGS[self.energy_calls % 2]  # before, after, before, after, …
        self.energy_calls += 1
        return dict(r)

    def compute_gpus(self) -> list[int]:
        return [0]

    def close(self) -> None:
        pass


def test_joules_per_output_token_per_level(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=10, itl_ms=1)
    cfg = BenchConfig(url=server.url, model="scripted", tokenizer=str(tiny_tokenizer), input_len=32,
                      output_len=16, concurrency=[1, 2], rounds=1, warmup=1, requests_per_round=4,
                      out=str(tmp_path / "run"), timeout_s=5)
    summary = run_bench(cfg, hooks=[GpuSampler(interval_s=0.01, session_factory=ReplayedNvml)])
    run = load_run(tmp_path / "run")
    for lv in summary.levels:
        # 1 warm-up + 4 measured requests of 16 tokens: the GPU generated 80 tokens in the level
        tokens = sum(r.n_out for r in run.requests if r.level == lv.label)
        assert tokens == 80
        fig = lv.figure("energy_j_per_token")
        assert fig.value == pytest.approx(DELTA_J / 80)  # 33.398 J per token
        assert lv.telemetry.gpu.energy_j == pytest.approx(DELTA_J)
        assert lv.figure("energy_power_w").value == pytest.approx(DELTA_J / lv.telemetry.gpu.energy_window_s)
    # summary.json keeps it (read back typed)
    assert run.levels[0].figure("energy_j_per_token").value == pytest.approx(DELTA_J / 80)
    console = Console(record=True, width=160)
    render_summary(summary, console)
    text = console.export_text()
    assert "energy per output token J/token" in text and f"{DELTA_J / 80:,.3f}" in text


def test_without_a_gpu_the_energy_rows_are_left_out_and_the_reason_kept(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=10, itl_ms=1)
    cfg = BenchConfig(url=server.url, model="scripted", tokenizer=str(tiny_tokenizer), input_len=32,
                      output_len=8, concurrency=[1], rounds=1, warmup=0, requests_per_round=2,
                      out=str(tmp_path / "run"), timeout_s=5)
    summary = run_bench(cfg)  # no telemetry hooks at all
    lv = summary.levels[0]
    assert lv.figure("energy_j_per_token").value is None
    assert "no GPU telemetry" in lv.figure("energy_j_per_token").reason
    console = Console(record=True, width=160)
    render_summary(summary, console)
    assert "energy per output token" not in console.export_text() and "J/token" not in console.export_text()
