"""The interactivity curve's figures: per-user speed against output tok/s per GPU, the GPU count
from the run conditions, and where a claim lands."""

from __future__ import annotations

import pytest

from rundirs import CPU_ENVIRONMENT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.analysis.verify import verify
from tokcheck.record.store import load_run
from tokcheck.report.curve import claim_marks, curve_points, gpu_count, interactivity_curve

LEVELS = {1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
          8: {"ttft_ms": 40, "gen_tok_s": 120, "agg_tok_s": 880}}
H200X2 = {"gpu": {"available": True, "gpus": [{"index": 0, "name": "NVIDIA H200"}, {"index": 1, "name": "NVIDIA H200"}]}}


def test_gpu_count_from_the_run_conditions(tmp_path):
    tp = load_run(write_run_dir(tmp_path / "tp", levels=LEVELS, engine_report={"tensor_parallel_size": 4,
                                                                             "pipeline_parallel_size": 2}))
    assert gpu_count(tp) == (8, "tensor_parallel_size 4 × pipeline_parallel_size 2")
    env = load_run(write_run_dir(tmp_path / "env", levels=LEVELS, environment=H200X2))
    assert gpu_count(env)[0] == 2
    cpu = load_run(write_run_dir(tmp_path / "cpu", levels=LEVELS, engine_report=VLLM_CPU_ENGINE_REPORT))
    assert gpu_count(cpu) == (None, "no GPU (the engine ran on the CPU)")
    assert gpu_count(load_run(write_run_dir(tmp_path / "n", levels=LEVELS, environment=CPU_ENVIRONMENT)))[0] is None
    assert gpu_count(load_run(write_run_dir(tmp_path / "u", levels=LEVELS))) == (None, "GPU count not recorded")


def test_points_are_per_user_speed_against_throughput_per_gpu(tmp_path):
    run = load_run(write_run_dir(tmp_path / "env", levels=LEVELS, environment=H200X2))
    pts = curve_points(run)
    assert [(p["label"], p["x"], p["y"]) for p in pts] == [("c8", pytest.approx(120, rel=1e-3), 440.0),
                                                          ("c1", pytest.approx(300, rel=1e-3), 145.0)]
    title, png = interactivity_curve([run])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and "per GPU" in title


def test_a_claim_lands_on_the_axis_of_its_metric(tmp_path):
    run = load_run(write_run_dir(tmp_path / "env", levels=LEVELS, environment=H200X2))
    per_user = verify({"metric": "generation_tok_s", "value": 250, "concurrency": 1}, run)
    assert claim_marks(per_user, run) == [{"axis": "x", "value": 250.0,
                                           "label": "claim: 250 generation tok/s per request"}]
    agg = verify({"metric": "aggregate_throughput", "value": 1000, "concurrency": 8, "gpu_count": 4}, run)
    (mark,) = claim_marks(agg, run)
    assert mark["axis"] == "y" and mark["value"] == 250.0       # the claim's own 4 GPUs
    agg_run_gpus = verify({"metric": "aggregate_throughput", "value": 1000, "concurrency": 8}, run)
    assert claim_marks(agg_run_gpus, run)[0]["value"] == 500.0  # the run's 2 GPUs
    assert claim_marks(verify({"metric": "ttft", "value": 10, "concurrency": 1}, run), run) == []
