"""`tokcheck verify` end to end through the CLI, with claims parsed from text."""

from __future__ import annotations

import json

import pytest

from rundirs import FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.cli import main
from tokcheck.cli.verify import parse_tolerance

H200_ENV = {"gpu": {"available": True, "gpus": [{"index": 0, "name": "NVIDIA H200", "processes": [],
                                                 "utilization_gpu_pct": 0}]}}


@pytest.fixture
def h200_run(tmp_path):
    # A single-request Qwen3-32B run on an H200 measuring 48 tok/s generation.
    return write_run_dir(tmp_path / "h200", levels={1: {"ttft_ms": 80, "gen_tok_s": 48, "agg_tok_s": 47}},
                         input_len=1000, output_len=1000, model="Qwen/Qwen3-32B", environment=H200_ENV,
                         engine_report=VLLM_CPU_ENGINE_REPORT | {"device": "cuda", "max_seq_len": 8192},
                         precision_report=FULL_PRECISION_REPORT)


def _verify_json(capsys, *argv) -> dict:
    assert main(["verify", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_reproduced_claim(h200_run, capsys):
    d = _verify_json(capsys, "单卡 H200 跑 Qwen3-32B 全精度，单请求 50 tok/s，输入 1000 输出 1000", "--run", str(h200_run))
    assert d["reproduced"] is True and d["metric"] == "generation_tok_s"
    assert d["claimed"] == 50.0 and d["measured"] == pytest.approx(48.0, rel=1e-3)
    assert d["conditions"]["gpu"] == "match" and d["conditions"]["model"] == "match"
    assert d["checks"][6]["status"] == "pass"          # 50 tok/s is under the H200 bound for 32B BF16


def test_claim_three_times_higher(h200_run, capsys):
    d = _verify_json(capsys, "单卡 H200 跑 Qwen3-32B 全精度，单请求 150 tok/s，输入 1000 输出 1000", "--run", str(h200_run))
    assert d["reproduced"] is False and d["ratio"] == pytest.approx(48 / 150, rel=1e-3)
    assert [c["number"] for c in d["checks"]] == [1, 2, 3, 4, 5, 6, 7]
    c7 = d["checks"][6]
    assert c7["status"] == "fail"
    assert "exceeds the hard bound" in " ".join(c7["evidence"])
    assert d["bound"]["hard_tok_s"] < 150
    assert d["checks"][1]["status"] == "pass"          # an idle H200 before the run
    assert "GPU 0 (NVIDIA H200): no other process" in " ".join(d["checks"][1]["evidence"])


def test_text_output_walks_the_checks(h200_run, capsys):
    assert main(["verify", "Qwen3-32B on one H200: 150 tok/s single request, 1000 in 1000 out",
                 "--run", str(h200_run)]) == 0
    out = capsys.readouterr().out
    assert "NOT REPRODUCED" in out and "7. bandwidth bound" in out and "Symptom: slow generation" in out


def test_metric_override_and_incomparable(h200_run, capsys):
    d = _verify_json(capsys, "Qwen3-32B on one H200: 48 tok/s", "--run", str(h200_run))
    assert d["reproduced"] is None            # no metric in the text, and no input/output lengths
    d = _verify_json(capsys, "Qwen3-32B on one H200: 48 tok/s", "--run", str(h200_run), "--metric", "generation_tok_s")
    assert d["reproduced"] is True


def test_bad_input(tmp_path, h200_run, capsys):
    assert main(["verify", "Qwen3-32B 48 tok/s", "--run", str(tmp_path / "none")]) == 1
    assert "no run directory" in capsys.readouterr().err
    assert main(["verify", "no number here", "--run", str(h200_run)]) == 1
    assert capsys.readouterr().err.startswith("Error: ")
    assert main(["verify", "Qwen3-32B 48 tok/s", "--run", str(h200_run), "--tolerance", "abc"]) == 1
    assert parse_tolerance("20%") == parse_tolerance("20") == parse_tolerance("0.2") == pytest.approx(0.2)
