"""The ``tokcheck bench`` command as a user runs it: a subprocess against the scripted server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time


def cli(*args, **kw):
    return [sys.executable, "-m", "tokcheck", "bench", *args]


def base_args(server, tokenizer, out):
    return ["--url", server.url, "--model", "scripted", "--tokenizer", str(tokenizer), "--input-len", "20",
            "--output-len", "8", "--out", str(out)]


def test_json_summary_and_complete_run_directory(server, tiny_tokenizer, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, out), "--concurrency", "1,2", "--rounds", "3",
                              "--json", "--api-key", "sk-secret-xyz"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert [lv["concurrency"] for lv in summary["levels"]] == [1, 2]
    for lv in summary["levels"]:
        for name in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_latency_ms", "generation_tok_s", "e2e_tok_s",
                     "queue_delay_ms", "tokens_per_chunk"):
            assert set(lv[name]) >= {"mean", "median", "p90", "p99", "rounds", "spread"}
            assert len(lv[name]["rounds"]) == 3
        assert lv["output_throughput_tok_s"] > 0 and lv["requests_failed"] == 0
    assert {p.name for p in out.iterdir()} == {"run.json", "requests.jsonl", "summary.json"}
    run = json.loads((out / "run.json").read_text())
    for key in ("tokcheck_version", "schema_version", "run_id", "created_at", "clock", "endpoint", "server",
                "tokenizer", "workload", "load", "stream_options", "client"):
        assert key in run, key
    assert run["endpoint"] == {"url": server.url, "api": "completions", "model": "scripted"}
    assert run["server"] == {"version": "scripted-1", "models": ["scripted"]}
    # --json is summary.json plus the run read under other tools' definitions, per level
    assert set(summary["definitions"]) == {"c=1", "c=2"}
    assert set(summary["definitions"]["c=1"]) == {"tokcheck", "vllm-bench", "guidellm", "aiperf"}
    assert summary["definitions_sources"]["vllm-bench"]["version"] == "vLLM 0.32.0"
    stored = {k: v for k, v in summary.items() if not k.startswith("definitions")}
    assert json.loads((out / "summary.json").read_text()) == stored
    for f in out.iterdir():
        assert "sk-secret-xyz" not in f.read_text()


def test_openai_api_key_from_the_environment_is_not_written(server, tiny_tokenizer, tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "sk-env-secret-42"}
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, out), "--rounds", "1"), capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "TTFT" in proc.stdout  # the final table
    for f in out.iterdir():
        assert "sk-env-secret-42" not in f.read_text()


def test_bad_input_is_one_line_and_exit_1(server, tiny_tokenizer, tmp_path):
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, tmp_path / "r"), "--concurrency", "0"),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("Error: ") and proc.stderr.count("\n") == 1
    proc = subprocess.run(cli("--url", server.url, "--model", "m", "--tokenizer", str(tmp_path)),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "no tokenizer.json" in proc.stderr and "Traceback" not in proc.stderr


def test_unreachable_server_is_one_line_on_stderr(tiny_tokenizer, tmp_path):
    # port 9 (discard) has no listener on loopback: the error comes once the run has started
    # (the live display must not leave an empty line above it)
    proc = subprocess.run(cli("--url", "http://127.0.0.1:9", "--model", "x", "--tokenizer", str(tiny_tokenizer),
                              "--out", str(tmp_path / "r")), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: cannot reach the server") and proc.stderr.count("\n") == 1
    assert "nothing is listening on 127.0.0.1:9" in proc.stderr and "Error:" not in proc.stderr[7:]


def test_ctrl_c_keeps_every_completed_request(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=10)  # ~0.2 s per request
    out = tmp_path / "run"
    proc = subprocess.Popen(cli(*base_args(server, tiny_tokenizer, out), "--output-len", "20", "--rounds", "1",
                                "--requests-per-round", "200", "--concurrency", "2"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    jsonl = out / "requests.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if jsonl.exists() and jsonl.read_text().count("\n") >= 5:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Interrupted." in stderr and "Traceback" not in stderr
    assert f"the partial record is in {out}" in " ".join(stderr.split())
    lines = jsonl.read_text().splitlines()
    assert 5 <= len(lines) < 201
    recs = [json.loads(line) for line in lines]  # every line whole
    assert all(r["error"] is None for r in recs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    measured = [r for r in recs if not r["warmup"]]
    assert summary["levels"][0]["requests_ok"] == len(measured)
    assert json.loads((out / "run.json").read_text())["interrupted"] is True


def test_open_loop_from_the_command_line(server, tiny_tokenizer, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, out), "--request-rate", "20,40", "--max-in-flight",
                              "4", "--rounds", "1", "--requests-per-round", "10", "--json"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    levels = json.loads(proc.stdout)["levels"]
    # the cap on requests in flight is max_in_flight, not a concurrency (schema 2)
    assert [(lv["label"], lv["request_rate"], lv["concurrency"], lv["max_in_flight"]) for lv in levels] == [
        ("rate=20", 20.0, None, 4), ("rate=40", 40.0, None, 4)]
    run = json.loads((out / "run.json").read_text())
    assert run["load"]["mode"] == "open" and run["load"]["max_in_flight"] == 4
    assert all(lv["queue_delay_ms"] is not None and lv["ttft_from_due_ms"] is not None for lv in levels)


def test_closed_and_open_loop_options_do_not_mix(server, tiny_tokenizer, tmp_path):
    for extra in (["--request-rate", "2", "--concurrency", "4"], ["--max-in-flight", "4"]):
        proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, tmp_path / "r"), *extra),
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and proc.stderr.startswith("Error: ")


def test_the_table_says_when_forcing_fell_back_or_prompt_counts_differ(server, tiny_tokenizer, tmp_path):
    server.script(reject_params=["min_tokens"], prompt_off_by=2)
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, tmp_path / "run"), "--rounds", "1"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "forced with max_tokens only" in out
    assert "20 tokens in the given tokenizer, 22 by the server" in out


def test_the_table_shows_the_range_of_all_rounds(server, tiny_tokenizer, tmp_path):
    # with three rounds the kept rounds are one: the table must show all rounds' range instead of ±0
    out = tmp_path / "run"
    proc = subprocess.run(cli(*base_args(server, tiny_tokenizer, out), "--rounds", "3", "--no-telemetry"),
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    ttft = summary["levels"][0]["ttft_ms"]
    lo, hi = min(ttft["rounds"]), max(ttft["rounds"])
    assert ttft["range_all"] == [lo, hi] and ttft["spread"] == hi - lo and ttft["spread_kept"] == 0
    row = next(line for line in proc.stdout.splitlines() if line.lstrip("│ ").startswith("TTFT ms"))
    assert f"({lo:,.1f}–{hi:,.1f})" in row
    assert "share of tokens in coalesced reads" in proc.stdout and "TPOT undefined" in proc.stdout
