"""Telemetry and the doctor against real vLLM on the CPU: the tiny Llama served with n-gram
speculative decoding; `tokcheck bench` (the CLI, with its telemetry hooks) and the /metrics
scraper on its own; the server's counters must equal the tokens tokcheck counted."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import httpx
import pytest

from tokcheck.cli import main
from tokcheck.machine.doctor import doctor
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.lifecycle import serve
from tokcheck.machine.telemetry import MetricsScraper

pytestmark = pytest.mark.e2e

SPEC = '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":3,"prompt_lookup_min":1}'


@pytest.fixture(scope="module")
def server(tiny_llama, vllm_python, tmp_path_factory):
    cfg = ServeSettings(model=str(tiny_llama), python=str(vllm_python), dtype="bfloat16",
                         max_model_len=1024, served_model_name="tiny", enforce_eager=True,
                         extra_args=["--speculative-config", SPEC],
                         log_dir=str(tmp_path_factory.mktemp("server")), startup_timeout_s=400)
    with serve(cfg) as running:
        yield running


def test_scraper_delta_equals_usage(server, tmp_path: Path) -> None:
    scraper = MetricsScraper(server.url, interval_s=0.2)
    scraper.on_run_start(tmp_path)
    scraper.before_level("by-hand")
    completion = prompt = 0
    with httpx.Client(trust_env=False, timeout=60) as client:
        for i in range(4):
            body = {"model": "tiny", "prompt": "def f(x):\n    return x + x " * (i + 1),
                    "max_tokens": 24 + i, "min_tokens": 24 + i, "ignore_eos": True,
                    "temperature": 0}
            usage = client.post(f"{server.url}/v1/completions", json=body).json()["usage"]
            completion += usage["completion_tokens"]
            prompt += usage["prompt_tokens"]
    out = scraper.after_level("by-hand", counted_tokens=completion)["server_metrics"]
    assert completion == 24 + 25 + 26 + 27
    assert out["counters"]["generation_tokens"] == completion
    assert out["counters"]["prompt_tokens"] == prompt
    assert out["cross_check"]["match"] is True
    assert out["counters"]["requests_finished"] == 4
    # n-gram drafts were proposed and checked: the ratios exist and are in range.
    assert out["counters"]["spec_decode_drafts"] > 0
    assert 0 <= out["spec_decode_acceptance_rate"] <= 1
    assert 1 <= out["spec_decode_mean_accepted_length"] <= 1 + 3


def test_bench_record_has_metrics_and_environment(server, tiny_llama, tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["bench", "--url", server.url, "--model", "tiny", "--tokenizer",
                   str(tiny_llama), "--input-len", "64", "--output-len", "32",
                   "--concurrency", "1,3", "--rounds", "2", "--warmup", "1", "--json",
                   "--out", str(out_dir)])
    assert rc == 0
    run = json.loads((out_dir / "run.json").read_text())
    summary = json.loads((out_dir / "summary.json").read_text())
    requests = [json.loads(line) for line in (out_dir / "requests.jsonl").read_text().splitlines()]
    for level in summary["levels"]:
        sm = level["telemetry"]["server_metrics"]
        counted = sum(r["n_out_usage"] for r in requests if r["level"] == level["label"])
        assert counted == 32 * sum(1 for r in requests if r["level"] == level["label"])
        assert sm["counters"]["generation_tokens"] == counted
        assert sm["cross_check"]["match"] is True
        assert sm["spec_decode_acceptance_rate"] is not None
        gpu = level["telemetry"]["gpu"]
        assert gpu["available"] is False and gpu["reason"]  # no GPU on this machine
    assert run["telemetry"]["server_metrics"]["url"] == f"{server.url}/metrics"
    assert run["environment"]["toolchain"]["python"]["version"]
    assert run["environment"]["gpu"]["available"] is False


def test_checklist_for_the_tiny_model(tiny_llama) -> None:
    report = doctor(model_dir=tiny_llama, gpu_name="H200", dtype="bfloat16",
                    max_model_len=1024, concurrency=4, gpu_memory_utilization=0.9,
                    input_len=256, output_len=256, rounds=3)
    items = {c["key"]: c for c in report["checklist"]}
    for key in ("disk_space", "memory_fit", "unquantized", "dtype", "max_model_len",
                "gpu_memory_utilization", "tokenizer", "fixed_workload", "rounds"):
        assert items[key]["status"] == "pass", items[key]
    assert items["compatibility"]["status"] == "unknown"  # no NVIDIA driver here
    assert "BF16" in items["unquantized"]["evidence"]
