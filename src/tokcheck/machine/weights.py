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

from tokcheck.core.precision import full_precision_name
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
    ``method`` and ``quantized_bytes_share`` say how) or None (the evidence does not say).
    Byte counts are the tensors' element counts × their dtype's bits ÷ 8.
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
    few metadata fields (``general.architecture``, ``general.file_type``)."""
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


def _quant_description(qc: dict) -> str:
    method = qc.get("quant_method") or qc.get("quantization_method") or "unknown method"
    parts = [f"quant_method={method}"]
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
            for name, ttype, n, nbytes in tensors:
                key = f"GGUF_{ttype}"
                params_by_dtype[key] = params_by_dtype.get(key, 0) + n
                bytes_by_dtype[key] = bytes_by_dtype.get(key, 0) + nbytes
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
    read_bytes = report.weight_bytes or 0
    if read_bytes:
        report.quantized_bytes_share = quant_tensor_bytes / read_bytes
    if quant_tensor_bytes:
        reasons.append(f"{report.quantized_bytes_share:.0%} of the weight bytes are in quantized "
                       f"tensors, e.g. {', '.join(quant_tensor_names)}")
        if report.method is None:
            report.method = _method_from_dtypes(bytes_by_dtype, quant_tensor_names)

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
    return ", ".join(f"{d} {b / 1e6:,.1f} MB" for d, b in
                     sorted(bytes_by_dtype.items(), key=lambda kv: -kv[1]))


def _method_from_dtypes(bytes_by_dtype: dict[str, int], names: list[str]) -> str:
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


def audit_server_log(text: str, path: str = "") -> PrecisionReport:
    """What a server's start-up log says it loaded: dtype, quantization, KV-cache dtype.

    The log of an engine tokcheck can start is read with that engine's parser (found by
    :func:`tokcheck.engines.registry.engine_for_log`); for another engine the lines that
    mention quantization or a dtype are searched for the names of quantization methods
    (``QUANT_WORDS``: GPTQ, AWQ, FP8, W8A8, …). A text with no engine start-up lines
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
    if eng is not None and (eng.dtype is not None or eng.quantization is not None):
        report.config_dtype = eng.dtype
        report.kv_cache_dtype = eng.kv_cache_dtype
        quant = eng.quantization
        kv = (eng.kv_cache_dtype or "").lower()
        kv_quantized = kv not in ("", "auto") and full_precision_name(kv) is None
        if quant and quant != "none":
            report.full_precision, report.verdict, report.method = False, "quantized", quant
            reasons.append(f"the engine states quantization={quant}")
        if kv_quantized:
            report.full_precision, report.verdict = False, "quantized"
            report.method = report.method or f"kv_cache:{kv}"
            reasons.append(f"the engine stores the KV cache as {kv} (quantized KV cache)")
        if report.full_precision is None:
            precision = full_precision_name(eng.dtype)
            if quant == "none" and precision:
                report.full_precision, report.verdict = True, "full precision"
                report.precision = precision
                reasons.append(f"the engine states dtype={eng.dtype}, quantization=None, "
                               f"kv_cache_dtype={eng.kv_cache_dtype}")
            else:
                reasons.append(f"the engine states dtype={eng.dtype}, quantization={quant}")
        return report
    marker = startup_marker(text)
    if marker is None:
        # Not an engine's log at all (e.g. a saved `tokcheck claim` output that mentions FP8):
        # a method's name in such text says nothing about what a server loaded.
        reasons.append("no engine start-up lines found (no vLLM engine config line or "
                       "non-default args, no SGLang/TGI/llama.cpp start-up lines): not a "
                       "server log")
        return report
    # Another engine's log (or a vLLM log cut before its config line): look for the names of
    # quantization methods where the log talks about quantization, precision or dtype.
    for line in text.splitlines():
        low = line.lower()
        if not re.search(r"quant|dtype|precision|weight", low):
            continue
        words = [w for w in QUANT_WORDS if re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])",
                                                      low)]
        if words:
            report.full_precision, report.verdict, report.method = False, "quantized", words[0]
            reasons.append(f"the log mentions {words[0].upper()}: {line.strip()[:160]}")
            return report
    reasons.append("the log states no dtype and no quantization")
    return report


def combine(model_dir: PrecisionReport, server_log: PrecisionReport) -> PrecisionReport:
    """One verdict from the model directory's audit and the server log's: not full precision
    if either says so; full precision if one says so and the other does not contradict it."""
    verdicts = [model_dir.full_precision, server_log.full_precision]
    if False in verdicts:
        full = False
    elif True in verdicts:
        full = True
    else:
        full = None
    out = PrecisionReport(
        source="model_dir+server_log", path=model_dir.path, full_precision=full,
        verdict={True: "full precision", False: "quantized", None: "unknown"}[full],
        reasons=[f"model directory: {r}" for r in model_dir.reasons]
        + [f"server log: {r}" for r in server_log.reasons],
        method=model_dir.method or server_log.method,
        precision=model_dir.precision or server_log.precision,
        config_dtype=model_dir.config_dtype, quantization_config=model_dir.quantization_config,
        kv_cache_dtype=server_log.kv_cache_dtype, weight_files=model_dir.weight_files,
        artifacts=model_dir.artifacts, parameter_count=model_dir.parameter_count,
        weight_bytes=model_dir.weight_bytes, bytes_by_dtype=model_dir.bytes_by_dtype,
        params_by_dtype=model_dir.params_by_dtype,
        quantized_bytes_share=model_dir.quantized_bytes_share)
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
