"""The precision vocabulary: number formats, every spelling of them, and their bytes per parameter.

This module is the one place where tokcheck names weight formats. Claims, engine logs,
``config.json`` files, GGUF headers and the command line all go through it.

"Full precision" in LLM inference means BF16/FP16 weights, not FP32 (the guide, see
``docs/guide.md``); "no quantization" rules out INT8/INT4/FP8 weights, not other optimizations
(continuous batching, CUDA graphs, prefix caching, speculative decoding).

Bytes per parameter (the guide's table): FP32 4, FP16/BF16 2, FP8/INT8 1, INT4 0.5. Block-scaled
4-bit formats also store scales, and tokcheck counts them:

- MXFP4 (OCP Microscaling Formats spec v1.0): 4-bit E2M1 values + one 8-bit E8M0 scale per 32
  values → 0.5 + 1/32 = 0.53125 bytes.
- NVFP4 (NVIDIA Blackwell): 4-bit E2M1 + one FP8 E4M3 scale per 16 values → 0.5 + 1/16 = 0.5625.
- BFP8 (Tenstorrent's block floating point, BFP8_B): 8-bit elements (sign + 7-bit mantissa)
  and one 8-bit exponent shared by a block of 16 → 1 + 1/16 = 1.0625 bytes (Tenstorrent's data
  formats table, https://docs.tenstorrent.com/pybuda/latest/dataformats.html).
- DFloat11 (dynamic-length float): BF16 weights with their exponents Huffman-coded, lossless,
  about 70 % of BF16's size, decompressed on the GPU as they are read → ~1.4 bytes (the paper
  "70% Size, 100% Accuracy", arXiv 2504.11651; its model cards give e.g. 29.21 GB → 19.89 GB).
- INT4 (GPTQ / AWQ with the usual group size 128): 4-bit + one 16-bit scale per 128 weights
  → 0.5 + 2/128 = 0.515625 bytes.

GGUF (llama.cpp) names come in two kinds (both in ``docs/sources.md``):

- *Tensor types* (``Q8_0``, ``Q4_K``, ``IQ2_XXS`` …) have an exact size from their block layout in
  ggml's ``ggml/src/ggml-common.h`` (the ``block_*`` structs; ``type_traits`` in
  ``ggml/src/ggml.c`` and ``GGML_QUANT_SIZES`` in gguf-py's ``gguf/constants.py`` give the same
  pairs): ``Q8_0`` stores 32 weights in 34 bytes (an FP16 scale + 32 int8) = 8.5 bits per weight;
  ``Q4_K`` stores 256 weights in 144 bytes = 4.5 bits. See :data:`GGUF_TENSOR_TYPES`.
- *File types* (``Q4_K_M``, ``Q5_K_S``, ``IQ3_M`` …) are recipes that mix tensor types (a
  ``Q4_K_M`` file keeps some ``attn_v``/``ffn_down`` tensors and the output layer in ``Q6_K``).
  They have no exact size; :data:`GGUF_FILE_TYPES` gives the typical bits per weight that
  llama.cpp measured on whole files of Llama-3.1-8B
  (https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/README.md), or derived from
  the file sizes in ``tools/quantize/quantize.cpp``'s ``QUANT_OPTIONS`` where that table has no
  row. A name that is both (``Q8_0``, ``Q6_K``, ``Q2_K``, ``IQ4_XS`` …) resolves to the
  tensor type's exact size; the file figure stays in :data:`GGUF_FILE_TYPES`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokcheck.errors import TokcheckError

#: What :func:`find_precision` returns for "full precision" words: BF16 or FP16, not one of them.
FULL = "full"


@dataclass(frozen=True)
class Precision:
    """A weight (or KV cache) number format.

    Attributes:
        name: canonical name (``BF16``, ``FP8``, ``MXFP4``, ``Q4_K_M`` …).
        nominal_bytes: bytes per value without scales: the width the name states (the guide's
            table for FP/INT formats; ``Q4_K_M`` → 0.5, ``IQ2_XXS`` → 0.25).
        bytes_per_param: bytes per value including block/group scales (for GGUF file types:
            the typical figure of a whole file).
        full_precision: True for FP64/FP32/BF16/FP16 (see ``docs/guide.md``).
        kind: ``"format"`` (an engine-level format), ``"gguf_tensor"`` (exact block layout) or
            ``"gguf_file"`` (a llama.cpp file type: a mix of tensor types).
        note: where the scale overhead comes from.
        torch_dtype: the engine's ``--dtype`` / ``torch_dtype`` spelling (``bfloat16``) for the
            formats an engine loads as they are; None otherwise.
        block_values, block_bytes: GGUF tensor types only: weights per block and bytes per block.
    """

    name: str
    nominal_bytes: float
    bytes_per_param: float
    full_precision: bool
    note: str = ""
    kind: str = "format"
    torch_dtype: str | None = None
    block_values: int | None = None
    block_bytes: int | None = None

    @property
    def bits_per_param(self) -> float:
        """Bits per weight including scales (``Q8_0`` → 8.5)."""
        return self.bytes_per_param * 8


_FORMATS = (
    Precision("FP64", 8, 8, True, "scientific format; never served, read only from checkpoints"),
    Precision("FP32", 4, 4, True, "training format; not what 'full precision' means in inference",
              torch_dtype="float32"),
    Precision("BF16", 2, 2, True, torch_dtype="bfloat16"),
    Precision("FP16", 2, 2, True, torch_dtype="float16"),
    Precision("FP8", 1, 1, False, "E4M3; per-channel or 128x128 block scales add < 0.1 %"),
    Precision("INT8", 1, 1, False, "per-channel scales add < 0.1 %"),
    Precision("INT4", 0.5, 0.5 + 2 / 128, False, "GPTQ/AWQ group 128: one 16-bit scale per 128 weights"),
    Precision("MXFP4", 0.5, 0.5 + 1 / 32, False, "OCP MX: one E8M0 scale per 32 values"),
    Precision("NVFP4", 0.5, 0.5 + 1 / 16, False, "one FP8 E4M3 scale per 16 values"),
    Precision("BFP8", 1, 1 + 1 / 16, False, "Tenstorrent block float: one 8-bit exponent shared by 16 values"),
    Precision("DFloat11", 11 / 8, 1.4, False, "lossless BF16 with Huffman-coded exponents: ~11 bits a weight, "
                                              "~70 % of BF16's bytes with its tables, decompressed on the GPU"),
)

#: GGUF tensor types that store quantized weights: name → (weights per block, bytes per block),
#: from the ``block_*`` structs of ggml's ``ggml/src/ggml-common.h`` (``QK_K`` = 256). The float
#: types (F64, F32, F16, BF16) are the formats above; GGUF's MXFP4 (17 bytes per 32) and NVFP4
#: (36 bytes per 64) have exactly the sizes of the formats of the same name.
GGUF_TENSOR_TYPES: dict[str, tuple[int, int]] = {
    "Q8_0": (32, 34),       # fp16 d + 32 int8
    "Q6_K": (256, 210),     # ql[128] + qh[64] + int8 scales[16] + fp16 d
    "Q5_0": (32, 22),       # fp16 d + qh[4] + qs[16]
    "Q5_1": (32, 24),       # fp16 d, m + qh[4] + qs[16]
    "Q5_K": (256, 176),     # fp16 d, dmin + scales[12] + qh[32] + qs[128]
    "Q4_0": (32, 18),       # fp16 d + qs[16]
    "Q4_1": (32, 20),       # fp16 d, m + qs[16]
    "Q4_K": (256, 144),     # fp16 d, dmin + scales[12] + qs[128]
    "Q3_K": (256, 110),     # hmask[32] + qs[64] + scales[12] + fp16 d
    "Q2_K": (256, 84),      # scales[16] + qs[64] + fp16 d, dmin
    "Q1_0": (128, 18),      # fp16 d + 128 sign bits
    "IQ4_NL": (32, 18),     # fp16 d + qs[16] (non-linear 4-bit grid)
    "IQ4_XS": (256, 136),   # fp16 d + scales_h + scales_l[4] + qs[128]
    "IQ3_S": (256, 110),    # fp16 d + qs[64] + qh[8] + signs[32] + scales[4]
    "IQ3_XXS": (256, 98),   # fp16 d + qs[96]
    "IQ2_S": (256, 82),     # fp16 d + qs[64] + qh[8] + scales[8]
    "IQ2_XS": (256, 74),    # fp16 d + uint16 qs[32] + scales[8]
    "IQ2_XXS": (256, 66),   # fp16 d + uint16 qs[32]
    "IQ1_M": (256, 56),     # qs[32] + qh[16] + scales[8]
    "IQ1_S": (256, 50),     # fp16 d + qs[32] + uint16 qh[8]
    "TQ2_0": (256, 66),     # qs[64] + fp16 d (ternary, 2 bits each)
    "TQ1_0": (256, 54),     # qs[48] + qh[4] + fp16 d (ternary, base-3 packed)
}

#: ik_llama.cpp's own tensor types (the IQK quants): name → (weights per block, bytes per block),
#: from the ``block_iq*_k`` structs of ik_llama.cpp's ``ggml/src/ggml-common.h``. Their ``_R4`` /
#: ``_R8`` forms (``IQ3_K_R4``, ``IQ1_S_R4``) repack rows for the CPU and keep the same bytes.
IK_TENSOR_TYPES: dict[str, tuple[int, int]] = {
    "IQ2_KS": (256, 70),    # uint16 extra + scales[4] + qs[64] (row scale apart)
    "IQ2_K": (256, 76),     # fp16 d + uint16 extra + scales[8] + qs[64]
    "IQ3_K": (256, 110),    # fp16 d + uint16 extra + scales_h + scales_l[8] + qs[64] + qh[32]
    "IQ4_KS": (256, 136),   # scales[8] + qs[128] (row scale apart)
    "IQ4_K": (256, 144),    # fp16 d + uint16 extra + scales_h[4] + scales_l[8] + qs[128]
    "IQ5_K": (256, 176),    # as IQ4_K + qh[32]
    "IQ6_K": (256, 212),    # fp16 d + uint16 extra + int8 scales[16] + qs[128] + qh[64]
    "IQ2_KL": (256, 86),    # uint16 scales_h + scales_l[4] + qs[64] + qh[16]
    "IQ3_KS": (256, 102),   # uint16 extra + scales[4] + qs[64] + qh[32] (row scale apart)
    "IQ4_KSS": (256, 128),  # uint32 qs[32] (row scale apart)
    "IQ5_KS": (256, 168),   # scales[8] + qs[128] + qh[32] (row scale apart)
}

_README = "llama.cpp tools/quantize/README.md, Llama-3.1-8B, whole file"
_OPTIONS = "llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS, size on Llama-3-8B (8.03e9 weights)"

#: GGUF file types (``llama-quantize`` recipes): name → (typical bits per weight of a whole file,
#: source). The README figures are file size × 8 / parameters on Llama-3.1-8B, so they include the
#: token embedding and output tensors that the recipes keep at higher precision; on larger models
#: a file gets closer to its main tensor type. Rows marked with ``_OPTIONS`` are GiB × 2^33 / 8.03e9
#: from the sizes quantize.cpp prints. TQ1_0/TQ2_0 print their tensor types' 1.69/2.06 bpw.
GGUF_FILE_TYPES: dict[str, tuple[float, str]] = {
    "F16": (16.0005, _README),
    "Q8_0": (8.5008, _README),
    "Q6_K": (6.5633, _README),
    "Q5_K_M": (5.7036, _README),
    "Q5_K_S": (5.5704, _README),
    "Q5_1": (6.04, _OPTIONS + ": 5.65 GiB"),
    "Q5_0": (5.57, _OPTIONS + ": 5.21 GiB"),
    "Q4_K_M": (4.8944, _README),
    "Q4_K_S": (4.6672, _README),
    "Q4_1": (5.11, _OPTIONS + ": 4.78 GiB"),
    "Q4_0": (4.64, _OPTIONS + ": 4.34 GiB"),
    "IQ4_NL": (4.6818, _README),
    "IQ4_XS": (4.4597, _README),
    "Q3_K_L": (4.2979, _README),
    "Q3_K_M": (4.00, _OPTIONS + ": 3.74 GiB"),
    "Q3_K_S": (3.6429, _README),
    "IQ3_M": (3.7628, _README),
    "IQ3_S": (3.6606, _README),
    "IQ3_XS": (3.4977, _README),
    "IQ3_XXS": (3.2548, _README),
    "Q2_K": (3.1593, _README),
    "Q2_K_S": (2.9697, _README),
    "IQ2_M": (2.9294, _README),
    "IQ2_S": (2.7403, _README),
    "IQ2_XS": (2.5882, _README),
    "IQ2_XXS": (2.3824, _README),
    "IQ1_M": (2.1460, _README),
    "IQ1_S": (2.0042, _README),
    "TQ2_0": (2.0625, "llama.cpp quantize.cpp: 2.06 bpw ternarization (the TQ2_0 tensor type)"),
    "TQ1_0": (1.6875, "llama.cpp quantize.cpp: 1.69 bpw ternarization (the TQ1_0 tensor type)"),
}


def _name_bits(name: str) -> int:
    """The width a GGUF name states: the digit after Q/IQ/TQ (``IQ2_XXS`` → 2)."""
    return int(re.match(r"[A-Z]*?(\d)", name).group(1))


def _gguf_precisions() -> tuple[Precision, ...]:
    out = []
    for name, (values, nbytes) in GGUF_TENSOR_TYPES.items():
        out.append(Precision(name, _name_bits(name) / 8, nbytes / values, False,
                             f"GGUF tensor type: {nbytes} bytes per {values} weights "
                             f"= {8 * nbytes / values:g} bits (ggml-common.h)",
                             kind="gguf_tensor", block_values=values, block_bytes=nbytes))
    for name, (values, nbytes) in IK_TENSOR_TYPES.items():
        out.append(Precision(name, _name_bits(name) / 8, nbytes / values, False,
                             f"ik_llama.cpp tensor type: {nbytes} bytes per {values} weights "
                             f"= {8 * nbytes / values:g} bits (ik_llama.cpp ggml-common.h)",
                             kind="gguf_tensor", block_values=values, block_bytes=nbytes))
    for name, (bits, source) in GGUF_FILE_TYPES.items():
        if name in GGUF_TENSOR_TYPES or name == "F16":
            continue
        out.append(Precision(name, _name_bits(name) / 8, bits / 8, False,
                             f"GGUF file type, a mix of tensor types: typically {bits:g} bits per "
                             f"weight ({source})", kind="gguf_file"))
    return tuple(out)


#: Every canonical name → its :class:`Precision`.
PRECISIONS: dict[str, Precision] = {p.name: p for p in (*_FORMATS, *_gguf_precisions())}

#: Spellings seen in claims, configs, engine logs and GGUF headers → canonical name. Looked up
#: after :func:`_key` (lower case; spaces, hyphens and underscores dropped).
ALIASES: dict[str, str] = {
    "fp64": "FP64", "float64": "FP64", "f64": "FP64", "double": "FP64",
    "fp32": "FP32", "float32": "FP32", "float": "FP32", "f32": "FP32", "allf32": "FP32",
    "bf16": "BF16", "bfloat16": "BF16",
    "fp16": "FP16", "float16": "FP16", "half": "FP16", "f16": "FP16",
    "fp8": "FP8", "float8": "FP8", "e4m3": "FP8", "fp8e4m3": "FP8", "fp8e4m3fn": "FP8",
    "float8e4m3fn": "FP8", "f8e4m3": "FP8", "e5m2": "FP8", "fp8e5m2": "FP8", "float8e5m2": "FP8",
    "f8e5m2": "FP8",
    "int8": "INT8", "w8": "INT8", "w8a8": "INT8", "w8a16": "INT8", "q8": "INT8", "8bit": "INT8",
    "int4": "INT4", "w4": "INT4", "w4a16": "INT4", "w4a4": "INT4", "awq": "INT4", "gptq": "INT4", "q4": "INT4",
    "4bit": "INT4",
    "mxfp4": "MXFP4", "fp4": "MXFP4", "mxfp4moe": "MXFP4",
    "nvfp4": "NVFP4",
    "bfp8": "BFP8", "bfp8b": "BFP8", "dfloat11": "DFloat11", "df11": "DFloat11",
}

#: llama.cpp's printed file types (``llama_model_ftype_name`` in ``src/llama-model-loader.cpp``,
#: as in ``print_info: file type = Q4_K - Medium``) → canonical name.
LLAMA_FTYPE_NAMES: dict[str, str] = {
    "all F32": "FP32", "F16": "FP16", "BF16": "BF16", "MXFP4 MoE": "MXFP4",
    "Q2_K - Medium": "Q2_K", "Q2_K - Small": "Q2_K_S",
    "Q3_K - Small": "Q3_K_S", "Q3_K - Medium": "Q3_K_M", "Q3_K - Large": "Q3_K_L",
    "Q4_K - Small": "Q4_K_S", "Q4_K - Medium": "Q4_K_M",
    "Q5_K - Small": "Q5_K_S", "Q5_K - Medium": "Q5_K_M",
    "TQ1_0 - 1.69 bpw ternary": "TQ1_0", "TQ2_0 - 2.06 bpw ternary": "TQ2_0",
    "IQ2_XXS - 2.0625 bpw": "IQ2_XXS", "IQ2_XS - 2.3125 bpw": "IQ2_XS", "IQ2_S - 2.5 bpw": "IQ2_S",
    "IQ2_M - 2.7 bpw": "IQ2_M", "IQ3_XS - 3.3 bpw": "IQ3_XS", "IQ3_XXS - 3.0625 bpw": "IQ3_XXS",
    "IQ1_S - 1.5625 bpw": "IQ1_S", "IQ1_M - 1.75 bpw": "IQ1_M", "IQ4_NL - 4.5 bpw": "IQ4_NL",
    "IQ4_XS - 4.25 bpw": "IQ4_XS", "IQ3_S - 3.4375 bpw": "IQ3_S", "IQ3_S mix - 3.66 bpw": "IQ3_M",
}

FULL_PRECISION_WORDS = ("full precision", "full-precision", "fullprecision", "全精度", "unquantized",
                        "un-quantized", "未量化", "no quantization", "无量化", "不量化", "non-quantized")
# Spellings that mean "BF16 or FP16" (after _key).
_FULL_KEYS = ("full", "fullprecision", "全精度")


def _key(text: object) -> str:
    """Lookup key of a spelling: lower case, a ``torch.`` / ``LLAMA_FTYPE_MOSTLY_`` /
    ``GGML_TYPE_`` prefix and llama.cpp's ``(guessed)`` mark dropped, then spaces, hyphens and
    underscores dropped (``Q4_K_M`` → ``q4km``; ``torch.bfloat16`` → ``bfloat16``)."""
    s = str(text).strip().replace("(guessed)", "").strip()
    s = _FTYPE_BY_LOWER.get(s.lower(), s)
    s = re.sub(r"^(?:torch\.|llama_ftype_(?:mostly_)?|ggml_type_|mostly_)", "", s.lower())
    return re.sub(r"[\s\-_]", "", s)


_FTYPE_BY_LOWER = {k.lower(): v for k, v in LLAMA_FTYPE_NAMES.items()}
_KEYS: dict[str, str] = {**{_key(n): n for n in PRECISIONS}, **ALIASES}


# Parametric names: "4.5bpw" (a stated or inferred number of bits per weight: EXL2, "2.51-bit",
# a footprint), "INT4-g32" (integer weights with one 16-bit scale per group of g).
_BPW = re.compile(r"^(?P<b>\d+(?:\.\d+)?)\s*(?:bpw|bits?(?:\s*per\s*weight)?|-?bit)$", re.I)
_INT_GROUP = re.compile(r"^int(?P<b>[2-8])[\s_\-]*g(?:roup)?[\s_\-]*(?P<g>\d+)$", re.I)
# Unsloth's dynamic GGUF names: "UD-" + a base llama.cpp type + an optional size suffix (_XL).
_UNSLOTH = re.compile(r"^ud[\s_\-]*(?P<base>.+?)(?:[\s_\-]*(?:xxl|xl))?$", re.I)
# A K-quant with wider edge tensors: "Q2_K_XL", "Q4_K_L".
_WIDE_EDGES = re.compile(r"^(?P<base>q[2-8][\s_\-]*k)[\s_\-]*(?P<suf>xl|l)$", re.I)
# ik_llama.cpp's row-interleaved repacks ("IQ1_S_R4", "Q4_K_R4"): the base type's bytes.
_REPACKED = re.compile(r"^(?P<base>.+?)[\s_\-]*r(?:4|8|16)$", re.I)
# Bare GGUF widths seen in claims that name only one llama.cpp type ("llama3 8b Q6").
_BARE_GGUF = {"q6": "Q6_K", "q6k": "Q6_K", "q3": "Q3_K_M", "q3k": "Q3_K_M", "q2": "Q2_K", "q5": "Q5_K_M",
              "q5k": "Q5_K_M", "q4k": "Q4_K_M"}


def bpw_name(bits: float) -> str:
    """The parametric name of ``bits`` bits per weight (``2.5`` → ``2.5bpw``)."""
    return f"{float(bits):.4g}bpw"


def _parametric(text: str) -> str | None:
    s = str(text).strip()
    m = _BPW.match(s)
    if m and 0 < float(m.group("b")) <= 32:
        return bpw_name(float(m.group("b")))
    m = _INT_GROUP.match(s)
    if m:
        return f"INT{m.group('b')}-g{int(m.group('g'))}"
    return None


def gguf_base(text: object) -> tuple[str, str] | None:
    """The llama.cpp type a derived name is bounded at, and why: Unsloth's dynamic quants
    (``UD-Q2_K_XL`` → ``Q2_K``, ``UD-IQ1_S`` → ``IQ1_S``: most tensors at the base type, a few
    kept wider) and ik_llama.cpp's repacks (``IQ1_S_R4`` → ``IQ1_S``). None for other names."""
    s = str(text).strip()
    m = _UNSLOTH.match(s)
    if m and m.group("base") and _KEYS.get(_key(m.group("base"))) and _key(s) not in _KEYS:
        base = _KEYS[_key(m.group("base"))]
        return base, (f"{s} is an Unsloth dynamic quant: bounded at its base type {base} "
                      f"({PRECISIONS[base].bits_per_param:.3g} bits per weight); its few wider tensors add a little")
    m = _WIDE_EDGES.match(s)
    if m and _key(s) not in _KEYS:
        # "Q2_K_XL" (Unsloth without its UD- prefix), bartowski's "Q4_K_L" (Q4_K_M with the
        # embedding and output at Q8_0): bounded at the base type, the wider edge tensors add a little
        base = (_KEYS.get(_key(m.group("base") + "_M")) if m.group("suf").lower() == "l" else None) \
            or _KEYS.get(_key(m.group("base")))
        if base:
            return base, (f"{s} keeps a few tensors wider than {base}: bounded at {base} "
                          f"({PRECISIONS[base].bits_per_param:.3g} bits per weight)")
    m = _REPACKED.match(s)
    if m and _KEYS.get(_key(m.group("base"))) and _key(s) not in _KEYS:
        base = _KEYS[_key(m.group("base"))]
        return base, f"{s} is ik_llama.cpp's row-interleaved repack of {base}: the same bytes per weight"
    return None


def _synth(name: str) -> Precision | None:
    """A :class:`Precision` for a parametric name (see :func:`_parametric`)."""
    m = re.match(r"^(\d+(?:\.\d+)?)bpw$", name)
    if m:
        b = float(m.group(1))
        return Precision(name, b / 8, b / 8, b >= 16, f"{b:g} bits per weight, as stated or inferred", kind="bpw")
    m = re.match(r"^INT(\d)-g(\d+)$", name)
    if m:
        b, g = int(m.group(1)), int(m.group(2))
        return Precision(name, b / 8, b / 8 + 2 / g, False, f"{b}-bit integers, one 16-bit scale per {g} weights")
    return None


def precision_info(name: str) -> Precision:
    """The :class:`Precision` of a canonical name, parametric ones included.

    Raises:
        TokcheckError: not a canonical name.
    """
    p = PRECISIONS.get(name) or _synth(name)
    if p is None:
        raise TokcheckError(f"unknown precision {name!r}")
    return p


def canonical_precision(text: str) -> str:
    """Canonical precision name for a spelling (``bfloat16`` → ``BF16``; ``full`` → ``BF16``;
    ``q4_k_m`` / ``Q4_K - Medium`` → ``Q4_K_M``; ``UD-Q2_K_XL`` → ``Q2_K``; ``IQ1_S_R4`` →
    ``IQ1_S``; ``2.5 bpw`` → ``2.5bpw``; ``INT4-g32``).

    Raises:
        TokcheckError: for an unknown spelling (one line, with the known names).
    """
    key = _key(text)
    if key in _FULL_KEYS:
        return "BF16"
    if key in _KEYS:
        return _KEYS[key]
    param = _parametric(str(text))
    if param:
        return param
    base = gguf_base(text)
    if base:
        return base[0]
    if key in _BARE_GGUF:
        return _BARE_GGUF[key]
    known = ", ".join(p.name for p in _FORMATS)
    raise TokcheckError(f"unknown precision {text!r}; known: {known}, and GGUF types (Q8_0, Q4_K_M …)")


def find_precision(value: object) -> str | None:
    """The precision a loosely written value names: its canonical name, :data:`FULL` for "full
    precision" words (BF16 or FP16), ``None`` for nothing known.

    Tolerant where :func:`canonical_precision` is strict: an exact spelling first, then the
    longest known spelling of four or more characters inside the value (``bfloat16 (auto)`` →
    ``BF16``; ``Qwen3-8B-Q4_K_M.gguf`` → ``Q4_K_M``).
    """
    if value is None or not str(value).strip():
        return None
    key = _key(value)
    if key in _FULL_KEYS:
        return FULL
    if key in _KEYS:
        return _KEYS[key]
    derived = _parametric(str(value)) or (gguf_base(value) or (None,))[0]
    if derived:
        return derived
    squashed = re.sub(r"[\W_]", "", str(value).lower())
    if squashed in _FULL_KEYS:
        return FULL
    hits = [k for k in (*_KEYS, *_FULL_KEYS) if len(k) >= 4 and k in squashed]
    if not hits:
        return None
    best = max(hits, key=len)
    return FULL if best in _FULL_KEYS else _KEYS[best]


def get_precision(text: str) -> Precision:
    """The :class:`Precision` for a spelling; raises TokcheckError if unknown."""
    return precision_info(canonical_precision(text))


def bytes_per_param(text: str) -> float:
    """Bytes per parameter including scales (``BF16`` → 2.0, ``MXFP4`` → 0.53125,
    ``Q8_0`` → 1.0625); raises TokcheckError for an unknown spelling."""
    return get_precision(text).bytes_per_param


def full_precision_name(text: object) -> str | None:
    """The canonical name when ``text`` is exactly a spelling of a full-precision format
    (``bfloat16``, ``F16``, ``torch.float32`` → ``BF16``, ``FP16``, ``FP32``); None for anything
    else, "full" included (a claim's word, not a dtype)."""
    if text is None:
        return None
    name = _KEYS.get(_key(text))
    return name if name is not None and precision_info(name).full_precision else None


def is_quantized(text: object) -> bool | None:
    """True for a known format narrower than 16 bits (FP8, INT4, GGUF ``Q4_K_M`` …), False for
    full precision (BF16/FP16/FP32/FP64 or "full"), None for an unknown spelling or "released"."""
    name = find_precision(text)
    if name is None:
        return None
    if name == FULL:
        return False
    return not precision_info(name).full_precision


def torch_dtype(text: object) -> str | None:
    """The engine's ``--dtype`` spelling of a full-precision value (``bf16`` / ``full`` →
    ``bfloat16``, ``half`` → ``float16``); None for other formats and unknown spellings."""
    name = find_precision(text)
    if name == FULL:
        return "bfloat16"
    return precision_info(name).torch_dtype if name else None


# Parts of a model whose weights may be stored in different formats.
PARTS = ("attention", "dense_mlp", "experts", "shared_experts", "router", "embedding", "lm_head", "other")
# Parts that weight-only quantization (vLLM FP8, GPTQ/AWQ, MXFP4 checkpoints) normally leaves in
# BF16: the router, embeddings, the LM head and norms (gpt-oss's quantization_config lists
# exactly these in modules_to_not_convert; vLLM's FP8 keeps lm_head unquantized).
_KEPT_IN_BF16 = ("router", "embedding", "lm_head", "other")


def scheme_for(precision: str, released: dict[str, str] | None = None) -> dict[str, str]:
    """Per-part precision map for serving a model at ``precision``.

    Args:
        precision: a precision name, or ``"released"`` for the model's own checkpoint formats.
        released: the model's released formats, ``{"default": …, "experts": …, …}``.

    Returns:
        ``{part: canonical precision}`` for every part in :data:`PARTS`.

    Raises:
        TokcheckError: an unknown precision name.
    """
    if precision.lower() in ("released", "native", "as released"):
        rel = dict(released or {"default": "BF16"})
        default = canonical_precision(rel.get("default", "BF16"))
        out = {p: default for p in PARTS}
        for p in _KEPT_IN_BF16:
            out[p] = "BF16" if default not in ("FP32", "FP16") else default
        for part, prec in rel.items():
            if part != "default":
                out[part] = canonical_precision(prec)
        if "experts" in rel and "shared_experts" not in rel:
            out["shared_experts"] = out["experts"] if rel.get("shared_experts_follow_experts") else default
        return out
    name = canonical_precision(precision)
    if precision_info(name).full_precision:
        return {p: name for p in PARTS}
    return {p: ("BF16" if p in _KEPT_IN_BF16 else name) for p in PARTS}


def describe_scheme(scheme: dict[str, str]) -> str:
    """Short text such as ``FP8 (experts MXFP4; embedding, lm_head BF16)``."""
    main = scheme["attention"]
    others: dict[str, list[str]] = {}
    for part, prec in scheme.items():
        if prec != main and part not in ("router", "other"):
            others.setdefault(prec, []).append(part)
    if not others:
        return main
    return main + " (" + "; ".join(f"{', '.join(parts)} {p}" for p, parts in others.items()) + ")"
