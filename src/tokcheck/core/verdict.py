"""Judge a claim against the physical bounds the way an expert does, explain what would be
needed, and say what hardware it would take.

:func:`analyze_claim` is the one library call behind ``tokcheck claim``: Claim (+ catalog) →
bounds, memory budget, precision readings, verdict and explanations. Pure: no I/O.

What it weighs (each rule has a unit test whose docstring shows the arithmetic):

- **The setup as stated**: GPUs and their count; tensor parallel adds bandwidth to one stream,
  pipeline parallel (and llama.cpp's default layer split across GPUs) does not
  (:mod:`tokcheck.core.roofline`); unified memory of a stated size (a 16 GB M2 Pro).
- **Precision as it really is**: a stated format (GGUF types at their real bits, Unsloth's UD-
  quants at their base type's); "full precision" / "not quantized" of a model that ships in
  FP8/FP4/INT4 read both as the shipped format and as BF16 (both reported); unstated precision
  that cannot fit the stated memory judged at the precisions that do fit (a 30B model on a 24 GB
  card is a 4-bit claim); engines that run quantized files by default (llama.cpp, Ollama, LM
  Studio, MLX) judged down to the usual 4-bit files; a stated footprint ("21 GB on disk", "uses
  73.8 GB") read as the bits per weight it implies.
- **Offload**: weights in host RAM (``--n-cpu-moe``, ``--cpu-moe``, "13 of 32 layers on the
  GPU", KTransformers, or weights that cannot fit) are read at host memory bandwidth:
  ``1 / (GPU bytes / GPU bandwidth + host bytes / host bandwidth)``; the host memory comes from
  the words or is assumed and named (:mod:`tokcheck.core.hostmem`).
- **Calibrated bands**: the claim's memory-bandwidth utilisation (MBU = figure / hard bound)
  against measured references (:data:`MBU_BANDS`, cited in docs/sources.md): at or below
  :data:`EVIDENCE_MBU` (90 %) plausible; above it and up to the hard bound, it needs evidence —
  unless speculative decoding is stated and the figure needs no more than
  :data:`TYPICAL_ACCEPTED_LENGTH` accepted tokens per step at 90 % of peak bandwidth.
- **Above the hard bound**: one request stated, speculative decoding excluded or not mentioned
  and the precision pinned → implausible; otherwise needs_explanation naming what it would
  take (accepted tokens per step, concurrency, precision, more GPUs); a figure no single stream
  can reach even with speculative decoding is read as an aggregate; one above every aggregate
  bound is implausible.
- **Batched bound**: at a stated concurrency B, aggregate decode ≤ B × the per-step rate (one
  weight read + B KV reads per step); above it is implausible. Unstated concurrency: the batch
  the KV cache can hold, capped by the compute roof.
- **Internal consistency**: TPOT/ITL against tok/s (1000 / TPOT), batch × per-user against the
  total, stated memory against the card's capacity and against the weights.
- **Prefill and TTFT**: prompt tok/s against the dense FLOP/s roof; TTFT against the shortest
  prefill (one weight read, ``2 · active params · prompt tokens`` FLOPs).
- **No GPU stated**: ``requirements`` — the bandwidth and memory the figure needs and the
  smallest catalog setups that reach it; CPU-only claims are bounded by their host memory.

Verdicts: ``plausible``, ``needs_explanation``, ``implausible``, ``unknown`` (no model to bound).

The setup and the precision readings come from :mod:`tokcheck.core.readings`; the host memory
from :mod:`tokcheck.core.hostmem`; the bounds from :mod:`tokcheck.core.roofline`. The sources of
the constants (MBU bands, all-reduce latency, host-memory assumptions) are in docs/sources.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace

from tokcheck.core.architecture import ModelSpec, active_params, total_params
from tokcheck.core.catalog import GIB, GpuSpec, find_gpu, find_model, gpu_from_bandwidth, gpus
from tokcheck.core.claim import Claim, is_model_family, missing_size_of_version
from tokcheck.core.claim.figures import SINGLE_REQUEST_CEILING_TOK_S, concurrency_mentions
from tokcheck.core.claim.text import SENTENCE_END, normalise
from tokcheck.core.claim.words import engine_family, precision_words
from tokcheck.core.hostmem import HostMemory, find_host_memory
from tokcheck.core.readings import (
    _OUTPUT_WORDS,
    _BENCH_SERVING,
    _SERVING_CONTEXT,
    LOCAL_ENGINES,
    QUANTIZED_FILE_ENGINES,
    STAND_IN_TOLERANCE,
    WEIGHTS_FIT_FRACTION,
    Reading,
    Setup,
    Words,
    _host_device,
    _released_names,
    layer_split_finding,
    read_precisions,
    read_setup,
    read_words,
    sized,
)
from tokcheck.core.precision import canonical_precision, describe_scheme, scheme_for
from tokcheck.core.roofline import (
    DEFAULT_CONTEXT_TOKENS,
    WeightsOnly,
    aggregate_bound,
    decode_bound,
    implied_bytes_per_token,
    max_aggregate_bound,
    max_seqs_by_max_model_len,
    memory_budget,
    offload_bound,
    precision_options,
    prefill_bound,
    ttft_floor,
    weights_bytes,
)
from tokcheck.core.units import fmt_bytes, plain_number, sig3
from tokcheck.errors import TokcheckError

# Mean accepted tokens per step that published speculative decoding reaches: DeepSeek-V3's MTP
# accepts the 2nd token 85–90 % of the time (≈1.9 tokens/step, DeepSeek-V3 report §5.4.3);
# EAGLE-2/3 report about 3–4.5 on chat benchmarks. Beyond this, spec decoding alone won't do.
MAX_PLAUSIBLE_ACCEPTED_LENGTH = 4.0
#: The accepted length every published method reaches (DeepSeek-V3's MTP, the lowest above):
#: a figure with stated speculative decoding that needs no more than this is accounted for.
TYPICAL_ACCEPTED_LENGTH = 1.9
DEFAULT_MAX_MODEL_LEN = 8192  # the guide's vLLM example (--max-model-len 8192; docs/guide.md)
#: Above this share of the hard bound a figure needs evidence (docs/sources.md, "MBU bands").
EVIDENCE_MBU = 0.90
#: Measured memory-bandwidth utilisation of batch-1 decode, the references a claim's MBU is
#: reported beside (docs/sources.md, "MBU bands"): (upper edge, what reaches it).
MBU_BANDS: tuple[tuple[float, str], ...] = (
    (0.50, "what typical engines reach at batch 1 on small models (vLLM and SGLang use at most ~50 % of an "
           "H100's bandwidth on Llama-3.2-1B: Hazy Research, 'Look Ma, No Bubbles!', 2025)"),
    (0.69, "gpt-fast's level (69 % of an A100's datasheet bandwidth on Llama-2-7B: PyTorch blog, "
           "'Accelerating Generative AI with PyTorch II: GPT, Fast', 2023)"),
    (0.85, "hand-tuned kernels (78 % on an H100 for Hazy Research's Llama-1B megakernel, 2025; ~80–85 % for "
           "the best published decode kernels)"),
    (0.90, "above hand-tuned kernels: possible only with the best kernels on this hardware"),
    (1.00, "above 90 % of peak bandwidth: needs evidence (no published decode loop sustains it)"),
)
_SEVERITY = {"plausible": 0, "needs_explanation": 1, "implausible": 2}


def fmt(x: float | None) -> str:
    """A figure as people write it, never in exponent form (``100000`` → ``100,000``)."""
    return plain_number(x)


def _gb(x: float) -> str:
    """Bytes in decimal units (1 GB = 10⁹ bytes), as every message prints them."""
    return fmt_bytes(x)


def band_for(mbu: float) -> str:
    """The reference band a memory-bandwidth utilisation falls in (:data:`MBU_BANDS`)."""
    if mbu > 1:
        return "above the hard bound (more than 100 % of peak bandwidth)"
    for edge, text in MBU_BANDS:
        if mbu <= edge:
            return text
    return MBU_BANDS[-1][1]


@dataclass
class ClaimAnalysis:
    """Everything ``tokcheck claim`` reports. ``to_json()`` gives the documented keys."""

    claim: Claim
    model: ModelSpec | None
    gpu: GpuSpec | None
    precision_used: str | None
    bound: dict | None
    memory: dict | None
    verdict: str
    explanations: list[str] = field(default_factory=list)
    reverse: dict | None = None
    full_precision: dict | None = None
    options: list[dict] = field(default_factory=list)
    released_bound: dict | None = None
    notes: list[str] = field(default_factory=list)
    requirements: dict | None = None
    mbu: dict | None = None
    readings: list[dict] = field(default_factory=list)
    layout: dict | None = None
    offload: dict | None = None
    consistency: list[dict] = field(default_factory=list)
    stand_in: list[dict] | None = None   # a model named only by its size: each figure's stand-in
    family: list[dict] | None = None     # a family named without a size: each size's verdict

    def to_json(self) -> dict:
        c = self.claim
        return {
            "claim": c.text,
            "fields": dict(c.fields),
            "figures": [fig.to_json() for fig in c.figures],
            "sources": dict(c.sources),
            "footprint": dict(c.footprint),
            "unknown_names": list(c.unknown_names),
            "missing": c.missing,
            "present_count": c.present_count,
            "reference_only": c.reference_only,
            "model": None if self.model is None else model_facts(self.model),
            "gpu": None if self.gpu is None else gpu_facts(self.gpu),
            "bound": self.bound,
            "memory": self.memory,
            "verdict": self.verdict,
            "explanations": list(self.explanations),
            "reverse": self.reverse,
            "full_precision": self.full_precision,
            "released_bound": self.released_bound,
            "precision_options": self.options,
            "notes": list(self.notes),
            "requirements": self.requirements,
            "mbu": self.mbu,
            "readings": list(self.readings),
            "layout": self.layout,
            "offload": self.offload,
            "consistency": list(self.consistency),
            "stand_in": self.stand_in,
            "family": self.family,
        }


def model_facts(m: ModelSpec) -> dict:
    """The model's facts for reports: counts computed from its config, the card's, provenance."""
    return {"name": m.name, "architecture": m.model_type, "attention": m.attention, "layers": m.num_layers,
            "experts": m.num_experts or None, "experts_per_token": m.experts_per_token or None,
            "total_params": total_params(m), "active_params": active_params(m),
            "total_params_stated": m.total_params_stated, "active_params_stated": m.active_params_stated,
            "released_weights": describe_scheme(scheme_for("released", m.released_weights)),
            "released_detail": m.released_detail or None,
            "linear_attention_layers": m.linear_layers or None, "sliding_window_layers": m.sliding_layers or None,
            "source": m.source, "checked": m.checked, "estimate": m.estimate}


def gpu_facts(g: GpuSpec) -> dict:
    """The GPU's datasheet facts and provenance for reports."""
    return {"name": g.name, "memory_bytes": g.memory_bytes, "peak_bandwidth_bytes_per_s": g.peak_bandwidth_bytes_per_s,
            "bf16_dense_tflops": g.bf16_dense_tflops, "fp8_dense_tflops": g.fp8_dense_tflops,
            "kind": g.kind or None, "source": g.source, "checked": g.checked}


def context_for(fields: dict) -> tuple[int, str]:
    """KV context for the bound: input + half the output (the middle of generation); defaults
    1000 in / 1000 out as the guide recommends (``docs/guide.md``)."""
    i, o = fields.get("input_tokens"), fields.get("output_tokens")
    if i is None and o is None:
        return DEFAULT_CONTEXT_TOKENS, "default 1000 in + 500 (half of 1000 out), as the guide suggests"
    i = 1000 if i is None else int(i)
    o = 1000 if o is None else int(o)
    return i + o // 2, f"input {i} + half of output {o}"


def _bound_json(b) -> dict:
    keys = ("bytes_per_token", "hard_tok_s", "realistic_tok_s", "context_tokens", "precision", "precision_detail",
            "tensor_parallel", "gpu", "bandwidth_bytes_per_s", "achievable_fraction", "achievable_source",
            "weights_bytes_per_token", "kv_bytes_per_token_read", "tokens_per_step", "hard_tok_s_reason",
            "pipeline_parallel", "communication_s_per_token")
    d = b.to_dict()
    out = {k: d.get(k) for k in keys}
    out["notes"] = list(d["notes"])
    return out


def _memory_json(m) -> dict:
    d = m.to_dict()
    return {k: d[k] for k in ("required_bytes", "available_bytes", "fits", "weights_bytes", "kv_bytes_per_token",
                              "kv_cache_bytes", "overhead_bytes", "max_model_len", "concurrency", "tensor_parallel",
                              "gpu_memory_utilization", "max_concurrent_seqs", "min_tensor_parallel", "precision",
                              "reason")}


# --------------------------------------------------------------------------------- the bounds

@dataclass
class _Bounds:
    reading: Reading
    bound: object              # roofline Bound of the single stream (GPU part when offloaded)
    hard: float | None         # single-stream hard bound (offload included)
    realistic: float | None
    fits: bool | None
    offload: dict | None = None
    weights: float = 0.0
    mem: object = None
    setup: Setup | None = None
    host_short: tuple[float, float] | None = None  # (bytes left for the host, stated host RAM) when they cannot fit


#: How far weights may exceed a memory the claim states (host RAM left for offloaded weights, or
#: GPU memory when no GPU is named) before they cannot be held: our weight sizes are estimates (a
#: GGUF's mixed types, mmap of a file a little larger than RAM), so only a clear shortfall — half
#: again the stated memory — says the weights cannot fit.
MEMORY_SHORT_MARGIN = 1.5


def _fits(setup: Setup, w: float, words: Words) -> bool | None:
    cap = setup.capacity
    if cap is None:
        return None
    return w <= cap * 0.97


def _bounds(r: Reading, setup: Setup, claim: Claim, words: Words, context: int, gmu: float,
            acceptance_rate, draft_tokens) -> _Bounds:
    m, p = r.model, r.precision
    w = weights_bytes(m, p)
    setup = sized(setup, w)
    gpu = setup.gpu
    b = decode_bound(m, gpu, p, context, setup.tp, acceptance_rate=acceptance_rate, draft_tokens=draft_tokens,
                     pipeline_parallel=setup.pp)
    max_model_len = int(claim.fields.get("max_model_len") or ((claim.fields.get("input_tokens") or 0)
                        + (claim.fields.get("output_tokens") or 0)) or DEFAULT_MAX_MODEL_LEN)
    mem = memory_budget(m, gpu, p, max_model_len, int(claim.fields.get("concurrency") or 1), gmu,
                        max(1, setup.tp * setup.pp)) if gpu is not None else None
    # --weights gives the bytes read per token, not what is stored (a MoE stores more): no fit test
    fits = _fits(setup, w, words) if gpu is not None and not isinstance(m, WeightsOnly) else None
    foot = claim.footprint
    offload_needed = gpu is not None and setup.can_offload and setup.host is not None and \
        not isinstance(m, WeightsOnly) and (
        fits is False or foot.get("n_cpu_moe") or words.all_experts_on_cpu or words.expert_share is not None
        or (foot.get("gpu_layers") is not None and foot.get("total_layers")
            and foot["gpu_layers"] < foot["total_layers"]))
    if offload_needed:
        off = offload_bound(m, gpu, setup.host, p, context, setup.count, setup.tp,
                            n_cpu_moe=foot.get("n_cpu_moe"), all_experts_on_cpu=words.all_experts_on_cpu,
                            gpu_layers=foot.get("gpu_layers") if foot.get("total_layers") else None,
                            total_layers=foot.get("total_layers"),
                            gpu_memory_bytes=setup.capacity, host_expert_fraction=words.expert_share)
        cap = setup.host.capacity_bytes
        if fits is False and cap and off["host_weights_bytes"] > cap * MEMORY_SHORT_MARGIN:
            # "RTX 4090 … 配 64GB DDR5 内存" with 349 GB of weights: the stated RAM cannot hold what
            # does not fit the GPU, so nothing can be offloaded (it would stream from disk)
            return _Bounds(r, b, b.hard_tok_s, b.realistic_tok_s, fits, None, w, mem, setup,
                           host_short=(off["host_weights_bytes"], cap))
        return _Bounds(r, b, off["hard_tok_s"], off["realistic_tok_s"], fits, off, w, mem, setup)
    return _Bounds(r, b, b.hard_tok_s, b.realistic_tok_s, fits, None, w, mem, setup)


# ------------------------------------------------------------------------ judging one figure

@dataclass
class _Judgement:
    verdict: str
    text: list[str]
    mbu: float | None = None
    basis: str = ""
    bounds: dict = field(default_factory=dict)


def _rate_of(fig_value, unit: str, fields: dict) -> float | None:
    """A speed figure in tok/s: TPOT in ms/tok → 1000 / TPOT; s per 1k tokens → 1000 / s."""
    v = max(fig_value) if isinstance(fig_value, (list, tuple)) else fig_value
    if v is None:
        return None
    if unit == "tok/s":
        return float(v)
    if unit == "ms/tok":
        return 1000.0 / v if v > 0 else None
    if unit == "s/tok":
        return 1.0 / v if v > 0 else None
    if unit == "s/1k tok":
        return 1000.0 / v if v > 0 else None
    return None


def _ram_short(setup: Setup) -> bool:
    """A CPU-only run whose stated RAM cannot hold the weights, and no word of an SSD or mmap that
    would stream them from storage instead ("64GB DDR4 … 純 CPU … DeepSeek R1 671B")."""
    return setup.cpu_only and not setup.from_disk and setup.host is not None and bool(setup.host.capacity_bytes)


def _does_not_fit(bd: _Bounds, setup: Setup, bounds: dict | None = None) -> "_Judgement | None":
    """Implausible when the weights fit neither the GPUs nor any memory they could be offloaded
    to (unified memory, nothing that offloads, or host RAM stated too small); else None. No figure
    of any kind (decode, prefill, TTFT, latency) is served that way."""
    setup = bd.setup or setup
    gpu, r, where = setup.gpu, bd.reading, _where(setup)
    if bd.fits is False and bd.offload is None and gpu is not None and (gpu.kind != "host_memory" or _ram_short(setup)) \
            and not (gpu.kind in ("apple", "soc") and setup.from_disk):
        # (weights streamed from an SSD into unified memory are slower, never faster: the memory's bound holds)
        cap = setup.capacity
        why = ("its memory is unified: there is no separate host memory to offload to" if gpu.kind in ("apple", "soc")
               else "nothing in the claim streams them from disk" if gpu.kind == "host_memory"
               else f"the {_gb(bd.host_short[1])} of host memory stated cannot hold the {_gb(bd.host_short[0])} "
                    "that do not fit the GPU" if bd.host_short
               else "nothing in the claim offloads them to host memory")
        return _Judgement("implausible", [f"the weights at {r.label} ({_gb(bd.weights)}) do not fit {where} "
                                          f"({_gb(cap)}) and {why}"],
                          None, "memory", bounds or {})
    return None


def _judge_decode(value: float, bd: _Bounds, setup: Setup, claim: Claim, words: Words, context: int,
                  scope: str | None, concurrency: int | None, spec: bool | None, gmu: float,
                  output_only: bool = True) -> _Judgement:
    """Verdict of one decode-speed figure at one precision reading (see the module docstring).

    ``scope``: ``request``/``user`` (one stream's speed), ``aggregate``/``gpu``/``node``
    (throughput), None (not stated). ``output_only``: an aggregate counts output tokens only
    (else it may include prompt tokens, which the compute roof alone bounds)."""
    r, m, p = bd.reading, bd.reading.model, bd.reading.precision
    setup = bd.setup or setup
    gpu = setup.gpu
    text: list[str] = []
    where = _where(setup)
    at = f"at {r.label}"
    hard = bd.hard
    if hard is None:
        return _Judgement("unknown", ["no bandwidth to bound it"])
    bounds = {"single_hard_tok_s": hard, "single_realistic_tok_s": bd.realistic}
    lengths_stated = claim.fields.get("input_tokens") is not None or claim.fields.get("output_tokens") is not None
    agg_ctx = context if lengths_stated else 0
    agg_max = None
    if gpu is not None and bd.offload is None and bd.fits is not False:
        agg_max = max_aggregate_bound(m, gpu, p, agg_ctx, setup.tp, setup.pp, setup.replicas, gmu,
                                      setup.memory_bytes)
    if agg_max:
        bounds["max_aggregate"] = agg_max
    no_fit = _does_not_fit(bd, setup, bounds)
    if no_fit is not None:
        return no_fit

    def mbu_text(v, h, what, band=None):
        u = v / h
        share = f"{u:.0%}" if u >= 0.005 else ("under 0.5%" if u > 0 else "0%")
        return u, f"{fmt(v)} tok/s is {share} of the {what} ({sig3(h)} tok/s {at} on {where}) — {band or band_for(u)}"

    def lower_precision_reaches(v: float, aggregate: bool, spec_stated: bool = False) -> str | None:
        """A narrower format than the released one under which the figure fits the bound (with the
        stated speculative decoding's accepted tokens per step, when one stream is judged)."""
        if r.stated or r.fallback:
            return None
        for lower in ("FP8", "INT4"):
            if lower in _released_names(m):
                continue
            if aggregate:
                lb = max_aggregate_bound(m, gpu, lower, agg_ctx, setup.tp, setup.pp, setup.replicas, gmu,
                                         setup.memory_bytes) if gpu is not None else None
                h = lb["hard_tok_s"] if lb else None
            else:
                h = decode_bound(m, gpu, lower, context, setup.tp, pipeline_parallel=setup.pp).hard_tok_s
            if h and v <= h * EVIDENCE_MBU:
                return f"at {lower} the bound is {sig3(h)} tok/s: the figure needs weights narrower than the released ones"
            if h and spec_stated and not aggregate and v <= h * MAX_PLAUSIBLE_ACCEPTED_LENGTH:
                return (f"at {lower} the bound is {sig3(h)} tok/s: with the stated speculative decoding the figure "
                        f"needs weights narrower than the released ones and ≥ {v / h:.2f} accepted tokens per step")
        return None

    # --- a stated concurrency with no scope: per request when one stream could, else the total
    if scope is None and concurrency and concurrency > 1 and bd.offload is None and gpu is not None:
        agg = aggregate_bound(m, gpu, p, context, concurrency, setup.tp, setup.pp)
        if value > min(hard, agg["hard_tok_s"] / concurrency):
            scope = "aggregate"

    # --- aggregate figures
    if scope in ("aggregate", "gpu", "node"):
        total = value
        if scope == "gpu":
            total = value * setup.count
        elif scope == "node":
            total = value * max(1, setup.count // 8 if setup.count >= 8 else 1)
        if concurrency and concurrency > 1 and bd.offload is None:
            agg = aggregate_bound(m, gpu, p, context, concurrency, setup.tp, setup.pp)
            bounds["aggregate"] = agg
            u, t = mbu_text(total, agg["hard_tok_s"], f"hard aggregate bound at concurrency {concurrency}")
            text.append(t)
            if u <= EVIDENCE_MBU:
                return _Judgement("plausible", text, u, "aggregate", bounds)
            if u <= 1:
                return _Judgement("needs_explanation", text, u, "aggregate", bounds)
            if not lengths_stated:
                short = aggregate_bound(m, gpu, p, 0, concurrency, setup.tp, setup.pp)
                if total <= short["hard_tok_s"] * EVIDENCE_MBU:
                    text.append(f"lengths are not stated: with short contexts (little KV cache to read) the bound rises "
                                f"to {sig3(short['hard_tok_s'])} tok/s, which it fits — if the requests were short")
                    return _Judgement("needs_explanation", text, total / short["hard_tok_s"], "aggregate", bounds)
                if total <= short["hard_tok_s"]:
                    return _Judgement("needs_explanation", text, u, "aggregate", bounds)
            needed = total / (agg["hard_tok_s"] * EVIDENCE_MBU)
            if spec is True and needed <= MAX_PLAUSIBLE_ACCEPTED_LENGTH:
                # "MTP4 … ~7686 completion tok/s at concurrency 48": each step of the batch may
                # accept several tokens per sequence
                text.append(f"the stated speculative decoding would need a mean accepted length of {needed:.2f} tokens "
                            "per step across the batch (published methods reach ~2–4)")
                return _Judgement("plausible" if needed <= TYPICAL_ACCEPTED_LENGTH else "needs_explanation",
                                  text, u, "aggregate", bounds)
            lower = lower_precision_reaches(total, True)
            if lower:
                text.append(lower)
                return _Judgement("needs_explanation", text, u, "aggregate", bounds)
            text.append(f"at concurrency {concurrency} one step reads the weights once and each sequence's KV cache: "
                        f"no batch of that size reaches {fmt(total)} tok/s")
            return _Judgement("implausible", text, u, "aggregate", bounds)
        if agg_max:
            roof = agg_max.get("compute_tok_s")
            band = None
            if not output_only and roof:
                h, what = roof, ("compute roof (2 × active parameters FLOPs per token, prompt tokens included: the "
                                 "figure does not say it counts output tokens only)")
                # (a share of peak FLOP/s: the batch-1 bandwidth references say nothing of it)
                band = ("a share of the GPUs' peak compute" if total <= roof * EVIDENCE_MBU else
                        "above 90 % of the GPUs' peak compute: needs evidence" if total <= roof else
                        "above the compute roof (more than 100 % of peak FLOP/s)")
            else:
                h, what = agg_max["hard_tok_s"], (f"highest aggregate bound (a batch of {fmt(agg_max['batch'])} "
                                                   "sequences the memory holds, capped by the compute roof)")
            u, t = mbu_text(total, h, what, band)
            text.append(t)
            if u <= EVIDENCE_MBU:
                return _Judgement("plausible", text, u, "aggregate", bounds)
            lower = lower_precision_reaches(total, True)
            if u <= 1 or lower:
                if lower:
                    text.append(lower)
                return _Judgement("needs_explanation", text, u, "aggregate", bounds)
            if not claim.fields.get("gpu_count"):
                n = math.ceil(total / (h * EVIDENCE_MBU) * max(1, setup.count))
                if _SERVING_CONTEXT.search(claim.text or ""):
                    text.append(f"the GPU count is not stated: read as a cluster's throughput it needs about {fmt(n)} × "
                                f"{gpu.name}")
                    return _Judgement("plausible", text, u, "aggregate_reading", bounds)
                text.append(f"the GPU count is not stated: about {fmt(n)} × {gpu.name} would reach it")
                return _Judgement("needs_explanation", text, u, "aggregate", bounds)
            text.append("no batch the memory can hold reaches it on this hardware")
            return _Judgement("implausible", text, u, "aggregate", bounds)
        if bd.offload is not None or bd.fits is not False:
            what = ("offloaded single-stream bound (batching shares each host read)" if bd.offload is not None else
                    "single-stream bound (the memory left beside the weights holds about one sequence)")
            u, t = mbu_text(total, hard, what)
            text.append(t)
            if bd.offload is not None and concurrency and total > hard * concurrency:
                # each step reads the host's share of the weights once and yields at most one token
                # per sequence: a batch of N multiplies the offloaded bound by N at the very most
                text.append(f"even with all {fmt(concurrency)} sequences sharing each host read, the bound is "
                            f"{sig3(hard * concurrency)} tok/s")
                return _Judgement("implausible", text, u, "single", bounds)
            if bd.offload is not None and concurrency and concurrency > 1 and u > EVIDENCE_MBU \
                    and total / concurrency <= hard * EVIDENCE_MBU:
                # "23.03 output tokens/s at 10 concurrent requests" with experts in host RAM: each
                # sequence gets 2.3 tok/s, a third of what one stream alone could
                text.append(f"each of the {fmt(concurrency)} sequences gets {fmt(total / concurrency)} tok/s, "
                            f"{total / concurrency / hard:.0%} of the offloaded single-stream bound: a batch that "
                            "shares each host read reaches the total")
                return _Judgement("plausible", text, u, "single", bounds)
            return _Judgement("plausible" if u <= EVIDENCE_MBU else "needs_explanation", text, u, "single", bounds)
        return _Judgement("unknown", ["no aggregate bound on this hardware"])

    # --- per-stream figures
    per_hard = hard
    what = "single-stream hard bound"
    if concurrency and concurrency > 1 and bd.offload is None and gpu is not None:
        agg = aggregate_bound(m, gpu, p, context, concurrency, setup.tp, setup.pp)
        per_hard = min(hard, agg["hard_tok_s"] / concurrency)
        bounds["per_request_at_concurrency"] = {"hard_tok_s": per_hard, "concurrency": concurrency,
                                                "realistic_tok_s": min(bd.realistic or per_hard,
                                                                       agg["realistic_tok_s"] / concurrency)}
        what = f"per-request hard bound at concurrency {concurrency}"
    u, t = mbu_text(value, per_hard, what)
    text.append(t)
    if bd.offload is not None:
        o = bd.offload
        text.append(f"offload: {o['placement']}; {_gb(o['gpu_bytes_per_token'])} per token from the GPU and "
                    f"{_gb(o['host_bytes_per_token'])} from {o['host_memory']} ({o['host_memory_why']})")
    if u <= EVIDENCE_MBU:
        return _Judgement("plausible", text, u, "single", bounds)
    needed = value / (per_hard * EVIDENCE_MBU)
    if spec is True and needed <= TYPICAL_ACCEPTED_LENGTH:
        text.append(f"the stated speculative decoding accounts for it: at 90 % of peak bandwidth it needs a mean "
                    f"accepted length of {needed:.2f} tokens per step, which every published method reaches "
                    "(~1.9 for DeepSeek-V3's MTP, ~3–4 for EAGLE)")
        return _Judgement("plausible", text, u, "single", bounds)
    if u <= 1 or value - _rounding(value) <= per_hard:
        # a figure at the bound within its own rounding ("about 48" for 47.9) is not above it
        text.append("above 90 % of peak bandwidth: it needs evidence (the best published decode kernels reach ~78–85 %)")
        return _Judgement("needs_explanation", text, u, "single", bounds)
    # above the hard bound: what could account for it
    ratio = value / per_hard
    # a time per output token is one stream's however many run beside it: no batch explains it
    single = scope == "request" or concurrency == 1 or (words.single and not (concurrency and concurrency > 1)) \
        or claim.fields.get("metric") == "tpot"
    possible: list[str] = []
    if spec:
        if ratio <= MAX_PLAUSIBLE_ACCEPTED_LENGTH:
            possible.append(f"the stated speculative decoding would need a mean accepted length of ≥ {ratio:.2f} "
                            "tokens per step (published methods reach ~2–4)")
        else:
            text.append(f"even the stated speculative decoding would need ≥ {ratio:.2f} accepted tokens per step, "
                        "beyond the ~2–4 that published methods reach")
    elif spec is None and not (single and r.stated) and ratio <= MAX_PLAUSIBLE_ACCEPTED_LENGTH:
        possible.append(f"speculative decoding / MTP (not mentioned) would need a mean accepted length of ≥ "
                        f"{ratio:.2f} tokens per step (published methods reach ~2–4)")
    elif spec is None and ratio > MAX_PLAUSIBLE_ACCEPTED_LENGTH:
        text.append(f"speculative decoding alone would need a mean accepted length of ≥ {ratio:.2f} tokens per step, "
                    "beyond the ~2–4 that published methods reach")
    # a figure above every published single-request decode is a total however it is worded
    serving = bool(_SERVING_CONTEXT.search(claim.text or "")) or bool(claim.fields.get("concurrency")) \
        or value >= SINGLE_REQUEST_CEILING_TOK_S
    if scope is None and not single and agg_max:
        h_agg = agg_max["hard_tok_s"]
        if value <= h_agg * EVIDENCE_MBU:
            bench = _BENCH_SERVING.search(claim.text or "")
            if (ratio > MAX_PLAUSIBLE_ACCEPTED_LENGTH and serving) or bench:
                why = (f"no single stream reaches {fmt(value)} tok/s even with speculative decoding"
                       if ratio > MAX_PLAUSIBLE_ACCEPTED_LENGTH else
                       f"a serving benchmark ('{bench.group(0)}') counts the tokens of all requests in flight")
                text.append(f"{why}; read as aggregate throughput over concurrent requests it is {value / h_agg:.0%} "
                            f"of the highest aggregate bound ({sig3(h_agg)} tok/s)")
                return _Judgement("plausible", text, value / h_agg, "aggregate_reading", bounds)
            n = _concurrency_needed(m, gpu, p, agg_ctx, setup, value)
            possible.append("it may be aggregate throughput over concurrent requests, not one request's speed"
                            + (f" (about {n} concurrent requests reach it)" if n else ""))
        elif value <= h_agg:
            possible.append("as aggregate throughput it needs more than 90 % of the highest aggregate bound")
        elif not claim.fields.get("gpu_count") and ratio > MAX_PLAUSIBLE_ACCEPTED_LENGTH and serving:
            n = math.ceil(value / (h_agg * EVIDENCE_MBU) * max(1, setup.count))
            text.append(f"no single stream reaches {fmt(value)} tok/s; read as a cluster's aggregate throughput it needs "
                        f"about {fmt(n)} × {gpu.name} at most-favourable batching (the GPU count is not stated)")
            return _Judgement("plausible", text, value / h_agg, "aggregate_reading", bounds)
    lower = lower_precision_reaches(value, False, spec is True)
    if lower:
        possible.append(lower)
    elif scope is None and not single and agg_max and value > agg_max["hard_tok_s"] * EVIDENCE_MBU:
        # "a single B200 at ~17,500 tokens/sec on Llama-2-70B": above the FP16 compute roof of any
        # batch, within an FP8 one — the precision is not stated
        lower_agg = lower_precision_reaches(value, True)
        if lower_agg:
            possible.append("read as aggregate throughput over concurrent requests, " + lower_agg)
    sparse = _activation_sparsity(bd, m, value)
    if sparse:
        possible.append(sparse)
    if not claim.fields.get("gpu_count") and gpu is not None and gpu.kind not in ("host_memory", "accelerator",
                                                                                  "apple", "soc") \
            and bd.offload is None:
        for n in (2, 4, 8):
            if n <= setup.count:
                continue
            nb = decode_bound(m, gpu, p, context, n)
            if nb.hard_tok_s and value <= nb.hard_tok_s * EVIDENCE_MBU:
                possible.append(f"on {n}× {gpu.name} with tensor parallel the hard bound is {sig3(nb.hard_tok_s)} tok/s "
                                "(the GPU count is not stated)")
                break
    if single and spec is None and getattr(m, "mtp_layers", 0) and ratio <= MAX_PLAUSIBLE_ACCEPTED_LENGTH:
        # the model ships its own draft (config.json's MTP layers): engines run it with one flag
        text.append(f"{m.name} ships {m.mtp_layers} multi-token-prediction layer(s) of its own: MTP, not mentioned, "
                    f"would need a mean accepted length of ≥ {ratio:.2f} tokens per step (published methods reach ~2–4)")
        return _Judgement("needs_explanation", text, u, "single", bounds)
    if single and spec is not True and r.stated:
        text.append("one request, a pinned precision and no speculative decoding stated: nothing accounts for it — "
                    "physically impossible on this hardware")
        return _Judgement("implausible", text, u, "single", bounds)
    if possible:
        text.extend(possible)
        return _Judgement("needs_explanation", text, u, "single", bounds)
    text.append("no explanation reaches it: speculative decoding, concurrency and precision all fall short")
    return _Judgement("implausible", text, u, "single", bounds)


def _rounding(value: float) -> float:
    """Half a unit of a figure's last written digit: 0.5 for 48, 0.05 for 2.5 (what it may have
    been rounded from)."""
    text = repr(float(value))
    if text.endswith(".0") or "e" in text:
        return 0.5
    return 0.5 * 10 ** -len(text.split(".", 1)[1])


def _activation_sparsity(bd: _Bounds, m: ModelSpec, value: float) -> str | None:
    """A dense model offloaded to host memory whose figure beats the offload bound but not the
    GPU's own part: only skipping most host reads explains it — activation sparsity, as
    PowerInfer does (hot neurons on the GPU, the rarely firing cold ones computed on the CPU;
    13.2 tok/s average, 29.08 peak, OPT-175B among the models, on one RTX 4090: Song et al.,
    SOSP 2024). It works on ReLU-family MLPs (the model's config says ``relu``), and needs
    evidence; SwiGLU models keep most neurons active."""
    o = bd.offload
    if o is None or m.is_moe or "relu" not in (m.activation or "").lower() or not o.get("gpu_time_s") \
            or not o.get("host_time_s"):
        return None
    gpu_only = 1 / o["gpu_time_s"]
    if value > gpu_only * EVIDENCE_MBU:
        return None
    return (f"only if most host reads are skipped: the GPU's own share bounds {sig3(gpu_only)} tok/s — activation "
            "sparsity (PowerInfer-style hot neurons on the GPU, cold ones computed on the CPU, as its ReLU MLP allows) "
            "would explain it, and needs evidence")


def _concurrency_needed(m, gpu, p, context, setup: Setup, value) -> int | None:
    for c in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096):
        if aggregate_bound(m, gpu, p, context, c, setup.tp, setup.pp)["hard_tok_s"] * EVIDENCE_MBU >= value:
            return c
    return None


def _where(setup: Setup) -> str:
    if setup.gpu is None:
        return "no GPU"
    if setup.count <= 1:
        return f"one {setup.gpu.name}"
    lay = []
    if setup.tp > 1:
        lay.append(f"TP {setup.tp}")
    if setup.pp > 1:
        lay.append(f"PP {setup.pp}")
    return f"{setup.count}× {setup.gpu.name}" + (f" ({', '.join(lay)})" if lay else "")


# ----------------------------------------------------------------- prefill, TTFT, e2e latency

def _judge_prefill(value: float, bd: _Bounds, setup: Setup) -> _Judgement:
    unfit = _does_not_fit(bd, setup)
    if unfit:
        return unfit
    roof = prefill_bound(bd.reading.model, setup.gpu, bd.reading.precision, setup.tp, setup.pp)
    if roof is None:
        return _Judgement("unknown", ["prompt processing is bound by compute, and the catalog has no FLOP/s figure "
                                      f"for {setup.gpu.name if setup.gpu else 'this hardware'}"])
    u = value / roof
    text = [f"{fmt(value)} prompt tok/s needs {u:.0%} of the dense FLOP/s roof ({sig3(roof)} tok/s at "
            f"{bd.reading.label}: 2 × active parameters FLOPs per token on {_where(setup)})"]
    if u <= EVIDENCE_MBU:
        return _Judgement("plausible", text, None, "prefill", {"prefill_roof_tok_s": roof})
    if u <= 1:
        return _Judgement("needs_explanation", text, None, "prefill", {"prefill_roof_tok_s": roof})
    text.append("above the compute roof: no prefill runs faster than the GPUs' peak FLOP/s")
    return _Judgement("implausible", text, None, "prefill", {"prefill_roof_tok_s": roof})


def _judge_ttft(value_s: float, bd: _Bounds, setup: Setup, input_tokens: int | None) -> _Judgement:
    unfit = _does_not_fit(bd, setup)
    if unfit:
        return unfit
    floor = ttft_floor(bd.reading.model, setup.gpu, bd.reading.precision, input_tokens or 1, setup.tp)
    if floor is None:
        return _Judgement("unknown", ["no bound for TTFT on this hardware"])
    what = f"a {input_tokens}-token prompt" if input_tokens else "the shortest prompt (one weight read)"
    text = [f"TTFT {fmt(value_s * 1000)} ms against the shortest possible prefill of {what}: "
            f"{fmt(floor * 1000)} ms at {bd.reading.label} on {_where(setup)}"]
    if value_s >= floor:
        return _Judgement("plausible", text, None, "ttft", {"ttft_floor_s": floor})
    text.append("faster than reading the weights and doing the prompt's FLOPs at peak: impossible")
    return _Judgement("implausible", text, None, "ttft", {"ttft_floor_s": floor})


# ---------------------------------------------------------------------------- consistency

_MIN_OF = re.compile(r"(?:\b|(?:\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*))_)min(?:imum)?\s*(?:of|=|:)\s*"
                     r"(\d[\d,]*(?:\.\d+)?)", re.I)
_MAX_OF = re.compile(r"(?:\b|(?:\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*))_)max(?:imum)?\s*(?:of|=|:)\s*"
                     r"(\d[\d,]*(?:\.\d+)?)", re.I)


def _consistency(claim: Claim, rate: float | None, head) -> tuple[list[dict], dict]:
    """Checks between the claim's own figures. Returns (findings, hints) where hints may carry
    ``per_stream`` (a TPOT-implied speed) and ``implied_concurrency``."""
    out: list[dict] = []
    hints: dict = {}
    figs = claim.figures
    tpots = [f for f in figs if f.unit in ("ms/tok", "s/tok", "s/1k tok") and not f.headline and not f.condition]

    def _own_rate(t) -> bool:
        # "… 281 tok/s on the GPU. It also quotes its NPU engine at 10 ms/tok (97 tok/s)": a time per
        # token in another sentence that another figure restates is that figure's, not the headline's
        per_t = _rate_of(t.value, t.unit, {})
        text = claim.text or ""
        apart = head is not None and re.search(SENTENCE_END + "|[。；！？]", text[min(head.span[1], t.span[0]):max(head.span[0], t.span[1])])
        return bool(per_t) and bool(apart) and any(g is not head and g.unit == "tok/s" and abs(g.high - per_t) <= 0.15 * per_t
                                                   for g in figs)

    tpots = [t for t in tpots if not _own_rate(t)]
    if head is not None:
        # "~209 tok/s with a draft … against a 54.4 tok/s baseline (18.4ms/token)": a time per
        # token read without speculative decoding is not the headline's when the headline may use it
        tpots = [t for t in tpots if not (t.spec_decoding is False and head.spec_decoding is not False)]
    if head is not None and head.concurrency:
        # "decode >300 tokens/sec (batch=8) … 延迟 <100ms/token (batch=1)": a time per token read at
        # another concurrency is another run's
        tpots = [t for t in tpots if not t.concurrency or t.concurrency == head.concurrency]
        # "… 37.8 tokens/s at BS1. A serving benchmark at maximum concurrency 10 … a mean TPOT of 81.22 ms":
        # nor one in another sentence that states another concurrency
        tpots = [t for t in tpots if t.concurrency or not _other_concurrency(claim.text or "", head, t)]
    if head is not None and not head.before_change:
        # "from 68.3 tok/s (ITL 14.62 ms) … to 118.3 tok/s (ITL 8.45 ms)": the change's start's time per token
        tpots = [t for t in tpots if not (t.before_change and t.why.get("with"))]
    if head is not None and head.unit == "tok/s" and rate and tpots:
        t = tpots[0]
        per = _rate_of(t.value, t.unit, {})
        scope = _stated_scope(head)
        metric = claim.fields.get("metric")
        lo = min(head.value) if isinstance(head.value, (list, tuple)) else rate
        if per:
            if abs(rate - per) <= 0.15 * per or lo / 1.15 <= per <= rate * 1.15:  # "3-4 tok/s" holds 320 ms/tok
                out.append({"check": "tpot_vs_tok_s", "ok": True,
                            "text": f"{fmt(t.high)} {t.unit} is {fmt(per)} tok/s, which agrees with {fmt(rate)} tok/s"})
            elif rate > per * 1.25 and (scope in ("aggregate", "gpu", "node") or metric == "aggregate_throughput"
                                         or (scope is None and _BENCH_SERVING.search(claim.text or ""))
                                         or (scope is None and metric is None
                                             and engine_family(claim.fields.get("engine")) not in LOCAL_ENGINES)):
                n = rate / per
                conc = head.concurrency or claim.fields.get("concurrency")
                if conc and conc > 1 and rate > conc * per * 1.25 and _output_only(claim, head):
                    # "decode 4200 tok/s at batch 32 … TBT 14 ms": 32 streams at 71 tok/s make 2,286
                    out.append({"check": "tpot_vs_tok_s", "ok": False, "severity": "implausible",
                                "text": f"{fmt(rate)} tok/s over {conc} concurrent requests is more than {conc} × "
                                        f"{fmt(per)} tok/s (= 1000 / {fmt(t.high)} ms per token) = {fmt(conc * per)}: "
                                        "the claim's own figures disagree"})
                    return out, hints
                if conc == 1:
                    # "单卡吞吐 120-150 tokens/sec，batch size=1 时延迟约 20-30ms/token": one stream at
                    # 20-30 ms per token makes 33-50 tok/s, and the text allows no other streams
                    out.append({"check": "tpot_vs_tok_s", "ok": False, "severity": "implausible",
                                "text": f"{fmt(rate)} tok/s at a concurrency of 1 contradicts {fmt(t.high)} {t.unit} "
                                        f"(= {fmt(per)} tok/s) in the same claim"})
                    return out, hints
                hints.update(per_stream=per, implied_concurrency=max(2, round(n)))
                out.append({"check": "tpot_vs_tok_s", "ok": True,
                            "text": f"{fmt(t.high)} ms per token is {fmt(per)} tok/s per stream, so {fmt(rate)} tok/s is "
                                    f"an aggregate over about {n:.0f} streams"})
            elif (rate > per * 1.25 or rate < per / 1.25) and not (rate < per and scope in ("gpu", "node")):
                # (a total shared out per GPU may be below one stream's speed: "89.87 output tok/s per
                # GPU at concurrency 4 … TPOT 5.15 ms" on 8 GPUs is 719 tok/s over 4 streams of 194)
                stated_stream = scope in ("request", "user")
                out.append({"check": "tpot_vs_tok_s", "ok": False,
                            "severity": "implausible" if stated_stream and rate > per * 1.25 else "needs_explanation",
                            "text": f"{fmt(rate)} tok/s contradicts {fmt(t.high)} {t.unit} (= {fmt(per)} tok/s) "
                                    "in the same claim"})
    # "generation_tps_min of 355.9 … a maximum of 116.6": a minimum above the maximum of the same
    # quantity (same field stem, or one of them unnamed)
    lows = [(st or None, float(x.replace(",", ""))) for st, x in _MIN_OF.findall(claim.text or "")]
    highs = [(st or None, float(x.replace(",", ""))) for st, x in _MAX_OF.findall(claim.text or "")]
    clash = [(lo, hi) for sl, lo in lows for sh, hi in highs if (sl is None or sh is None or sl == sh) and lo > hi]
    if clash:
        lo, hi = clash[0]
        out.append({"check": "minimum_vs_maximum", "ok": False, "severity": "implausible",
                    "text": f"a minimum of {fmt(lo)} above a maximum of {fmt(hi)}: the record contradicts itself"})
    users = [f for f in figs if f.unit == "tok/s" and f.scope in ("user", "request") and f.concurrency and f.concurrency > 1]
    aggs = [f for f in figs if f.unit == "tok/s" and f.scope == "aggregate"]
    for u in users:
        for a in aggs:
            if a.concurrency in (None, u.concurrency) and a.high > u.concurrency * u.high * 1.15 and not a.before_change:
                out.append({"check": "batch_times_per_user_vs_total", "ok": False,
                            "text": f"{fmt(a.high)} tok/s in total is more than {u.concurrency} × {fmt(u.high)} tok/s "
                                    f"per user = {fmt(u.concurrency * u.high)}"})
    return out, hints


# ------------------------------------------------------------------------------ requirements

_REQ_KINDS = ("datacenter", "amd_datacenter", "workstation", "consumer", "amd_consumer", "apple", "soc")


def requirements_for(model, precision_readings: list[Reading], value: float, context: int,
                     per_stream: bool = True, limit: int = 6) -> dict:
    """What a figure needs when no GPU is stated: per precision reading, the bandwidth one stream
    needs (``value × bytes per token``), the memory the weights and one context need, and the
    smallest catalog setups (1, 2, 4 or 8 GPUs with tensor parallel) that hold the weights and
    whose hard bound reaches the figure at no more than 90 % of peak bandwidth.

    Returns ``{min_bandwidth_bytes_per_s, min_memory_bytes, setups, by_precision: [...]}``
    (the top-level keys are those of the first reading)."""
    by = []
    for r in precision_readings:
        b = decode_bound(r.model, None, r.precision, context)
        w = weights_bytes(r.model, r.precision)
        kv = b.kv_bytes_per_token_read
        need_bw = value * b.bytes_per_token if per_stream else None
        min_mem = w + kv + 2 * GIB
        setups = []
        for g in gpus():
            if g.kind not in _REQ_KINDS or not g.memory_bytes:
                continue
            for n in (1, 2, 4, 8):
                if n > 1 and g.kind in ("apple", "soc", "consumer", "amd_consumer") and n > 4:
                    continue
                fits = w + kv + 2 * GIB * n <= g.memory_bytes * 0.9 * n
                bd = decode_bound(r.model, g, r.precision, context, n)
                if fits and bd.hard_tok_s * EVIDENCE_MBU >= value:
                    setups.append({"gpu": g.name, "count": n, "hard_tok_s": bd.hard_tok_s,
                                   "realistic_tok_s": bd.realistic_tok_s, "fits": True})
                    break
        setups.sort(key=lambda s: (s["count"], -s["hard_tok_s"] if s["count"] > 1 else s["hard_tok_s"]))
        by.append({"precision": r.label, "bytes_per_token": b.bytes_per_token, "weights_bytes": w,
                   "min_bandwidth_bytes_per_s": need_bw,
                   "bandwidth_for_plausible_bytes_per_s": need_bw / EVIDENCE_MBU if need_bw else None,
                   "min_memory_bytes": min_mem, "setups": setups[:limit], "setups_found": len(setups)})
    first = by[0] if by else {}
    return {"min_bandwidth_bytes_per_s": first.get("min_bandwidth_bytes_per_s"),
            "min_memory_bytes": first.get("min_memory_bytes"), "setups": first.get("setups", []),
            "precision": first.get("precision"), "by_precision": by,
            "rule": "setups of 1, 2, 4 or 8 catalog GPUs (tensor parallel) that hold the weights and one context and "
                    "reach the figure at ≤ 90 % of peak bandwidth; the smallest first"}


# ---------------------------------------------------------------------------------- analysis

def analyze_claim(claim: Claim, *, model: ModelSpec | WeightsOnly | None = None, gpu: GpuSpec | None = None,
                  bandwidth_bytes_per_s: float | None = None, gpu_memory_utilization: float = 0.9,
                  acceptance_rate: float | None = None, draft_tokens: int = 0) -> ClaimAnalysis:
    """Judge ``claim``. ``model``/``gpu`` override the claim's names (``--model-config``,
    ``--gpu``); ``bandwidth_bytes_per_s`` overrides the GPU's bandwidth (``--bandwidth``).

    Raises:
        TokcheckError: an unknown GPU or model name given explicitly, or invalid numbers.
    """
    f = claim.fields
    notes = list(claim.notes)
    explanations: list[str] = []
    words = read_words(claim.text, engine_family(f.get("engine")))
    options = {"gpu": gpu, "bandwidth_bytes_per_s": bandwidth_bytes_per_s,
               "gpu_memory_utilization": gpu_memory_utilization, "acceptance_rate": acceptance_rate,
               "draft_tokens": draft_tokens}

    # --- the model
    unknown_model = None
    family = bool(f.get("model")) and is_model_family(f["model"])
    if model is None and family:
        unknown_model = f["model"]
    elif model is None and f.get("model"):
        try:
            model = find_model(f["model"])
        except TokcheckError:
            unknown_model = f["model"]
            notes[:] = [n for n in notes if not n.startswith(f"model {unknown_model!r} is not in the")]
    # --- the GPU
    if gpu is None and f.get("gpu"):
        try:
            gpu = find_gpu(f["gpu"])
        except TokcheckError:
            gpu = None
    if gpu is not None and gpu.kind == "host_memory":
        host = HostMemory(gpu.name, gpu.peak_bandwidth_bytes_per_s, gpu.achievable_fraction, f"stated ({gpu.source})", True)
        gpu = _host_device(host)
    if bandwidth_bytes_per_s is not None:
        gpu = gpu_from_bandwidth(bandwidth_bytes_per_s, gpu.memory_bytes if gpu else None) if gpu is None else \
            GpuSpec(**{**asdict(gpu), "name": f"{gpu.name} at {bandwidth_bytes_per_s / 1e12:g} TB/s",
                       "peak_bandwidth_bytes_per_s": float(bandwidth_bytes_per_s), "source": "bandwidth given on the command line"})

    spec_model = model if isinstance(model, ModelSpec) else None
    context, why_context = context_for(f)
    notes.append(f"context: {context} tokens ({why_context})")
    setup = read_setup(claim, gpu, words, notes)
    gpu = setup.gpu
    result = ClaimAnalysis(claim=claim, model=spec_model, gpu=gpu, precision_used=None, bound=None, memory=None,
                           verdict="unknown", explanations=explanations, notes=notes)
    if gpu is not None:
        result.layout = setup.to_json()
        if setup.why:
            notes.append(f"layout: {setup.why}")
    unsized = missing_size_of_version(unknown_model) if model is None and unknown_model else None
    if unsized:
        # "Llama 4.0 70B": no other version's 70B stands in for a model that does not exist
        explanations.append(f"no model to bound: {unsized}; pass --model-config config.json or --weights SIZE "
                            "to bound it")
        return result
    if model is None:
        by_size = _by_size(claim, unknown_model, options)
        if by_size is not None:
            return by_size
        stated = claim.footprint.get("weights_gb")
        if stated and not unknown_model:
            # "an H100 reads a 70 GB model about 48 times per second": the weights are the model
            model = WeightsOnly(weights_bytes=stated * 1e9, name=f"the stated {fmt(stated)} GB of weights")
            notes.insert(0, f"model: no model is named: judged by the stated weights alone ({fmt(stated)} GB read "
                            "per token; no KV cache, no fit check)")
    if model is None and family:
        by_family = _by_family(claim, unknown_model, result, options)
        if by_family is not None:
            return by_family
    if model is None:
        if family:
            explanations.append(f"no model to bound: {unknown_model!r} names a family, not one model; give its size "
                                "(--model), or pass --model-config config.json or --weights SIZE")
        elif unknown_model:
            hint = next((" or ".join(u["suggestions"]) for u in claim.unknown_names
                         if u["kind"] == "model" and u["words"] == unknown_model and u["suggestions"]), "")
            explanations.append(f"no model to bound: {unknown_model!r} is not in the built-in catalog"
                                + (f" (did you mean {hint}?)" if hint else "")
                                + "; pass --model-config config.json or --weights SIZE (e.g. 120GB) to bound it")
        else:
            explanations.append("no model to bound: name one the catalog knows, or pass --model-config / --weights")
        return result

    # --- precision readings
    kvd = claim.footprint.get("kv_cache_dtype")
    if kvd and isinstance(model, ModelSpec):
        try:
            model = replace(model, kv_cache_dtype=canonical_precision(kvd))
            notes.append(f"KV cache in {canonical_precision(kvd)}, as stated")
        except TokcheckError:
            pass
    if isinstance(model, WeightsOnly):
        readings = [Reading(f"weights as given ({_gb(model.weights_bytes)})", "BF16", model,  # type: ignore[arg-type]
                            "weights given directly", True)]
        findings: list[dict] = []
    else:
        readings, findings = read_precisions(claim, model, setup, words, notes)
        split = layer_split_finding(claim, readings[0], setup) if readings else None
        if split is not None:
            findings.append(split)
    result.consistency.extend(findings)

    head = claim.headline
    unit = f.get("unit")
    value = f.get("value")
    rate = _rate_of(value, unit or "tok/s", f) if value is not None else None
    cons, hints = _consistency(claim, rate, head)
    result.consistency.extend(cons)

    # --- bounds per reading (JSON of the first reading that is judged)
    all_bounds = []
    for r in readings:
        try:
            all_bounds.append(_bounds(r, setup, claim, words, context, gpu_memory_utilization, acceptance_rate,
                                      draft_tokens))
        except TokcheckError as err:
            notes.append(f"{r.label}: {err}")
    if not all_bounds:
        explanations.append("no precision reading could be bounded")
        return result
    first = all_bounds[0]
    lay = first.setup or setup  # the layout the first reading was sized to (the stated one if stated)
    result.bound = _bound_json(first.bound)
    result.precision_used = first.reading.precision if not isinstance(model, WeightsOnly) else first.bound.precision
    if first.mem is not None:
        result.memory = _memory_json(first.mem)
        if first.mem.fits is not None and spec_model is not None:
            result.memory["max_seqs_by_max_model_len"] = max_seqs_by_max_model_len(
                first.reading.model, gpu, first.reading.precision, gpu_memory_utilization, max(1, lay.tp * lay.pp))
    if spec_model is not None:
        result.options = [asdict(o) for o in precision_options(spec_model, gpu, context, int(
            f.get("max_model_len") or DEFAULT_MAX_MODEL_LEN), int(f.get("concurrency") or 1), lay.tp,
            gpu_memory_utilization)] if gpu is None or gpu.kind != "host_memory" else []
        result.full_precision = _full_precision_note(spec_model, f)
        if result.full_precision.get("released_differs"):
            rb = decode_bound(spec_model, gpu, "released", context, lay.tp, pipeline_parallel=lay.pp)
            result.released_bound = _bound_json(rb)

    # --- impossible footprints decide at once
    bad = [c for c in findings if not c["ok"]] + [c for c in cons if not c["ok"]]

    if rate is None and unit not in ("ms", "s"):
        explanations.append("no speed figure tokcheck can bound")
        return result

    # --- no hardware: requirements
    if gpu is None:
        result = _no_gpu(result, claim, readings, rate, context, words, bad, hints)
        named = [u for u in claim.unknown_names if u.get("kind") == "gpu"]
        if named and result.verdict != "implausible":
            # the text names its hardware, but not one tokcheck knows: what it would need is said,
            # whether that hardware has it is not
            u = named[0]
            near = " or ".join(u.get("suggestions") or [])
            result.verdict = "unknown"
            result.explanations.insert(0, f"the claim names its GPU, {u['words']!r}, which is not in the built-in "
                                          "catalog" + (f" (did you mean {near}?)" if near else "")
                                          + ": pass --gpu NAME or --bandwidth to judge it; what the figure "
                                          "needs is below")
        return result

    result.reverse = implied_bytes_per_token(rate, gpu, (first.setup or setup).tp) if rate else None
    if result.reverse is not None:
        result.reverse["weights_bytes_at_precision"] = first.weights

    judgements = []
    if first.setup is not None and first.setup is not setup and first.setup.why:
        notes.append(f"layout: {first.setup.why}")
        result.layout = first.setup.to_json()
    for bd in all_bounds:
        j = _judge_one(claim, bd, setup, words, context, rate, head, hints, gpu_memory_utilization)
        judgements.append((bd, j))
        result.readings.append({"precision": bd.reading.label, "why": bd.reading.why, "verdict": j.verdict,
                                "mbu": j.mbu, "single_stream_hard_tok_s": bd.hard, "fits": bd.fits,
                                "weights_bytes": bd.weights, "offload": bd.offload is not None,
                                "gpu_count": (bd.setup or setup).count if gpu is not None else None})
    judged = [(bd, j) for bd, j in judgements if j.verdict != "unknown"]
    if not judged:
        result.verdict = "unknown"
        explanations.extend(judgements[0][1].text)
        return result
    # the reading that fits (or is stated) and is most favourable; fallbacks only when the
    # released weights cannot fit or the engine runs quantized files
    best_bd, best = min(judged, key=lambda x: (_SEVERITY[x[1].verdict],
                                               x[0].reading.fallback and x[0].offload is not None,
                                               x[0].reading.fallback))
    result.verdict = best.verdict
    # (not where the text gives a hint of the width: a footprint, or "quantized" with no type)
    usual = None if claim.footprint or f.get("quantization") or _WIDTH_HINT.search(claim.text or "") \
        else _usual_reading(judged, setup, engine_family(f.get("engine")))
    if usual is not None and usual[0] is not best_bd and best_bd.reading.fallback \
            and _SEVERITY[usual[1].verdict] > _SEVERITY[best.verdict] and best.verdict == "plausible":
        # the precision is not stated: its usual reading is the widest format that fits, and a
        # figure only a narrower one reaches rests on a precision the text leaves open
        result.verdict = "needs_explanation"
        explanations.append(f"{_UNSTATED_WIDEST}{usual[0].reading.label}, the widest format that fits, it is "
                            f"{usual[1].verdict.replace('_', ' ')}; only narrower weights ({best_bd.reading.label}) "
                            "reach it, which the text does not state")
    result.precision_used = best_bd.reading.precision if best_bd.reading.precision != "released" or \
        best_bd.reading.model is spec_model else best_bd.reading.label
    if best_bd is not first:
        result.bound = _bound_json(best_bd.bound)
    result.bound["precision_reading"] = best_bd.reading.label
    result.bound.update({k: v for k, v in best.bounds.items() if k in ("aggregate", "per_request_at_concurrency",
                                                                          "max_aggregate")})
    if best_bd.offload is not None:
        result.offload = best_bd.offload
        result.bound["offload"] = best_bd.offload
        # the judged single-stream bound is the offloaded one; the GPU-only figure stays beside it
        result.bound["gpu_only_hard_tok_s"] = result.bound.get("hard_tok_s")
        result.bound["gpu_only_realistic_tok_s"] = result.bound.get("realistic_tok_s")
        result.bound["hard_tok_s"] = best_bd.offload["hard_tok_s"]
        result.bound["realistic_tok_s"] = best_bd.offload["realistic_tok_s"]
        result.bound["notes"].append("hard and realistic bounds include the host-memory reads of the offloaded "
                                     "weights; gpu_only_* leave them out")
    if best.mbu is not None:
        result.mbu = {"value": best.mbu, "basis": best.basis, "band": band_for(best.mbu),
                      "evidence_threshold": EVIDENCE_MBU,
                      "references": [{"upto": e, "what": t} for e, t in MBU_BANDS]}
    notes.append(f"precision: {best_bd.reading.why}")
    explanations.extend(best.text)
    others = [(bd, j) for bd, j in judged if bd is not best_bd and (not bd.reading.fallback or best_bd.reading.fallback)]
    for bd, j in others[:2]:
        mb = f" ({j.mbu:.0%} of its bound)" if j.mbu is not None else ""
        explanations.append(f"at {bd.reading.label}: {j.verdict.replace('_', ' ')}{mb}")
    bad.extend(_e2e_beside(claim, best_bd))
    _apply_bad(result, bad)
    _memory_explanations(result, best_bd, best_bd.setup or setup)
    return result


def _e2e_beside(claim: Claim, bd: _Bounds) -> list[dict]:
    """An end-to-end latency stated beside a tok/s headline, with the output length: N tokens in
    L seconds is at least N / L tok/s for one request. Beyond the single-stream hard bound times
    the most accepted tokens per step any speculative decoding reaches
    (:data:`MAX_PLAUSIBLE_ACCEPTED_LENGTH`), nothing accounts for it ("1K tokens in 1.1 s" for a
    32B FP16 model on one A100: 909 tok/s against a 31 tok/s bound)."""
    out_toks = claim.fields.get("output_tokens")
    if not out_toks or not bd.hard or claim.fields.get("metric") == "e2e_latency":
        return []
    found = []
    for fig in claim.figures:
        if fig.headline or fig.metric != "e2e_latency" or fig.unit not in ("ms", "s"):
            continue
        secs = fig.high / 1000 if fig.unit == "ms" else fig.high
        rate = out_toks / secs if secs > 0 else 0
        if rate > bd.hard * MAX_PLAUSIBLE_ACCEPTED_LENGTH:
            found.append({"check": "e2e_latency_vs_bound", "ok": False, "severity": "implausible",
                          "text": f"{fmt(out_toks)} output tokens in {fig.words} is {fmt(rate)} tok/s for one request, "
                                  f"{rate / bd.hard:.0f}× the single-stream hard bound ({sig3(bd.hard)} tok/s at "
                                  f"{bd.reading.label}), beyond what speculative decoding reaches"})
    return found


# an offline run over a whole dataset: its throughput is the batch's total, with or without a draft
_OFFLINE_BATCH = re.compile(r"离线推理|离线批量|批量推理|offline\s+(?:batch(?:ed)?\s+)?(?:inference|generation|run|benchmark)|"
                            r"\bLLM\.generate\b|batch(?:ed)?\s+inference", re.I)


def _stated_scope(head) -> str | None:
    """The headline's scope when its words state one; a scope the reader inferred, or took from
    the metric alone ("generation speed" says nothing about how many requests ran), is not."""
    if head is None or not head.scope:
        return None
    why = str(head.why.get("scope", ""))
    if why.startswith(("inferred", "from the metric")):
        return None
    return head.scope


def _output_only(claim: Claim, head) -> bool:
    """Whether an aggregate figure's words say it counts output tokens only."""
    words = " ".join(str(x) for x in (head.words if head else "", head.why.get("metric", "") if head else "",
                                      claim.sources.get("metric", "")))
    return bool(_OUTPUT_WORDS.search(words))


def _judge_one(claim: Claim, bd: _Bounds, setup: Setup, words: Words, context: int, rate, head, hints,
               gmu: float) -> _Judgement:
    f = claim.fields
    setup = bd.setup or setup
    unit, metric = f.get("unit"), f.get("metric")
    value = f.get("value")
    scope = _stated_scope(head)
    spec = f.get("speculative_decoding")
    if head is not None and head.spec_decoding is not None:
        spec = head.spec_decoding
    concurrency = f.get("concurrency")
    # speculative decoding speeds up one stream (a latency technique run at low batch): a
    # "throughput" quoted for it, with no concurrency, is one stream's speed
    spec_stream = spec is True and not concurrency and metric == "aggregate_throughput" \
        and not _OFFLINE_BATCH.search(claim.text or "") and (
        scope is None or re.fullmatch(r"\s*(?:throughput|吞吐量?)?\s*", str(head.why.get("scope", "")) if head else "",
                                      re.I) is not None)
    if spec_stream:
        scope = None
    elif metric == "aggregate_throughput" and scope is None:
        scope = "aggregate"
    if metric in ("generation_tok_s", "tpot") and scope is None and concurrency == 1:
        scope = "request"
    if unit in ("ms", "s") and metric in (None, "ttft", "e2e_latency"):
        no_fit = _does_not_fit(bd, setup)  # a latency is no easier for weights that cannot be held
        if no_fit is not None:
            return no_fit
    if metric == "ttft" or (unit in ("ms", "s") and metric in (None, "ttft")):
        v = max(value) if isinstance(value, (list, tuple)) else value
        secs = v / 1000 if unit == "ms" else v
        return _judge_ttft(secs, bd, setup, f.get("input_tokens"))
    if metric == "e2e_latency" and unit in ("ms", "s"):
        out_toks = f.get("output_tokens")
        v = max(value) if isinstance(value, (list, tuple)) else value
        secs = v / 1000 if unit == "ms" else v
        if out_toks and secs > 0:
            r = out_toks / secs
            j = _judge_decode(r, bd, setup, claim, words, context, "request", 1, spec, gmu)
            j.text.insert(0, f"{out_toks} tokens in {fmt(v)} {unit} needs at least {fmt(r)} tok/s of decode")
            return j
        if bd.hard and secs > 0:
            # no output length: the latency says no speed, only that one step fits in it
            most = secs * bd.hard
            if most >= 1:
                return _Judgement("plausible", [f"an end-to-end latency without its output length says no speed: at the "
                                                 f"hard bound ({sig3(bd.hard)} tok/s) {fmt(v)} {unit} holds up to "
                                                 f"{fmt(math.floor(most))} output tokens, so nothing in it is too fast"])
            return _Judgement("implausible", [f"{fmt(v)} {unit} is shorter than one decode step at the hard bound "
                                              f"({fmt(1000 / bd.hard)} ms)"])
        return _Judgement("unknown", ["an end-to-end latency without the output length does not say a speed"])
    if metric == "prefill_tok_s":
        return _judge_prefill(rate, bd, setup)
    if rate is None:
        return _Judgement("unknown", ["no speed figure tokcheck can bound"])
    bench = bool(_BENCH_SERVING.search(claim.text or ""))
    if hints.get("implied_concurrency") and scope in (None, "aggregate") and (
            metric in (None, "aggregate_throughput") or bench):
        j = _judge_decode(rate, bd, setup, claim, words, context, "aggregate", None, spec, gmu,
                          _output_only(claim, head))
        j.text.insert(0, f"the stated time per token makes it an aggregate over about {hints['implied_concurrency']} "
                         "streams")
        return j
    return _judge_decode(rate, bd, setup, claim, words, context, scope, concurrency, spec, gmu,
                         _output_only(claim, head))


_SIZE_AFTER = re.compile(r"\s*(?:on|for|with|using|of)\s+(?:a|an|the)?\s*(?:dense\s+)?(\d{1,4}(?:\.\d+)?)\s?[bB]\b")


def _size_of_figure(fig, sizes: list[tuple[int, float]], text: str) -> float:
    """The size a figure speaks of: one right after it ("108 tok/s on a 7B"), else the nearest
    named before it ("a 70B model … does 20 tok/s"), else the nearest."""
    if len(sizes) == 1 or not fig.span:
        return sizes[0][1]
    after = _SIZE_AFTER.match(text, fig.span[1])
    if after:
        return float(after.group(1))
    before = [s for s in sizes if s[0] < fig.span[0]]
    if before:
        return before[-1][1]
    return min(sizes, key=lambda s: abs(s[0] - fig.span[0]))[1]


def _weights_of_size(billions: float, claim: Claim) -> WeightsOnly | None:
    """A model known only by its size: ``billions`` × 10⁹ parameters at the stated precision, or
    at 16 bits (2 bytes per parameter) when none is stated, as the weight bytes read per token."""
    from tokcheck.core.precision import canonical_precision, precision_info

    stated = claim.fields.get("precision")
    try:
        name = canonical_precision(stated) if stated and stated != "full" else "BF16"
        bpp = precision_info(name).bytes_per_param
    except TokcheckError:
        name, bpp = "BF16", 2.0
    if not billions or billions <= 0:
        return None
    return WeightsOnly(weights_bytes=billions * 1e9 * bpp, name=f"{fmt(billions)}B parameters × {bpp:g} bytes ({name})")


def _by_family(claim: Claim, family: str, result: ClaimAnalysis, options: dict) -> ClaimAnalysis | None:
    """A family named without a size ("plain Qwen3 reached 200 TPS on one H20"): the claim judged
    at each size the catalog holds. Where every size gives the same verdict, that is the claim's
    ("gpt-oss at 2,107 tok/s per GPU" fits both gpt-oss-20b and -120b); where they differ, the
    size decides and the verdict is unknown; so it is where no device is named. None when the
    catalog holds no size of it."""
    from tokcheck.core.claim import family_members

    members = family_members(family)
    if not members:
        return None
    each = []
    for name in members:
        a = analyze_claim(claim, model=find_model(name), **options)
        each.append({"model": name, "verdict": a.verdict, "why": a.explanations[0] if a.explanations else ""})
    verdicts = {e["verdict"] for e in each}
    result.family = each
    lines = [f"{e['model']}: {e['verdict']}" + (f" — {e['why']}" if e["why"] else "") for e in each]
    if result.gpu is None and options.get("bandwidth_bytes_per_s") is None:
        # no size and no device: some setup reaches nearly any figure at some size, which says nothing
        result.explanations[:] = [f"no one verdict: {family!r} names a family, not one model, and no device is "
                                  "named; give the size (--model) and the GPU (--gpu) to judge it:"] + lines
    elif len(verdicts) == 1 and verdicts != {"unknown"}:
        result.verdict = each[0]["verdict"]
        result.explanations[:] = [f"{family!r} names a family, not one model; every size the catalog holds gives "
                                  f"{result.verdict}:"] + lines
    else:
        result.explanations[:] = [f"no one verdict: {family!r} names a family, not one model, and its sizes disagree; "
                                  "give the size (--model) to judge it:"] + lines
    return result


def _by_size(claim: Claim, unknown_model: str | None, options: dict) -> ClaimAnalysis | None:
    """No catalog model, but the text names a size ("a 70B model", "7b", "'Qwen3.5 9B'"): each
    figure is judged with the catalog's dense model nearest its size (the size named nearest the
    figure; an unknown model's own size first), and the claim takes its worst figure's verdict —
    a claim is as credible as its least credible statement. None when no size or stand-in is found
    (or the text speaks of a mixture of experts)."""
    from tokcheck.core.readings import dense_stand_in, model_family, moe_stand_in, size_mentions, stated_total_active

    act = re.search(r"(?<![\w.])(\d+(?:\.\d+)?)B[\-_\s]A(\d+(?:\.\d+)?)B(?![\w.])", unknown_model or "", re.I)
    sizes_b = (act.group(1), act.group(2)) if act else stated_total_active(claim.text or "")
    if sizes_b and claim.headline is not None:
        # "Nemotron-3-Super-120B-A12B": a mixture of experts whose name gives its active size
        w = _weights_of_size(float(sizes_b[1]), claim)
        if w is not None:
            a = analyze_claim(claim, model=w, **options)
            what = f"{unknown_model!r} is not in the built-in catalog" if unknown_model else "no model the catalog knows is named"
            a.notes.insert(0, f"model: {what}: a mixture of experts with "
                              f"{sizes_b[1]}B of {sizes_b[0]}B parameters active; judged by its active weights "
                              f"alone, {w.name} = {fmt_bytes(w.weights_bytes)} read per token (no KV cache, no fit check)")
            return a
    named = size_mentions(unknown_model or "")
    sizes = size_mentions(claim.text or "") or ([(0, named[0][1])] if named else [])
    if not sizes or claim.headline is None:
        return None
    judged = []
    text = claim.text or ""
    named_gpus = claim.gpus_named
    for fig in claim.figures:
        before = [g for g in named_gpus if g[1] < fig.span[0]]
        if not fig.headline and before and claim.fields.get("gpu") and before[-1][0] != claim.fields["gpu"]:
            continue  # "… the RTX 5090 ~140–190 tok/s on 8B": a figure of another device is not judged on this one
        if not fig.headline and fig.why.get("quoted"):
            continue  # "far below the 50-60 tokens per second advertised": quoted from elsewhere, of no size here
        size = _size_of_figure(fig, sizes, text)
        stand = dense_stand_in(size, unknown_model) or moe_stand_in(size) or _weights_of_size(size, claim)
        if stand is None:
            continue
        figs = [replace(x, headline=x is fig) for x in claim.figures]
        fields = {**claim.fields, "value": list(fig.value) if isinstance(fig.value, tuple) else fig.value,
                  "unit": fig.unit}
        for key, val in (("metric", fig.metric), ("concurrency", fig.concurrency),
                         ("speculative_decoding", fig.spec_decoding)):
            if val is not None:
                fields[key] = val
            elif not fig.headline and not (key == "concurrency" and claim.headline.concurrency is None) \
                    and key != "speculative_decoding":
                # (a concurrency the whole text states — "Runs used batch sizes 1-32" — is every figure's,
                # and so is speculative decoding the text states with no figure said to go without it)
                fields.pop(key, None)
        named_at = [p for p, b in sizes if p < fig.span[0] and b == size]
        if not fig.headline and named_at and not any(named_at[-1] < g.span[0] < fig.span[0] for g in claim.figures):
            # "a 13B model … 50-70 tok/s and a 70B dense model at Q4 … 20-30 tok/s": a precision
            # written between the figure's own model size and the figure is that figure's
            own = precision_words(normalise(text)[named_at[-1]:fig.span[0]])
            if own.get("precision") and own["precision"][0] != fields.get("precision"):
                fields["precision"] = own["precision"][0]
                fields.pop("quantization", None)
                if own.get("quantization"):
                    fields["quantization"] = own["quantization"][0]
        sub = replace(claim, fields=fields, figures=figs)
        a = analyze_claim(sub, model=stand, **options)
        judged.append((fig, size, stand, a))
    if not judged:
        return None
    head = next((j for j in judged if j[0].headline), judged[0])
    # a stand-in's parameters are only near the stated size: its compute roofs (prefill, TTFT)
    # are too loose to overrule the headline; its bandwidth bounds (bytes per token) are not
    decode = [j for j in judged if j is head or j[0].metric not in ("prefill_tok_s", "ttft")]
    worst = max(decode, key=lambda j: _SEVERITY.get(j[3].verdict, -1))
    result = head[3]
    result.claim = claim
    what = f"{unknown_model!r} is not in the built-in catalog" if unknown_model else "no model is named"
    kin = model_family(unknown_model or "")
    word = re.search(r"[A-Za-z]+", head[2].name)
    which = f"dense {word.group(0)} model" if kin and word and model_family(head[2].name) == kin else "dense model"
    if isinstance(head[2], ModelSpec) and head[2].is_moe:
        which = "mixture-of-experts model within 2 % of that size; no dense one is"
    if isinstance(head[2], WeightsOnly):
        result.notes.insert(0, f"model: {what}, and no catalog model is within {STAND_IN_TOLERANCE:.0%} of "
                               f"{fmt(head[1])}B: judged by its weights alone, {head[2].name} = "
                               f"{fmt_bytes(head[2].weights_bytes)} read per token (no KV cache, no fit check)")
    else:
        result.notes.insert(0, f"model: {what}; the {fmt(head[1])}B model is judged as {head[2].name} (the catalog's "
                               f"{which} nearest that size)")
    result.stand_in = [{"figure": fmt(j[0].high), "unit": j[0].unit, "size_b": j[1], "model": j[2].name,
                        "verdict": j[3].verdict} for j in judged]
    if worst is not head and _SEVERITY.get(worst[3].verdict, -1) > _SEVERITY.get(result.verdict, -1) \
            and not (worst[3].verdict == "needs_explanation"
                     and any(e.startswith(_UNSTATED_WIDEST) for e in worst[3].explanations)):
        # (a figure beside the headline that only an unstated narrower precision reaches is said, not judged)
        fig, size, stand, a = worst
        result.verdict = a.verdict
        first = a.explanations[0] if a.explanations else ""
        result.explanations.append(f"the {fmt(fig.high)} {fig.unit} figure (the {fmt(size)}B model, as {stand.name}): "
                                   f"{a.verdict.replace('_', ' ')} — {first}")
    return result


_NEEDS_A_GPU = "the bound needs a GPU: pass --gpu NAME or --bandwidth 3.35TB/s"


def _no_gpu(result: ClaimAnalysis, claim: Claim, readings: list[Reading], rate, context: int, words: Words,
            bad: list[dict], hints: dict) -> ClaimAnalysis:
    """No GPU stated: an offload claim with its host memory is bounded by the host (the GPU's own
    time counted as zero); otherwise ``requirements`` say what it would take."""
    f = claim.fields
    ex = result.explanations
    metric = f.get("metric")
    latency_rate = _latency_as_rate(claim) if metric == "e2e_latency" else None
    if metric == "e2e_latency" and latency_rate is None and not f.get("output_tokens") and readings:
        # "推理时间 3 秒多" with no output length and no GPU: the latency says no speed, so it is
        # too fast only if one decode step on the fastest common setup does not fit in it
        j = _latency_without_length_no_gpu(claim, readings, context)
        if j is not None:
            result.verdict = j.verdict
            ex.extend(j.text)
            return _finish_bad(result, bad)
    if (rate is None or metric in ("ttft", "prefill_tok_s", "e2e_latency")) and latency_rate is None:
        ex.append(_NEEDS_A_GPU)
        return result
    r0 = readings[0]
    b0 = decode_bound(r0.model, None, r0.precision, context)
    result.bound = _bound_json(b0)
    mem = f.get("gpu_memory_gb")
    if mem and not words.offload and find_host_memory(claim.text, None).capacity_bytes is None \
            and not isinstance(r0.model, WeightsOnly):
        # "a new 48 GB datacenter GPU … 70B at BF16": the GPU is not named, but its memory is
        have = float(mem) * GIB * int(f.get("gpu_count") or 1)  # GPU memory is stated in GiB, as elsewhere
        need = weights_bytes(r0.model, r0.precision)
        if not f.get("precision") and not f.get("quantization"):
            # unstated precision is judged at what fits (a 32B model on a 24 GB card is a 4-bit claim)
            need = min(need, weights_bytes(r0.model, "INT4"))
        if need > have * MEMORY_SHORT_MARGIN:
            ex.append(f"the weights at {r0.label} ({_gb(need)}) do not fit the {_gb(have)} of GPU memory stated, and "
                      "nothing in the claim offloads them to host memory")
            result.verdict = "implausible"
            return _finish_bad(result, bad)
    if latency_rate is not None:
        # "512 new tokens … took over two minutes": the request's time gives the decode speed it
        # needed at least (more where its prompt took some of that time), so a common setup
        # reaching twice that speed makes the latency plausible
        need, out, secs = latency_rate
        # (twice the speed, so that the prompt may have taken up to half of the time; looked for
        # among all the setups, not only the smallest few that reach the speed itself)
        every = requirements_for(r0.model, list(readings), need, context, per_stream=True, limit=1000)
        req = _smallest_setups(every)
        small = [x for p in every["by_precision"] for x in p["setups"] if x["count"] <= 8 and x["hard_tok_s"] >= 2 * need]
        small.sort(key=lambda x: (x["count"], x["hard_tok_s"]))
        if not small:
            ex.append(_NEEDS_A_GPU)
            return result
        result.requirements = req
        ex.append(f"no GPU stated: {fmt(out)} output tokens in {fmt(secs)} s need at least {sig3(need)} tok/s of decode "
                  f"(more where the prompt took part of the time); {small[0]['count']}× {small[0]['gpu']} reaches "
                  f"{sig3(small[0]['hard_tok_s'])} tok/s at {r0.label}, twice that or more, so a common setup serves it")
        result.verdict = "plausible"
        return _finish_bad(result, bad)
    if (words.offload and (words.all_experts_on_cpu or claim.footprint.get("n_cpu_moe"))):
        host = find_host_memory(claim.text, None)
        off = offload_bound(r0.model, None, host, r0.precision, context, n_cpu_moe=claim.footprint.get("n_cpu_moe"),
                            all_experts_on_cpu=words.all_experts_on_cpu, gpu_memory_bytes=0.0)
        result.offload = off
        h = off["hard_tok_s"]
        u = rate / h if h else None
        ex.append(f"the GPU is not named, so its own reads count as free: {off['placement']}, "
                  f"{_gb(off['host_bytes_per_token'])} per token from {host.name} ({host.why}) bound one stream at "
                  f"{sig3(h)} tok/s at {r0.label}")
        if u is not None:
            ex.append(f"{fmt(rate)} tok/s is {u:.0%} of that — {band_for(u)}")
            result.mbu = {"value": u, "basis": "offload_host_only", "band": band_for(u), "evidence_threshold": EVIDENCE_MBU,
                          "references": [{"upto": e, "what": t} for e, t in MBU_BANDS]}
            result.verdict = "plausible" if u <= EVIDENCE_MBU else "needs_explanation"
        return _finish_bad(result, bad)
    scope = claim.headline.scope if claim.headline and not str(claim.headline.why.get("scope", "")).startswith("inferred") else None
    aggregate = metric == "aggregate_throughput" or scope in ("aggregate", "gpu", "node")
    req_readings = list(readings)
    result.requirements = requirements_for(r0.model, req_readings, rate if not aggregate else 0.0, context,
                                           per_stream=not aggregate)
    req = result.requirements
    ex.append("no GPU stated: " + _requirements_text(req, rate, aggregate))
    if aggregate:
        per_stream = requirements_for(r0.model, req_readings, rate, context, per_stream=True)
        if any(s["count"] <= 8 for p in per_stream["by_precision"] for s in p["setups"]):
            result.verdict = "plausible"
            ex.append("a common setup reaches it even as one stream's speed, so it holds whatever the concurrency")
        else:
            result.verdict = "needs_explanation"
            ex.append("no catalog setup of up to 8 GPUs reaches it as one stream, so it rests on a concurrency and "
                      "hardware the claim does not state")
        return _finish_bad(result, bad)
    small = [s for p in req["by_precision"] for s in p["setups"] if s["count"] <= 8]
    if small:
        result.verdict = "plausible"
    else:
        single = words.single or f.get("concurrency") == 1
        if not single and scope is None:
            ex.append("no single catalog setup of up to 8 GPUs reaches it per stream: it may be an aggregate over "
                      "concurrent requests, speculative decoding, or a larger system")
        result.verdict = "needs_explanation"
    return _finish_bad(result, bad)


_UNSTATED_WIDEST = "precision not stated: at "
# words that hint at the weights' width without naming a format: "the same model and quantization",
# "量化", "(using 73.8 GB of unified memory)", "显存占用 20GB"
_WIDTH_HINT = re.compile(r"\bquanti[sz]\w*|量化|(?:using|uses|used|占用|使用)\s*(?:~|about\s+|约)?\d+(?:\.\d+)?\s*G(?:B|iB)?\b|"
                         r"\d+(?:\.\d+)?\s*G(?:B|iB)?\s*(?:of\s+)?(?:unified\s+|v)?(?:ram|memory|显存|内存)\s*(?:used|in\s+use|占用)", re.I)


def _usual_reading(judged: list, setup: Setup, engine: str | None):
    """Of the judged precision readings (released first, then the narrower fallbacks), the one an
    unstated precision usually means: the widest that fits the GPUs' memory, GPU-resident. None
    where an engine runs quantized files (its usual 4-bit file is among the fallbacks by design)
    or nothing fits."""
    cap = setup.capacity if setup is not None else None
    if cap is None or engine in QUANTIZED_FILE_ENGINES:
        return None
    for bd, j in judged:
        if bd.offload is None and weights_bytes(bd.reading.model, bd.reading.precision) <= cap * WEIGHTS_FIT_FRACTION:
            return bd, j
    return None


def _apply_bad(result: ClaimAnalysis, bad: list[dict]) -> None:
    """Failed consistency checks: an impossible footprint or contradiction makes the claim
    implausible; a softer one (a time per token that disagrees with a generation speed) at least
    needs explaining; a slip that does not bear on the speed (severity ``note``: a stated weight
    size too small for the stated format) is only said."""
    for c in bad:
        sev = c.get("severity", "implausible")
        result.explanations.append("inconsistent: " + c["text"])
        if sev == "note":  # a slip in the text that does not bear on the speed: said, not judged
            continue
        if _SEVERITY.get(sev, 2) > _SEVERITY.get(result.verdict, -1) or result.verdict == "unknown":
            result.verdict = sev


def _other_concurrency(text: str, head, t) -> bool:
    """Whether figure ``t`` stands in another sentence than ``head`` and that sentence states a
    concurrency other than the headline's."""
    if re.search(SENTENCE_END + "|[。；！？]", text[min(head.span[1], t.span[0]):max(head.span[0], t.span[1])]) is None:
        return False
    start = max([m.end() for m in re.finditer(SENTENCE_END + "|[。；！？]", text[:t.span[0]])], default=0)
    return any(start <= s < t.span[0] and n != head.concurrency for n, s, _ in concurrency_mentions(text, [t.span]))


def _smallest_setups(req: dict, limit: int = 6) -> dict:
    """``requirements_for``'s answer cut to the ``limit`` smallest setups per precision, as a call
    with that ``limit`` returns it (for the report, where the judgement looked at all of them)."""
    by = [{**p, "setups": p["setups"][:limit]} for p in req["by_precision"]]
    return {**req, "by_precision": by, "setups": by[0]["setups"] if by else []}


def _latency_seconds(claim: Claim) -> tuple[float, float] | None:
    """The headline latency in seconds (the slow end of a range) and as written: ``(seconds,
    value)``, or None where the headline is no positive time in s or ms."""
    value, unit = claim.fields.get("value"), claim.fields.get("unit")
    if value is None or unit not in ("s", "ms"):
        return None
    v = max(value) if isinstance(value, (list, tuple)) else value
    secs = v / (1000.0 if unit == "ms" else 1.0)
    return (float(secs), v) if secs and secs > 0 else None


def _latency_as_rate(claim: Claim) -> tuple[float, float, float] | None:
    """A request's stated output length over its stated latency, the decode speed it needed at
    least: ``(tok/s, output tokens, seconds)``, or None where either is missing."""
    out = claim.fields.get("output_tokens")
    lat = _latency_seconds(claim)
    if out is None or lat is None:
        return None
    out = max(out) if isinstance(out, (list, tuple)) else out
    if not out:
        return None
    return float(out) / lat[0], float(out), lat[0]


def _latency_without_length_no_gpu(claim: Claim, readings: list[Reading], context: int) -> _Judgement | None:
    """An end-to-end latency with neither its output length nor a GPU stated: plausible where one
    decode step fits in it on some common setup (``requirements_for`` at one token in that time),
    as the same latency is judged against a named GPU; None where the value is not a latency."""
    lat = _latency_seconds(claim)
    if lat is None:
        return None
    (secs, v), unit = lat, claim.fields["unit"]
    req = requirements_for(readings[0].model, list(readings), 1.0 / secs, context, per_stream=True, limit=1000)
    setups = [s for p in req["by_precision"] for s in p["setups"]]
    if not setups:
        held = requirements_for(readings[0].model, list(readings), 0.0, context, per_stream=True, limit=1000)
        if not any(p["setups"] for p in held["by_precision"]):
            return None  # no catalog setup of up to 8 GPUs holds the weights: nothing to judge against
        return _Judgement("implausible", [
            f"{fmt(v)} {unit} is shorter than one decode step on any catalog setup of up to 8 GPUs that holds "
            f"the weights at {readings[0].label}"])
    s = max(setups, key=lambda x: x["hard_tok_s"])  # the fastest, which fits the most tokens
    return _Judgement("plausible", [
        f"an end-to-end latency without its output length says no speed, and no GPU is named: "
        f"{s['count']}× {s['gpu']} ({sig3(s['hard_tok_s'])} tok/s hard at {readings[0].label}) fits "
        f"{fmt(math.floor(secs * s['hard_tok_s']))} output tokens in {fmt(v)} {unit}, so nothing in it is too fast"])


def _finish_bad(result: ClaimAnalysis, bad: list[dict]) -> ClaimAnalysis:
    _apply_bad(result, bad)
    return result


def _requirements_text(req: dict, rate: float, aggregate: bool) -> str:
    parts = []
    for p in req["by_precision"][:2]:
        s = p["setups"][:3]
        setups = ", ".join(f"{x['count']}× {x['gpu']} ({sig3(x['hard_tok_s'])} tok/s hard)" for x in s) or "none in the catalog"
        need = "" if aggregate or p["min_bandwidth_bytes_per_s"] is None else \
            (f"{fmt(rate)} tok/s per stream needs ≥ {p['min_bandwidth_bytes_per_s'] / 1e12:,.2f} TB/s of memory bandwidth "
             f"(≥ {p['bandwidth_for_plausible_bytes_per_s'] / 1e12:,.2f} TB/s to stay within 90 % of peak) and ")
        parts.append(f"at {p['precision']}: {need}{_gb(p['min_memory_bytes'])} of memory; smallest setups: {setups}")
    return "; ".join(parts)


def _memory_explanations(result: ClaimAnalysis, bd: _Bounds, setup: Setup) -> None:
    if bd.offload is not None or bd.fits is not False or setup.gpu is None:
        return
    if any("do not fit" in e for e in result.explanations):
        return
    where = f"{setup.count}× {setup.gpu.name}" if setup.count > 1 else f"one {setup.gpu.name}"
    if setup.from_disk:
        result.explanations.append(f"the weights ({_gb(bd.weights)}) do not fit in {where} ({_gb(setup.capacity)}); "
                                   "the claim streams the rest from storage, which can only make it slower than this bound")
        return
    result.explanations.append(f"the weights ({_gb(bd.weights)}) do not fit in {where} "
                               f"({_gb(setup.capacity)}); with no host memory to offload to, the figure cannot be "
                               "served as stated")


def _full_precision_note(model: ModelSpec, f: dict) -> dict:
    """for this model: when its released weights are not BF16, what 'full precision' implies."""
    released = describe_scheme(scheme_for("released", model.released_weights))
    rel_bytes = weights_bytes(model, "released")
    bf16_bytes = weights_bytes(model, "BF16")
    differs = any(canonical_precision(v) not in ("BF16", "FP16", "FP32") for v in model.released_weights.values())
    asked = f.get("precision") == "full" or f.get("quantization") == "none" or f.get("precision") in ("BF16", "FP16")
    out = {"released_weights": released, "released_bytes": rel_bytes, "bf16_bytes": bf16_bytes,
           "released_differs": differs, "claim_says_full_precision": asked}
    if differs:
        out["meaning"] = (f"{model.name} ships {released} ({_gb(rel_bytes)}); 'not quantized' / 'original weights' means "
                          f"that shipped format, while BF16 would be {_gb(bf16_bytes)} of weights — both are reported.")
    else:
        out["meaning"] = f"{model.name} ships {released}: full precision is its released form ({_gb(bf16_bytes)})."
    return out


__all__ = ["EVIDENCE_MBU", "MBU_BANDS", "MAX_PLAUSIBLE_ACCEPTED_LENGTH", "ClaimAnalysis", "analyze_claim", "band_for",
           "context_for", "fmt", "gpu_facts", "model_facts", "requirements_for"]
