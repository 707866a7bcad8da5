"""``tokcheck bench --server-log FILE``: what the engine said at start-up goes into run.json
(engine report, precision report) and the log itself into the run directory. The log is a real
vLLM 0.32.0 start-up log (tests/fixtures/vllm_logs); the server is the scripted one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LOG = Path(__file__).parent.parent / "fixtures" / "vllm_logs" / "start-ok-eager.log"


def test_server_log_conditions_land_in_run_json(server, tiny_tokenizer, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "tokcheck", "bench", "--url", server.url, "--model", "scripted",
         "--tokenizer", str(tiny_tokenizer), "--input-len", "20", "--output-len", "8",
         "--rounds", "1", "--out", str(out), "--json", "--server-log", str(LOG)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["engine_report"]["version"] == "0.32.0"
    assert run["engine_report"]["dtype"] == "bfloat16"
    assert run["engine_report"]["kv_cache_tokens"] == 524_288
    assert run["precision_report"]["full_precision"] is True
    assert run["precision_report"]["source"] == "server_log"
    assert (out / "server.log").read_text() == LOG.read_text()


def test_missing_server_log_is_a_one_line_error(server, tiny_tokenizer, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tokcheck", "bench", "--url", server.url, "--model", "scripted",
         "--tokenizer", str(tiny_tokenizer), "--out", str(tmp_path / "r"),
         "--server-log", str(tmp_path / "nope.log")],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: cannot read server log") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "r").exists()
