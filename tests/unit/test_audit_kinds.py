"""The precision audit, engine-neutral and cross-checked: each kind of input with its true
value. Inputs are made up in the shapes real tools write; where each shape comes from is said
beside it."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tokcheck.cli import main
from tokcheck.machine.telemetry import (cross_check_generation_tokens, metrics_delta,
                                        parse_server_metrics)
from tokcheck.machine.weights import (audit_model_dir, audit_server_log, combine,
                                      compressed_tensors_scheme)

FIXTURES = Path(__file__).parent.parent / "fixtures"
LLAMA_LOGS = FIXTURES / "llama_cpp_logs"
VLLM_LOGS = FIXTURES / "vllm_logs"

# ---------------------------------------------------------------------------------------------
# GGUF files: the file type, its bits per weight and the tensor types


def _gguf(path: Path, file_type: int, tensors: list[tuple[str, str, int, int]]) -> Path:
    """A GGUF file with ``general.file_type`` = ``file_type`` (llama.cpp's llama_ftype) and
    tensors ``(name, ggml type, rows, cols)`` whose bytes are the type's block layout (gguf-py's
    GGML_QUANT_SIZES: Q4_K 144 bytes per 256 weights, Q6_K 210, Q8_0 34 per 32)."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFWriter

    w = GGUFWriter(str(path), "llama")
    w.add_file_type(file_type)
    for name, ttype, rows, cols in tensors:
        qt = GGMLQuantizationType[ttype]
        if ttype == "F32":
            w.add_tensor(name, np.zeros((rows, cols) if rows > 1 else (cols,), np.float32))
            continue
        per_block, block_bytes = GGML_QUANT_SIZES[qt]
        data = np.zeros((rows, cols // per_block * block_bytes), np.uint8)
        w.add_tensor(name, data, raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


Q4_K_M_TENSORS = [("token_embd.weight", "Q6_K", 256, 256), ("blk.0.attn_q.weight", "Q4_K", 256, 256),
                  ("blk.0.ffn_up.weight", "Q4_K", 256, 256), ("output_norm.weight", "F32", 1, 256)]
# bytes: Q6_K 256 rows × 210, Q4_K 2 × 256 × 144, F32 256 × 4; weights: 3 × 65,536 + 256
Q4_K_M_BPW = round((256 * 210 + 2 * 256 * 144 + 1024) * 8 / (3 * 65536 + 256), 2)


def test_inspect_a_q4_k_m_gguf_names_its_file_type_bits_and_tensor_types(tmp_path, capsys):
    path = _gguf(tmp_path / "model.gguf", 15, Q4_K_M_TENSORS)  # 15 = LLAMA_FTYPE_MOSTLY_Q4_K_M
    r = audit_model_dir(path)
    assert r.verdict == "quantized" and r.method == "Q4_K_M" and r.file_type == "Q4_K_M"
    assert Q4_K_M_BPW == 5.22 and r.bits_per_weight == Q4_K_M_BPW
    assert r.tensors_by_dtype == {"Q6_K": 1, "Q4_K": 2, "F32": 1} and r.consistent is True
    assert main(["inspect", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "QUANTIZED (Q4_K_M)" in out
    assert "GGUF: file type Q4_K_M, 5.22 bits per weight over all tensors; tensor types Q4_K ×2, " \
           "Q6_K ×1, F32 ×1" in out


def test_a_gguf_whose_file_type_says_f16_over_q8_0_tensors_is_quantized_and_flagged(tmp_path):
    path = _gguf(tmp_path / "m.gguf", 1, [("blk.0.ffn_up.weight", "Q8_0", 64, 256)])
    r = audit_model_dir(path)
    assert r.verdict == "quantized" and r.consistent is False and r.file_type == "FP16"
    assert r.bits_per_weight == 8.5  # 34 bytes per 32 weights
    assert any("declares FP16 (general.file_type) but 100% of its bytes are quantized" in x
               for x in r.reasons)


def test_inspect_a_llama_cpp_server_log(capsys):
    """A real start-up log of llama-cpp-python 0.3.36 serving a Q4_K_M file (today: UNKNOWN)."""
    assert main(["inspect", "--server-log", str(LLAMA_LOGS / "start-ok-q4_k_m.log"),
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["verdict"] == "quantized" and r["method"] == "Q4_K_M"
    assert r["bits_per_weight"] == 5.35 and r["tensors_by_dtype"] == {"F32": 9, "Q4_K": 24,
                                                                       "Q6_K": 5}
    r = audit_server_log((LLAMA_LOGS / "start-ok-f16.log").read_text())
    assert r.verdict == "full precision" and r.precision == "FP16" and r.bits_per_weight == 16.01


def test_a_llama_cpp_log_whose_file_type_disagrees_with_its_tensors():
    text = (LLAMA_LOGS / "start-ok-f16.log").read_text().replace(
        "llama_model_loader: - type  f16:   29 tensors", "llama_model_loader: - type q8_0:   29 tensors")
    r = audit_server_log(text)
    assert r.verdict == "quantized" and r.method == "Q8_0" and r.consistent is False


# ---------------------------------------------------------------------------------------------
# SGLang: the structured ServerArgs line, field by field

# The shape of SGLang's start-up line (engine.py / http_server.py), cut from the output its docs
# print (2026): every field `name=value` in one `ServerArgs(...)`; fp8_gemm_runner_backend is a
# kernel choice present in every start, quantized or not.
SGLANG = ("[2026-03-21 03:31:56] INFO engine.py:177: server_args=ServerArgs(model_path='/models/"
          "Qwen3-8B', tokenizer_path='/models/Qwen3-8B', tokenizer_mode='auto', load_format='auto',"
          " trust_remote_code=False, context_length=None, host='127.0.0.1', port=30000, "
          "dtype='bfloat16', quantization=None, quantization_param_path=None, "
          "kv_cache_dtype='auto', enable_fp32_lm_head=False, modelopt_quant=None, "
          "modelopt_checkpoint_restore_path=None, quantize_and_serve=False, "
          "mem_fraction_static=0.835, tp_size=1, fp8_gemm_runner_backend='auto', "
          "enable_deterministic_inference=False)\n")


def test_sglang_bf16_start_is_full_precision_not_fp8():
    r = audit_server_log(SGLANG)
    assert r.verdict == "full precision" and r.precision == "BF16" and r.method is None


@pytest.mark.parametrize("old, new, verdict, method", [
    ("modelopt_quant=None", "modelopt_quant='fp8'", "quantized", "modelopt fp8"),
    ("quantization=None,", "quantization='fp8',", "quantized", "fp8"),
    ("kv_cache_dtype='auto'", "kv_cache_dtype='fp8_e4m3'", "quantized", "kv_cache:fp8_e4m3"),
    ("dtype='bfloat16'", "dtype='auto'", "unknown", None),
])
def test_sglang_fields_decide(old, new, verdict, method):
    r = audit_server_log(SGLANG.replace(old, new, 1))
    assert r.verdict == verdict and r.method == method


def test_sglang_weights_loaded_line_is_evidence():
    """SGLang ≥ 0.5 logs `Load weight end. … quant=modelopt_fp4, quant_algo=NVFP4`."""
    text = SGLANG.replace("dtype='bfloat16'", "dtype='auto'") + (
        "[2026-08-28 21:32:38] Load weight end. elapsed=787.55 s, type=Qwen3ForCausalLM, "
        "quant=modelopt_fp4, quant_algo=NVFP4, avail mem=29.01 GB, mem usage=82.97 GB.\n")
    r = audit_server_log(text)
    assert r.verdict == "quantized" and r.method == "modelopt_fp4 (NVFP4)"


# ---------------------------------------------------------------------------------------------
# What is declared against what is there


def _raw_safetensors(path: Path, tensors: dict[str, tuple[str, list[int], bytes]]) -> None:
    """A safetensors file by its format spec (8-byte header length, JSON header, data): numpy
    cannot write F8_E4M3 tensors."""
    header, blobs, off = {}, [], 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


FP8_CONFIG = {"architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16",
              "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic",
                                      "weight_block_size": [128, 128]}}


def test_fp8_config_over_16_bit_tensors_is_inconsistent(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(FP8_CONFIG))
    save_file({"model.layers.0.mlp.up_proj.weight": np.zeros((128, 128), np.float16)},
              str(d / "model.safetensors"))
    r = audit_model_dir(d)
    assert r.verdict == "inconsistent" and r.full_precision is None and r.consistent is False
    assert r.method is None
    assert "config.json declares fp8 but every weight tensor is a 16- or 32-bit float" in r.reasons[-1]
    # the server log cannot make it full precision
    both = combine(r, audit_server_log((VLLM_LOGS / "start-ok-eager.log").read_text()))
    assert both.verdict == "inconsistent" and both.full_precision is None


def test_fp8_config_over_fp8_tensors_is_fp8(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(FP8_CONFIG))
    _raw_safetensors(d / "model.safetensors", {
        "model.layers.0.mlp.up_proj.weight": ("F8_E4M3", [128, 128], bytes(128 * 128)),
        "model.layers.0.mlp.up_proj.weight_scale_inv": ("F32", [1, 1], bytes(4))})
    r = audit_model_dir(d)
    assert r.verdict == "quantized" and r.method == "fp8" and r.consistent is True


# vLLM's own lines (vllm/model_executor/layers/quantization/fp8.py: logger.warning("Detected fp8
# checkpoint. Please note that the format is experimental and subject to change."); vllm/config:
# logger.warning("Casting %s to %s.", config_dtype, torch_dtype)), in vLLM's log format.
DETECTED = ("WARNING 11-30 10:00:00 [fp8.py:63] Detected fp8 checkpoint. Please note that the "
            "format is experimental and subject to change.\n")
CASTING = "WARNING 11-30 10:00:00 [config.py:3085] Casting torch.bfloat16 to torch.float16.\n"


def test_vllm_log_that_says_quantization_none_but_detected_fp8_is_not_full_precision():
    text = (VLLM_LOGS / "start-ok-eager.log").read_text()
    assert "quantization=None" in text
    r = audit_server_log(DETECTED + text)
    assert r.verdict == "quantized" and r.method == "fp8" and r.full_precision is False
    assert r.consistent is False and r.precision is None
    assert r.reasons[0].startswith("the engine states dtype bfloat16, quantization none")
    assert "Detected fp8 checkpoint" in r.reasons[1] and "disagree" in r.reasons[1]


def test_vllm_log_that_casts_reports_both_dtypes():
    text = (VLLM_LOGS / "start-ok-eager.log").read_text().replace(
        "dtype=torch.bfloat16", "dtype=torch.float16")
    r = audit_server_log(CASTING + text)
    assert r.verdict == "full precision" and r.precision == "FP16 (cast from BF16)"
    assert "the engine casts the checkpoint's bfloat16 weights to float16" in r.reasons


# ---------------------------------------------------------------------------------------------
# compressed-tensors: the bits and types it declares
#
# Shapes as LLM Compressor writes them into config.json (compressed-tensors QuantizationConfig:
# quant_method, format, config_groups.group_0.{targets, weights, input_activations}); the
# tensors are those its formats store (pack-quantized: int32 weight_packed + weight_scale;
# float-quantized: F8_E4M3 weight + weight_scale; int-quantized: I8 weight + weight_scale).


def _ct(fmt: str, w_bits: int, w_type: str, strategy: str, group: int | None,
        act: dict | None) -> dict:
    weights = {"num_bits": w_bits, "type": w_type, "strategy": strategy, "symmetric": True,
               "dynamic": False}
    if group:
        weights["group_size"] = group
    return {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights,
                                          "input_activations": act}}}


CASES = {
    "INT8 W8A16": (_ct("pack-quantized", 8, "int", "group", 128, None),
                   {"w.weight_packed": ("I32", [64, 32], bytes(64 * 32 * 4)),
                    "w.weight_scale": ("F16", [64, 1], bytes(128))},
                   "compressed-tensors INT8 W8A16 (pack-quantized, group 128)"),
    "FP8": (_ct("float-quantized", 8, "float", "channel", None,
                {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True}),
            {"w.weight": ("F8_E4M3", [64, 64], bytes(64 * 64)),
             "w.weight_scale": ("F32", [64, 1], bytes(256))},
            "compressed-tensors FP8 E4M3 W8A8 (float-quantized, channel)"),
    "INT4 packed": (_ct("pack-quantized", 4, "int", "group", 128, None),
                    {"w.weight_packed": ("I32", [64, 8], bytes(64 * 8 * 4)),
                     "w.weight_scale": ("F16", [64, 1], bytes(128))},
                    "compressed-tensors INT4 W4A16 (pack-quantized, group 128)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_compressed_tensors_configs_name_bits_and_type(tmp_path, case):
    qc, tensors, method = CASES[case]
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"architectures": ["X"], "torch_dtype": "bfloat16",
                                               "quantization_config": qc}))
    _raw_safetensors(d / "model.safetensors", tensors)
    r = audit_model_dir(d)
    assert r.verdict == "quantized" and r.method == method
    assert f"scheme {compressed_tensors_scheme(qc)}" in r.reasons[0]


def test_precision_vocabulary_reads_the_compressed_tensors_names():
    """The names keep their format findable: W4A16 → INT4, W8A16 → INT8, FP8 E4M3 → FP8."""
    from tokcheck.core.precision import find_precision

    assert [find_precision(CASES[c][2]) for c in ("INT4 packed", "INT8 W8A16", "FP8")] == \
        ["INT4", "INT8", "FP8"]


# ---------------------------------------------------------------------------------------------
# SGLang's /metrics in the token cross-check

# The exposition SGLang serves (its production-metrics reference: `sglang:` prefix, counters
# with _total, gauges per model_name label), before and after a level of 4 requests × 64 tokens.
SGLANG_BEFORE = """\
# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="qwen"} 1000.0
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="qwen"} 337.0
# HELP sglang:cached_tokens_total Number of cached prompt tokens.
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="qwen"} 100.0
# HELP sglang:num_requests_total Number of requests processed.
# TYPE sglang:num_requests_total counter
sglang:num_requests_total{model_name="qwen"} 10.0
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="qwen"} 0.0
# HELP sglang:token_usage The token usage.
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="qwen"} 0.0
"""
SGLANG_AFTER = (SGLANG_BEFORE.replace("} 1000.0", "} 1512.0").replace("} 337.0", "} 593.0")
                .replace("} 100.0", "} 228.0").replace("} 10.0", "} 14.0")
                .replace("token_usage{model_name=\"qwen\"} 0.0", "token_usage{model_name=\"qwen\"} 0.12"))


@pytest.mark.parametrize("engine", [None, "sglang"])
def test_sglang_metrics_work_in_the_token_cross_check(engine):
    from tokcheck.engines.registry import metric_names

    names = None if engine is None else metric_names(engine)
    before = parse_server_metrics(SGLANG_BEFORE, names)
    after = parse_server_metrics(SGLANG_AFTER, names)
    assert after["kv_cache_usage_fraction"] == 0.12 and after["requests_running"] == 0.0
    delta = metrics_delta(before, after)
    assert delta["counters"]["generation_tokens"] == 256.0
    assert delta["counters"]["requests_finished"] == 4.0
    assert delta["prefix_cache_hit_rate"] == pytest.approx(128 / 512)
    check = cross_check_generation_tokens(delta["counters"]["generation_tokens"], 4 * 64)
    assert check["match"] is True and check["difference"] == 0


# ---------------------------------------------------------------------------------------------
# serve --python with a relative path


@pytest.mark.parametrize("make, message", [
    (lambda d: None, "engine python ./rel/python does not exist"),
    (lambda d: (d / "rel" / "python").mkdir(parents=True),
     "engine python ./rel/python is a folder: give the interpreter, e.g. rel/python/bin/python"),
    (lambda d: ((d / "rel").mkdir(), (d / "rel" / "python").write_text("")),
     "engine python ./rel/python is not executable"),
])
def test_serve_python_relative_path_is_a_one_line_error(tmp_path, monkeypatch, capsys, make,
                                                        message):
    monkeypatch.chdir(tmp_path)
    make(tmp_path)
    (tmp_path / "m.gguf").write_bytes(b"GGUF\x03\x00\x00\x00")
    for engine, model in (("llama.cpp", "m.gguf"), ("vllm", str(tmp_path))):
        if engine == "vllm":
            (tmp_path / "config.json").write_text("{}")
        assert main(["serve", "--engine", engine, "--python", "./rel/python", "--model",
                     model]) == 1
        assert capsys.readouterr().err == f"Error: {message}\n"


def test_a_relative_python_that_exists_is_made_absolute(tmp_path, monkeypatch):
    import os
    import sys

    from tokcheck.engines.lifecycle import engine_python

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()
    os.symlink(sys.executable, tmp_path / "bin" / "python")
    assert engine_python("./bin/python") == str(tmp_path / "bin" / "python")
