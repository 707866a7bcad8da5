"""C3: the precision vocabulary — what "full precision" means and how many bytes a parameter takes.

"Full precision" in LLM inference means BF16/FP16 weights, not FP32 (the seed, section 1.2);
"no quantization" rules out INT8/INT4/FP8 weights, not other optimizations (continuous
batching, CUDA graphs, prefix caching, speculative decoding).

Bytes per parameter (the seed's table): FP32 4, FP16/BF16 2, FP8/INT8 1, INT4 0.5. Block-scaled
4-bit formats also store scales:
- MXFP4 (OCP Microscaling spec v1.0): 4-bit E2M1 values + one 8-bit E8M0 scale per 32 values
  → 0.5 + 1/32 = 0.53125 bytes.
- NVFP4 (NVIDIA Blackwell): 4-bit E2M1 + one FP8 E4M3 scale per 16 values → 0.5 + 1/16 = 0.5625.
- INT4 (GPTQ / AWQ with the usual group size 128): 4-bit + one FP16 scale per 128 → 0.515625.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokcheck.errors import TokcheckError


@dataclass(frozen=True)
class Precision:
    """A weight (or KV cache) number format.

    Attributes:
        name: canonical name (``BF16``, ``FP8``, ``MXFP4`` …).
        nominal_bytes: bytes per value without scales (the seed's table).
        bytes_per_param: bytes per value including block/group scales.
        full_precision: True for FP32/BF16/FP16 (C3).
        note: where the scale overhead comes from.
    """

    name: str
    nominal_bytes: float
    bytes_per_param: float
    full_precision: bool
    note: str = ""


PRECISIONS: dict[str, Precision] = {
    p.name: p
    for p in (
        Precision("FP32", 4, 4, True, "training format; not what 'full precision' means in inference"),
        Precision("BF16", 2, 2, True),
        Precision("FP16", 2, 2, True),
        Precision("FP8", 1, 1, False, "E4M3; per-channel or 128x128 block scales add < 0.1 %"),
        Precision("INT8", 1, 1, False, "per-channel scales add < 0.1 %"),
        Precision("INT4", 0.5, 0.5 + 2 / 128, False, "GPTQ/AWQ group 128: one FP16 scale per 128 weights"),
        Precision("MXFP4", 0.5, 0.5 + 1 / 32, False, "OCP MX: one E8M0 scale per 32 values"),
        Precision("NVFP4", 0.5, 0.5 + 1 / 16, False, "one FP8 E4M3 scale per 16 values"),
    )
}

# Spellings seen in claims, configs and engine logs → canonical name.
_ALIASES: dict[str, str] = {
    "fp32": "FP32", "float32": "FP32", "float": "FP32", "f32": "FP32",
    "bf16": "BF16", "bfloat16": "BF16",
    "fp16": "FP16", "float16": "FP16", "half": "FP16", "f16": "FP16",
    "fp8": "FP8", "float8": "FP8", "e4m3": "FP8", "fp8_e4m3": "FP8", "w8a8": "INT8", "fp8e4m3": "FP8",
    "int8": "INT8", "w8": "INT8", "q8": "INT8", "q8_0": "INT8",
    "int4": "INT4", "w4": "INT4", "w4a16": "INT4", "awq": "INT4", "gptq": "INT4", "q4": "INT4",
    "q4_0": "INT4", "q4_k_m": "INT4", "q4_k": "INT4",
    "mxfp4": "MXFP4", "fp4": "MXFP4", "nvfp4": "NVFP4",
}

FULL_PRECISION_WORDS = ("full precision", "full-precision", "fullprecision", "全精度", "unquantized",
                        "un-quantized", "未量化", "no quantization", "无量化", "不量化", "non-quantized")


def canonical_precision(text: str) -> str:
    """Canonical precision name for a spelling (``bfloat16`` → ``BF16``; ``full`` → ``BF16``).

    Raises:
        TokcheckError: for an unknown spelling (one line, with the known names).
    """
    key = re.sub(r"[\s\-]", "", str(text).strip().lower())
    if key in ("full", "fullprecision", "全精度"):
        return "BF16"
    if key.upper() in PRECISIONS:
        return key.upper()
    if key in _ALIASES:
        return _ALIASES[key]
    raise TokcheckError(f"unknown precision {text!r}; known: {', '.join(PRECISIONS)}")


def get_precision(text: str) -> Precision:
    """The :class:`Precision` for a spelling; raises TokcheckError if unknown."""
    return PRECISIONS[canonical_precision(text)]


def bytes_per_param(text: str) -> float:
    """Bytes per parameter including scales (``BF16`` → 2.0, ``MXFP4`` → 0.53125)."""
    return get_precision(text).bytes_per_param


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
    if PRECISIONS[name].full_precision:
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
