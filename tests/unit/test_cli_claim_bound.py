"""The claim and bound commands through the real CLI (in-process and in a subprocess)."""

import json
import subprocess
import sys

import pytest

from tokcheck.cli import main

README_CLAIM = "DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"


def _run(*args):
    return subprocess.run([sys.executable, "-m", "tokcheck", *args], capture_output=True, text=True,
                          env={"COLUMNS": "160", "PATH": "/usr/bin:/bin"})


def test_readme_first_command_report():
    out = _run("claim", README_CLAIM, "--gpu", "H200")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "missing" in text and "reference impression only" in text
    assert "find_string" not in text and "search:" not in text  # the catalog's search handles stay in the data
    assert "BF16" in text and "569 GB" in text  # what full precision means, and its size
    assert "hard bound" in text and "fits" in text and "Precision readings" in text
    assert "not stated" in text and "2× H200" in text  # the unstated count is sized to the weights
    assert "Verdict: plausible" in text


def test_readme_claim_without_gpu_prints_requirements():
    out = _run("claim", README_CLAIM)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "no GPU stated" in text and "bytes per token" in text and "569 GB" in text
    assert "Requirements at BF16" in text and "Requirements at released" in text


def test_claim_json_keys(capsys):
    assert main(["claim", README_CLAIM, "--gpu", "H200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("fields", "missing", "present_count", "reference_only", "bound", "memory", "verdict", "explanations"):
        assert key in data
    assert set(data["bound"]) >= {"bytes_per_token", "hard_tok_s", "realistic_tok_s", "context_tokens"}
    assert set(data["memory"]) >= {"required_bytes", "available_bytes", "fits"}
    assert data["fields"]["gpu"] == "H200"


def test_claim_options_override(capsys):
    assert main(["claim", "Qwen3-32B at 58 tok/s", "--gpu", "H200", "--concurrency", "1", "--input-len", "2000",
                 "--output-len", "1000", "--metric", "generation_tok_s", "--engine", "vLLM", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fields"]["concurrency"] == 1 and data["bound"]["context_tokens"] == 2500
    assert data["fields"]["engine"] == "vLLM" and data["verdict"] == "plausible"


def test_claim_with_model_config_and_bandwidth(tmp_path, capsys):
    cfg = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 4096, "tie_word_embeddings": True}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["claim", "tiny at 300 tok/s, single request", "--model-config", str(tmp_path),
                 "--bandwidth", "50GB/s", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "plausible"
    assert data["bound"]["bandwidth_bytes_per_s"] == 50e9


def test_bound_weights_seed_example(capsys):
    assert main(["bound", "--weights", "120GB", "--bandwidth", "3.3TB/s", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bound"]["hard_tok_s"] == pytest.approx(27.5)


def test_bound_model_json(capsys):
    assert main(["bound", "--model", "Qwen3-30B-A3B", "--gpu", "H100", "--concurrency", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["memory"]["fits"] is True and data["bound"]["aggregate"]["concurrency"] == 8
    assert [o["precision"] for o in data["precision_options"]] == ["BF16", "FP8", "INT4"]
    # a MoE: decode reads the active parameters (Qwen3-30B-A3B's card: 30.5 B total, 3.3 B active)
    p = data["parameters"]
    assert p["experts"] == 128 and p["experts_per_token"] == 8
    assert 30.0e9 < p["total"] < 31.0e9 and 3.2e9 < p["active_per_token"] < 3.5e9
    out = _run("bound", "--model", "Qwen3-30B-A3B", "--gpu", "H100")
    assert out.stdout.startswith("Qwen3-30B-A3B: 30.5 B parameters, 3.4 B active per token; a mixture of experts")


def test_bound_terminal_report():
    out = _run("bound", "--model", "llama-3.1-8b", "--gpu", "4090", "--precision", "FP8")
    assert out.returncode == 0, out.stderr
    assert "hard bound" in out.stdout and "Precision options" in out.stdout


@pytest.mark.parametrize("args", [
    ["claim", ""],
    ["claim", "DeepSeek V4 Flash is very fast"],
    ["claim", "Llama 3.1 8B at 50 tok/s", "--gpu", "H2000"],
    ["claim", "Llama 3.1 8B at -50 tok/s"],
    ["claim", "Llama 3.1 8B at 9e12 tok/s"],
    ["claim", "Llama 3.1 8B at 50 tok/s", "--concurrency", "-4"],
    ["claim", "Llama 3.1 8B at 50 tok/s", "--model", "Llama 9"],
    ["claim", "Llama 3.1 8B at 50 tok/s", "--precision", "FP7"],
    ["bound", "--model", "nonexistent-model", "--gpu", "H100"],
    ["bound", "--weights=-5GB", "--gpu", "H100"],
    ["bound", "--weights", "120GB", "--bandwidth", "fast"],
    ["bound", "--model", "qwen3-8b", "--gpu", "H100", "--max-model-len", "0"],
    ["bound", "--model", "qwen3-8b", "--gpu", "H100", "--gpu-memory-utilization", "1.5"],
    ["bound", "--model-config", "/nonexistent/config.json"],
])
def test_bad_input_is_one_line_error_exit_1(args):
    out = _run(*args)
    assert out.returncode == 1, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert "Traceback" not in out.stderr


def test_bound_model_directory_and_speculative_decoding(tmp_path, capsys):
    cfg = {"model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
           "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
           "tie_word_embeddings": True}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["bound", "--model", str(tmp_path), "--bandwidth", "1TB/s", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["bound"]
    assert main(["bound", "--model", str(tmp_path), "--bandwidth", "1TB/s", "--acceptance-rate", "0.7",
                 "--draft-tokens", "2", "--json"]) == 0
    spec = json.loads(capsys.readouterr().out)["bound"]
    assert spec["tokens_per_step"] == pytest.approx(1 + 0.7 + 0.49)
    assert spec["hard_tok_s"] > plain["hard_tok_s"]


@pytest.mark.parametrize("weights, claim, verdict", [
    ("3GB", "single request 278 tok/s", "plausible"),
    ("140GB", "single request 278 tok/s", "implausible"),
    ("140GB", "278 tok/s", "needs_explanation"),
])
def test_seed_table_through_the_cli(capsys, weights, claim, verdict):
    assert main(["claim", claim, "--weights", weights, "--gpu", "H100", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == verdict


def test_every_figure_is_listed_with_its_role_and_the_judged_one_marked():
    """Two figures of one text: the prompt-processing rate is listed as prefill, the generation
    rate is the one judged (the headline rule: prefill figures drop out)."""
    out = _run("claim", "Qwen3-30B-A3B Q4_K_M on an RTX 4090 with llama.cpp: prompt processing "
                        "4668 tok/s, generation 93 tok/s")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    start = lines.index(next(x for x in lines if x.startswith("Figures (▶ the one judged)")))
    rows = [x.split() for x in lines[start + 3:start + 5]]
    assert rows[0][:4] == ["4668", "tok/s", "prefill", "(prompt"]
    assert rows[1][:4] == ["▶", "93", "tok/s", "generation"]
    one = _run("claim", "Llama 3.1 8B at 95 tok/s on one H100 SXM")
    assert "Figures (" not in one.stdout  # a single figure needs no list
