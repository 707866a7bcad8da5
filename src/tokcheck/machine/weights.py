"""precision audit: is a model directory (or what a server says it loaded) full precision?

From a model directory: ``config.json`` (``torch_dtype``/``dtype``, ``quantization_config``),
quantization artifacts among the file names (``quantize_config.json``, ``*gptq*``, ``*awq*``,
``*fp8*``, …, and mixed weight formats), the dtype and shape of every safetensors tensor (read
from the headers with the ``safetensors`` library; no tensor is loaded; sharded checkpoints via
``model.safetensors.index.json``) and the tensor types of GGUF files (``gguf`` library).
From a server log: the dtype, quantization and KV-cache dtype the engine states it loaded.

Full precision means BF16, FP16 or FP32 weights (the guide, ``docs/guide.md``: "满血" / "full precision, no
quantization"); anything stored in 8 bits or fewer, or a ``quantization_config``, is not.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tokcheck.core.precision import canonical_precision, full_precision_name, is_quantized
from tokcheck.errors import TokcheckError

# Bits per element of each safetensors dtype (safetensors' format spec; F4/F6/E8M0 are the
# micro-scaling types added for MXFP4/NVFP4 checkpoints).
SAFETENSORS_DTYPE_BITS: dict[str, int] = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E4M3": 8, "F8_E5M2": 8, "F8_E8M0": 8, "E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
    "I64": 64, "U64": 64, "F64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}
# The safetensors dtypes that are full-precision formats in the vocabulary: BF16, F16, F32, F64.
FULL_PRECISION_DTYPES = {d for d in SAFETENSORS_DTYPE_BITS if full_precision_name(d)}
LOW_PRECISION_FLOAT_DTYPES = {"F8_E4M3", "F8_E5M2", "F8_E8M0", "E8M0", "F4", "F6_E2M3", "F6_E3M2"}
# Tensor names that only quantized checkpoints carry (GPTQ/AWQ packed weights and their
# zero points, group indices and scales; FP8/compressed-tensors scales).
QUANT_TENSOR_SUFFIXES = (".qweight", ".qzeros", ".g_idx", ".scales", ".weight_scale",
                         ".weight_scale_inv", ".input_scale", ".weight_packed",
                         ".weight_zero_point", ".weight_global_scale", ".SCB")
# File names that mark a quantized checkpoint (AutoGPTQ/AutoAWQ write quantize_config.json;
# repositories name their weights after the method).
QUANT_FILE_PATTERNS = ("quantize_config.json", "quant_config.json", "*gptq*", "*awq*", "*fp8*",
                       "*int4*", "*int8*", "*w4a16*", "*w8a8*", "*w8a16*", "*nvfp4*", "*mxfp4*",
                       "*bnb*", "*exl2*", "*hqq*")
# GGUF tensor types that keep full precision (ggml's own float types).
GGUF_FULL_PRECISION_TYPES = {"F32", "F16", "BF16", "F64"}
WEIGHT_SUFFIXES = {".safetensors": "safetensors", ".gguf": "gguf", ".bin": "pytorch",
                   ".pt": "pytorch", ".pth": "pytorch", ".ckpt": "pytorch"}
# Words an engine uses for quantization methods (vLLM's --quantization values and the names
# of quantization schemes); any of them in a server's statement means not full precision.
QUANT_WORDS = ("gptq", "awq", "fp8", "w8a8", "w4a16", "w8a16", "int8", "int4", "nvfp4", "mxfp4",
               "fp4", "bitsandbytes", "compressed-tensors", "compressed_tensors", "marlin",
               "modelopt", "gguf", "hqq", "quark", "torchao", "experts_int8", "auto-round",
               "bnb", "squeezellm", "aqlm", "exl2", "awq_marlin", "gptq_marlin")


@dataclass
class WeightFile:
    """One weight file: its name relative to the model directory, format, size on disk."""

    name: str
    format: str
    size_bytes: int


@dataclass
class PrecisionReport:
    """The verdict of an audit and what it rests on.

    ``full_precision`` is True (BF16/FP16/FP32 weights, no quantization), False (quantized:
    ``method`` and ``quantized_bytes_share`` say how) or None (the evidence does not say, or
    contradicts itself: ``verdict`` ``"inconsistent"`` and ``consistent`` False, e.g. a
    ``quantization_config`` for FP8 over 16-bit tensors). Byte counts are the tensors' element
    counts × their dtype's bits ÷ 8 (GGUF: the block layouts' exact sizes).
    """

    source: str  # "model_dir" | "server_log" | "model_dir+server_log"
    path: str
    full_precision: bool | None
    verdict: str  # "full precision" | "quantized" | "unknown"
    reasons: list[str] = field(default_factory=list)
    method: str | None = None
    precision: str | None = None  # "BF16", "FP16", "FP32" or "mixed" for full precision
    config_dtype: str | None = None
    quantization_config: dict | None = None
    kv_cache_dtype: str | None = None
    weight_files: list[WeightFile] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    parameter_count: int | None = None
    weight_bytes: int | None = None
    bytes_by_dtype: dict[str, int] = field(default_factory=dict)
    params_by_dtype: dict[str, int] = field(default_factory=dict)
    quantized_bytes_share: float | None = None
    file_type: str | None = None  # GGUF: the declared file type (general.file_type), e.g. Q4_K_M
    bits_per_weight: float | None = None  # GGUF: tensor bytes × 8 ÷ weights, over all tensors
    tensors_by_dtype: dict[str, int] = field(default_factory=dict)  # GGUF: tensor count per type
    consistent: bool | None = None  # False: what is declared is not what is stored

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# Reading the files (I/O)


def _read_config(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise TokcheckError(f"cannot read {path}: {err}") from None


def _safetensors_tensors(path: Path) -> list[tuple[str, str, list[int]]]:
    """(name, dtype, shape) of every tensor in a safetensors file, from its header only."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            out = []
            for name in f.keys():
                sl = f.get_slice(name)
                out.append((name, sl.get_dtype(), list(sl.get_shape())))
            return out
    except Exception as err:  # safetensors raises its own SafetensorError and OSError
        raise TokcheckError(f"cannot read the safetensors header of {path}: {err}") from None


def _gguf_tensors(path: Path) -> tuple[list[tuple[str, str, int, int]], dict]:
    """(name, ggml type name, element count, byte count) of every tensor in a GGUF file, and a
    few metadata fields (``general.architecture``, ``general.file_type`` — llama.cpp's
    ``llama_ftype`` number —, ``general.name``)."""
    from gguf import GGUFReader

    try:
        reader = GGUFReader(str(path))
    except Exception as err:
        raise TokcheckError(f"cannot read the GGUF file {path}: {err}") from None
    tensors = [(t.name, t.tensor_type.name, int(t.n_elements), int(t.n_bytes))
               for t in reader.tensors]
    meta = {}
    for key in ("general.architecture", "general.file_type", "general.name"):
        fld = reader.get_field(key)
        if fld is not None:
            try:
                meta[key] = fld.contents()
            except Exception:  # older gguf releases lack contents(); the field is optional
                pass
    return tensors, meta


# ---------------------------------------------------------------------------------------------
# The audit


def _n_elements(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def find_artifacts(names: list[str]) -> list[str]:
    """File names among ``names`` that mark a quantized checkpoint (``QUANT_FILE_PATTERNS``)."""
    found = []
    for name in names:
        low = name.lower()
        if any(fnmatch.fnmatch(low, pat) for pat in QUANT_FILE_PATTERNS):
            found.append(name)
    return sorted(found)


def compressed_tensors_scheme(qc: dict) -> str | None:
    """The scheme a compressed-tensors ``quantization_config`` declares, in the field's words:
    the weights' type and bits, the activations' (``W8A16`` = 8-bit weights, 16-bit
    activations), and the storage format — e.g. ``INT4 W4A16 (pack-quantized, group 128)``,
    ``FP8 E4M3 W8A8 (float-quantized, channel)``. The keys are those of the compressed-tensors
    library's ``QuantizationConfig`` (``format``, ``config_groups.*.weights`` and
    ``input_activations`` with ``num_bits``, ``type``, ``strategy``, ``group_size``), as
    LLM Compressor writes them into ``config.json``. None when no group states its weights."""
    groups = qc.get("config_groups") or {}
    schemes = []
    for group in groups.values() if isinstance(groups, dict) else []:
        w = (group or {}).get("weights") or {}
        bits = w.get("num_bits")
        if not bits:
            continue
        kind = str(w.get("type") or "int").lower()
        name = f"FP{bits} E4M3" if kind == "float" and bits == 8 else \
            f"FP{bits}" if kind == "float" else f"INT{bits}"
        a = (group or {}).get("input_activations") or {}
        a_bits = a.get("num_bits") or 16
        details = [str(qc["format"])] if qc.get("format") else []
        if w.get("group_size"):
            details.append(f"group {w['group_size']}")
        elif w.get("strategy"):
            details.append(str(w["strategy"]))
        text = f"{name} W{bits}A{a_bits}" + (f" ({', '.join(details)})" if details else "")
        if text not in schemes:
            schemes.append(text)
    return "; ".join(schemes) or None


# quant_method values whose checkpoints store quantized tensors (the engine loads them as they
# are): with only 16/32-bit tensors present, such a config contradicts the weights. Methods that
# may quantize 16-bit weights while loading (bitsandbytes, torchao, hqq) are not listed.
SERIALIZED_METHODS = ("fp8", "gptq", "awq", "compressed-tensors", "compressed_tensors", "modelopt",
                      "modelopt_fp4", "mxfp4", "nvfp4", "fbgemm_fp8", "marlin", "gptq_marlin",
                      "awq_marlin", "quark", "w8a8_int8", "w8a8_fp8", "auto-round", "exl2")


def _quant_description(qc: dict) -> str:
    method = qc.get("quant_method") or qc.get("quantization_method") or "unknown method"
    parts = [f"quant_method={method}"]
    scheme = compressed_tensors_scheme(qc) if "compressed" in str(method) else None
    if scheme:
        parts.append(f"scheme {scheme}")
    for key in ("bits", "w_bit", "group_size", "q_group_size", "weight_block_size", "fmt",
                "activation_scheme", "load_in_4bit", "load_in_8bit"):
        if key in qc:
            parts.append(f"{key}={qc[key]}")
    return ", ".join(parts)


def audit_model_dir(path: str | Path) -> PrecisionReport:
    """Audit a model directory (or one ``.safetensors`` / ``.gguf`` file) for precision.

    Args:
        path: a Hugging Face model directory (``config.json`` and weights), a directory of GGUF
            files, or a single weight file.

    Returns:
        A :class:`PrecisionReport` with the verdict and its reasons.

    Raises:
        TokcheckError: the path does not exist, has no ``config.json`` (and no GGUF file, which
            carries its own metadata), has no weight files, or a file cannot be read.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise TokcheckError(f"no such model directory or file: {p}")
    folder = p.parent if p.is_file() else p
    config_path = folder / "config.json"
    if p.is_dir() and not config_path.is_file() and not any(p.glob("*.gguf")):
        # A GGUF file carries its own metadata; anything else needs config.json.
        raise TokcheckError(f"no config.json in {folder}: not a Hugging Face model directory")
    if p.is_file():
        if p.suffix.lower() not in WEIGHT_SUFFIXES:
            raise TokcheckError(f"{p} is not a weight file (*.safetensors, *.gguf, *.bin)")
        candidates, all_names = [p], [p.name]
    else:
        all_files = sorted(f for f in p.rglob("*") if f.is_file())
        candidates = [f for f in all_files if f.suffix.lower() in WEIGHT_SUFFIXES]
        all_names = [str(f.relative_to(folder)) for f in all_files]
    if not candidates:
        raise TokcheckError(f"no weight files (*.safetensors, *.gguf, *.bin) in {p}")

    report = PrecisionReport(source="model_dir", path=str(p), full_precision=None,
                             verdict="unknown")
    reasons = report.reasons

    config = _read_config(config_path) if config_path.is_file() else {}
    # transformers ≥ 4.56 writes "dtype"; older releases "torch_dtype".
    report.config_dtype = config.get("dtype") or config.get("torch_dtype") \
        or (config.get("text_config") or {}).get("dtype")
    qc = config.get("quantization_config") \
        or (config.get("text_config") or {}).get("quantization_config")
    if qc:
        report.quantization_config = qc
        report.method = str(qc.get("quant_method") or "unknown")
        if "compressed" in report.method:
            scheme = compressed_tensors_scheme(qc)
            report.method = f"compressed-tensors {scheme}" if scheme else report.method
        reasons.append(f"config.json has a quantization_config ({_quant_description(qc)})")
    report.artifacts = find_artifacts(all_names)
    if report.artifacts:
        reasons.append("quantization artifacts among the files: " + ", ".join(report.artifacts))

    # Sharded safetensors: the index names the shards that make up the model.
    shards: set[str] | None = None
    index_path = folder / "model.safetensors.index.json"
    if p.is_dir() and index_path.is_file():
        weight_map = _read_config(index_path).get("weight_map") or {}
        shards = set(weight_map.values())
        missing = sorted(s for s in shards if not (folder / s).is_file())
        if missing:
            raise TokcheckError(f"{index_path.name} names shards that are missing: "
                                + ", ".join(missing[:3]) + (" …" if len(missing) > 3 else ""))

    formats = set()
    params_by_dtype: dict[str, int] = {}
    bytes_by_dtype: dict[str, int] = {}
    quant_tensor_bytes = 0
    quant_tensor_names: list[str] = []
    unread: list[str] = []
    for f in candidates:
        fmt = WEIGHT_SUFFIXES[f.suffix.lower()]
        rel = str(f.relative_to(folder))
        report.weight_files.append(WeightFile(rel, fmt, f.stat().st_size))
        formats.add(fmt)
        if fmt == "safetensors":
            if shards is not None and rel not in shards:
                reasons.append(f"{rel} is not in {index_path.name}; not counted")
                continue
            for name, dtype, shape in _safetensors_tensors(f):
                n = _n_elements(shape)
                nbytes = n * SAFETENSORS_DTYPE_BITS.get(dtype, 0) // 8
                params_by_dtype[dtype] = params_by_dtype.get(dtype, 0) + n
                bytes_by_dtype[dtype] = bytes_by_dtype.get(dtype, 0) + nbytes
                if dtype in LOW_PRECISION_FLOAT_DTYPES or dtype in ("I8", "U8") \
                        or name.endswith(QUANT_TENSOR_SUFFIXES):
                    quant_tensor_bytes += nbytes
                    if len(quant_tensor_names) < 3:
                        quant_tensor_names.append(f"{name} ({dtype})")
        elif fmt == "gguf":
            tensors, meta = _gguf_tensors(f)
            if report.file_type is None and meta.get("general.file_type") is not None:
                report.file_type = gguf_file_type_name(meta["general.file_type"])
            for name, ttype, n, nbytes in tensors:
                key = f"GGUF_{ttype}"
                params_by_dtype[key] = params_by_dtype.get(key, 0) + n
                bytes_by_dtype[key] = bytes_by_dtype.get(key, 0) + nbytes
                report.tensors_by_dtype[ttype] = report.tensors_by_dtype.get(ttype, 0) + 1
                if ttype not in GGUF_FULL_PRECISION_TYPES:
                    quant_tensor_bytes += nbytes
                    if len(quant_tensor_names) < 3:
                        quant_tensor_names.append(f"{name} ({ttype})")
        else:
            unread.append(rel)
    if unread:
        reasons.append("not inspected (pickled PyTorch files need torch to read): "
                       + ", ".join(unread[:3]) + (" …" if len(unread) > 3 else ""))
    if len(formats) > 1:
        reasons.append("mixed weight formats in one directory: " + ", ".join(sorted(formats))
                       + " (an engine may load a different set than the one audited)")

    report.params_by_dtype = params_by_dtype
    report.bytes_by_dtype = bytes_by_dtype
    if params_by_dtype:
        report.parameter_count = sum(params_by_dtype.values())
        report.weight_bytes = sum(bytes_by_dtype.values())
    if report.tensors_by_dtype and report.parameter_count:
        gguf_bytes = sum(b for d, b in bytes_by_dtype.items() if d.startswith("GGUF_"))
        gguf_params = sum(n for d, n in params_by_dtype.items() if d.startswith("GGUF_"))
        report.bits_per_weight = round(gguf_bytes * 8 / gguf_params, 2) if gguf_params else None
        reasons.append(_gguf_line(report))
    read_bytes = report.weight_bytes or 0
    if read_bytes:
        report.quantized_bytes_share = quant_tensor_bytes / read_bytes
    if quant_tensor_bytes:
        reasons.append(f"{report.quantized_bytes_share:.0%} of the weight bytes are in quantized "
                       f"tensors, e.g. {', '.join(quant_tensor_names)}")
        if report.method is None:
            report.method = _method_from_dtypes(bytes_by_dtype, quant_tensor_names,
                                                report.file_type)

    serialized = bool(qc) and str(qc.get("quant_method", "")).lower() in SERIALIZED_METHODS
    fp_only = read_bytes > 0 and not quant_tensor_bytes and all(
        d in FULL_PRECISION_DTYPES or d.removeprefix("GGUF_") in GGUF_FULL_PRECISION_TYPES
        for d in bytes_by_dtype) and not unread
    if report.file_type and report.tensors_by_dtype:
        declared_quantized = is_quantized(report.file_type)
        if declared_quantized is False and quant_tensor_bytes:
            report.consistent = False
            reasons.append(f"the file declares {report.file_type} (general.file_type) but "
                           f"{report.quantized_bytes_share:.0%} of its bytes are quantized "
                           "tensors: llama.cpp loads the tensors as stored")
        elif declared_quantized and not quant_tensor_bytes:
            report.consistent = False
            reasons.append(f"the file declares {report.file_type} (general.file_type) but "
                           "every tensor is a 16- or 32-bit float: llama.cpp loads the tensors "
                           "as stored")
    if serialized and fp_only:
        # Declared quantized, stored in 16/32 bits: neither verdict is true of what an engine
        # would load (vLLM expects the declared format's tensors and scales).
        report.full_precision, report.verdict, report.consistent = None, "inconsistent", False
        report.method = None
        reasons.append(f"config.json declares {qc.get('quant_method')} but every weight tensor "
                       f"is a 16- or 32-bit float ({_bytes_line(bytes_by_dtype)}): the "
                       "declaration and the weights disagree")
        return report
    if report.consistent is None and (qc or report.file_type) and read_bytes:
        report.consistent = True

    if qc or quant_tensor_bytes or report.artifacts:
        report.full_precision, report.verdict = False, "quantized"
        if report.method is None:
            report.method = _method_from_names(report.artifacts) or "unknown"
    elif read_bytes:
        fp = {d: b for d, b in bytes_by_dtype.items()
              if d in FULL_PRECISION_DTYPES or d.removeprefix("GGUF_") in GGUF_FULL_PRECISION_TYPES}
        share = sum(fp.values()) / read_bytes
        if share > 0.99:
            main = max(fp, key=fp.get).removeprefix("GGUF_")
            main = full_precision_name(main) or main
            others = sorted({d.removeprefix("GGUF_") for d in fp} - {max(fp, key=fp.get)
                                                                    .removeprefix("GGUF_")})
            report.precision = main if not others else f"{main} (with {', '.join(others)})"
            report.full_precision, report.verdict = True, "full precision"
            reasons.append(f"every tensor is a 16- or 32-bit float: {_bytes_line(bytes_by_dtype)}"
                           f"; no quantization_config, no quantization artifacts")
        else:
            reasons.append(f"tensor dtypes not recognised as full precision or quantized: "
                           f"{_bytes_line(bytes_by_dtype)}")
    else:
        reasons.append("no tensor could be read (only pickled weights); config.json says "
                       f"dtype {report.config_dtype or 'nothing'}")
    if report.full_precision and report.config_dtype:
        cfg = full_precision_name(report.config_dtype)
        if cfg and report.precision and not report.precision.startswith(cfg):
            reasons.append(f"config.json says {report.config_dtype} but the tensors are "
                           f"{report.precision}")
    return report


def _bytes_line(bytes_by_dtype: dict[str, int]) -> str:
    from tokcheck.core.units import fmt_bytes

    return ", ".join(f"{d} {fmt_bytes(b)}" for d, b in
                     sorted(bytes_by_dtype.items(), key=lambda kv: -kv[1]))


def gguf_file_type_name(value: object) -> str | None:
    """The precision vocabulary's name of a GGUF ``general.file_type`` (llama.cpp's
    ``llama_ftype`` number, named by the ``gguf`` package's ``LlamaFileType``: 15 →
    ``MOSTLY_Q4_K_M`` → ``Q4_K_M``; 1 → ``FP16``); the enum's name when the vocabulary lacks
    it; None for a value that is no file type."""
    from gguf import LlamaFileType

    try:
        name = LlamaFileType(int(value)).name
    except (ValueError, TypeError):
        return None
    try:
        return canonical_precision(name)
    except TokcheckError:
        return name.removeprefix("MOSTLY_")


def _gguf_line(report: PrecisionReport) -> str:
    types = ", ".join(f"{t} ×{n}" for t, n in sorted(report.tensors_by_dtype.items(),
                                                     key=lambda kv: -kv[1]))
    declared = f"file type {report.file_type}, " if report.file_type else ""
    return (f"GGUF: {declared}{report.bits_per_weight:g} bits per weight over all tensors; "
            f"tensor types {types}")


def _method_from_dtypes(bytes_by_dtype: dict[str, int], names: list[str],
                        file_type: str | None = None) -> str:
    if any(d.startswith("GGUF_") for d in bytes_by_dtype) and file_type \
            and is_quantized(file_type):
        return file_type
    if any(d.startswith("F8") for d in bytes_by_dtype):
        return "fp8"
    if any(d in ("F4", "F8_E8M0", "E8M0") for d in bytes_by_dtype):
        return "fp4"
    if any(d.startswith("GGUF_") for d in bytes_by_dtype):
        return "gguf"
    if any(".qweight" in n for n in names):
        return "gptq/awq (packed int4)"
    return "int8"


def _method_from_names(names: list[str]) -> str | None:
    for name in names:
        for word in ("gptq", "awq", "fp8", "w8a8", "w4a16", "nvfp4", "mxfp4", "int4", "int8",
                     "bnb", "exl2", "hqq"):
            if word in name.lower():
                return word
    if names:
        return "unknown"
    return None


# ---------------------------------------------------------------------------------------------
# Server logs


# Lines an engine prints at start-up, for engines tokcheck does not start (those it starts bring
# their own: tokcheck.engines.base.Engine.log_marker): without one, a text is not a server log.
# SGLang: `server_args=ServerArgs(…)`; TGI: `text_generation_launcher: Args {…}`; llama.cpp
# (llama-server): `llama_model_loader:` / `print_info:` / `llm_load_print_meta:` lines.
ENGINE_STARTUP_MARKERS = (
    ("sglang", re.compile(r"server_args=ServerArgs\(")),
    ("tgi", re.compile(r"text_generation_launcher: Args \{")),
    ("llama.cpp", re.compile(r"\b(?:llama_model_loader|print_info|llm_load_print_meta): ")),
)


def startup_marker(text: str) -> str | None:
    """The engine whose start-up lines ``text`` contains: a registered engine's name
    (:func:`tokcheck.engines.registry.engine_for_log`, e.g. ``"vllm"``), else ``"sglang"``,
    ``"tgi"`` or ``"llama.cpp"`` (``ENGINE_STARTUP_MARKERS``); None when it has none."""
    from tokcheck.engines.registry import engine_for_log

    found = engine_for_log(text)
    if found is not None:
        return found.name
    for engine, pattern in ENGINE_STARTUP_MARKERS:
        if pattern.search(text):
            return engine
    return None


# Lines engines print that say what the weights are, beside their config lines. vLLM: `Detected
# fp8 checkpoint. Please note that the format is experimental and subject to change.`
# (model_executor/layers/quantization/fp8.py) and `Casting torch.bfloat16 to torch.float16.`
# (config: a checkpoint dtype other than --dtype). SGLang ≥ 0.5: `Load weight end. elapsed=…,
# type=…, quant=modelopt_fp4, quant_algo=NVFP4, avail mem=…` (model_runner).
_FP8_CHECKPOINT = re.compile(r"Detected fp8 checkpoint")
_CAST = re.compile(r"Casting (torch\.\w+|\w+) to (torch\.\w+|\w+)")
_SGLANG_LOADED = re.compile(r"Load weight end\..*?\bquant=([\w.-]+)(?:, quant_algo=([\w.-]+))?")
_SGLANG_ARGS = re.compile(r"server_args=ServerArgs\((.*)\)\s*$", re.M)


def sglang_server_args(text: str) -> dict | None:
    """SGLang's ``server_args=ServerArgs(model_path='…', …, dtype='auto', quantization=None,
    …, kv_cache_dtype='auto', …, modelopt_quant=None, …)`` start-up line (printed by
    ``sglang/srt/entrypoints/engine.py`` and ``http_server.py``) as ``{field: Python value}``
    (the last such line); None when the text has none."""
    from tokcheck.engines.logparse import literal, parse_config_line

    found = _SGLANG_ARGS.findall(text)
    if not found:
        return None
    return {k: literal(v) for k, v in parse_config_line(found[-1]).items()}


def _full(report: PrecisionReport, precision: str, reason: str) -> None:
    report.full_precision, report.verdict, report.precision = True, "full precision", precision
    report.reasons.append(reason)


def _quantized(report: PrecisionReport, method: str, reason: str) -> None:
    report.full_precision, report.verdict = False, "quantized"
    report.method = report.method or method
    report.reasons.append(reason)


def _from_engine_report(report: PrecisionReport, eng) -> None:
    """The verdict from an :class:`~tokcheck.engines.base.EngineReport` (an engine tokcheck
    starts: vLLM's config line, llama.cpp's file type and tensor types)."""
    reasons = report.reasons
    report.config_dtype = eng.dtype
    report.kv_cache_dtype = eng.kv_cache_dtype
    quant = eng.quantization
    kv = (eng.kv_cache_dtype or "").lower()
    kv_quantized = kv not in ("", "auto") and full_precision_name(kv) is None
    if eng.file_type is not None:  # a GGUF engine: the file's type and its tensor types
        report.file_type = quant if quant and quant != "none" else full_precision_name(eng.dtype)
        report.bits_per_weight = eng.bits_per_weight
        report.tensors_by_dtype = dict(eng.tensor_types or {})
        types = ", ".join(f"{t} ×{n}" for t, n in sorted(report.tensors_by_dtype.items(),
                                                         key=lambda kv_: -kv_[1]))
        bpw = f", {eng.bits_per_weight:g} bits per weight" if eng.bits_per_weight else ""
        reasons.append(f"the engine states file type {eng.file_type}{bpw}"
                       + (f"; tensor types {types}" if types else ""))
        stored_quantized = [t for t in report.tensors_by_dtype
                            if t not in GGUF_FULL_PRECISION_TYPES]
        if quant == "none" and stored_quantized:
            report.consistent = False
            _quantized(report, stored_quantized[0],
                       f"the file type says {eng.file_type} but the file holds "
                       f"{', '.join(stored_quantized)} tensors: llama.cpp loads them as stored")
        elif quant and quant != "none" and report.tensors_by_dtype and not stored_quantized:
            report.consistent = False
            reasons.append(f"the file type says {eng.file_type} but every tensor is a 16- or "
                           "32-bit float")
            quant = "none"
        elif report.tensors_by_dtype:
            report.consistent = True
    if report.full_precision is None and quant and quant != "none":
        _quantized(report, quant, f"the engine states quantization {quant}")
    if kv_quantized:
        _quantized(report, f"kv_cache:{kv}",
                   f"the engine stores the KV cache as {kv} (quantized KV cache)")
    if report.full_precision is None:
        precision = full_precision_name(eng.dtype)
        if quant == "none" and precision:
            # In words, not the log's Python literals (quantization=None): reasons are read by people.
            _full(report, precision, f"the engine states dtype {eng.dtype}, quantization none, "
                                     f"KV cache dtype {eng.kv_cache_dtype or 'not stated'}")
        else:
            reasons.append(f"the engine states dtype {eng.dtype or 'not stated'}, quantization "
                           f"{quant or 'not stated'}")


def _from_sglang(report: PrecisionReport, args: dict) -> None:
    """The verdict from SGLang's ``ServerArgs`` line, read field by field (never by the names
    of other fields: ``fp8_gemm_runner_backend='auto'`` is a kernel choice, not FP8)."""
    dtype, quant = args.get("dtype"), args.get("quantization")
    mq, kv = args.get("modelopt_quant"), str(args.get("kv_cache_dtype") or "auto").lower()
    report.config_dtype = None if dtype in (None, "auto") else str(dtype)
    report.kv_cache_dtype = kv
    stated = (f"SGLang's ServerArgs: dtype {dtype or 'not set'}, quantization {quant or 'none'}, "
              f"modelopt_quant {mq or 'none'}, KV cache dtype {kv}")
    if quant not in (None, "", "none"):
        _quantized(report, str(quant), stated)
    elif mq not in (None, "", "none"):
        _quantized(report, f"modelopt {mq}", stated)
    if kv not in ("auto", "") and full_precision_name(kv) is None:
        _quantized(report, f"kv_cache:{kv}", f"{stated} (quantized KV cache)")
    if report.full_precision is None:
        precision = full_precision_name(dtype)
        if precision:
            _full(report, precision, stated)
        else:
            report.reasons.append(f"{stated}: with dtype 'auto' the checkpoint's dtype and its "
                                  "quantization_config decide; audit the model directory too")


def _apply_evidence(report: PrecisionReport, text: str) -> None:
    """What other lines of the log say about the weights, beside the config line: both are
    reported, and a detected FP8 checkpoint is never full precision."""
    m = _FP8_CHECKPOINT.search(text)
    if m:
        was_full = report.full_precision
        said_none = any("quantization none" in r for r in report.reasons)
        report.full_precision, report.verdict, report.method = False, "quantized", \
            report.method or "fp8"
        report.precision = None
        extra = (" although the engine's config line states no quantization: the declaration "
                 "and the weights disagree" if said_none or was_full else "")
        if extra:
            report.consistent = False
        report.reasons.append(f"the log says 'Detected fp8 checkpoint': the weights are "
                              f"FP8{extra}")
    for src, dst in dict.fromkeys(_CAST.findall(text)):
        a, b = src.removeprefix("torch."), dst.removeprefix("torch.")
        report.reasons.append(f"the engine casts the checkpoint's {a} weights to {b}")
        if report.full_precision and full_precision_name(a) and full_precision_name(b):
            report.precision = f"{full_precision_name(b)} (cast from {full_precision_name(a)})"
    m = _SGLANG_LOADED.search(text)
    if m and m.group(1).lower() not in ("none", "null"):
        algo = f" ({m.group(2)})" if m.group(2) else ""
        if report.full_precision:
            report.consistent = False
            report.precision = None
        report.full_precision, report.verdict = False, "quantized"
        report.method = report.method or f"{m.group(1)}{algo}"
        report.reasons.append(f"the engine loaded the weights with quant={m.group(1)}{algo}")


def audit_server_log(text: str, path: str = "") -> PrecisionReport:
    """What a server's start-up log says it loaded: dtype, quantization, KV-cache dtype.

    The log of an engine tokcheck can start is read with that engine's parser (found by
    :func:`tokcheck.engines.registry.engine_for_log`: vLLM's config line; llama.cpp's file
    type, bits per weight and tensor types). An SGLang log is read from its structured
    ``server_args=ServerArgs(…)`` line, field by field (:func:`sglang_server_args`). For another
    engine the lines that mention quantization or a dtype are searched for the names of
    quantization methods (``QUANT_WORDS``). Then the lines that state what the weights are
    (vLLM's ``Detected fp8 checkpoint``, ``Casting … to …``; SGLang's ``Load weight end …
    quant=…``) are added: a detected FP8 checkpoint is never full precision, even where the
    config line says ``quantization=None``. A text with no engine start-up lines
    (:func:`startup_marker`) is not a server log: its verdict is unknown.

    Returns:
        A :class:`PrecisionReport` (``source="server_log"``); ``full_precision`` is None when
        the log states neither a dtype nor a quantization.
    """
    from tokcheck.engines.registry import read_startup_log

    eng = read_startup_log(text)
    report = PrecisionReport(source="server_log", path=path, full_precision=None,
                             verdict="unknown")
    reasons = report.reasons
    marker = startup_marker(text)
    if eng is not None and (eng.dtype is not None or eng.quantization is not None):
        _from_engine_report(report, eng)
    elif marker is None:
        # Not an engine's log at all (e.g. a saved `tokcheck claim` output that mentions FP8):
        # a method's name in such text says nothing about what a server loaded.
        reasons.append("no engine start-up lines found (no vLLM engine config line or "
                       "non-default args, no SGLang/TGI/llama.cpp start-up lines): not a "
                       "server log")
        return report
    elif marker == "sglang" and "quantization" in (args := sglang_server_args(text) or {}):
        _from_sglang(report, args)
    else:
        # Another engine's log (or a vLLM log cut before its config line): look for the names
        # of quantization methods where the log talks about quantization, precision or dtype.
        for line in text.splitlines():
            low = line.lower()
            if not re.search(r"quant|dtype|precision|weight", low):
                continue
            words = [w for w in QUANT_WORDS
                     if re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", low)]
            if words:
                _quantized(report, words[0],
                           f"the log mentions {words[0].upper()}: {line.strip()[:160]}")
                break
        else:
            reasons.append("the log states no dtype and no quantization")
    _apply_evidence(report, text)
    return report


def combine(model_dir: PrecisionReport, server_log: PrecisionReport) -> PrecisionReport:
    """One verdict from the model directory's audit and the server log's: not full precision
    if either says so; full precision if one says so and the other does not contradict it;
    inconsistent when the model directory contradicts itself and the log does not settle it."""
    verdicts = [model_dir.full_precision, server_log.full_precision]
    if False in verdicts:
        full = False
    elif True in verdicts and model_dir.verdict != "inconsistent":
        full = True
    else:
        full = None
    out = PrecisionReport(
        source="model_dir+server_log", path=model_dir.path, full_precision=full,
        verdict={True: "full precision", False: "quantized",
                 None: "inconsistent" if "inconsistent" in (model_dir.verdict, server_log.verdict)
                 else "unknown"}[full],
        reasons=[f"model directory: {r}" for r in model_dir.reasons]
        + [f"server log: {r}" for r in server_log.reasons],
        method=model_dir.method or server_log.method,
        precision=model_dir.precision or server_log.precision,
        config_dtype=model_dir.config_dtype, quantization_config=model_dir.quantization_config,
        kv_cache_dtype=server_log.kv_cache_dtype, weight_files=model_dir.weight_files,
        artifacts=model_dir.artifacts, parameter_count=model_dir.parameter_count,
        weight_bytes=model_dir.weight_bytes, bytes_by_dtype=model_dir.bytes_by_dtype,
        params_by_dtype=model_dir.params_by_dtype,
        quantized_bytes_share=model_dir.quantized_bytes_share,
        file_type=model_dir.file_type or server_log.file_type,
        bits_per_weight=model_dir.bits_per_weight or server_log.bits_per_weight,
        tensors_by_dtype=model_dir.tensors_by_dtype or server_log.tensors_by_dtype,
        consistent=False if False in (model_dir.consistent, server_log.consistent)
        else model_dir.consistent if model_dir.consistent is not None else server_log.consistent)
    return out


def conditions_from_server_log(path: str | Path) -> dict:
    """``engine_report`` and ``precision_report`` for a run record, read from a server log
    (``tokcheck bench --server-log FILE``). The engine report is the parse of the engine whose
    start-up lines the log has (:func:`tokcheck.engines.registry.read_startup_log`); for a log
    no registered engine wrote it states only the engine :func:`startup_marker` finds (None
    when the text has no engine's start-up lines).

    Raises:
        TokcheckError: the file cannot be read.
    """
    from tokcheck.engines.base import EngineReport
    from tokcheck.engines.registry import read_startup_log

    p = Path(path).expanduser()
    try:
        text = p.read_text(errors="replace")
    except OSError as err:
        raise TokcheckError(f"cannot read server log {p}: {err.strerror}") from None
    engine_report = read_startup_log(text) or EngineReport(engine=startup_marker(text))
    return {"engine_report": engine_report.to_dict(),
            "precision_report": audit_server_log(text, str(p)).to_dict()}
