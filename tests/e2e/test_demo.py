"""`tokcheck demo` from the command line, small: the learning path runs through, writes its run
directories as bench does (environment and telemetry included), and leaves no server behind;
a Ctrl-C during its bench step keeps a summary of what finished, as `tokcheck bench` does."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from procs import Output, engine_children, group_members, kill_group, wait_gone
from tokcheck.cli import main

pytestmark = pytest.mark.e2e


def test_demo_runs_the_learning_path(tiny_llama, vllm_python, tmp_path, capsys,
                                     engine_processes):
    out = tmp_path / "demo"
    rc = main(["demo", "--out", str(out), "--python", str(vllm_python), "--input-len", "32",
               "--output-len", "16", "--concurrency", "2", "--rounds", "1"])
    printed = capsys.readouterr().out
    assert rc == 0
    for step in ("1/5", "2/5", "3/5", "4/5", "5/5"):
        assert step in printed
    assert "FULL PRECISION (BF16)" in printed
    # the figures are this machine's at its load; the next steps run on a CPU (no vLLM FP8 here)
    assert "These are this machine's figures at its load then" in " ".join(printed.split())
    steps = printed[printed.index("Next steps:"):]
    assert "tokcheck demo --engine llama.cpp" in steps and "--quantization" not in steps
    assert not re.search(r"\b(None|True|False)\b", printed[printed.index("precision: "):])
    for name, levels in (("single", [1]), ("concurrency", [2])):
        run = json.loads((out / name / "run.json").read_text())
        summary = json.loads((out / name / "summary.json").read_text())
        assert run["engine_report"]["dtype"] == "bfloat16"
        assert run["precision_report"]["verdict"] == "full precision"
        # As thick as a plain `tokcheck bench` against a local server.
        assert run["environment"]["toolchain"]["python"]["version"]
        assert run["environment"]["gpu"]["available"] is False  # no GPU on this machine
        assert run["telemetry"]["server_metrics"]["url"].endswith("/metrics")
        assert [lv["concurrency"] for lv in summary["levels"]] == levels
        assert all(lv["requests_failed"] == 0 for lv in summary["levels"])
        for lv in summary["levels"]:
            assert lv["telemetry"]["server_metrics"]["cross_check"]["match"] is True
        assert (out / name / "server.log").is_file()
    # No engine process is left on the port the demo used.
    port = int(re.search(r"--port\s+(\d+)", printed).group(1))
    assert engine_processes(port) == []


def test_demo_json_is_the_result_alone(tiny_llama, vllm_python, tmp_path, capsys, engine_processes):
    """`tokcheck demo --json`: stdout holds one JSON document (the engine's and the audit's
    verdicts, each level's medians), the steps went to stderr."""
    out = tmp_path / "demo-json"
    rc = main(["demo", "--json", "--out", str(out), "--python", str(vllm_python), "--input-len", "32",
               "--output-len", "16", "--concurrency", "2", "--rounds", "1"])
    captured = capsys.readouterr()
    assert rc == 0
    data = json.loads(captured.out)
    assert data["engine"] == "vllm" and data["dtype"] == "bfloat16" and data["precision"] == "full precision"
    assert [r["name"] for r in data["runs"]] == ["single", "concurrency"]
    assert [lv["concurrency"] for r in data["runs"] for lv in r["levels"]] == [1, 2]
    assert all(lv["requests_failed"] == 0 and lv["ttft_ms"] > 0 for r in data["runs"] for lv in r["levels"])
    assert data["startup_s"] > 0 and "1/5" in captured.err


def test_ctrl_c_during_the_bench_step_keeps_a_summary(tiny_llama, vllm_python, tmp_path):
    """Ctrl-C as soon as the run directory exists, while the measurement worker still starts:
    this once left run.json and requests.jsonl without summary.json. (A Ctrl-C in mid-level
    is the same code; tests/integration/test_bench_cli.py covers it with a scripted server.)"""
    out = tmp_path / "demo"
    argv = [sys.executable, "-m", "tokcheck", "demo", "--out", str(out), "--python",
            str(vllm_python), "--input-len", "32", "--output-len", "64", "--concurrency", "2",
            "--rounds", "3"]
    # A session of its own, so that SIGINT to its group is what Ctrl-C in a terminal does.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "COLUMNS": "200"}, start_new_session=True)
    output = Output(proc)
    engine = None
    jsonl = out / "single" / "requests.jsonl"
    try:
        deadline = time.monotonic() + 400
        while not (out / "single" / "run.json").exists():
            assert time.monotonic() < deadline and proc.poll() is None, output.text()
            engine = engine or next(iter(engine_children(proc.pid)), None)
            time.sleep(0.1)
        members = group_members(engine)
        os.killpg(proc.pid, signal.SIGINT)
        output.wait_for(r"Stopping the server", 10)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            kill_group(proc.pid)
            proc.wait()
        if engine is not None:
            kill_group(engine)
    output.wait_for(r"Interrupted\.", 5)
    assert proc.returncode == 130, output.text()
    assert "Traceback" not in output.text()
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    summary = json.loads((out / "single" / "summary.json").read_text())
    assert summary["interrupted"] is True
    measured = sum(1 for r in records if not r["warmup"])
    assert sum(lv["requests_ok"] for lv in summary["levels"]) == measured
    assert json.loads((out / "single" / "run.json").read_text())["interrupted"] is True
    assert not (out / "concurrency").exists()
    assert wait_gone(members, 5) == []
