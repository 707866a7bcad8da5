"""`tokcheck compare` on real runs and `compare --quality` against two live vLLM servers (CPU):
the tiny model as built (BF16) and a copy whose weights were rounded to a 4-bit grid
(symmetric, per row) and stored back in BF16 — "fake INT4", a stand-in for a quantized model's
weight error that vLLM for the CPU can serve."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tokcheck.cli import main
from tokcheck.flows.pipeline import bench_served, serve_model

pytestmark = pytest.mark.e2e

_FAKE_INT4 = textwrap.dedent("""
    import sys, torch
    from safetensors.torch import load_file, save_file
    path = sys.argv[1]
    tensors = load_file(path)
    for name, w in tensors.items():
        if w.ndim == 2:  # linear and embedding weights; norms stay as they are
            scale = w.float().abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 7
            tensors[name] = (torch.clamp(torch.round(w.float() / scale), -8, 7) * scale).to(w.dtype)
    save_file(tensors, path, metadata={"format": "pt"})
""")


@pytest.fixture(scope="module")
def fake_int4_model(tiny_llama, vllm_python, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fake-int4") / "tiny-llama-fake-int4"
    shutil.copytree(tiny_llama, out)
    subprocess.run([str(vllm_python), "-c", _FAKE_INT4, str(out / "model.safetensors")], check=True,
                   capture_output=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def two_servers(tiny_llama, fake_int4_model, vllm_python, tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    # Both start at once (start-up is mostly waiting on imports and the engine's warm-up);
    # the ExitStack stops whichever started, whatever happens.
    with contextlib.ExitStack() as stack, ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(stack.enter_context,
                               serve_model(model, python=str(vllm_python), max_model_len=512, enforce_eager=True,
                                           served_model_name="tiny", log_dir=logs / name))
                   for model, name in ((tiny_llama, "bf16"), (fake_int4_model, "int4"))]
        a, b = (f.result() for f in futures)
        yield a, b


def test_compare_real_runs(two_servers, tiny_llama, fake_int4_model, tmp_path, capsys):
    a, b = two_servers
    for server, model, name in ((a, tiny_llama, "bf16"), (b, fake_int4_model, "fake-int4")):
        bench_served(server, tmp_path / name, model_dir=model, input_len=32, output_len=24,
                     concurrency=[1], rounds=2, requests_per_round=3, warmup=1)
    md, tjl = tmp_path / "compare.md", tmp_path / "texts.jsonl"
    assert main(["compare", str(tmp_path / "bf16"), str(tmp_path / "fake-int4"), "--json",
                 "--md", str(md), "--texts-jsonl", str(tjl), "--quality"]) == 0
    d = json.loads(capsys.readouterr().out)
    # same dtype, lengths, concurrency, prompts and engine settings: comparable (the weights differ)
    assert d["comparable"] is True, d["differ"]
    assert d["settings"][0]["prompts"] == d["settings"][1]["prompts"]
    rows = {r["metric"]: r for r in d["side_by_side"]}
    assert all(v > 0 for v in rows["median TTFT"]["values"])
    assert all(v > 0 for v in rows["aggregate output throughput"]["values"])
    assert rows["errors"]["values"] == [0, 0]
    assert len(d["text_samples"]) == 6
    q = d["quality"]
    assert q["prompts"] == 6 and 0.0 <= q["mean_token_agreement"] <= 1.0
    assert len(tjl.read_text().splitlines()) == 6
    assert "COMPARABLE" in md.read_text()


def test_quality_live_against_two_servers(two_servers, capsys):
    a, b = two_servers
    assert main(["compare", "--quality", "--url", a.url, "--url", a.url, "--served-model", "tiny",
                 "--max-tokens", "24", "--json"]) == 0
    same = json.loads(capsys.readouterr().out)["quality"]
    # the same server twice: greedy outputs identical, its logprobs of its own tokens unchanged
    assert same["identical"] == same["prompts"] == 8
    assert same["mean_token_agreement"] == 1.0
    assert abs(same["mean_logprob_diff"]) < 1e-3

    assert main(["compare", "--quality", "--url", a.url, "--url", b.url, "--served-model", "tiny",
                 "--max-tokens", "24", "--json"]) == 0
    q = json.loads(capsys.readouterr().out)["quality"]
    assert q["prompts"] == 8
    # the 4-bit-rounded weights move the distribution: B scores A's tokens differently
    assert q["mean_logprob_diff"] is not None
    assert abs(q["mean_logprob_diff"]) > 10 * max(abs(same["mean_logprob_diff"]), 1e-4)
    for p in q["per_prompt"]:
        assert p["ref_tokens"] == 24
        assert (p["first_divergence"] is None) == (p["agreement"] == 1.0)
