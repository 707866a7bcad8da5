"""llama.cpp end to end: the tiny Llama as GGUF F16, Q8_0 and Q4_K_M (llama.cpp's own
quantizer), each served by real llama-cpp-python and benched with exact input and output
lengths; the audit, the size and memory ordering, and quality against F16 asserted; then
`tokcheck serve --engine llama.cpp` as a user runs it, and a failed start as one line.

The llama.cpp environment is provisioned when missing (the `llama_python` fixture compiles it:
minutes the first time)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import httpx
import pytest

from procs import Output, group_members, kill_group, servers_on_port, wait_gone
from tokcheck.cli import main
from tokcheck.record.store import load_run, read_requests

pytestmark = pytest.mark.e2e

INPUT_LEN, OUTPUT_LEN, QUALITY_TOKENS = 32, 32, 64


def _llama_servers_on_port(port: int) -> list[int]:
    return servers_on_port(port, b"llama_cpp.server", pids=True)


@pytest.fixture(scope="module")
def demo(tiny_llama, llama_python, tmp_path_factory):
    """`tokcheck demo --engine llama.cpp --json`, small: (its JSON, its output folder)."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("llama-demo") / "demo"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["demo", "--engine", "llama.cpp", "--out", str(out), "--python",
                   str(llama_python), "--input-len", str(INPUT_LEN), "--output-len",
                   str(OUTPUT_LEN), "--concurrency", "2", "--rounds", "1", "--quality-tokens",
                   str(QUALITY_TOKENS), "--json"])
    assert rc == 0
    return json.loads(buf.getvalue()), out


def test_sizes_bits_and_memory_order_q4_k_m_below_q8_0_below_f16(demo):
    data, _ = demo
    rows = {r["precision"]: r for r in data["rows"]}
    assert list(rows) == ["F16", "Q8_0", "Q4_K_M"]
    for r in data["rows"]:  # the keys the guide's practice step names, first
        assert list(r)[:7] == ["precision", "file_bytes", "peak_rss_bytes", "ttft_ms",
                               "generation_tok_s", "output_throughput_tok_s", "token_agreement"]
    f16, q8, q4 = rows["F16"], rows["Q8_0"], rows["Q4_K_M"]
    assert q4["file_bytes"] < q8["file_bytes"] < f16["file_bytes"]
    # Memory in the files' order, as llama.cpp accounts the weights it holds (its log's model
    # buffers: Q4_K_M's plain and CPU-repacked buffers together).
    assert q4["model_buffer_bytes"] < q8["model_buffer_bytes"] < f16["model_buffer_bytes"]
    # The process's peak is recorded but its order is not asserted: the Python server's heap
    # moves by a few MB between starts, as much as the weights differ for this 7 MB model (CI
    # runs saw Q4_K_M's peak 0.7 MB above Q8_0's, and F16's 0.3 MB below Q8_0's); the output
    # says so when the peaks disagree with the files. The buffers above are the order that holds.
    assert all(r["peak_rss_bytes"] > r["model_buffer_bytes"] for r in data["rows"])
    # llama.cpp's exact sizes for the tiny model (3,410,176 weights): F16 16.01, Q8_0 8.52,
    # Q4_K_M 5.35 bits per weight (its Q4_K_M keeps the tied embeddings in Q6_K).
    assert (f16["bits_per_weight"], q8["bits_per_weight"], q4["bits_per_weight"]) == \
        (16.01, 8.52, 5.35)
    assert q4["tensor_types"] == {"F32": 9, "Q4_K": 24, "Q6_K": 5}
    for r in rows.values():
        assert r["ttft_ms"] > 0 and r["output_throughput_tok_s"] > 0
        assert r["engine_decode_tok_s"] > 0
        if r["generation_tok_s"] is None:
            # On a loaded machine a whole stream can arrive in one read: bench then withholds
            # TPOT for the level and says why (docs/measurement.md) rather than guess.
            lv = load_run(r["run_dirs"]["single"]).levels[0]
            assert "TPOT undefined" in lv.reason("generation_tok_s")
        else:
            assert r["generation_tok_s"] > 0


def test_exact_input_and_output_lengths_and_the_tokenizer(demo, tiny_llama):
    data, _ = demo
    for r in data["rows"]:
        assert r["tokenizer_identical"] is True  # the GGUF's tokenizer = tokenizer.json
        assert r["server_prompt_tokens"] == [INPUT_LEN]  # llama.cpp's own count of each prompt
        assert r["exact_output_len"] is True
        for run_dir in r["run_dirs"].values():
            reqs = read_requests(run_dir)
            assert reqs and all(q.ok and q.n_out_tokenizer == OUTPUT_LEN for q in reqs)
            assert all(q.finish_reason == "length" for q in reqs)
            run = load_run(run_dir)
            assert run.conditions.workload.extra_body == {"repeat_penalty": 1.0,
                                                          "logit_bias": {"2": -100}}
            assert all(lv.requests_failed == 0 and lv.early_stops == 0 for lv in run.levels)


def test_the_audit_of_each_file_and_each_server(demo):
    data, _ = demo
    rows = {r["precision"]: r for r in data["rows"]}
    assert rows["F16"]["verdict"] == "full precision"
    assert rows["Q8_0"]["verdict"] == rows["Q4_K_M"]["verdict"] == "quantized"
    for prec, method, bpw, file_type in (("F16", None, 16.01, "F16"),
                                         ("Q4_K_M", "Q4_K_M", 5.35, "Q4_K - Medium")):
        run = load_run(rows[prec]["run_dirs"]["single"])
        pr = run.conditions.precision_report.model_dump()
        er = run.conditions.engine_report.model_dump()
        assert er["engine"] == "llama.cpp" and er["version"] == "0.3.36"
        assert er["file_type"] == file_type and er["bits_per_weight"] == bpw
        assert er["threads"] == 1 and run.conditions.serve.model_dump()["threads"] == 1
        assert pr["bits_per_weight"] == bpw
        if prec == "F16":
            assert pr["verdict"] == "full precision" and pr["precision"].startswith("FP16")
        else:
            assert pr["verdict"] == "quantized" and pr["method"] == method


def test_quality_against_f16(demo):
    data, out = demo
    rows = {r["precision"]: r for r in data["rows"]}
    assert rows["F16"]["token_agreement"] == 1.0  # deterministic greedy decoding
    assert rows["F16"]["first_divergence"] is None
    assert rows["F16"]["mean_abs_logprob_diff"] < 1e-3
    q4 = rows["Q4_K_M"]
    assert 0 < q4["token_agreement"] < 1.0 and q4["first_divergence"] is not None
    assert q4["mean_abs_logprob_diff"] > 10 * rows["F16"]["mean_abs_logprob_diff"]
    assert rows["Q8_0"]["token_agreement"] is not None
    q = data["quality"]["Q4_K_M"]
    assert q["prompts"] == 8 and all(p["ref_tokens"] == QUALITY_TOKENS for p in q["per_prompt"])
    report = (out / "report.html").read_text()
    assert "F16 vs Q8_0 vs Q4_K_M" in report and "token agreement with F16" in report
    assert any(x.startswith("Q8_0 reads 1.85x fewer bytes per token than F16; the client "
                            "measured") for x in data["explanation"])
    assert any(x.startswith("Q4_K_M reads 2.88x fewer bytes per token than F16")
               for x in data["explanation"])


def test_serve_cli_runs_until_ctrl_c(tiny_llama, llama_python, tmp_path):
    from tokcheck.engines.gguf_convert import write_llama_gguf

    gguf = write_llama_gguf(tiny_llama, tmp_path / "tiny-f16.gguf", "F16")
    argv = [sys.executable, "-m", "tokcheck", "serve", "--engine", "llama.cpp", "--model",
            str(gguf), "--python", str(llama_python), "--port", "0", "--max-model-len", "1024",
            "--threads", "1", "--batch-size", "256", "--served-model-name", "tiny",
            "--log-dir", str(tmp_path)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "COLUMNS": "200", "PORT": "1", "HOST": "x"},
                            start_new_session=True)
    out = Output(proc)
    engine = None
    try:
        line = out.wait_for(r"^Serving .* at (http://\S+)/v1", 120)
        url = re.search(r"at (http://\S+)/v1", line).group(1)
        port = int(url.rsplit(":", 1)[1])
        engine = _llama_servers_on_port(port)[0]
        text = out.text()
        assert re.search(r"file type\s+│ F16", text) and re.search(r"threads\s+│ 1", text)
        assert re.search(r"max_seq_len\s+│ 1024", text) and re.search(r"batch size\s+│ 256", text)
        assert "Precision: full precision (FP16" in text
        assert httpx.get(f"{url}/v1/models", trust_env=False).json()["data"][0]["id"] == "tiny"
        os.killpg(proc.pid, signal.SIGINT)
        out.wait_for(r"^Stopped\.", 30)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            kill_group(proc.pid)
            proc.wait()
        if engine is not None:
            kill_group(engine)
    assert proc.returncode == 0, out.text()
    assert wait_gone([engine], 10) == [] and group_members(engine) == []
    assert _llama_servers_on_port(port) == []


def test_a_failed_start_is_one_line(tiny_llama, llama_python, tmp_path, capsys):
    from tokcheck.engines.gguf_convert import write_llama_gguf

    gguf = write_llama_gguf(tiny_llama, tmp_path / "cut.gguf", "F16")
    data = gguf.read_bytes()
    gguf.write_bytes(data[: len(data) // 2])  # the tensor data ends early
    rc = main(["serve", "--engine", "llama.cpp", "--model", str(gguf), "--python",
               str(llama_python), "--port", "0", "--log-dir", str(tmp_path / "log")])
    lines = capsys.readouterr().err.splitlines()
    # progress ("Starting llama.cpp: …", "  log: …"), then the error: one line, no traceback
    assert rc == 1 and [ln for ln in lines if ln.startswith("Error")] == lines[-1:]
    assert not any("Traceback" in ln for ln in lines)
    assert lines[-1].startswith(f"Error: llama.cpp could not load {gguf}: tensor '")
    assert "data is not within the file bounds, model is corrupted or incomplete (log: " \
        in lines[-1]
