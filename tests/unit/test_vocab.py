"""The one precision vocabulary (tokcheck.core.precision): every spelling → canonical name →
bytes per parameter; GGUF block layouts agree with the gguf library; verify's view of it
(analysis.verify.lookup) is the same vocabulary; no other module keeps its own table."""

import re
from pathlib import Path

import pytest

from tokcheck.core.precision import (
    ALIASES,
    FULL,
    GGUF_FILE_TYPES,
    GGUF_TENSOR_TYPES,
    LLAMA_FTYPE_NAMES,
    PRECISIONS,
    bytes_per_param,
    canonical_precision,
    find_precision,
    full_precision_name,
    is_quantized,
    torch_dtype,
)
from tokcheck.errors import TokcheckError

SRC = Path(__file__).resolve().parents[2] / "src" / "tokcheck"

# spelling → (canonical name, bytes per parameter)
EXPECTED = {
    # the guide's table and the scale-carrying 4-bit formats
    "FP32": ("FP32", 4), "fp32": ("FP32", 4), "float32": ("FP32", 4), "float": ("FP32", 4),
    "f32": ("FP32", 4), "torch.float32": ("FP32", 4), "all F32": ("FP32", 4),
    "BF16": ("BF16", 2), "bf16": ("BF16", 2), "bfloat16": ("BF16", 2), "torch.bfloat16": ("BF16", 2),
    "full": ("BF16", 2), "full precision": ("BF16", 2), "全精度": ("BF16", 2),
    "FP16": ("FP16", 2), "fp16": ("FP16", 2), "float16": ("FP16", 2), "half": ("FP16", 2), "F16": ("FP16", 2),
    "FP8": ("FP8", 1), "fp8": ("FP8", 1), "e4m3": ("FP8", 1), "float8": ("FP8", 1), "fp8_e4m3": ("FP8", 1),
    "float8_e4m3fn": ("FP8", 1), "F8_E4M3": ("FP8", 1), "fp8_e5m2": ("FP8", 1),
    "INT8": ("INT8", 1), "int8": ("INT8", 1), "w8a8": ("INT8", 1), "W8A16": ("INT8", 1), "8-bit": ("INT8", 1),
    "8bit": ("INT8", 1),
    "INT4": ("INT4", 0.515625), "int4": ("INT4", 0.515625), "w4a16": ("INT4", 0.515625),
    "4-bit": ("INT4", 0.515625), "AWQ": ("INT4", 0.515625), "GPTQ": ("INT4", 0.515625),
    "MXFP4": ("MXFP4", 0.53125), "mxfp4": ("MXFP4", 0.53125), "fp4": ("MXFP4", 0.53125),
    "MXFP4 MoE": ("MXFP4", 0.53125),
    "NVFP4": ("NVFP4", 0.5625), "nvfp4": ("NVFP4", 0.5625),
    # GGUF tensor types: exact block layouts (ggml-common.h)
    "Q8_0": ("Q8_0", 34 / 32), "q8_0": ("Q8_0", 34 / 32), "Q6_K": ("Q6_K", 210 / 256),
    "Q5_0": ("Q5_0", 22 / 32), "Q4_0": ("Q4_0", 18 / 32), "Q4_1": ("Q4_1", 20 / 32),
    "Q4_K": ("Q4_K", 144 / 256), "q4_k": ("Q4_K", 144 / 256), "Q2_K": ("Q2_K", 84 / 256),
    "IQ1_S": ("IQ1_S", 50 / 256), "IQ1_M": ("IQ1_M", 56 / 256), "IQ2_XXS": ("IQ2_XXS", 66 / 256),
    "IQ2_XS": ("IQ2_XS", 74 / 256), "IQ2_S": ("IQ2_S", 82 / 256), "IQ3_XXS": ("IQ3_XXS", 98 / 256),
    "IQ3_S": ("IQ3_S", 110 / 256), "IQ4_XS": ("IQ4_XS", 136 / 256), "IQ4_NL": ("IQ4_NL", 18 / 32),
    "TQ1_0": ("TQ1_0", 54 / 256), "TQ2_0": ("TQ2_0", 66 / 256),
    # GGUF file types: the typical whole-file figure (llama.cpp's quantize README, Llama-3.1-8B)
    "Q4_K_M": ("Q4_K_M", 4.8944 / 8), "q4_k_m": ("Q4_K_M", 4.8944 / 8), "Q4_K - Medium": ("Q4_K_M", 4.8944 / 8),
    "LLAMA_FTYPE_MOSTLY_Q4_K_M": ("Q4_K_M", 4.8944 / 8), "Q4_K_S": ("Q4_K_S", 4.6672 / 8),
    "Q5_K_M": ("Q5_K_M", 5.7036 / 8), "Q5_K_S": ("Q5_K_S", 5.5704 / 8),
    "Q3_K_L": ("Q3_K_L", 4.2979 / 8), "Q3_K_M": ("Q3_K_M", 4.00 / 8), "Q3_K_S": ("Q3_K_S", 3.6429 / 8),
    "Q3_K - Small": ("Q3_K_S", 3.6429 / 8), "Q2_K_S": ("Q2_K_S", 2.9697 / 8),
    "IQ2_M": ("IQ2_M", 2.9294 / 8), "IQ3_M": ("IQ3_M", 3.7628 / 8), "IQ3_XS": ("IQ3_XS", 3.4977 / 8),
    "IQ2_XXS - 2.0625 bpw": ("IQ2_XXS", 66 / 256), "Q8_0 (guessed)": ("Q8_0", 34 / 32),
}


@pytest.mark.parametrize("spelling, canonical, nbytes", [(k, *v) for k, v in EXPECTED.items()])
def test_spelling_to_canonical_to_bytes(spelling, canonical, nbytes):
    assert canonical_precision(spelling) == canonical
    assert bytes_per_param(spelling) == pytest.approx(nbytes)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_every_alias_resolves_to_a_known_name(alias):
    assert ALIASES[alias] in PRECISIONS
    assert canonical_precision(alias) == ALIASES[alias]


@pytest.mark.parametrize("printed", sorted(LLAMA_FTYPE_NAMES))
def test_every_llama_cpp_file_type_name_resolves(printed):
    assert canonical_precision(printed) == LLAMA_FTYPE_NAMES[printed]


def test_every_canonical_name_resolves_to_itself_and_has_a_size():
    for name, p in PRECISIONS.items():
        assert canonical_precision(name) == name
        assert 0 < p.bytes_per_param <= 8
        assert p.nominal_bytes <= p.bytes_per_param or p.kind != "format"


def test_gguf_block_layouts_agree_with_the_gguf_library():
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    for name, layout in GGUF_TENSOR_TYPES.items():
        assert GGML_QUANT_SIZES[GGMLQuantizationType[name]] == layout, name
    # GGUF's MXFP4 and NVFP4 tensors have exactly the sizes of the formats of the same name
    for name in ("MXFP4", "NVFP4"):
        values, nbytes = GGML_QUANT_SIZES[GGMLQuantizationType[name]]
        assert PRECISIONS[name].bytes_per_param == pytest.approx(nbytes / values)


def test_every_gguf_file_type_of_the_gguf_library_is_known():
    from gguf.constants import LlamaFileType

    for ft in LlamaFileType:
        if ft.name == "GUESSED":
            continue
        name = canonical_precision(ft.name)  # ALL_F32, MOSTLY_Q4_K_M, MOSTLY_MXFP4_MOE …
        assert name in PRECISIONS, ft.name


def test_file_types_weigh_at_least_their_main_tensor_type():
    for name, (bits, source) in GGUF_FILE_TYPES.items():
        assert source
        base = name if name in GGUF_TENSOR_TYPES else re.sub(r"_[SML]$", "", name)
        if base in GGUF_TENSOR_TYPES:
            values, nbytes = GGUF_TENSOR_TYPES[base]
            assert bits >= 8 * nbytes / values - 1e-9, name


def test_unknown_precision_is_a_one_line_error():
    with pytest.raises(TokcheckError) as err:
        canonical_precision("fp5")
    assert "\n" not in str(err.value) and "BF16" in str(err.value)


@pytest.mark.parametrize("value, expected", [
    ("bfloat16 (auto)", "BF16"), ("Qwen3-8B-Q4_K_M.gguf", "Q4_K_M"), ("full precision", FULL),
    ("全精度", FULL), ("torch.float8_e4m3fn", "FP8"), ("experts_int8", "INT8"), ("auto", None),
    ("", None), (None, None), ("none", None),
])
def test_find_precision_is_tolerant(value, expected):
    assert find_precision(value) == expected


def test_is_quantized_and_torch_dtype():
    assert is_quantized("Q4_K_M") and is_quantized("fp8") and is_quantized("awq")
    assert is_quantized("bf16") is False and is_quantized("full") is False
    assert is_quantized("auto") is None and is_quantized("released") is None
    assert torch_dtype("bf16") == "bfloat16" and torch_dtype("full") == "bfloat16"
    assert torch_dtype("half") == "float16" and torch_dtype("FP32") == "float32"
    assert torch_dtype("fp8") is None and torch_dtype("nonsense") is None
    assert full_precision_name("F16") == "FP16" and full_precision_name("fp8") is None
    assert full_precision_name("full") is None


def test_verify_uses_the_same_vocabulary():
    from tokcheck.analysis.verify.lookup import BYTES_PER_PARAM, normalize_precision

    for name, p in PRECISIONS.items():
        assert normalize_precision(name) == name.lower()
        assert BYTES_PER_PARAM[name.lower()] == p.bytes_per_param
    assert BYTES_PER_PARAM["full"] == 2.0
    # once unknown to verify: q8_0 and fp4; INT4 once 0.5 there, 0.516 in the core
    assert normalize_precision("q8_0") == "q8_0" and BYTES_PER_PARAM["q8_0"] == pytest.approx(1.0625)
    assert normalize_precision("fp4") == "mxfp4"
    assert BYTES_PER_PARAM["int4"] == bytes_per_param("INT4") == pytest.approx(0.515625)
    # spellings verify always read
    assert normalize_precision("torch.bfloat16") == "bf16"
    assert normalize_precision("full precision") == "full"
    assert normalize_precision("auto") == "auto" and normalize_precision(None) is None


def test_no_module_keeps_its_own_precision_table():
    """Dict entries such as ``"bfloat16": "BF16"`` or a bytes table belong to core/precision.py."""
    # a spelling → name table ("bfloat16": "BF16", "bf16": "bfloat16") or a bytes table ("int4": 0.5)
    table = re.compile(r"""["'](?:bf16|bfloat16|fp16|float16|half|int4|mxfp4|nvfp4)["']\s*:\s*(?:["']|\d)""")
    numbers = re.compile(r"0\.516|4\.25\s*/\s*8|4\.5\s*/\s*8")
    offenders = []
    for f in SRC.rglob("*.py"):
        if f.relative_to(SRC).as_posix() == "core/precision.py":
            continue
        text = f.read_text(encoding="utf-8")
        if table.search(text) or numbers.search(text):
            offenders.append(f.relative_to(SRC).as_posix())
    assert offenders == []
