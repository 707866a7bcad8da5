"""The evidence receipt: every file's SHA-256 and the run's conditions, and its check."""

from __future__ import annotations

import hashlib
import json

from rundirs import CPU_ENVIRONMENT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.cli import main
from tokcheck.record.receipt import check_receipt, make_receipt


def _run(tmp_path):
    er = {**VLLM_CPU_ENGINE_REPORT, "non_default_args": {"max_model_len": 2048, "enforce_eager": True}}
    env = {**CPU_ENVIRONMENT, "gpu": {"available": True, "driver_version": "570.124.06", "cuda_driver_version": "12.8",
                                      "gpus": [{"index": 0, "name": "NVIDIA H200", "memory_total_bytes": 150754820096,
                                                "power_limit_w": 700.0, "sm_clock_max_mhz": 1980}]}}
    return write_run_dir(tmp_path / "run", levels={1: {"ttft_ms": 10, "gen_tok_s": 300}}, engine_report=er,
                         environment=env, server_log="INFO vLLM 0.32.0\n")


def test_receipt_hashes_every_file_and_gathers_the_conditions(tmp_path):
    run = _run(tmp_path)
    r = make_receipt(run)
    assert set(r["files"]) == {"run.json", "summary.json", "requests.jsonl", "server.log"}
    raw = (run / "requests.jsonl").read_bytes()
    assert r["files"]["requests.jsonl"] == {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    c = r["conditions"]
    assert c["gpu"]["driver_version"] == "570.124.06"
    assert c["gpu"]["gpus"] == [{"index": 0, "name": "NVIDIA H200", "memory_total_bytes": 150754820096,
                                 "power_limit_w": 700.0, "sm_clock_max_mhz": 1980}]
    assert c["engine_flags"] == {"max_model_len": 2048, "enforce_eager": True}
    assert c["engine"]["version"] == "0.32.0" and c["workload"]["input_len"] == 128
    assert c["client_health"] is None and "no client health" in c["client_health_reason"]
    # the digest is the SHA-256 of the canonical JSON of everything else
    body = {k: v for k, v in r.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert r["digest"] == hashlib.sha256(text.encode()).hexdigest()
    assert json.loads((run / "receipt.json").read_text()) == r
    assert check_receipt(run).ok


def test_check_finds_changed_missing_and_added_files(tmp_path, capsys):
    run = _run(tmp_path)
    make_receipt(run)
    assert main(["receipt", "--check", str(run)]) == 0
    assert "receipt OK" in capsys.readouterr().out
    # one byte of one request changed
    lines = (run / "requests.jsonl").read_text().splitlines()
    lines[0] = lines[0].replace('"ttft_ms": 10.0', '"ttft_ms": 1.0')
    (run / "requests.jsonl").write_text("\n".join(lines) + "\n")
    (run / "server.log").unlink()
    (run / "notes.txt").write_text("added later")
    check = check_receipt(run)
    assert not check.ok and check.digest_ok
    assert check.changed == ["requests.jsonl"] and check.missing == ["server.log"] and check.added == ["notes.txt"]
    assert main(["receipt", "--check", str(run)]) == 1
    out = capsys.readouterr().out
    assert "changed: requests.jsonl" in out and "missing: server.log" in out and "added: notes.txt" in out


def test_an_edited_receipt_fails_its_digest(tmp_path):
    run = _run(tmp_path)
    r = make_receipt(run)
    r["conditions"]["gpu"]["gpus"][0]["name"] = "NVIDIA B200"
    (run / "receipt.json").write_text(json.dumps(r))
    check = check_receipt(run)
    assert not check.digest_ok and not check.ok and not check.changed


def test_errors_are_one_line(tmp_path, capsys):
    assert main(["receipt", str(tmp_path)]) == 1
    assert "no run.json" in capsys.readouterr().err
    run = _run(tmp_path)
    assert main(["receipt", "--check", str(run)]) == 1
    err = capsys.readouterr().err
    assert "has no receipt.json" in err and err.count("\n") == 1
