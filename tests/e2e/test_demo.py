"""`tokcheck demo` from the command line, small: the learning path runs through, writes its run
directories as bench does, and leaves no server behind."""

from __future__ import annotations

import json
import re

import pytest

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
    for name, levels in (("single", [1]), ("concurrency", [2])):
        run = json.loads((out / name / "run.json").read_text())
        summary = json.loads((out / name / "summary.json").read_text())
        assert run["engine_report"]["dtype"] == "bfloat16"
        assert run["precision_report"]["verdict"] == "full precision"
        assert [lv["concurrency"] for lv in summary["levels"]] == levels
        assert all(lv["requests_failed"] == 0 for lv in summary["levels"])
        assert (out / name / "server.log").is_file()
    # No engine process is left on the port the demo used.
    port = int(re.search(r"--port\s+(\d+)", printed).group(1))
    assert engine_processes(port) == []
