"""the decode roofline and the memory budget.

Single-request decode is memory-bandwidth bound (the guide, ``docs/guide.md``):
``max tok/s ≈ effective bandwidth / bytes read per output token``. Bytes per token count what a
real model reads for one token: the active weights (all of a dense model; for MoE the attention,
dense layers, router, shared experts and the k routed experts per MoE layer), the LM head, one
embedding row, and the KV cache of the current context (GQA, MLA, sliding windows, DeepSeek V4's
compressed attention — the last an estimate).

- Hard bound = peak bandwidth (datasheet) / bytes per token.
- Realistic bound = peak × achievable fraction (per GPU in the catalog, with its source) / bytes.
- Tensor parallel over ``tp`` GPUs: each reads ``bytes / tp`` per token, so one stream gets
  ``tp`` GPUs' bandwidth (replicated parts ignored, so the hard bound stays an upper bound); the
  realistic bound also pays two all-reduces per layer (:data:`ALLREDUCE_LATENCY_S`).
- Pipeline parallel over ``pp`` stages adds no bandwidth to one stream: a token visits the
  stages one after another, each reading its share, so the time per token is the same as on
  one stage's GPUs. llama.cpp's default layer split across GPUs is a pipeline. For a given
  number of concurrent streams the stages add no bandwidth per token either (each micro-batch
  still reads every stage's weights); they add memory, so a larger batch fits, and compute.
- Offload (:func:`offload_bound`): bytes held in host RAM are read at host memory bandwidth;
  one token takes ``gpu bytes / GPU bandwidth + host bytes / host bandwidth``.
- Speculative decoding (Leviathan et al., 2023): a verify step of γ+1 tokens yields on average
  ``(1 − α^(γ+1)) / (1 − α)`` tokens; in an MoE model the step touches about
  ``N · (1 − (1 − k/N)^(γ+1))`` distinct experts per layer (uniform routing). The draft model's
  own reads are not counted (optimistic).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from tokcheck.core.architecture import (
    ModelSpec,
    active_params,
    kv_cache_values,
    kv_read_values,
    param_breakdown,
    total_params,
)
from tokcheck.core.catalog import GIB, GpuSpec, gpu_from_bandwidth
from tokcheck.errors import TokcheckError
from tokcheck.core.precision import (
    bytes_per_param,
    canonical_precision,
    describe_scheme,
    is_quantized,
    scheme_for,
)

DEFAULT_CONTEXT_TOKENS = 1000 + 500  # the guide's 1000 in / 1000 out, at mid-generation
#: Small-message all-reduce latency, seconds, by interconnect: the floor a decode step's two
#: all-reduces per layer pay under tensor parallel (assumed orders of magnitude: NCCL's LL
#: protocol reaches ~10 µs within an NVLink domain; PCIe peer-to-peer and cross-node links are
#: slower; see docs/sources.md "Tensor parallel communication"). Used in the realistic bound only.
ALLREDUCE_LATENCY_S = {"nvlink": 8e-6, "pcie": 20e-6, "network": 30e-6}
_NVLINK_KINDS = ("datacenter", "amd_datacenter")
# CUDA context, activations and the engine's workspace per GPU: vLLM profiles these at start-up;
# 2 GiB is a common order of magnitude for a single GPU (an assumption, stated in every report).
DEFAULT_OVERHEAD_BYTES = 2 * GIB


@dataclass(frozen=True)
class WeightsOnly:
    """A model known only by its weight bytes read per token (``--weights 120GB``)."""

    weights_bytes: float
    name: str = "weights"


@dataclass(frozen=True)
class Bound:
    """Decode roofline for one request.

    Attributes:
        bytes_per_token: bytes read per output token over all GPUs (weights + KV).
        bytes_per_token_per_gpu: ``bytes_per_token / tensor_parallel``.
        weights_bytes_per_token, kv_bytes_per_token_read: the two parts.
        hard_tok_s: peak bandwidth bound (None without a GPU or bandwidth).
        realistic_tok_s: with the achievable fraction (None without a GPU or bandwidth).
        context_tokens: KV context at which the bound is taken.
        tokens_per_step: expected tokens per decode step (1 without speculative decoding).
    """

    model: str
    precision: str
    precision_detail: str
    context_tokens: int
    tensor_parallel: int
    bytes_per_token: float
    bytes_per_token_per_gpu: float
    weights_bytes_per_token: float
    kv_bytes_per_token_read: float
    breakdown_bytes: dict
    gpu: str | None = None
    bandwidth_bytes_per_s: float | None = None
    achievable_fraction: float | None = None
    achievable_source: str | None = None
    hard_tok_s: float | None = None
    realistic_tok_s: float | None = None
    tokens_per_step: float = 1.0
    hard_tok_s_reason: str | None = None
    notes: tuple[str, ...] = ()
    pipeline_parallel: int = 1
    communication_s_per_token: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MemoryBudget:
    """does weights + KV cache + overhead fit in ``gpu memory × gpu_memory_utilization``?

    Byte counts are totals over all ``tensor_parallel`` GPUs.
    """

    precision: str
    weights_bytes: float
    kv_bytes_per_token: float
    kv_cache_bytes: float
    overhead_bytes: float
    required_bytes: float
    available_bytes: float | None
    fits: bool | None
    max_model_len: int
    concurrency: int
    tensor_parallel: int
    gpu_memory_utilization: float
    max_concurrent_seqs: int | None
    min_tensor_parallel: int | None
    reason: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _as_gpu(gpu_or_bandwidth) -> GpuSpec | None:
    if gpu_or_bandwidth is None:
        return None
    if isinstance(gpu_or_bandwidth, GpuSpec):
        return gpu_or_bandwidth
    if isinstance(gpu_or_bandwidth, (int, float)):
        return gpu_from_bandwidth(float(gpu_or_bandwidth))
    from tokcheck.core.catalog import find_gpu

    return find_gpu(str(gpu_or_bandwidth))


def kv_dtype_for(precision: str, model=None) -> str:
    """KV cache format: the model's ``kv_cache_dtype`` when a claim states one (``FP8``, ``Q8_0``),
    else FP32 for FP32 weights and BF16 otherwise (engines keep the KV cache in the activation
    dtype unless ``kv_cache_dtype`` says otherwise)."""
    stated = getattr(model, "kv_cache_dtype", "") if model is not None else ""
    if stated:
        return stated
    if precision.lower() in ("released", "native"):
        return "BF16"
    return "FP32" if canonical_precision(precision) == "FP32" else "BF16"


def weight_bytes_by_part(model: ModelSpec, precision: str) -> dict[str, float]:
    """All weights in bytes, by part, at ``precision`` (or ``"released"``)."""
    b = param_breakdown(model)
    s = scheme_for(precision, model.released_weights)
    return {
        "attention": b.attention * bytes_per_param(s["attention"]),
        "dense_mlp": b.dense_mlp * bytes_per_param(s["dense_mlp"]),
        "experts": b.experts * bytes_per_param(s["experts"]),
        "shared_experts": b.shared_experts * bytes_per_param(s["shared_experts"]),
        "router": b.router * bytes_per_param(s["router"]),
        "embedding": b.embedding * bytes_per_param(s["embedding"]),
        "lm_head": b.lm_head * bytes_per_param(s["lm_head"]),
        "other": b.other * bytes_per_param(s["other"]),
    }


def weights_bytes(model: ModelSpec | WeightsOnly, precision: str) -> float:
    """Bytes of all weights (what must sit in GPU memory) at ``precision`` (a
    :class:`WeightsOnly` model: its given size)."""
    if isinstance(model, WeightsOnly):
        return float(model.weights_bytes)
    return sum(weight_bytes_by_part(model, precision).values())


def expected_accepted_length(acceptance_rate: float, draft_tokens: int) -> float:
    """Mean tokens per verify step, ``(1 − α^(γ+1)) / (1 − α)`` (Leviathan et al., 2023).

    Raises:
        TokcheckError: α outside [0, 1] or γ < 0.
    """
    a, g = float(acceptance_rate), int(draft_tokens)
    if not 0 <= a <= 1 or g < 0:
        raise TokcheckError("speculative decoding needs 0 ≤ acceptance rate ≤ 1 and draft tokens ≥ 0")
    if a == 1:
        return g + 1.0
    return (1 - a ** (g + 1)) / (1 - a)


def _step_bytes(model: ModelSpec, precision: str, context_tokens: int, tokens_in_step: int = 1,
                sequences: int = 1) -> tuple[float, float, dict]:
    """Weights and KV bytes one decode step reads for ``sequences`` × ``tokens_in_step`` tokens."""
    parts = weight_bytes_by_part(model, precision)
    b = param_breakdown(model)
    s = scheme_for(precision, model.released_weights)
    tokens = max(1, tokens_in_step * sequences)
    read = {k: v for k, v in parts.items() if k not in ("experts", "embedding")}
    if model.is_moe:
        n, k = model.num_experts, model.experts_per_token
        distinct = n * (1 - (1 - k / n) ** tokens) if tokens > 1 else k
        read["experts"] = b.expert * distinct * model.moe_layers * bytes_per_param(s["experts"])
    read["embedding_rows"] = tokens * model.hidden_size * bytes_per_param(s["embedding"])
    if model.tie_embeddings:
        read["lm_head"] = parts["embedding"]
    kv_bytes = bytes_per_param(kv_dtype_for(precision, model))
    kv = kv_read_values(model, context_tokens) * kv_bytes * sequences
    read["kv_cache"] = kv
    return sum(v for k_, v in read.items() if k_ != "kv_cache"), kv, read


def interconnect(gpu: GpuSpec | None, tensor_parallel: int) -> str:
    """The link a tensor-parallel group talks over: ``nvlink`` for datacenter GPUs within 8
    (SXM/OAM boards, NVL parts), ``network`` past one 8-GPU node, ``pcie`` otherwise."""
    if tensor_parallel > 8 and not (gpu and gpu.name.startswith(("GB", "GH"))):
        return "network"
    if gpu is not None and gpu.kind in _NVLINK_KINDS and "PCIe" not in gpu.name:
        return "nvlink"
    return "pcie"


def communication_per_token(model, gpu: GpuSpec | None, tensor_parallel: int) -> float:
    """Seconds of all-reduce latency per decode step: 2 per layer × :data:`ALLREDUCE_LATENCY_S`
    of the link (0 without tensor parallel). Llama 3.1 70B at TP 8 over NVLink: 2 · 80 · 8 µs =
    1.28 ms per token."""
    if tensor_parallel <= 1 or isinstance(model, WeightsOnly):
        return 0.0
    return 2 * model.num_layers * ALLREDUCE_LATENCY_S[interconnect(gpu, tensor_parallel)]


def decode_bound(model, gpu=None, precision: str = "BF16", context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                 tensor_parallel: int = 1, *, acceptance_rate: float | None = None,
                 draft_tokens: int = 0, pipeline_parallel: int = 1) -> Bound:
    """single-request decode bound.

    Args:
        model: :class:`ModelSpec`, or :class:`WeightsOnly` for a bare weight size.
        gpu: :class:`GpuSpec`, a catalog name, a bandwidth in bytes/s, or None (bytes only).
        precision: any name of :mod:`tokcheck.core.precision` (``BF16``, ``FP8``, ``INT4``,
            ``MXFP4``, ``NVFP4``, a GGUF type such as ``Q4_K_M`` …) or ``released`` (the
            model's own checkpoint formats).
        context_tokens: tokens in the KV cache when the token is generated.
        tensor_parallel: GPUs each layer is split over (their bandwidths add up for one stream).
        acceptance_rate, draft_tokens: speculative decoding (per-token α and γ).
        pipeline_parallel: stages the layers are split over (no bandwidth added for one stream).

    Raises:
        TokcheckError: non-positive context or tensor parallel, unknown precision or GPU.
    """
    if context_tokens is None or int(context_tokens) < 0:
        raise TokcheckError("context length must be zero or positive")
    if int(tensor_parallel) < 1:
        raise TokcheckError("tensor parallel size must be at least 1")
    tp = int(tensor_parallel)
    g = _as_gpu(gpu)
    notes: list[str] = []
    tokens_per_step = 1.0
    if isinstance(model, WeightsOnly):
        if model.weights_bytes <= 0:
            raise TokcheckError("weights size must be positive")
        w, kv, parts = float(model.weights_bytes), 0.0, {"weights": float(model.weights_bytes)}
        name, prec, detail = model.name, canonical_precision(precision) if precision else "?", "weights as given"
        notes.append("weights given directly: the KV cache read is not counted")
    else:
        name = model.name
        prec = precision if precision.lower() in ("released", "native") else canonical_precision(precision)
        detail = describe_scheme(scheme_for(prec, model.released_weights))
        step_tokens = 1
        if acceptance_rate is not None and draft_tokens:
            tokens_per_step = expected_accepted_length(acceptance_rate, draft_tokens)
            step_tokens = draft_tokens + 1
        w, kv, parts = _step_bytes(model, prec, int(context_tokens), step_tokens)
        if model.estimate:
            notes.append(f"{model.name}: {model.notes or 'architecture counts are estimates'}")
        if tokens_per_step > 1:
            notes.append(f"speculative decoding: {tokens_per_step:.2f} tokens per verify step of "
                         f"{step_tokens}; the draft's own reads are not counted")
    step_bytes = w + kv
    per_token = step_bytes / tokens_per_step
    out = dict(model=name, precision=prec, precision_detail=detail, context_tokens=int(context_tokens),
               tensor_parallel=tp, bytes_per_token=per_token, bytes_per_token_per_gpu=per_token / tp,
               weights_bytes_per_token=w / tokens_per_step, kv_bytes_per_token_read=kv / tokens_per_step,
               breakdown_bytes=parts, tokens_per_step=tokens_per_step)
    pp = max(1, int(pipeline_parallel or 1))
    comm = communication_per_token(model, g, tp) / tokens_per_step
    out["pipeline_parallel"] = pp
    out["communication_s_per_token"] = comm
    if tp > 1:
        notes.append(f"tensor parallel {tp}: each GPU reads 1/{tp} of the bytes; the realistic bound adds "
                     f"{comm * 1e3:.2f} ms of all-reduce latency per token ({interconnect(g, tp)})")
    if pp > 1:
        notes.append(f"pipeline parallel {pp}: one stream passes the {pp} stages in turn, so they add no "
                     "bandwidth to it; they add memory (a larger batch fits) and compute")
    if g is None:
        return Bound(**out, hard_tok_s_reason="no GPU or bandwidth given", notes=tuple(notes))
    hard = g.peak_bandwidth_bytes_per_s * tp / per_token
    realistic = 1 / (1 / (hard * g.achievable_fraction) + comm)
    return Bound(**out, gpu=g.name, bandwidth_bytes_per_s=g.peak_bandwidth_bytes_per_s,
                 achievable_fraction=g.achievable_fraction, achievable_source=g.achievable_source,
                 hard_tok_s=hard, realistic_tok_s=realistic, notes=tuple(notes))


def compute_rate(gpu: GpuSpec, precision: str, model=None) -> float | None:
    """Dense tensor FLOP/s a GPU offers weights of ``precision``: FP4 for MXFP4/NVFP4 where the
    GPU has it, FP8 for 8-bit and narrower formats where it has FP8, else BF16; None when the
    catalog has no rate (Apple, host memory). ``released`` takes the format of the model's bulk
    (its experts, else its default part)."""
    name = precision if precision.lower() in ("released", "native") else canonical_precision(precision)
    if name.lower() in ("released", "native"):
        rel = getattr(model, "released_weights", None) or {"default": "BF16"}
        name = canonical_precision(rel.get("experts") or rel.get("default", "BF16"))
    rates = [gpu.bf16_dense_tflops]
    if is_quantized(name):
        rates.append(gpu.fp8_dense_tflops)
        if name in ("MXFP4", "NVFP4"):
            rates.append(gpu.fp4_dense_tflops)
    rates = [r for r in rates if r]
    return max(rates) * 1e12 if rates else None


def aggregate_bound(model, gpu, precision: str = "BF16", context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                    concurrency: int = 1, tensor_parallel: int = 1, pipeline_parallel: int = 1) -> dict:
    """Output throughput bound with ``concurrency`` sequences decoding together.

    One step reads the weights once (MoE: the distinct experts the batch routes to) and each
    sequence's KV cache; it also cannot beat the compute roof ``2 · active params · batch`` FLOPs
    per step at the GPU's dense BF16/FP8 rate. Under pipeline parallel ``pp`` the sequences form
    ``m = min(pp, concurrency)`` micro-batches in flight, each stage reading its weights once per
    micro-batch: memory bound ``c · bw · tp · pp / (m · W + c · KV)`` — with ``m = pp`` the same as
    one stage at batch ``c`` (the stages' memory lets a larger batch fit; their compute adds up).
    Returns ``{hard_tok_s,
    realistic_tok_s, memory_tok_s, compute_tok_s}`` (compute None when the rate is unknown).
    """
    g = _as_gpu(gpu)
    if g is None:
        raise TokcheckError("an aggregate bound needs a GPU or a bandwidth")
    c = max(1, int(concurrency))
    tp = max(1, int(tensor_parallel))
    pp = max(1, int(pipeline_parallel or 1))
    micro = min(pp, c)
    if isinstance(model, WeightsOnly):
        w, kv = float(model.weights_bytes), 0.0
        flops_per_token = model.weights_bytes  # ~2 FLOPs per 2-byte parameter (BF16 estimate)
        prec = "BF16"
    else:
        prec = precision if precision.lower() in ("released", "native") else canonical_precision(precision)
        w, kv, _ = _step_bytes(model, prec, int(context_tokens), 1, sequences=max(1, c // micro))
        kv = kv * micro
        flops_per_token = 2 * active_params(model, with_embedding=False)
    memory = c * g.peak_bandwidth_bytes_per_s * tp * pp / (micro * w + kv)
    rate = compute_rate(g, prec, model)
    compute = rate * tp * pp / flops_per_token if rate else None
    hard = min(memory, compute) if compute else memory
    return {"memory_tok_s": memory, "compute_tok_s": compute, "hard_tok_s": hard,
            "realistic_tok_s": hard * g.achievable_fraction, "concurrency": c}


def kv_bytes_per_sequence(model, precision: str, context_tokens: int) -> float:
    """KV cache (and linear-attention state) bytes one sequence of ``context_tokens`` holds."""
    if isinstance(model, WeightsOnly):
        return 0.0
    return kv_cache_values(model, int(context_tokens)) * bytes_per_param(kv_dtype_for(precision, model))


def max_aggregate_bound(model, gpu, precision: str = "BF16", context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                        tensor_parallel: int = 1, pipeline_parallel: int = 1, replicas: int = 1,
                        gpu_memory_utilization: float = 0.9, memory_bytes: float | None = None) -> dict | None:
    """The highest aggregate decode rate the hardware allows when the concurrency is not stated:
    the batch the KV cache can hold beside the weights, ``B = ⌊(memory · utilization − weights −
    overhead) / KV per sequence⌋``, at :func:`aggregate_bound`, times ``replicas`` (data-parallel
    copies). None when the weights do not fit. Returns the aggregate dict plus ``batch``."""
    g = _as_gpu(gpu)
    if g is None:
        return None
    tp, pp = max(1, int(tensor_parallel)), max(1, int(pipeline_parallel or 1))
    mem = memory_bytes if memory_bytes is not None else g.memory_bytes
    if mem is None:
        return None
    wb = float(model.weights_bytes) if isinstance(model, WeightsOnly) else weights_bytes(model, precision)
    free = mem * gpu_memory_utilization * tp * pp - wb - DEFAULT_OVERHEAD_BYTES * tp * pp
    if free <= 0 and not isinstance(model, WeightsOnly):  # --weights: bytes read, not stored
        return None
    kv_seq = kv_bytes_per_sequence(model, precision, context_tokens)
    batch = int(min(free / kv_seq, 1e6)) if kv_seq > 0 else 4096
    batch = max(1, batch)
    agg = aggregate_bound(model, g, precision, context_tokens, batch, tp, pp)
    r = max(1, int(replicas))
    for k in ("memory_tok_s", "compute_tok_s", "hard_tok_s", "realistic_tok_s"):
        if agg.get(k) is not None:
            agg[k] *= r
    agg["batch"] = batch
    agg["replicas"] = r
    return agg


def prefill_bound(model, gpu, precision: str = "BF16", tensor_parallel: int = 1,
                  pipeline_parallel: int = 1) -> float | None:
    """Prompt tokens per second the GPUs' dense FLOP/s allow: ``rate · tp · pp / (2 · active
    params)`` (attention FLOPs not counted, so it stays an upper bound); None without a rate."""
    g = _as_gpu(gpu)
    if g is None or isinstance(model, WeightsOnly):
        return None
    rate = compute_rate(g, precision, model)
    if not rate:
        return None
    return rate * max(1, tensor_parallel) * max(1, pipeline_parallel) / (2 * active_params(model, with_embedding=False))


def ttft_floor(model, gpu, precision: str = "BF16", input_tokens: int = 1, tensor_parallel: int = 1) -> float | None:
    """The shortest possible TTFT, seconds: prefill cannot beat reading the weights once at peak
    bandwidth, nor ``2 · active params · input tokens`` FLOPs at the peak rate. DeepSeek R1 on one
    A100 (312 TFLOP/s BF16) for a 10,000-token prompt: 2 · 36.6e9 · 1e4 / 312e12 = 2.35 s."""
    g = _as_gpu(gpu)
    if g is None or isinstance(model, WeightsOnly):
        return None
    tp = max(1, int(tensor_parallel))
    read = weights_bytes(model, precision) / (g.peak_bandwidth_bytes_per_s * tp) if not model.is_moe else \
        _step_bytes(model, precision, 0, max(1, int(input_tokens)))[0] / (g.peak_bandwidth_bytes_per_s * tp)
    rate = compute_rate(g, precision, model)
    compute = 2 * active_params(model, with_embedding=False) * max(1, int(input_tokens)) / (rate * tp) if rate else 0.0
    return max(read, compute)


def offload_bound(model, gpu: GpuSpec | None, host, precision: str = "BF16",
                  context_tokens: int = DEFAULT_CONTEXT_TOKENS, gpu_count: int = 1, tensor_parallel: int = 1,
                  *, n_cpu_moe: int | None = None, all_experts_on_cpu: bool = False,
                  gpu_layers: int | None = None, total_layers: int | None = None,
                  gpu_memory_bytes: float | None = None, host_expert_fraction: float | None = None) -> dict:
    """Single-stream decode bound with part of the weights in host RAM:
    ``1 / (GPU bytes / GPU bandwidth + host bytes / host bandwidth)`` per token.

    Placement, in order: ``host_expert_fraction`` ("75 % of expert layers offloaded"),
    ``n_cpu_moe`` (the experts of that many MoE layers on the host),
    ``all_experts_on_cpu`` (``--cpu-moe``), ``gpu_layers`` of ``total_layers`` on the GPU
    (the rest of every part pro rata), else as much as fits on the GPUs (experts go to the host
    first, as ``-ot exps=CPU`` does; for a dense model the layers that do not fit). The KV cache
    stays on the GPU. Without a GPU (``gpu`` None) the GPU's time counts as zero, which keeps the
    bound an upper bound. ``host`` is a :class:`tokcheck.core.hostmem.HostMemory`.

    Returns ``{hard_tok_s, realistic_tok_s, gpu_bytes_per_token, host_bytes_per_token,
    host_fraction_of_weights, host_memory, host_bandwidth_bytes_per_s, placement}``.
    """
    prec = precision if precision.lower() in ("released", "native") else canonical_precision(precision)
    w, kv, parts = _step_bytes(model, prec, int(context_tokens))
    all_parts = weight_bytes_by_part(model, prec)
    total_w = sum(all_parts.values())
    expert_read = parts.get("experts", 0.0)
    expert_all = all_parts.get("experts", 0.0)
    host_read, placement = 0.0, ""
    host_stored = 0.0
    if host_expert_fraction is not None and model.is_moe:
        share = max(0.0, min(1.0, host_expert_fraction))
        host_read, host_stored = expert_read * share, expert_all * share
        placement = f"{share:.0%} of the routed experts on the host, as stated"
    elif n_cpu_moe and model.is_moe:
        share = min(1.0, n_cpu_moe / model.moe_layers)
        host_read, host_stored = expert_read * share, expert_all * share
        placement = f"experts of {min(n_cpu_moe, model.moe_layers)} of {model.moe_layers} MoE layers on the host"
    elif all_experts_on_cpu and model.is_moe:
        host_read, host_stored = expert_read, expert_all
        placement = "all routed experts on the host"
    elif gpu_layers is not None and (total_layers or model.num_layers):
        L = total_layers or model.num_layers
        share = max(0.0, min(1.0, 1 - gpu_layers / L))
        host_read, host_stored = w * share, total_w * share
        placement = f"{max(0, L - gpu_layers)} of {L} layers on the host"
    else:
        cap = gpu_memory_bytes if gpu_memory_bytes is not None else (
            gpu.memory_bytes * max(1, gpu_count) if gpu is not None and gpu.memory_bytes else 0.0)
        cap = max(0.0, cap * 0.95 - kv - DEFAULT_OVERHEAD_BYTES * 0.5 * max(1, gpu_count))
        excess = max(0.0, total_w - cap)
        if model.is_moe and excess <= expert_all and expert_all > 0:
            share = excess / expert_all
            host_read, host_stored = expert_read * share, excess
            placement = f"{share:.0%} of the routed experts on the host (what does not fit the GPU memory)"
        else:
            share = min(1.0, excess / total_w) if total_w else 0.0
            host_read, host_stored = w * share, excess
            placement = f"{share:.0%} of the weights on the host (what does not fit the GPU memory)"
    gpu_read = w + kv - host_read
    tp = max(1, int(tensor_parallel))
    gpu_bw = gpu.peak_bandwidth_bytes_per_s * tp if gpu is not None else None
    t_gpu = gpu_read / gpu_bw if gpu_bw else 0.0
    t_host = host_read / host.bandwidth_bytes_per_s
    hard = 1 / (t_gpu + t_host) if (t_gpu + t_host) > 0 else None
    t_gpu_r = gpu_read / (gpu_bw * gpu.achievable_fraction) if gpu_bw else 0.0
    t_host_r = host_read / (host.bandwidth_bytes_per_s * host.achievable_fraction)
    realistic = 1 / (t_gpu_r + t_host_r) if (t_gpu_r + t_host_r) > 0 else None
    return {"hard_tok_s": hard, "realistic_tok_s": realistic, "gpu_bytes_per_token": gpu_read,
            "host_bytes_per_token": host_read, "host_weights_bytes": host_stored,
            "host_fraction_of_weights": host_stored / total_w if total_w else 0.0,
            "host_memory": host.name, "host_bandwidth_bytes_per_s": host.bandwidth_bytes_per_s,
            "host_memory_why": host.why, "placement": placement,
            "gpu_time_s": t_gpu, "host_time_s": t_host}


def implied_bytes_per_token(claimed_tok_s: float, gpu, tensor_parallel: int = 1) -> dict:
    """reverse: the most bytes per token a claimed speed allows on that GPU
    (``hard`` at peak bandwidth, ``realistic`` at the achievable fraction)."""
    g = _as_gpu(gpu)
    if g is None or claimed_tok_s is None or claimed_tok_s <= 0:
        raise TokcheckError("the reverse bound needs a positive speed and a GPU or bandwidth")
    hard = g.peak_bandwidth_bytes_per_s * max(1, int(tensor_parallel)) / claimed_tok_s
    return {"hard_bytes": hard, "realistic_bytes": hard * g.achievable_fraction}


def memory_budget(model, gpu, precision: str = "BF16", max_model_len: int = 8192, concurrency: int = 1,
                  gpu_memory_utilization: float = 0.9, tensor_parallel: int = 1,
                  overhead_bytes: float = DEFAULT_OVERHEAD_BYTES) -> MemoryBudget:
    """weights + KV cache (``max_model_len`` × ``concurrency``) + overhead per GPU vs
    ``gpu memory × gpu_memory_utilization``, the sequences that fit and the smallest tensor
    parallel size (1, 2, 4, 8, 16, 32, 64) that fits.

    Raises:
        TokcheckError: non-positive lengths, concurrency, or a utilization outside (0, 1].
    """
    if max_model_len is None or int(max_model_len) <= 0:
        raise TokcheckError("max_model_len must be positive")
    if int(concurrency) <= 0:
        raise TokcheckError("concurrency must be positive")
    if not 0 < float(gpu_memory_utilization) <= 1:
        raise TokcheckError("gpu_memory_utilization must be in (0, 1]")
    if int(tensor_parallel) < 1:
        raise TokcheckError("tensor parallel size must be at least 1")
    g = _as_gpu(gpu)
    tp, M, c, u = int(tensor_parallel), int(max_model_len), int(concurrency), float(gpu_memory_utilization)
    if isinstance(model, WeightsOnly):
        wb, kv_seq, prec = float(model.weights_bytes), 0.0, canonical_precision(precision)
    else:
        prec = precision if precision.lower() in ("released", "native") else canonical_precision(precision)
        wb = weights_bytes(model, prec)
        kv_seq = kv_cache_values(model, M) * bytes_per_param(kv_dtype_for(prec, model))
    kv_total = kv_seq * c
    overhead = overhead_bytes * tp
    required = wb + kv_total + overhead
    common = dict(precision=prec, weights_bytes=wb, kv_bytes_per_token=kv_seq / M, kv_cache_bytes=kv_total,
                  overhead_bytes=overhead, required_bytes=required, max_model_len=M, concurrency=c,
                  tensor_parallel=tp, gpu_memory_utilization=u)
    if g is None or g.memory_bytes is None:
        return MemoryBudget(**common, available_bytes=None, fits=None, max_concurrent_seqs=None,
                            min_tensor_parallel=None, reason="no GPU memory size known")
    per_gpu = g.memory_bytes * u
    available = per_gpu * tp
    free_for_kv = available - wb - overhead
    max_seqs = max(0, math.floor(free_for_kv / kv_seq)) if kv_seq > 0 else None
    min_tp = None
    for t in (1, 2, 4, 8, 16, 32, 64):
        if wb + kv_total + overhead_bytes * t <= per_gpu * t:
            min_tp = t
            break
    return MemoryBudget(**common, available_bytes=available, fits=required <= available,
                        max_concurrent_seqs=max_seqs, min_tensor_parallel=min_tp)


@dataclass(frozen=True)
class PrecisionOption:
    """one row of the BF16 / FP8 / INT4 comparison."""

    precision: str
    weights_bytes: float
    bytes_per_token: float
    hard_tok_s: float | None
    realistic_tok_s: float | None
    fits: bool | None
    min_tensor_parallel: int | None
    risk: str = field(default="")


_RISK = {
    "BF16": "baseline; keep for debugging",
    "FP8": "near BF16; check long outputs",
    "INT4": "may hurt reasoning, long text",
    "released": "as the authors ship it",
}


def precision_options(model: ModelSpec, gpu=None, context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                      max_model_len: int = 8192, concurrency: int = 1, tensor_parallel: int = 1,
                      gpu_memory_utilization: float = 0.9,
                      precisions: tuple[str, ...] = ("BF16", "FP8", "INT4")) -> list[PrecisionOption]:
    """the bound and the memory budget at each precision, side by side."""
    out = []
    for p in precisions:
        b = decode_bound(model, gpu, p, context_tokens, tensor_parallel)
        mem = memory_budget(model, gpu, p, max_model_len, concurrency, gpu_memory_utilization, tensor_parallel)
        out.append(PrecisionOption(p, mem.weights_bytes, b.bytes_per_token, b.hard_tok_s, b.realistic_tok_s,
                                   mem.fits, mem.min_tensor_parallel, _RISK.get(p, "")))
    return out


def max_seqs_by_max_model_len(model, gpu, precision: str = "BF16", gpu_memory_utilization: float = 0.9,
                              tensor_parallel: int = 1,
                              lengths: tuple[int, ...] = (4096, 8192, 32768, 131072)) -> dict[int, int | None]:
    """what max_model_len does: sequences that fit beside the weights at each max_model_len
    (the guide: raising it from 4096 to 32768 multiplies the KV cache per sequence)."""
    return {L: memory_budget(model, gpu, precision, L, 1, gpu_memory_utilization, tensor_parallel).max_concurrent_seqs
            for L in lengths}


__all__ = ["ALLREDUCE_LATENCY_S", "Bound", "max_seqs_by_max_model_len", "MemoryBudget", "PrecisionOption",
           "WeightsOnly", "aggregate_bound", "communication_per_token", "compute_rate", "decode_bound",
           "expected_accepted_length", "implied_bytes_per_token", "interconnect", "kv_bytes_per_sequence",
           "max_aggregate_bound", "memory_budget", "offload_bound", "precision_options", "prefill_bound",
           "total_params", "ttft_floor", "weights_bytes"]
