"""R3 on checkpoints made with torch (BF16 and FP8 need it; it lives in the vLLM environment):
the tiny Llama is full precision; a directory of float8_e4m3fn tensors with a
quantization_config is not."""

from __future__ import annotations

import json
import subprocess

import pytest

from tokcheck.cli import main
from tokcheck.machine.weights import audit_model_dir

pytestmark = pytest.mark.e2e

# The tiny Llama of ENGINES.md: 4096·256 embeddings (tied) + 4 layers of
# (q 256·256, k 256·128, v 256·128, o 256·256, gate/up/down 3·256·512, 2 norms of 256) + final norm.
TINY_PARAMS = 4096 * 256 + 4 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512 + 2 * 256) + 256

FP8_WRITER = r"""
import json, sys, torch
from safetensors.torch import save_file
out = sys.argv[1]
torch.manual_seed(0)
t = {}
for i in range(2):
    w = torch.randn(256, 256).to(torch.float8_e4m3fn)
    t[f"model.layers.{i}.mlp.down_proj.weight"] = w
    t[f"model.layers.{i}.mlp.down_proj.weight_scale_inv"] = torch.ones(2, 2, dtype=torch.float32)
    t[f"model.layers.{i}.input_layernorm.weight"] = torch.ones(256, dtype=torch.bfloat16)
t["model.embed_tokens.weight"] = torch.randn(1024, 256).to(torch.bfloat16)
save_file(t, out + "/model.safetensors", metadata={"format": "pt"})
json.dump({"architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16",
           "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic",
                                   "fmt": "e4m3", "weight_block_size": [128, 128]}},
          open(out + "/config.json", "w"))
"""


def test_tiny_llama_is_full_precision_bf16(tiny_llama, capsys):
    r = audit_model_dir(tiny_llama)
    assert r.full_precision is True and r.precision == "BF16"
    assert r.parameter_count == TINY_PARAMS
    assert r.bytes_by_dtype == {"BF16": 2 * TINY_PARAMS}
    assert r.config_dtype == "bfloat16"
    assert main(["inspect", str(tiny_llama), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "full precision" and out["parameter_count"] == TINY_PARAMS


def test_fp8_directory_is_quantized(vllm_python, tmp_path, capsys):
    subprocess.run([str(vllm_python), "-c", FP8_WRITER, str(tmp_path)], check=True)
    r = audit_model_dir(tmp_path)
    assert r.full_precision is False and r.verdict == "quantized"
    assert r.method == "fp8"
    assert r.params_by_dtype["F8_E4M3"] == 2 * 256 * 256
    fp8_bytes = 2 * 256 * 256 + 2 * 4 * 4  # FP8 weights (1 byte) + their FP32 block scales
    assert r.quantized_bytes_share == pytest.approx(fp8_bytes / r.weight_bytes)
    assert "quant_method=fp8" in r.reasons[0]
    assert main(["inspect", str(tmp_path)]) == 0
    assert "QUANTIZED (fp8)" in capsys.readouterr().out



def test_tiny_model_command_prints_the_served_model(tiny_llama, vllm_python, capsys):
    """`--model "$(tokcheck tiny-model)"` names the same folder that the demo and the tests serve."""
    assert main(["tiny-model", "--python", str(vllm_python)]) == 0
    assert capsys.readouterr().out == f"{tiny_llama}\n"
