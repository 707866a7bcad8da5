"""R3 precision audit on directories written here with the safetensors and gguf libraries
(F16/F32/int tensors via numpy; BF16 and FP8 need torch: tests/e2e/test_inspect_real_models.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tokcheck.errors import TokcheckError
from tokcheck.machine.weights import audit_model_dir, audit_server_log, combine, conditions_from_server_log

FIXTURES = Path(__file__).parent.parent / "fixtures"
LOGS = FIXTURES / "vllm_logs"


def write_model(d: Path, tensors: dict, config: dict | None = None, name="model.safetensors"):
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(config or {"architectures": ["LlamaForCausalLM"],
                                                        "torch_dtype": "float16"}))
    save_file(tensors, str(d / name))
    return d


def test_fp16_directory_is_full_precision(tmp_path):
    d = write_model(tmp_path / "m", {"w": np.zeros((64, 32), np.float16),
                                     "norm": np.ones(32, np.float32)})
    r = audit_model_dir(d)
    assert r.full_precision is True and r.verdict == "full precision"
    assert r.precision == "FP16 (with F32)"
    assert r.parameter_count == 64 * 32 + 32
    assert r.bytes_by_dtype == {"F16": 64 * 32 * 2, "F32": 32 * 4}
    assert r.weight_bytes == 64 * 32 * 2 + 32 * 4
    assert r.quantized_bytes_share == 0
    assert r.config_dtype == "float16"


def test_sharded_checkpoint_is_read_through_its_index(tmp_path):
    d = tmp_path / "m"
    write_model(d, {"a": np.zeros((10, 10), np.float32)}, name="model-00001-of-00002.safetensors")
    save_file({"b": np.zeros((5,), np.float32)}, str(d / "model-00002-of-00002.safetensors"))
    save_file({"stale": np.zeros((1000,), np.float32)}, str(d / "old.safetensors"))
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    r = audit_model_dir(d)
    assert r.parameter_count == 105  # old.safetensors is not in the index
    assert any("old.safetensors is not in" in x for x in r.reasons)
    (d / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(TokcheckError, match="missing: model-00002-of-00002"):
        audit_model_dir(d)


def test_gptq_style_checkpoint_is_quantized(tmp_path):
    d = write_model(tmp_path / "m", {
        "layers.0.mlp.qweight": np.zeros((32, 64), np.int32),
        "layers.0.mlp.qzeros": np.zeros((2, 64), np.int32),
        "layers.0.mlp.scales": np.zeros((2, 512), np.float16),
        "embed.weight": np.zeros((100, 64), np.float16),
    })
    (d / "quantize_config.json").write_text(json.dumps({"bits": 4, "group_size": 128}))
    r = audit_model_dir(d)
    assert r.full_precision is False and r.verdict == "quantized"
    assert r.artifacts == ["quantize_config.json"]
    assert 0 < r.quantized_bytes_share < 1
    assert r.method == "gptq/awq (packed int4)"


def test_quantization_config_over_16_bit_tensors_is_inconsistent(tmp_path):
    """AWQ checkpoints store packed int32 ``qweight`` tensors (AutoAWQ): a config declaring AWQ
    over F16 tensors contradicts its weights — neither full precision nor AWQ."""
    cfg = {"architectures": ["X"], "quantization_config": {"quant_method": "awq", "bits": 4,
                                                            "group_size": 128}}
    d = write_model(tmp_path / "m", {"w": np.zeros((4, 4), np.float16)}, config=cfg)
    r = audit_model_dir(d)
    assert r.full_precision is None and r.verdict == "inconsistent" and r.consistent is False
    assert r.method is None
    assert "quant_method=awq, bits=4, group_size=128" in r.reasons[0]


def test_a_config_that_quantizes_while_loading_is_quantized_over_16_bit_tensors(tmp_path):
    """bitsandbytes quantizes 16-bit weights as it loads them (``load_in_4bit``): the config
    alone makes the served model quantized."""
    cfg = {"architectures": ["X"], "quantization_config": {"quant_method": "bitsandbytes",
                                                            "load_in_4bit": True}}
    d = write_model(tmp_path / "m", {"w": np.zeros((4, 4), np.float16)}, config=cfg)
    r = audit_model_dir(d)
    assert r.full_precision is False and r.method == "bitsandbytes"
    assert r.consistent is True


def test_name_artifacts_and_mixed_formats_are_flagged(tmp_path):
    d = write_model(tmp_path / "m", {"w": np.zeros((4, 4), np.float16)},
                    name="model-gptq-4bit.safetensors")
    (d / "pytorch_model.bin").write_bytes(b"not read")
    r = audit_model_dir(d)
    assert r.full_precision is False
    assert r.artifacts == ["model-gptq-4bit.safetensors"]
    assert any("mixed weight formats" in x for x in r.reasons)
    assert any("not inspected" in x for x in r.reasons)


def write_gguf(path: Path, quantized: bool) -> Path:
    from gguf import GGMLQuantizationType, GGUFWriter
    from gguf.quants import quantize

    w = GGUFWriter(str(path), "llama")
    w.add_block_count(1)
    a = np.linspace(-1, 1, 64 * 256, dtype=np.float32).reshape(64, 256)
    if quantized:
        w.add_tensor("blk.0.ffn_up.weight", quantize(a, GGMLQuantizationType.Q8_0),
                     raw_dtype=GGMLQuantizationType.Q8_0)
    else:
        w.add_tensor("blk.0.ffn_up.weight", a.astype(np.float16))
    w.add_tensor("output_norm.weight", np.ones(256, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_gguf_f16_is_full_precision_and_q8_0_is_not(tmp_path):
    (tmp_path / "f16").mkdir()
    r = audit_model_dir(write_gguf(tmp_path / "f16" / "m.gguf", quantized=False).parent)
    assert r.full_precision is True and r.precision == "FP16 (with F32)"
    assert r.parameter_count == 64 * 256 + 256
    r = audit_model_dir(write_gguf(tmp_path / "q8.gguf", quantized=True))  # a file, no config
    assert r.full_precision is False and r.method == "gguf"
    assert r.bytes_by_dtype["GGUF_Q8_0"] == 64 * 256 // 32 * 34  # 34-byte blocks of 32 values
    assert "blk.0.ffn_up.weight (Q8_0)" in " ".join(r.reasons)


@pytest.mark.parametrize("setup, message", [
    (lambda d: None, "no such model directory"),
    (lambda d: d.mkdir(), "no config.json"),
    (lambda d: (d.mkdir(), (d / "config.json").write_text("{}")), "no weight files"),
    (lambda d: (d.mkdir(), (d / "config.json").write_text("{nope"),
                save_file({"w": np.zeros(2, np.float32)}, str(d / "m.safetensors"))),
     "cannot read"),
    (lambda d: (d.mkdir(), (d / "config.json").write_text("{}"),
                (d / "m.safetensors").write_bytes(b"\x00" * 20)), "safetensors header"),
])
def test_bad_inputs_are_one_line_errors(tmp_path, setup, message):
    d = tmp_path / "model"
    setup(d)
    with pytest.raises(TokcheckError, match=message) as err:
        audit_model_dir(d)
    assert "\n" not in str(err.value)


def test_server_log_of_a_bf16_start_is_full_precision():
    r = audit_server_log((LOGS / "start-ok-eager.log").read_text())
    assert r.full_precision is True and r.precision == "BF16"
    assert r.kv_cache_dtype == "auto"


@pytest.mark.parametrize("old, new, method", [
    ("quantization=None,", "quantization=gptq_marlin,", "gptq_marlin"),
    ("quantization=None,", "quantization=compressed-tensors,", "compressed-tensors"),
    ("kv_cache_dtype=auto", "kv_cache_dtype=fp8", "kv_cache:fp8"),
])
def test_server_log_stating_quantization_is_not_full_precision(old, new, method):
    text = (LOGS / "start-ok-eager.log").read_text().replace(old, new, 1)
    r = audit_server_log(text)
    assert r.full_precision is False and r.method == method


SGLANG_START = "[2026-11-30 03:00:00] server_args=ServerArgs(model_path='/m', dtype='auto')\n"
TGI_START = "2026-11-30T03:00:00Z  INFO text_generation_launcher: Args { model_id: \"/m\" }\n"


def test_other_engines_logs_are_searched_for_method_names():
    r = audit_server_log(SGLANG_START + "INFO Using W8A8 quantization kernels\n")
    assert r.full_precision is False and r.method == "w8a8"
    # llama.cpp's own lines are read by its engine's parser: the file type names the method.
    r = audit_server_log("llama_model_loader: loaded meta data\nprint_info: file type = Q4_K - "
                         "Medium\nprint_info: quantization = gguf\n")
    assert r.full_precision is False and r.method == "Q4_K_M"
    r = audit_server_log(TGI_START + "INFO server started\n")
    assert r.full_precision is None and r.verdict == "unknown"


@pytest.mark.parametrize("text", [
    (FIXTURES / "not_server_logs" / "claim-fp8.txt").read_text(),
    "INFO loading weights\nINFO Using W8A8 quantization kernels\n",
    "quantization: AWQ weights\n",
])
def test_a_text_without_engine_start_up_lines_is_unknown(text):
    """A saved `tokcheck claim` output that says "FP8" is not a server that loaded FP8."""
    r = audit_server_log(text)
    assert r.full_precision is None and r.verdict == "unknown" and r.method is None
    assert r.reasons == [r.reasons[0]] and "no engine start-up lines found" in r.reasons[0]


def test_combine_and_conditions(tmp_path):
    d = write_model(tmp_path / "m", {"w": np.zeros((4, 4), np.float16)})
    log = audit_server_log((LOGS / "start-ok-eager.log").read_text())
    both = combine(audit_model_dir(d), log)
    assert both.full_precision is True and both.source == "model_dir+server_log"
    quant = audit_server_log(TGI_START + "quantization: AWQ weights\n")
    assert combine(audit_model_dir(d), quant).full_precision is False
    cond = conditions_from_server_log(LOGS / "start-ok-eager.log")
    assert cond["engine_report"]["version"] == "0.32.0"
    assert cond["precision_report"]["full_precision"] is True
    with pytest.raises(TokcheckError, match="cannot read server log"):
        conditions_from_server_log(tmp_path / "nope.log")
