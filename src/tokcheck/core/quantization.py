"""Quantization as shipped: the per-part weight formats a checkpoint's own files declare.

Pure: a parsed ``config.json`` (and, for NVIDIA ModelOpt checkpoints, ``hf_quant_config.json``)
→ ``({part: precision name}, detail)`` in the vocabulary of :mod:`tokcheck.core.precision`.
The parts are those of :data:`tokcheck.core.precision.PARTS`; unlisted parts keep ``default``.

Read, each as its library writes it:

- ``quant_method: fp8`` (DeepSeek, Qwen FP8, MiniMax): FP8 weights with block scales
  (``weight_block_size``); ``modules_to_not_convert`` stay in the checkpoint dtype.
- ``quant_method: mxfp4`` (gpt-oss): MXFP4 experts; ``modules_to_not_convert`` (attention, router,
  embedding, lm_head) stay BF16.
- ``quant_method: gptq`` / ``awq``: ``bits`` and ``group_size`` → ``INT4`` (group 128) or
  ``INT{b}-g{g}``; packed ``int32`` tensors hold ``32 / bits`` weights each, so a 4-bit 70B
  model is ~36 GB, not the 4-byte words the files store.
- ``quant_method: bitsandbytes``: ``load_in_4bit`` → NF4/FP4 blocks of 64 with an FP32 absmax
  (4.5 bits; 4.127 with ``bnb_4bit_use_double_quant``); ``load_in_8bit`` → INT8.
- ``quant_method: compressed-tensors`` (llm-compressor, RedHatAI/neuralmagic, Moonshot):
  each ``config_groups`` entry's ``weights`` (``num_bits``, ``type`` int/float, ``strategy``,
  ``group_size``) applied to its ``targets`` (``Linear``, or regexes naming experts /
  attention); ``ignore`` (``lm_head``) stays in the checkpoint dtype; the format
  ``nvfp4-pack-quantized`` is NVFP4, ``float-quantized`` 8-bit is FP8, ``pack-quantized`` 4-bit
  int is INT4 with its group. Packed tensors count as the weights they hold.
- ModelOpt ``hf_quant_config.json``: ``quant_algo`` FP8 / NVFP4 / W4A8_AWQ / W4A16_AWQ with
  ``exclude_modules`` (the MLA projections of DeepSeek NVFP4 stay BF16, lm_head stays BF16);
  ``kv_cache_quant_algo`` is reported in the detail.

A compressed-tensors FP8 Llama 70B is thus 70.6e9 × 1 byte + 2 × 1.05e9 × 2 bytes (embedding and
lm_head in BF16) ≈ 72.7 GB, not 141 GB. Sources: the libraries' own config writers
(transformers ``quantizers/``, llm-compressor/compressed-tensors ``QuantizationScheme``,
NVIDIA ModelOpt ``export``); see docs/sources.md.
"""

from __future__ import annotations

import re

from tokcheck.core.precision import canonical_precision
from tokcheck.errors import TokcheckError

# Module names → part. Checked in order; the first hit wins.
_PART_PATTERNS: tuple[tuple[str, str], ...] = (
    ("other", r"norm|e_score_correction|rotary"),
    ("shared_experts", r"shared_expert"),
    ("router", r"(?:^|\.)gate$|router|\.gate\b(?!_)"),
    ("experts", r"experts?|block_sparse_moe|\.ffn\.(?:w[123]|gate_up|down)"),
    ("attention", r"attn|attention|q_proj|k_proj|v_proj|o_proj|q_a_proj|q_b_proj|kv_a_proj|kv_b_proj|wq|wkv|wo_"),
    ("dense_mlp", r"mlp|ffn|gate_proj|up_proj|down_proj"),
    ("embedding", r"embed"),
    ("lm_head", r"lm_head|output\.weight"),
)
_LINEAR_PARTS = ("attention", "dense_mlp", "experts", "shared_experts")


def part_of(module: str) -> str | None:
    """The part a module name or target pattern belongs to (``model.layers.3.mlp.experts.7.up_proj``
    → ``experts``; ``lm_head`` → ``lm_head``); None when nothing matches."""
    m = str(module).lower()
    if m.startswith("re:"):
        m = m[3:]
    if re.search(r"lm_head", m):
        return "lm_head"
    for part, rx in _PART_PATTERNS:
        if re.search(rx, m):
            return part
    return None


def _int_name(bits: int, group: int | None) -> str:
    if bits == 8:
        return "INT8"
    if bits == 4 and (group in (None, 0, -1, 128)):
        return "INT4"
    if group in (None, 0, -1):
        group = 128
    return f"INT{bits}-g{int(group)}"


def _weights_name(w: dict, fmt: str) -> str:
    bits = int(w.get("num_bits") or 8)
    kind = str(w.get("type") or "int").lower()
    group = w.get("group_size")
    if "nvfp4" in fmt or (kind == "float" and bits == 4 and (group or 16) == 16):
        return "NVFP4"
    if "mxfp4" in fmt or (kind == "float" and bits == 4 and group == 32):
        return "MXFP4"
    if kind == "float" and bits == 8:
        return "FP8"
    if kind == "float":
        return f"{bits}bpw"
    return _int_name(bits, group)


def _dtype_default(cfg: dict) -> str:
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    try:
        return canonical_precision(dtype)
    except TokcheckError:
        return "BF16"


def _keep(parts: dict, modules, dtype: str) -> None:
    for mod in modules or ():
        part = part_of(mod)
        if part:
            parts[part] = dtype


def quantization_scheme(cfg: dict, hf_quant_config: dict | None = None) -> tuple[dict, str] | None:
    """The released per-part formats a checkpoint declares, and a one-line detail; None when the
    files declare no quantization (the ``torch_dtype`` alone then says it).

    ``cfg`` is the decoder's config (a nested ``text_config`` already merged with its wrapper's
    ``quantization_config`` by the caller); ``hf_quant_config`` is ModelOpt's file when there is one.

    Raises:
        TokcheckError: a quantization method tokcheck cannot size (named in the message).
    """
    dtype = _dtype_default(cfg)
    full = "BF16" if dtype not in ("FP16", "FP32") else dtype
    if hf_quant_config:
        q = hf_quant_config.get("quantization") or hf_quant_config
        algo = str(q.get("quant_algo") or "").upper()
        names = {"FP8": "FP8", "NVFP4": "NVFP4", "W4A8_AWQ": "INT4", "W4A16_AWQ": "INT4", "INT8_SQ": "INT8",
                 "W4A8_NVFP4_FP8": "NVFP4", "MXFP4": "MXFP4", "FP8_PB_WO": "FP8"}
        if algo not in names:
            raise TokcheckError(f"ModelOpt quant_algo {algo or '(none)'!r} is not one tokcheck can size")
        parts = {"default": names[algo], "embedding": full, "lm_head": full}
        excluded = {p for p in (part_of(m) for m in q.get("exclude_modules") or ()) if p}
        for p in excluded:
            parts[p] = full
        detail = f"ModelOpt {algo}" + (f", group {q['group_size']}" if q.get("group_size") else "")
        if q.get("kv_cache_quant_algo"):
            detail += f"; KV cache {q['kv_cache_quant_algo']}"
        return parts, detail
    qc = cfg.get("quantization_config")
    if not isinstance(qc, dict) or not qc:
        return None
    method = str(qc.get("quant_method") or "").lower().replace("_", "-")
    if method == "fp8":
        parts = {"default": "FP8", "embedding": full, "lm_head": full}
        _keep(parts, qc.get("modules_to_not_convert") or qc.get("ignored_layers"), full)
        parts.pop("other", None)
        block = qc.get("weight_block_size")
        detail = "FP8" + (f", {block[0]}x{block[1]} block scales" if block else "")
        if str(cfg.get("expert_dtype") or "").lower() == "fp4":  # DeepSeek V4: FP4 routed experts
            parts["experts"] = "MXFP4"
            detail += "; routed experts FP4 (expert_dtype fp4, MXFP4 layout)"
        return parts, detail
    if method == "mxfp4":
        parts = {"default": full, "experts": "MXFP4"}
        return parts, "MXFP4 experts (one E8M0 scale per 32); the rest " + full
    if method in ("gptq", "awq", "gptq-marlin", "awq-marlin"):
        bits, group = int(qc.get("bits") or qc.get("w_bit") or 4), qc.get("group_size") or qc.get("q_group_size")
        name = _int_name(bits, group)
        parts = {"default": name, "embedding": full, "lm_head": full}
        _keep(parts, qc.get("modules_to_not_convert"), full)
        return parts, f"{method.upper()} {bits}-bit, group {group or 128}; packed int32 words hold {32 // bits} weights"
    if method == "bitsandbytes":
        if qc.get("load_in_4bit"):
            double = bool(qc.get("bnb_4bit_use_double_quant"))
            bits = 4 + (8 / 64 + 32 / (64 * 256) if double else 32 / 64)
            name = f"{bits:.4g}bpw"
            parts = {"default": name, "embedding": full, "lm_head": full}
            _keep(parts, qc.get("llm_int8_skip_modules"), full)
            return parts, (f"bitsandbytes {qc.get('bnb_4bit_quant_type', 'fp4')} 4-bit, blocks of 64"
                           + (" with double quantization" if double else " with an FP32 absmax each"))
        if qc.get("load_in_8bit"):
            parts = {"default": "INT8", "embedding": full, "lm_head": full}
            _keep(parts, qc.get("llm_int8_skip_modules"), full)
            return parts, "bitsandbytes LLM.int8(), per-row scales"
        return None
    if method == "compressed-tensors":
        parts: dict = {"default": full}
        names = []
        fmt_top = str(qc.get("format") or "")
        for group in (qc.get("config_groups") or {}).values():
            w = group.get("weights") or {}
            if not w:
                continue
            fmt = str(group.get("format") or fmt_top)
            name = _weights_name(w, fmt)
            names.append(f"{name} on {', '.join(str(t) for t in group.get('targets') or ['Linear'])}")
            for target in group.get("targets") or ["Linear"]:
                if str(target) == "Linear":
                    for p in _LINEAR_PARTS:
                        parts.setdefault(p, name)
                        parts[p] = name
                else:
                    p = part_of(target)
                    if p == "dense_mlp":  # a generic MLP pattern ("re:.*ffn.*(gate|up|down)_proj$")
                        for q in ("dense_mlp", "experts", "shared_experts"):
                            parts[q] = name
                    elif p:
                        parts[p] = name
                        if p == "experts" and "shared_expert" not in str(target):
                            parts.setdefault("shared_experts", name)
        for mod in qc.get("ignore") or ():
            p = part_of(mod)
            if p and not re.search(r"layers\.\d+\.", str(mod)):
                parts[p] = full
            elif p == "attention":
                parts[p] = full
        if len(parts) == 1:
            return None
        return parts, "compressed-tensors: " + "; ".join(names)
    raise TokcheckError(f"quantization method {method or '(none)'!r} is not one tokcheck can size")


__all__ = ["part_of", "quantization_scheme"]
