"""judge a claim against the physical bound, explain what would be needed, and reverse it.

:func:`analyze_claim` is the one library call behind ``tokcheck claim``: Claim (+ catalog) →
Bound, MemoryBudget, precision options, verdict and explanations. Pure: no I/O.

Verdicts:
- ``plausible``: at or below the realistic bound (or the aggregate bound for throughput claims).
- ``needs_explanation``: above the realistic bound, but speculative decoding with a reachable mean
  accepted length, aggregate throughput over concurrent requests, tensor parallel over more GPUs,
  or a lower precision than stated would account for it (each named, with the figure it needs).
- ``implausible``: none of those can account for it.
- ``unknown``: not enough facts (no GPU/bandwidth, a model outside the catalog, or a TTFT figure,
  which the decode roofline does not bound).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from tokcheck.core.architecture import ModelSpec, active_params, total_params
from tokcheck.core.catalog import GpuSpec, find_gpu, find_model, gpu_from_bandwidth
from tokcheck.core.claim import Claim
from tokcheck.errors import TokcheckError
from tokcheck.core.precision import canonical_precision, describe_scheme, scheme_for
from tokcheck.core.roofline import (
    DEFAULT_CONTEXT_TOKENS,
    WeightsOnly,
    aggregate_bound,
    decode_bound,
    implied_bytes_per_token,
    max_seqs_by_max_model_len,
    memory_budget,
    precision_options,
    weights_bytes,
)
from tokcheck.core.units import sig3

# Mean accepted tokens per step that published speculative decoding reaches: DeepSeek-V3's MTP
# accepts the 2nd token 85–90 % of the time (≈1.9 tokens/step, DeepSeek-V3 report §5.4.3);
# EAGLE-2/3 report about 3–4.5 on chat benchmarks. Beyond this, spec decoding alone won't do.
MAX_PLAUSIBLE_ACCEPTED_LENGTH = 4.0
DEFAULT_MAX_MODEL_LEN = 8192  # the guide's vLLM example (--max-model-len 8192; docs/guide.md)


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
        }


def model_facts(m: ModelSpec) -> dict:
    """The model's facts for reports: counts computed from its config, the card's, provenance."""
    return {"name": m.name, "architecture": m.model_type, "attention": m.attention, "layers": m.num_layers,
            "experts": m.num_experts or None, "experts_per_token": m.experts_per_token or None,
            "total_params": total_params(m), "active_params": active_params(m),
            "total_params_stated": m.total_params_stated, "active_params_stated": m.active_params_stated,
            "released_weights": describe_scheme(scheme_for("released", m.released_weights)),
            "source": m.source, "checked": m.checked, "estimate": m.estimate}


def gpu_facts(g: GpuSpec) -> dict:
    """The GPU's datasheet facts and provenance for reports."""
    return {"name": g.name, "memory_bytes": g.memory_bytes, "peak_bandwidth_bytes_per_s": g.peak_bandwidth_bytes_per_s,
            "bf16_dense_tflops": g.bf16_dense_tflops, "fp8_dense_tflops": g.fp8_dense_tflops,
            "source": g.source, "checked": g.checked}


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
            "weights_bytes_per_token", "kv_bytes_per_token_read", "tokens_per_step", "hard_tok_s_reason")
    d = b.to_dict()
    out = {k: d[k] for k in keys}
    out["notes"] = list(d["notes"])
    return out


def _memory_json(m) -> dict:
    d = m.to_dict()
    return {k: d[k] for k in ("required_bytes", "available_bytes", "fits", "weights_bytes", "kv_bytes_per_token",
                              "kv_cache_bytes", "overhead_bytes", "max_model_len", "concurrency", "tensor_parallel",
                              "gpu_memory_utilization", "max_concurrent_seqs", "min_tensor_parallel", "precision",
                              "reason")}


def _gb(x: float) -> str:
    return f"{x / 1e9:,.1f} GB"


def _pick_precision(fields: dict, model: ModelSpec | None) -> tuple[str, str]:
    """The precision to bound at, and why (the guide: full precision → BF16; unstated → as released)."""
    stated = fields.get("precision")
    quant = fields.get("quantization")
    if stated == "full" or (stated is None and quant == "none"):
        return "BF16", "'full precision' / 'no quantization' means BF16/FP16 weights"
    if stated:
        p = canonical_precision(stated)
        if model is not None and p in {canonical_precision(v) for v in model.released_weights.values()} \
                and p != "BF16":
            return "released", f"{p} as the model ships it ({describe_scheme(scheme_for('released', model.released_weights))})"
        return p, f"{p} as stated"
    if quant and quant not in ("none", "yes"):
        try:
            return canonical_precision(quant), f"{quant} as stated"
        except TokcheckError:
            pass
    if model is None:
        return "BF16", "precision not stated: BF16 assumed"
    return "released", "precision not stated: the model's released weights assumed"


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

    # --- the model
    unknown_model = None
    if model is None and f.get("model"):
        try:
            model = find_model(f["model"])
        except TokcheckError:
            unknown_model = f["model"]
            # parse_claim already noted it; the explanation below says it once, with what to do
            notes[:] = [n for n in notes if not n.startswith(f"model {unknown_model!r} is not in the")]
    # --- the GPU
    if gpu is None and f.get("gpu"):
        gpu = find_gpu(f["gpu"])
    if bandwidth_bytes_per_s is not None:
        gpu = gpu_from_bandwidth(bandwidth_bytes_per_s, gpu.memory_bytes if gpu else None) if gpu is None else \
            GpuSpec(**{**asdict(gpu), "name": f"{gpu.name} at {bandwidth_bytes_per_s / 1e12:g} TB/s",
                       "peak_bandwidth_bytes_per_s": float(bandwidth_bytes_per_s), "source": "bandwidth given on the command line"})

    spec = model if isinstance(model, ModelSpec) else None
    precision, why_precision = _pick_precision(f, spec)
    if isinstance(model, WeightsOnly) and precision == "released":
        precision = "BF16"
    notes.append(f"precision: {why_precision}")
    context, why_context = context_for(f)
    notes.append(f"context: {context} tokens ({why_context})")
    tp = int(f.get("gpu_count") or 1)
    concurrency = int(f.get("concurrency") or 1)
    max_model_len = int(f.get("max_model_len") or ((f.get("input_tokens") or 0) + (f.get("output_tokens") or 0))
                        or DEFAULT_MAX_MODEL_LEN)

    result = ClaimAnalysis(claim=claim, model=spec, gpu=gpu, precision_used=precision, bound=None, memory=None,
                           verdict="unknown", explanations=explanations, notes=notes)
    if model is None:
        if unknown_model:
            explanations.append(f"no model to bound: {unknown_model!r} is not in the built-in catalog; pass "
                                "--model-config config.json or --weights SIZE (e.g. 120GB) to bound it")
        else:
            explanations.append("no model to bound: name one the catalog knows, or pass --model-config / --weights")
        return result

    bound = decode_bound(model, gpu, precision, context, tp, acceptance_rate=acceptance_rate, draft_tokens=draft_tokens)
    mem = memory_budget(model, gpu, precision, max_model_len, concurrency, gpu_memory_utilization, tp)
    result.bound, result.memory = _bound_json(bound), _memory_json(mem)
    if mem.fits is not None and spec is not None:
        result.memory["max_seqs_by_max_model_len"] = max_seqs_by_max_model_len(
            spec, gpu, precision, gpu_memory_utilization, tp)
    if spec is not None:
        result.options = [asdict(o) for o in precision_options(spec, gpu, context, max_model_len, concurrency, tp,
                                                                gpu_memory_utilization)]
        result.full_precision = _full_precision_note(spec, f, gpu, context, tp)
        if result.full_precision and result.full_precision.get("released_differs"):
            rb = decode_bound(spec, gpu, "released", context, tp)
            result.released_bound = _bound_json(rb)

    value, unit, metric = f.get("value"), f.get("unit"), f.get("metric")
    if isinstance(value, (list, tuple)):
        value = max(value)  # a range is judged by its top: the claim is at most that
    if gpu is None:
        explanations.append("the bound needs a GPU: pass --gpu NAME or --bandwidth 3.35TB/s "
                            f"(bytes per token here: {_gb(bound.bytes_per_token)})")
        return result
    if metric == "ttft" or unit in ("ms", "s"):
        explanations.append("TTFT is set by prefill compute and queueing, not by the decode roofline; "
                            "tokcheck bounds decode speed only")
        return result
    result.reverse = implied_bytes_per_token(value, gpu, tp)
    result.reverse["weights_bytes_at_precision"] = mem.weights_bytes

    aggregate_claim = metric == "aggregate_throughput" or (metric is None and concurrency > 1)
    if aggregate_claim:
        if not f.get("concurrency"):
            explanations.append("aggregate throughput depends on concurrency, which the claim does not state")
            result.verdict = "unknown"
            return result
        agg = aggregate_bound(model, gpu, precision, context, concurrency, tp)
        result.bound["aggregate"] = agg
        if value <= agg["realistic_tok_s"]:
            result.verdict = "plausible"
            explanations.append(f"{value:,g} tok/s over {concurrency} concurrent requests is at or below the "
                                f"aggregate bound ({sig3(agg['realistic_tok_s'])} realistic, {sig3(agg['hard_tok_s'])} hard); "
                                f"each request gets about {sig3(value / concurrency)} tok/s")
        elif value <= agg["hard_tok_s"]:
            result.verdict = "needs_explanation"
            explanations.append(f"above the realistic aggregate bound ({sig3(agg['realistic_tok_s'])} tok/s): needs "
                                f"{value / agg['hard_tok_s']:.0%} of peak bandwidth")
        else:
            result.verdict = "implausible"
            explanations.append(f"above the hard aggregate bound ({sig3(agg['hard_tok_s'])} tok/s at concurrency "
                                f"{concurrency})")
        if result.verdict != "plausible" and f.get("input_tokens") is None and f.get("output_tokens") is None:
            short = aggregate_bound(model, gpu, precision, 0, concurrency, tp)
            explanations.append(f"lengths are not stated: with very short contexts (no KV cache read) the aggregate "
                                f"bound rises to {sig3(short['realistic_tok_s'])} tok/s realistic")
            if value <= short["realistic_tok_s"] and result.verdict == "implausible":
                result.verdict = "needs_explanation"
        _memory_explanations(result, mem, gpu, f, tp)
        return result

    c = concurrency

    def realistic_at(p: str, t: int) -> float:
        """Realistic per-request bound at precision p on t GPUs (shared steps when c > 1)."""
        if c > 1:
            return aggregate_bound(model, gpu, p, context, c, t)["realistic_tok_s"] / c
        return decode_bound(model, gpu, p, context, t).realistic_tok_s

    hard, realistic = bound.hard_tok_s, bound.realistic_tok_s
    what = "single-request bound"
    if c > 1:
        # per-request speed while c requests share each step: the aggregate bound divided by c
        agg = aggregate_bound(model, gpu, precision, context, c, tp)
        result.bound["aggregate"] = agg
        hard, realistic = agg["hard_tok_s"] / c, agg["realistic_tok_s"] / c
        result.bound["per_request_at_concurrency"] = {"hard_tok_s": hard, "realistic_tok_s": realistic,
                                                      "concurrency": c}
        what = f"per-request bound at concurrency {c}"
    if value <= realistic:
        result.verdict = "plausible"
        explanations.append(f"{value:,g} tok/s is at or below the realistic {what} "
                            f"({sig3(realistic)} tok/s; hard {sig3(hard)})")
    else:
        needed = value / realistic
        possible: list[str] = []
        if value <= hard:
            possible.append(f"it needs {value / hard:.0%} of peak bandwidth (MBU), above the "
                            f"{gpu.achievable_fraction:.0%} a real decode loop reaches ({gpu.achievable_source})")
        spec_ok = False
        if f.get("speculative_decoding") is not False:
            spec_ok = needed <= MAX_PLAUSIBLE_ACCEPTED_LENGTH
            stated = " (the claim mentions it)" if f.get("speculative_decoding") else ""
            possible.append(f"speculative decoding / MTP{stated} would need a mean accepted length of ≥ {needed:.2f} "
                            f"tokens per step ({'within' if spec_ok else 'beyond'} the ~2–4 that published methods reach)")
        # aggregate over concurrency is ruled out when the claim says one request
        agg_ok = False
        if c > 1:
            agg_ok = value <= result.bound["aggregate"]["realistic_tok_s"]
            if agg_ok:
                possible.append(f"it fits as the aggregate over all {c} requests "
                                f"({sig3(result.bound['aggregate']['realistic_tok_s'])} tok/s realistic), "
                                "not one request's speed")
        elif not (f.get("concurrency") == 1 or _said_single(claim.text)):
            agg_ok = True
            c_needed = _concurrency_needed(model, gpu, precision, context, tp, value)
            possible.append("it may be aggregate throughput over concurrent requests, not one request's speed"
                            + (f" (about {c_needed} concurrent requests would reach it)" if c_needed else ""))
        lower_ok = False
        if spec is not None and precision == "BF16" and result.full_precision and result.full_precision["released_differs"]:
            r = realistic_at("released", tp)
            if r >= value:
                lower_ok = True
                possible.append(f"the released checkpoint ({describe_scheme(scheme_for('released', spec.released_weights))}) "
                                f"has a realistic bound of {sig3(r)} tok/s: the figure fits if the claim ran the released "
                                "weights, which are not full precision in the BF16/FP16 sense")
        if spec is not None and not lower_ok:
            for p in ("FP8", "INT4"):
                if p == precision or not (precision in ("BF16", "FP16", "FP32", "released") or p == "INT4"):
                    continue
                r = realistic_at(p, tp)
                if r >= value:
                    lower_ok = True
                    possible.append(f"at {p} the realistic bound is {sig3(r)} tok/s — a lower precision than "
                                    "stated would account for it")
                    break
        tp_ok = False
        if spec is not None and not f.get("gpu_count") and mem.min_tensor_parallel and mem.min_tensor_parallel > 1:
            r = realistic_at(precision, mem.min_tensor_parallel)
            if r >= value:
                tp_ok = True
                possible.append(f"on {mem.min_tensor_parallel}× {gpu.name} with tensor parallel (the memory budget "
                                f"needs that many anyway) the bound is {sig3(r)} tok/s realistic")
        explanations.append(f"{value:,g} tok/s is above the realistic {what} ({sig3(realistic)} tok/s; "
                            f"hard {sig3(hard)}) at {bound.precision_detail}, {_gb(bound.bytes_per_token)} per token")
        explanations.extend(possible)
        if value <= hard or spec_ok or agg_ok or lower_ok or tp_ok:
            result.verdict = "needs_explanation"
        else:
            result.verdict = "implausible"
            explanations.append("no explanation reaches it: physically impossible per request at the stated "
                                "precision on this hardware")
    _memory_explanations(result, mem, gpu, f, tp)
    return result


def _said_single(text: str) -> bool:
    import re

    return bool(re.search(r"single[\s\-](?:request|stream|user)|one request|batch[\s_\-]?size\s*1|单请求|单并发|单用户|单路|bs\s*=?\s*1\b",
                          text, re.I))


def _concurrency_needed(model, gpu, precision, context, tp, value) -> int | None:
    for c in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        if aggregate_bound(model, gpu, precision, context, c, tp)["realistic_tok_s"] >= value:
            return c
    return None


def _memory_explanations(result: ClaimAnalysis, mem, gpu: GpuSpec, f: dict, tp: int) -> None:
    if mem.fits is not False:
        return
    where = f"{tp}× {gpu.name}" if tp > 1 else f"one {gpu.name}"
    if mem.weights_bytes + mem.overhead_bytes > mem.available_bytes:
        text = (f"the weights alone ({_gb(mem.weights_bytes)}) do not fit in {where} "
                f"({_gb(mem.available_bytes)} at gpu_memory_utilization {mem.gpu_memory_utilization})")
        if f.get("gpu_count"):
            text += ("; with the stated GPU count the engine must offload weights to CPU memory, and then the "
                     "CPU's memory bandwidth, not the GPU's, bounds decode")
            if result.verdict == "plausible":
                result.verdict = "needs_explanation"
        elif mem.min_tensor_parallel:
            text += f"; at least {mem.min_tensor_parallel} GPUs with tensor parallel"
    else:
        seqs = mem.max_concurrent_seqs
        text = (f"KV cache for {mem.concurrency} × {mem.max_model_len} tokens ({_gb(mem.kv_cache_bytes)}) does not fit "
                f"beside the weights on {where}: {seqs} sequence{'s' if seqs != 1 else ''} of max_model_len "
                f"{mem.max_model_len} fit; a paged KV cache (vLLM) reserves only the tokens in use, so shorter "
                "real contexts can still run at this concurrency")
    result.explanations.append(text)


def _full_precision_note(model: ModelSpec, f: dict, gpu: GpuSpec | None, context: int, tp: int) -> dict | None:
    """for this model: when its released weights are not BF16, what 'full precision' implies."""
    released = describe_scheme(scheme_for("released", model.released_weights))
    rel_bytes = weights_bytes(model, "released")
    bf16_bytes = weights_bytes(model, "BF16")
    differs = any(canonical_precision(v) not in ("BF16", "FP16", "FP32") for v in model.released_weights.values())
    asked = f.get("precision") == "full" or f.get("quantization") == "none" or f.get("precision") in ("BF16", "FP16")
    out = {"released_weights": released, "released_bytes": rel_bytes, "bf16_bytes": bf16_bytes,
           "released_differs": differs, "claim_says_full_precision": asked}
    if differs:
        out["meaning"] = (f"{model.name} ships {released} ({_gb(rel_bytes)}); 'full precision' for it means converting "
                          f"to BF16: {_gb(bf16_bytes)} of weights. The released checkpoint itself is not full precision "
                          "in the guide's sense (BF16/FP16), though it is the authors' own format, not a third-party quantization.")
    else:
        out["meaning"] = f"{model.name} ships {released}: full precision is its released form ({_gb(bf16_bytes)})."
    return out
