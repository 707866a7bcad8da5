"""V1, V2: a claim against one's own run — same conditions? same number? if not, why?

Pure: takes the claim's fields (the ``fields`` of :func:`tokcheck.claim.parse_claim`, a dict),
a loaded run directory (:class:`tokcheck.rundir.Run`) and optionally the decode bound
(:func:`tokcheck.roofline.decode_bound`'s fields as a dict) and returns a :class:`Verdict`.

- **Conditions.** Each condition the claim states is put beside the run's record: ``match``,
  ``differ`` or ``unknown`` (either side silent). Conditions that change what the number
  *means* — model, GPU and count, concurrency, input and output lengths — make a claim
  incomparable when they differ (the seed, 4.3: with different context, concurrency or output
  lengths "tok/s 不能直接做减法"). The others (precision, engine and version, max_model_len,
  speculative decoding, prefix cache, CUDA graph) are the seed's explanations of a gap (4.4):
  a difference there is reported and the checks cite it, but the numbers are still compared.
- **Metric.** Claimed and measured are compared on one metric definition only: generation
  tok/s (1/TPOT, TTFT excluded), end-to-end tok/s, aggregate output throughput, or TTFT.
  Reproduced when ``|measured / claimed − 1| ≤ tolerance`` (default 20 %, the seed's 4.4).
- **Checks.** The seed's seven, in its order (5.4): measurement method, GPU busy, quantized
  weights, KV cache / max_model_len, speculative decoding and prefix cache, engine version,
  bandwidth bound — each with a status (``pass`` / ``warn`` / ``fail`` / ``unknown``) and the
  evidence from the record it rests on. Then the seed's symptom guides (5.1–5.3) that the
  evidence triggers.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from tokcheck.rundir import Run

#: The seed (4.4): "如果自己复现的结果和宣称值偏差超过 20%，按优先级检查…"
DEFAULT_TOLERANCE = 0.20

#: Metric names as the claim parser spells them (issue 2's ``fields.metric``).
METRICS = ("generation_tok_s", "e2e_tok_s", "aggregate_throughput", "ttft")

METRIC_LABELS = {
    "generation_tok_s": "generation tok/s (per request, from the first token on; TTFT excluded)",
    "e2e_tok_s": "end-to-end tok/s (per request, output tokens ÷ E2E latency)",
    "aggregate_throughput": "aggregate output throughput (all requests' tokens ÷ window)",
    "ttft": "TTFT (send → first token)",
}

#: Conditions whose difference makes two numbers incomparable (the seed, 4.3).
BLOCKING = ("model", "gpu", "gpu_count", "concurrency", "input_tokens", "output_tokens")

#: Condition order in the table: what the issue lists, model first.
CONDITION_ORDER = ("model", "precision", "quantization", "gpu", "gpu_count", "engine",
                   "engine_version", "concurrency", "input_tokens", "output_tokens",
                   "max_model_len", "metric", "speculative_decoding", "prefix_cache", "cuda_graph")

#: Lengths within this fraction count as the same workload (1000 vs 1024 tokens is one).
LENGTH_MATCH_FRACTION = 0.10

CHECK_NAMES = (
    "measurement method",
    "GPU busy",
    "quantized weights",
    "KV cache / max_model_len",
    "speculative decoding and prefix cache",
    "engine version",
    "bandwidth bound",
)

_OOM_RE = re.compile(r"out of memory|OutOfMemoryError|CUDA error: out of memory|"
                     r"is less than desired (?:CPU|GPU) memory utilization|"
                     r"No available memory for the cache blocks|"
                     r"larger than the maximum number of tokens that can be stored in KV cache",
                     re.IGNORECASE)


# ----------------------------------------------------------------------------- records

@dataclass
class Condition:
    """One condition side by side. ``status``: ``match`` / ``differ`` / ``unknown``."""

    name: str
    claimed: Any
    run: Any
    status: str
    blocking: bool
    source: str | None = None


@dataclass
class Check:
    """One of the seed's seven checks. ``status``: ``pass`` (checked, not the cause),
    ``warn`` (could contribute), ``fail`` (found a cause or a fault), ``unknown`` (the record
    holds no evidence). ``evidence``: readable lines, each citing the record field it rests on."""

    number: int
    name: str
    status: str
    evidence: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)


@dataclass
class Symptom:
    """A symptom guide of the seed (5.1–5.3) triggered by the evidence."""

    symptom: str
    evidence: list[str]
    steps: list[str]


@dataclass
class Verdict:
    """The outcome of :func:`verify`. ``ratio`` = measured ÷ claimed; ``reproduced`` is
    ``None`` when the two are incomparable (``incomparable_reasons`` says why)."""

    metric: str | None
    metric_definition: str | None
    unit: str | None
    claimed: float | None
    measured: float | None
    ratio: float | None
    tolerance: float
    reproduced: bool | None
    summary: str
    level: dict[str, Any] | None
    measured_rounds: list[float] | None
    measured_spread: Any
    conditions: list[Condition]
    incomparable_reasons: list[str]
    checks: list[Check]
    symptoms: list[Symptom]
    run_dir: str
    bound: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form: ``metric``, ``claimed``, ``measured``, ``ratio``,
        ``reproduced``, ``conditions`` (name → match/differ/unknown), ``checks`` (the seven,
        in order, each with ``status`` and ``evidence``) and the details beside them."""
        return {
            "metric": self.metric,
            "metric_definition": self.metric_definition,
            "unit": self.unit,
            "claimed": self.claimed,
            "measured": self.measured,
            "ratio": self.ratio,
            "tolerance": self.tolerance,
            "reproduced": self.reproduced,
            "summary": self.summary,
            "level": self.level,
            "measured_rounds": self.measured_rounds,
            "measured_spread": self.measured_spread,
            "conditions": {c.name: c.status for c in self.conditions},
            "condition_details": [asdict(c) for c in self.conditions],
            "incomparable_reasons": list(self.incomparable_reasons),
            "checks": [asdict(c) for c in self.checks],
            "symptoms": [asdict(s) for s in self.symptoms],
            "bound": self.bound,
            "run_dir": self.run_dir,
        }


# ----------------------------------------------------------------------------- helpers

def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _first(obj: dict | None, *keys: str) -> Any:
    """The first present, non-None value among ``keys`` of ``obj``."""
    if not isinstance(obj, dict):
        return None
    for k in keys:
        if obj.get(k) is not None:
            return obj[k]
    return None


def _find(obj: Any, keys: tuple[str, ...], depth: int = 4) -> Any:
    """Breadth-first search of nested dicts for the first of ``keys`` with a non-None value
    (the telemetry and environment sections are written by other modules)."""
    frontier = [obj]
    for _ in range(depth):
        nxt = []
        for o in frontier:
            if isinstance(o, dict):
                for k in keys:
                    if o.get(k) is not None:
                        return o[k]
                nxt.extend(v for v in o.values() if isinstance(v, (dict, list)))
            elif isinstance(o, list):
                nxt.extend(v for v in o if isinstance(v, (dict, list)))
        frontier = nxt
    return None


def _norm(s: Any) -> str:
    return re.sub(r"[^a-z0-9.]", "", str(s).lower())


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


_PRECISION_ALIASES = {
    "bf16": "bf16", "bfloat16": "bf16", "torch.bfloat16": "bf16",
    "fp16": "fp16", "float16": "fp16", "half": "fp16", "torch.float16": "fp16",
    "fp32": "fp32", "float32": "fp32", "float": "fp32", "torch.float32": "fp32",
    "fp8": "fp8", "float8": "fp8", "float8e4m3fn": "fp8", "e4m3": "fp8", "fp8e4m3": "fp8",
    "int8": "int8", "w8a8": "int8", "w8a16": "int8",
    "int4": "int4", "w4a16": "int4", "awq": "int4", "gptq": "int4", "q4": "int4",
    "mxfp4": "mxfp4", "nvfp4": "nvfp4",
    "full": "full", "fullprecision": "full", "全精度": "full",
}

#: Bytes per parameter (SPEC C3; MXFP4 = 4 bits + one 8-bit scale per 32 values, OCP MX spec).
BYTES_PER_PARAM = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "full": 2.0, "fp8": 1.0, "int8": 1.0,
                   "int4": 0.5, "mxfp4": 4.25 / 8, "nvfp4": 4.5 / 8}


def normalize_precision(value: Any) -> str | None:
    """``"BF16"``, ``"bfloat16"``, ``"torch.bfloat16"`` → ``"bf16"``; "full precision" →
    ``"full"`` (which SPEC C3 defines as BF16/FP16); ``None`` when unknown."""
    if value is None:
        return None
    raw = str(value).strip().lower()
    if raw in _PRECISION_ALIASES:
        return _PRECISION_ALIASES[raw]
    key = re.sub(r"[^a-z0-9.全精度]", "", raw)
    if key in _PRECISION_ALIASES:
        return _PRECISION_ALIASES[key]
    for alias, canon in _PRECISION_ALIASES.items():
        if len(alias) >= 4 and alias in key:
            return canon
    return key or None


def _precision_match(claimed: str, run: str) -> bool:
    if claimed == "full":
        return run in ("bf16", "fp16", "full")
    if run == "full":
        return claimed in ("bf16", "fp16")
    return claimed == run


def _is_off(value: Any) -> bool | None:
    """``True`` when a setting reads as off/none, ``False`` when on, ``None`` when unknown."""
    if value is None:
        return None
    if isinstance(value, bool):
        return not value
    s = str(value).strip().lower()
    if s in ("", "none", "null", "off", "false", "no", "0", "disabled", "auto-none"):
        return True
    return False


# ----------------------------------------------------------------------------- run facts

def _environment_gpus(run: dict) -> list[dict] | None:
    """GPUs in the run's environment report (doctor); ``[]`` when it says there is none,
    ``None`` when the run has no environment report."""
    env = run.get("environment")
    if not isinstance(env, dict):
        return None
    gpus = _find(env, ("gpus", "devices"))
    if isinstance(gpus, list):
        return [g for g in gpus if isinstance(g, dict)]
    nvml = _find(env, ("nvml_available", "gpu_available", "has_gpu"))
    if nvml is False:
        return []
    return None


def run_conditions(run: Run, level: dict | None) -> dict[str, tuple[Any, str]]:
    """The run's value of each condition and the record field it came from."""
    r = run.run
    er = r.get("engine_report") if isinstance(r.get("engine_report"), dict) else {}
    pr = r.get("precision_report") if isinstance(r.get("precision_report"), dict) else {}
    serve = r.get("serve") if isinstance(r.get("serve"), dict) else {}
    out: dict[str, tuple[Any, str]] = {}

    models = [m for m in [_get(r, "endpoint", "model")] + list(_get(r, "server", "models") or [])
              if m]
    if models:
        out["model"] = (models[0] if len(models) == 1 else models, "run.json endpoint.model / server.models")

    dtype = _first(er, "dtype") or serve.get("dtype")
    if dtype is None and pr:
        dtype = _first(pr, "dtype", "dominant_dtype")
    if dtype is not None:
        out["precision"] = (normalize_precision(dtype), "run.json engine_report.dtype / serve.dtype")

    quant = None
    quant_src = None
    if er and ("quantization" in er):
        quant, quant_src = er.get("quantization") or "none", "run.json engine_report.quantization"
    elif pr.get("full_precision") is not None:
        quant = "none" if pr["full_precision"] else (_first(pr, "quantization", "method") or "quantized")
        quant_src = "run.json precision_report.full_precision"
    elif "quantization" in serve:
        quant, quant_src = serve.get("quantization") or "none", "run.json serve.quantization"
    if quant is not None:
        out["quantization"] = (str(quant), quant_src)

    gpus = _environment_gpus(r)
    if gpus is not None:
        if gpus:
            names = sorted({str(_first(g, "name", "model") or "?") for g in gpus})
            out["gpu"] = (", ".join(names), "run.json environment (GPUs)")
            out["gpu_count"] = (len(gpus), "run.json environment (GPUs)")
        else:
            out["gpu"] = ("none (CPU)", "run.json environment: no NVIDIA GPU")
    tp = serve.get("tensor_parallel_size") or _first(er, "tensor_parallel_size")
    if "gpu_count" not in out and tp and gpus:
        out["gpu_count"] = (tp, "run.json serve.tensor_parallel_size")

    engine = _first(er, "engine", "engine_name") or serve.get("engine")
    if engine:
        out["engine"] = (str(engine), "run.json engine_report.engine")
    version = _first(er, "engine_version", "version") or _get(r, "server", "version")
    if version:
        out["engine_version"] = (str(version), "run.json engine_report.version / server.version")

    if level is not None and level.get("concurrency") is not None:
        out["concurrency"] = (level["concurrency"], f"summary.json level {level.get('label')}")
    wl = r.get("workload") or {}
    if wl.get("input_len") is not None:
        out["input_tokens"] = (wl["input_len"], "run.json workload.input_len")
    if wl.get("output_len") is not None:
        out["output_tokens"] = (wl["output_len"], "run.json workload.output_len")
    mml = serve.get("max_model_len") or _first(er, "max_model_len", "max_seq_len")
    if mml:
        out["max_model_len"] = (int(mml), "run.json serve.max_model_len / engine_report.max_seq_len")

    spec = _first(er, "speculative_config", "speculative_decoding") if er else None
    if er and ("speculative_config" in er or "speculative_decoding" in er):
        off = _is_off(spec)
        out["speculative_decoding"] = (not off if off is not None else False,
                                       "run.json engine_report.speculative_config")
    pc = _first(er, "enable_prefix_caching", "prefix_caching", "prefix_cache")
    if pc is not None:
        out["prefix_cache"] = (not _is_off(pc), "run.json engine_report.enable_prefix_caching")
    eager = _first(er, "enforce_eager", "eager")
    device = str(_first(er, "device", "device_config") or "").lower()
    if device == "cpu" or (gpus == []):
        out["cuda_graph"] = (False, "CPU run: no CUDA graphs")
    elif eager is not None:
        out["cuda_graph"] = (not bool(eager) if isinstance(eager, bool) else _is_off(eager),
                             "run.json engine_report.enforce_eager")
    return out


def _model_match(claimed: Any, run: Any) -> bool:
    c = _norm(claimed)
    names = run if isinstance(run, list) else [run]
    for n in names:
        rn = _norm(n)
        tail = _norm(str(n).rstrip("/").rsplit("/", 1)[-1])
        if c and (c in rn or (tail and (tail in c or c in tail))):
            return True
    return False


def _compare_condition(name: str, claimed: Any, run: Any) -> str:
    if claimed is None or run is None:
        return "unknown"
    if name == "model":
        return "match" if _model_match(claimed, run) else "differ"
    if name == "precision":
        c, r = normalize_precision(claimed), normalize_precision(run)
        return "match" if c and r and _precision_match(c, r) else "differ"
    if name == "quantization":
        c_off, r_off = _is_off(claimed), _is_off(run)
        if c_off and r_off:
            return "match"
        if c_off != r_off:
            return "differ"
        return "match" if normalize_precision(claimed) == normalize_precision(run) else "differ"
    if name == "gpu":
        c, r = _norm(claimed), _norm(run)
        return "match" if c and (c in r or r in c) else "differ"
    if name in ("input_tokens", "output_tokens"):
        c, r = float(claimed), float(run)
        return "match" if c > 0 and abs(r - c) <= LENGTH_MATCH_FRACTION * c else "differ"
    if name in ("speculative_decoding", "prefix_cache", "cuda_graph"):
        c_off, r_off = _is_off(claimed), _is_off(run)
        return "match" if c_off == r_off else "differ"
    if name == "engine":
        return "match" if _norm(claimed) in _norm(run) or _norm(run) in _norm(claimed) else "differ"
    if name == "engine_version":
        c, r = _norm(claimed).lstrip("v"), _norm(run).lstrip("v")
        return "match" if r == c or r.startswith(c + ".") else "differ"
    try:
        return "match" if float(claimed) == float(run) else "differ"
    except (TypeError, ValueError):
        return "match" if _norm(claimed) == _norm(run) else "differ"


# ----------------------------------------------------------------------------- levels, metrics

def select_level(levels: list[dict], concurrency: Any) -> tuple[dict | None, str | None]:
    """The summary level the claim speaks of: the one at the claimed concurrency; with none
    claimed, the only level, else concurrency 1 (a bare "tok/s" is most often one request).
    Returns ``(level, reason_if_none)``."""
    closed = [lv for lv in levels if lv.get("concurrency") is not None]
    if not levels:
        return None, "the run has no summary levels (summary.json missing or empty)"
    if concurrency is not None:
        for lv in closed:
            if int(lv["concurrency"]) == int(concurrency):
                return lv, None
        have = ", ".join(str(lv["concurrency"]) for lv in closed) or "none (open loop)"
        return None, f"the run has no level at the claimed concurrency {concurrency} (levels: {have})"
    if len(levels) == 1:
        return levels[0], None
    for lv in closed:
        if int(lv["concurrency"]) == 1:
            return lv, None
    return levels[0], None


def _stat(level: dict, key: str) -> dict | None:
    v = level.get(key)
    return v if isinstance(v, dict) else None


def level_metric(level: dict, metric: str) -> tuple[float | None, str, list[float] | None, Any, str | None]:
    """``(value, unit, per-round values, spread, reason_if_none)`` of ``metric`` at a level:
    the rounds' trimmed median for per-request metrics, the level's aggregate output
    throughput for ``aggregate_throughput``."""
    if metric == "aggregate_throughput":
        v = level.get("output_throughput_tok_s")
        if isinstance(v, dict):
            return v.get("median"), "tok/s", v.get("rounds"), v.get("spread"), None
        reason = level.get("output_throughput_tok_s_reason")
        return v, "tok/s", level.get("output_throughput_tok_s_rounds"), None, reason
    key = {"generation_tok_s": "generation_tok_s", "e2e_tok_s": "e2e_tok_s", "ttft": "ttft_ms"}[metric]
    unit = "ms" if metric == "ttft" else "tok/s"
    st = _stat(level, key)
    if st is None:
        return None, unit, None, None, level.get(f"{key}_reason") or f"{key} absent from the level"
    return st.get("median"), unit, st.get("rounds"), st.get("spread"), None


def claimed_value(fields: dict) -> tuple[float | None, str | None]:
    """The claimed number in tokcheck's unit for its metric (TTFT in ms, speeds in tok/s)."""
    value = fields.get("value")
    if value is None:
        return None, None
    value = float(value)
    unit = str(fields.get("unit") or "").strip().lower()
    if fields.get("metric") == "ttft":
        if unit in ("s", "sec", "second", "seconds", "秒"):
            value *= 1000.0
        return value, "ms"
    return value, "tok/s"


def _level_name(level: dict | None) -> str:
    if level is None:
        return "n/a"
    if level.get("concurrency") is not None:
        return f"concurrency {level['concurrency']}"
    if level.get("request_rate") is not None:
        return f"rate {level['request_rate']} req/s"
    return str(level.get("label"))


def _level_requests(run: Run, level: dict | None) -> list[dict]:
    reqs = run.measured_requests()
    if level is None:
        return reqs
    keys = {str(level.get("label")), str(level.get("concurrency")), str(level.get("request_rate"))}
    return [q for q in reqs if str(q.get("level")) in keys]


# ----------------------------------------------------------------------------- the checks

def _check_measurement(fields: dict, run: Run, level: dict | None, metric: str | None,
                       claimed: float | None, tolerance: float) -> Check:
    ev: list[str] = []
    advice: list[str] = []
    status = "pass"
    r = run.run
    tok = r.get("tokenizer") or {}
    if tok.get("source"):
        ev.append(f"tokens counted with the model's tokenizer (run.json tokenizer.source = "
                  f"{tok.get('source')}, vocab {tok.get('vocab_size')})")
    else:
        status = "fail"
        ev.append("run.json has no tokenizer: output tokens were not counted with the model's own tokenizer")
    reqs = [q for q in _level_requests(run, level) if not q.get("error")]
    both = [q for q in reqs if q.get("n_out_usage") is not None and q.get("n_out_tokenizer") is not None]
    if both:
        off = [q for q in both if abs(q["n_out_usage"] - q["n_out_tokenizer"]) > max(1, 0.02 * q["n_out_usage"])]
        if off:
            status = "fail"
            worst = max(off, key=lambda q: abs(q["n_out_usage"] - q["n_out_tokenizer"]))
            ev.append(f"{len(off)} of {len(both)} requests: tokenizer count differs from usage "
                      f"(worst: usage {worst['n_out_usage']} vs tokenizer {worst['n_out_tokenizer']}, "
                      f"requests.jsonl n_out_usage / n_out_tokenizer)")
            advice.append("token counts disagree: check that the tokenizer is the served model's own")
        else:
            ev.append(f"tokenizer count equals usage.completion_tokens on all {len(both)} requests "
                      f"(requests.jsonl n_out_usage / n_out_tokenizer)")
    elif reqs:
        ev.append("the server sent no usage: output counted with the tokenizer only (no cross-check)")
    want = _get(r, "workload", "output_len")
    if level is not None:
        failed = level.get("requests_failed") or 0
        early = level.get("early_stops") or 0
        if failed:
            status = "fail"
            ev.append(f"{failed} failed requests at {_level_name(level)} (summary.json errors: {level.get('errors')})")
        if early:
            status = "fail"
            ev.append(f"{early} requests stopped before the asked {want} output tokens (summary.json early_stops)")
        if not failed and not early:
            ev.append(f"{level.get('requests_ok')} requests ok, none failed, none stopped early "
                      f"(output forced to {want} tokens: {_get(r, 'workload', 'output_forcing')})")
        qd = _stat(level, "queue_delay_ms")
        if qd and qd.get("median") is not None:
            ev.append(f"median queue delay (send − due) {_fmt(qd['median'])} ms (summary.json queue_delay_ms)")
    ev.append("time points: TTFT = first token − send; generation tok/s = 1/TPOT from the first "
              "token to the last (TTFT excluded); E2E tok/s = tokens ÷ (end − send)")
    # Which definition is the claimed number closest to? (the seed, 1.1 and 2.2)
    own = level_metric(level, metric)[0] if level is not None and metric in METRICS else None
    own_ok = own is not None and claimed and abs(own / claimed - 1) <= tolerance
    if claimed and metric in ("generation_tok_s", "e2e_tok_s", "aggregate_throughput") and not own_ok:
        near = []
        for lv in run.levels:
            for m in ("generation_tok_s", "e2e_tok_s", "aggregate_throughput"):
                v = level_metric(lv, m)[0]
                if v and abs(v / claimed - 1) <= tolerance and not (m == metric and lv is level):
                    near.append(f"{m} at {_level_name(lv)} = {_fmt(v)} tok/s")
        if near:
            if status == "pass":
                status = "warn"
            ev.append("the claimed value is within tolerance of another definition measured here: "
                      + "; ".join(near[:4]))
            advice.append("ask which metric and concurrency the claim used: the number may be "
                          "another definition than it says")
    return Check(1, CHECK_NAMES[0], status, ev, advice)


def _check_gpu_busy(run: Run) -> Check:
    r = run.run
    gpus = _environment_gpus(r)
    ev: list[str] = []
    advice: list[str] = []
    if gpus is None:
        return Check(2, CHECK_NAMES[1], "unknown",
                     ["run.json has no environment report (run `tokcheck doctor`, or bench with it)"],
                     ["check nvidia-smi for other processes and utilization before measuring"])
    if not gpus:
        ev.append("no NVIDIA GPU in the run's environment (run.json environment): a CPU run; "
                  "server and client shared the CPU")
        return Check(2, CHECK_NAMES[1], "unknown", ev, advice)
    status = "pass"
    for i, g in enumerate(gpus):
        procs = _first(g, "processes", "compute_processes") or []
        others = [p for p in procs if isinstance(p, dict)]
        if others:
            status = "fail"
            held = sum(int(_first(p, "used_memory_bytes", "memory_bytes", "bytes") or 0) for p in others)
            ev.append(f"GPU {i}: {len(others)} processes held {held / 2**30:.1f} GiB before the run "
                      f"(run.json environment processes)")
            advice.append("stop the other processes on the GPU (nvidia-smi) and measure again")
        else:
            ev.append(f"GPU {i} ({_first(g, 'name')}): no other process held memory before the run")
        util = _first(g, "utilization_pct", "utilization_gpu_pct", "gpu_utilization_pct")
        if util is not None:
            ev.append(f"GPU {i}: utilization {util} % before the run")
            if float(util) > 10:
                status = "fail"
    tel = r.get("telemetry")
    throttles = _find(tel, ("throttle_reasons_seen", "throttle_reasons")) if tel else None
    if throttles:
        status = "fail"
        ev.append(f"throttling seen during the run: {throttles} (run.json telemetry)")
        advice.append("a power or thermal cap lowered the clocks: check power limit and cooling")
    mean_util = _find(tel, ("mean_utilization_pct", "utilization_mean_pct")) if tel else None
    if mean_util is not None:
        ev.append(f"mean GPU utilization during the run {_fmt(float(mean_util))} % (run.json telemetry)")
    return Check(2, CHECK_NAMES[1], status, ev, advice)


def _check_quantized(fields: dict, run: Run, conds: dict[str, Condition]) -> Check:
    r = run.run
    ev: list[str] = []
    advice: list[str] = []
    pr = r.get("precision_report") if isinstance(r.get("precision_report"), dict) else None
    er = r.get("engine_report") if isinstance(r.get("engine_report"), dict) else None
    run_full: bool | None = None
    if pr is not None and pr.get("full_precision") is not None:
        run_full = bool(pr["full_precision"])
        reasons = pr.get("reasons") or []
        ev.append(f"weights audit: {'full precision' if run_full else 'NOT full precision'} "
                  f"(run.json precision_report.full_precision; {'; '.join(map(str, reasons[:3]))})")
    if er is not None and ("dtype" in er or "quantization" in er):
        q = er.get("quantization")
        ev.append(f"engine loaded dtype={er.get('dtype')}, quantization={q} (run.json engine_report)")
        if _is_off(q) is False:
            run_full = False
        elif run_full is None and normalize_precision(er.get("dtype")) in ("bf16", "fp16", "fp32"):
            run_full = True
    if run_full is None:
        return Check(3, CHECK_NAMES[2], "unknown",
                     ev + ["the run records neither a precision report nor the engine's loaded dtype"],
                     ["run `tokcheck inspect MODEL_DIR` and keep the server log (`tokcheck serve`)"])
    claim_prec = normalize_precision(fields.get("precision"))
    claim_quant = fields.get("quantization")
    claim_lower = (claim_prec in ("fp8", "int8", "int4", "mxfp4", "nvfp4")) or (_is_off(claim_quant) is False)
    status = "pass"
    if not run_full:
        if claim_prec in ("full", "bf16", "fp16") or _is_off(claim_quant):
            status = "fail"
            ev.append("the claim says full precision / no quantization, but the run's weights are quantized")
            advice.append("serve unquantized BF16 weights (`tokcheck inspect` must say full precision)")
        else:
            ev.append("the run used quantized weights")
    elif claim_lower:
        status = "fail"
        run_prec = conds.get("precision").run if conds.get("precision") else "bf16"
        b_claim = BYTES_PER_PARAM.get(claim_prec or "", None)
        b_run = BYTES_PER_PARAM.get(normalize_precision(run_prec) or "bf16", 2.0)
        ratio = f" (≈{b_run / b_claim:.1f}× fewer weight bytes per token)" if b_claim else ""
        ev.append(f"the claim's precision is {fields.get('precision') or claim_quant}, the run's "
                  f"{run_prec}: the claim read fewer bytes per token{ratio}")
        advice.append("compare at the same precision, or measure the quantized model too (`tokcheck compare --quality`)")
    elif claim_prec is None and claim_quant is None:
        status = "warn"
        ev.append("the run is full precision; the claim does not state its precision — a "
                  "quantized claim would be faster by up to its byte ratio")
    else:
        ev.append("run and claim are both full precision")
    return Check(3, CHECK_NAMES[2], status, ev, advice)


def _check_kv_cache(fields: dict, run: Run, level: dict | None) -> Check:
    r = run.run
    er = r.get("engine_report") if isinstance(r.get("engine_report"), dict) else {}
    serve = r.get("serve") if isinstance(r.get("serve"), dict) else {}
    ev: list[str] = []
    advice: list[str] = []
    status = "pass"
    mml = serve.get("max_model_len") or _first(er, "max_model_len", "max_seq_len")
    kv_tokens = _first(er, "kv_cache_tokens", "kv_cache_size_tokens", "num_gpu_blocks_tokens")
    max_conc = _first(er, "max_concurrency", "maximum_concurrency")
    wl = r.get("workload") or {}
    need = (wl.get("input_len") or 0) + (wl.get("output_len") or 0)
    conc = level.get("concurrency") if level else None
    if mml is None and kv_tokens is None:
        status = "unknown"
        ev.append("the run records no max_model_len or KV cache size (no server log)")
    if mml is not None:
        ev.append(f"max_model_len {mml} (run.json serve / engine_report); each request needs "
                  f"{need} tokens of context")
        if need and int(mml) < need:
            status = "fail"
            ev.append("max_model_len is below input + output: requests cannot fit")
    if kv_tokens is not None:
        ev.append(f"KV cache holds {int(kv_tokens):,} tokens (run.json engine_report)")
        if conc and need and int(kv_tokens) < need * int(conc):
            status = "fail"
            ev.append(f"{conc} concurrent requests × {need} tokens = {need * int(conc):,} > KV cache: "
                      "requests wait for KV blocks (preemption / queueing)")
            advice.append("lower concurrency or max_model_len, raise gpu_memory_utilization, or add GPUs")
    if max_conc is not None and conc:
        ev.append(f"engine's maximum concurrency at max_model_len: {max_conc}× (run.json engine_report)")
    claim_mml = fields.get("max_model_len")
    if claim_mml and mml and int(claim_mml) != int(mml):
        if status == "pass":
            status = "warn"
        ev.append(f"the claim used max_model_len {claim_mml}, the run {mml}: a larger max_model_len "
                  "takes KV cache memory and can cut concurrency (the seed warns of 30 %+ swings)")
    tel = r.get("telemetry")
    waiting = _find(tel, ("max_requests_waiting", "num_requests_waiting_max")) if tel else None
    if waiting:
        if status == "pass":
            status = "warn"
        ev.append(f"up to {waiting} requests waited in the server's queue (run.json telemetry /metrics)")
    kv_peak = _find(tel, ("kv_cache_usage_peak", "max_kv_cache_usage_perc")) if tel else None
    if kv_peak is not None:
        ev.append(f"peak KV cache usage {_fmt(float(kv_peak))} (run.json telemetry /metrics)")
    return Check(4, CHECK_NAMES[3], status, ev, advice)


def _check_spec_prefix(fields: dict, run: Run, level: dict | None, conds: dict[str, Condition]) -> Check:
    ev: list[str] = []
    advice: list[str] = []
    status = "pass"
    spec = conds["speculative_decoding"]
    pref = conds["prefix_cache"]
    known = False
    if spec.run is not None:
        known = True
        ev.append(f"run: speculative decoding {'on' if spec.run else 'off'} ({spec.source})")
    if spec.claimed is not None:
        ev.append(f"claim: speculative decoding {spec.claimed}")
    if spec.status == "differ":
        status = "fail"
        if spec.claimed and not _is_off(spec.claimed):
            ev.append("the claim used speculative decoding and the run did not: several tokens per "
                      "step raise tok/s by the mean accepted length")
            advice.append("enable the same speculative decoding (or compare without it)")
        else:
            ev.append("the run used speculative decoding and the claim did not")
    if level is not None:
        tpc = _stat(level, "tokens_per_chunk")
        if tpc and tpc.get("median") is not None:
            ev.append(f"median tokens per chunk {_fmt(tpc['median'])} (summary.json tokens_per_chunk; "
                      ">1 shows several tokens per step)")
    acc = _find(run.run.get("telemetry"), ("acceptance_rate", "spec_decode_acceptance_rate"))
    if acc is not None:
        ev.append(f"speculative decoding acceptance rate {_fmt(float(acc))} (run.json telemetry)")
    if pref.run is not None:
        known = True
        ev.append(f"run: prefix cache {'on' if pref.run else 'off'} ({pref.source})")
    if pref.claimed is not None:
        ev.append(f"claim: prefix cache {pref.claimed}")
    if pref.status == "differ":
        status = "fail" if status == "fail" else "warn"
        ev.append("prefix caching differs: with repeated prefixes it mostly moves TTFT")
        advice.append("match the prefix cache setting (vLLM: --enable-prefix-caching / --no-enable-prefix-caching)")
    if not known:
        return Check(5, CHECK_NAMES[4], "unknown", ev + ["the run records no engine settings (no server log)"], advice)
    if status == "pass" and spec.claimed is None and pref.claimed is None:
        status = "warn"
        ev.append("the claim does not say whether speculative decoding or prefix caching was on")
    return Check(5, CHECK_NAMES[4], status, ev, advice)


def _check_engine(conds: dict[str, Condition]) -> Check:
    eng, ver = conds["engine"], conds["engine_version"]
    ev = [f"run: {eng.run or 'engine unknown'} {ver.run or ''} ({ver.source or 'no engine report'})".strip(),
          f"claim: {eng.claimed or 'engine not stated'} {ver.claimed or ''}".strip()]
    if "differ" in (eng.status, ver.status):
        return Check(6, CHECK_NAMES[5], "fail", ev + ["engine or version differ: kernels and schedulers differ between them"],
                     ["measure with the claim's engine and version, or ask for the claim's full command"])
    if ver.status == "match" and eng.status != "differ":
        return Check(6, CHECK_NAMES[5], "pass", ev + ["same engine version"], [])
    return Check(6, CHECK_NAMES[5], "unknown", ev, ["ask which engine and version the claim used"])


def _check_bound(fields: dict, metric: str | None, claimed: float | None, measured: float | None,
                 bound: dict | None, concurrency: Any) -> Check:
    if not bound or not bound.get("hard_tok_s"):
        why = (bound or {}).get("reason") or "no bound: the claim's model or GPU is not known"
        return Check(7, CHECK_NAMES[6], "unknown", [why],
                     ["give the model and GPU (`tokcheck claim … --gpu H200`) to bound the claim"])
    hard = float(bound["hard_tok_s"])
    real = float(bound.get("realistic_tok_s") or 0) or None
    ev = [f"decode bound for one request: hard {_fmt(hard)} tok/s, realistic {_fmt(real)} tok/s "
          f"({_fmt(bound.get('bytes_per_token'))} bytes per token at {bound.get('context_tokens')} "
          f"tokens of context; {bound.get('source', 'tokcheck.roofline')})"]
    advice: list[str] = []
    if metric not in ("generation_tok_s", "e2e_tok_s", "aggregate_throughput") or not claimed:
        return Check(7, CHECK_NAMES[6], "unknown", ev + ["the claim is not a speed; the bound does not apply"], [])
    per_request = claimed
    if metric == "aggregate_throughput":
        c = int(concurrency or fields.get("concurrency") or 1)
        per_request = claimed / c
        ev.append(f"aggregate {_fmt(claimed)} tok/s over {c} requests = {_fmt(per_request)} tok/s each")
    status = "pass"
    if per_request > hard * 1.0001:
        status = "fail"
        ev.append(f"claimed {_fmt(per_request)} tok/s per request exceeds the hard bound "
                  f"{_fmt(hard)} tok/s ({per_request / hard:.1f}×): physically impossible for one "
                  "request without speculative decoding, concurrency or lower precision")
        advice.append(f"ask for the speculative decoding setting: it would need a mean accepted "
                      f"length of at least {per_request / hard:.2f} tokens per step")
    elif real and per_request > real:
        status = "warn"
        ev.append(f"claimed {_fmt(per_request)} tok/s is above the realistic bound but within the hard one")
    else:
        ev.append(f"claimed {_fmt(per_request)} tok/s per request is within the bound")
    if measured and metric != "aggregate_throughput":
        ev.append(f"measured {_fmt(measured)} tok/s = {measured / hard:.0%} of the hard bound")
    return Check(7, CHECK_NAMES[6], status, ev, advice)


# ----------------------------------------------------------------------------- symptoms

def _symptoms(run: Run, level: dict | None, metric: str | None, ratio: float | None,
              tolerance: float, checks: list[Check]) -> list[Symptom]:
    out: list[Symptom] = []
    log = run.server_log or ""
    oom = _OOM_RE.search(log)
    oom_errors = [q for q in run.requests if q.get("error") and _OOM_RE.search(str(q["error"].get("detail", "")))]
    if oom or oom_errors:
        ev = [f"server.log: {oom.group(0)!r}"] if oom else []
        if oom_errors:
            ev.append(f"{len(oom_errors)} requests failed with out-of-memory errors (requests.jsonl error)")
        out.append(Symptom("out of memory at start-up or under load", ev, [
            "look for residual processes holding GPU memory (nvidia-smi) and stop them",
            "lower --max-model-len step by step (e.g. 32768 → 8192)",
            "lower --gpu-memory-utilization (0.9 → 0.8) to leave room for the CUDA context",
            "then a GPU with more memory, or --tensor-parallel-size 2 across two GPUs",
        ]))
    tel = run.run.get("telemetry")
    if metric in ("generation_tok_s", "e2e_tok_s", "aggregate_throughput") and ratio is not None \
            and ratio < 1 - tolerance:
        util = _find(tel, ("mean_utilization_pct", "utilization_mean_pct")) if tel else None
        ev = [f"measured is {ratio:.2f}× the claim"]
        if util is None:
            steps = ["no GPU utilization in the record: watch `nvidia-smi` (or run bench with telemetry)",
                     "low utilization → the client, token counting or request queueing is the bottleneck",
                     "high utilization → the weights (precision, size) or the engine version set the speed"]
        elif float(util) < 50:
            ev.append(f"mean GPU utilization {_fmt(float(util))} % (run.json telemetry): low")
            steps = ["suspect the client side first: streaming handling, token counting, request queueing",
                     "check the concurrency reached the server (queue delay, waiting requests)"]
        else:
            ev.append(f"mean GPU utilization {_fmt(float(util))} % (run.json telemetry): high")
            steps = ["the GPU is busy: check the weights' size and precision (`tokcheck inspect`)",
                     "and the engine version and its settings (speculative decoding, CUDA graphs)"]
        failing = [c.name for c in checks if c.status == "fail"]
        if failing:
            ev.append("checks that found a cause: " + ", ".join(failing))
        out.append(Symptom("slow generation", ev, steps + [
            "compare precision, speculative decoding and concurrency with the claim's",
            "check the GPU is idle and not throttled (power, temperature)",
        ]))
    slow_first = False
    ev = []
    if metric == "ttft" and ratio is not None and ratio > 1 + tolerance:
        slow_first = True
        ev.append(f"measured TTFT is {ratio:.2f}× the claimed one")
    if level is not None:
        ttft, e2e = _stat(level, "ttft_ms"), _stat(level, "e2e_latency_ms")
        if ttft and e2e and ttft.get("median") and e2e.get("median") and ttft["median"] >= 0.25 * e2e["median"]:
            slow_first = True
            ev.append(f"median TTFT {_fmt(ttft['median'])} ms is {ttft['median'] / e2e['median']:.0%} "
                      f"of median E2E latency {_fmt(e2e['median'])} ms")
    if slow_first:
        wl = run.run.get("workload") or {}
        if wl.get("input_len"):
            ev.append(f"prompt length {wl['input_len']} tokens (prefill work grows with it)")
        qd = _stat(level or {}, "queue_delay_ms")
        if qd and qd.get("median"):
            ev.append(f"median queue delay {_fmt(qd['median'])} ms")
        out.append(Symptom("slow first token", ev, [
            "a long prompt makes prefill long: try a shorter input to see",
            "queueing: requests wait behind long ones — check queue delay and waiting requests",
            "no prefix cache: repeated prefixes are prefilled again — enable prefix caching",
            "a large max_model_len reserves memory and can slow start-up and scheduling",
        ]))
    return out


# ----------------------------------------------------------------------------- entry point

def verify(fields: dict, run: Run, *, tolerance: float = DEFAULT_TOLERANCE,
           bound: dict | None = None, metric: str | None = None) -> Verdict:
    """Compare a claim (``fields``: ``Claim.fields``) with a run directory.

    ``tolerance`` is a fraction (0.2 = 20 %); ``bound`` the decode bound for the claim's model
    and GPU (keys ``hard_tok_s``, ``realistic_tok_s``, ``bytes_per_token``,
    ``context_tokens``; or ``{"reason": …}`` when it could not be computed); ``metric``
    overrides the claim's metric. Pure: reads nothing but its arguments.
    """
    fields = dict(fields)
    if metric:
        fields["metric"] = metric
    metric = fields.get("metric")
    reasons: list[str] = []
    if metric is not None and metric not in METRICS:
        reasons.append(f"unknown metric {metric!r}")
        metric = None
    level, why = select_level(run.levels, fields.get("concurrency"))
    if why:
        reasons.append(why)

    facts = run_conditions(run, level)
    conds: dict[str, Condition] = {}
    claim_keys = {"model": "model", "precision": "precision", "quantization": "quantization",
                  "gpu": "gpu", "gpu_count": "gpu_count", "engine": "engine",
                  "engine_version": "engine_version", "concurrency": "concurrency",
                  "input_tokens": "input_tokens", "output_tokens": "output_tokens",
                  "max_model_len": "max_model_len", "speculative_decoding": "speculative_decoding",
                  "prefix_cache": "prefix_cache", "cuda_graph": "cuda_graph"}
    for name in CONDITION_ORDER:
        if name == "metric":
            continue
        claimed_v = fields.get(claim_keys[name])
        run_v, src = facts.get(name, (None, None))
        conds[name] = Condition(name, claimed_v, run_v, _compare_condition(name, claimed_v, run_v),
                                name in BLOCKING, src)

    claimed, unit = claimed_value(fields)
    measured = None
    rounds = spread = None
    if metric is None:
        reasons.append("the claim does not say which metric its number is (use --metric)")
        conds["metric"] = Condition("metric", None, None, "unknown", True, None)
    elif level is not None:
        measured, unit_m, rounds, spread, mwhy = level_metric(level, metric)
        unit = unit or unit_m
        if measured is None:
            reasons.append(f"the run did not measure {metric}: {mwhy}")
        conds["metric"] = Condition("metric", metric, metric if measured is not None else None,
                                    "match" if measured is not None else "unknown", True,
                                    f"summary.json {_level_name(level)}")
    else:
        conds["metric"] = Condition("metric", metric, None, "unknown", True, None)
    if claimed is None:
        reasons.append("the claim has no number")
    for c in conds.values():
        if c.blocking and c.status == "differ":
            reasons.append(f"{c.name} differs: claim {c.claimed}, run {c.run}")

    ratio = measured / claimed if measured is not None and claimed else None
    reproduced: bool | None
    if reasons or ratio is None:
        reproduced = None
    else:
        reproduced = abs(ratio - 1) <= tolerance

    ordered = [conds[n] for n in CONDITION_ORDER]
    checks = [
        _check_measurement(fields, run, level, metric, claimed, tolerance),
        _check_gpu_busy(run),
        _check_quantized(fields, run, conds),
        _check_kv_cache(fields, run, level),
        _check_spec_prefix(fields, run, level, conds),
        _check_engine(conds),
        _check_bound(fields, metric, claimed, measured, bound,
                     level.get("concurrency") if level else None),
    ]
    symptoms = _symptoms(run, level, metric, ratio, tolerance, checks)

    tol_pct = f"{tolerance * 100:g} %"
    where = _level_name(level)
    if reproduced is True:
        summary = (f"REPRODUCED: measured {_fmt(measured)} {unit} vs claimed {_fmt(claimed)} {unit} "
                   f"({metric} at {where}; ratio {ratio:.2f}, within {tol_pct})")
    elif reproduced is False:
        summary = (f"NOT REPRODUCED: measured {_fmt(measured)} {unit} is {ratio:.2f}× the claimed "
                   f"{_fmt(claimed)} {unit} ({metric} at {where}; tolerance {tol_pct})")
    else:
        summary = "INCOMPARABLE: " + "; ".join(reasons)
    return Verdict(
        metric=metric, metric_definition=METRIC_LABELS.get(metric or ""), unit=unit,
        claimed=claimed, measured=measured, ratio=ratio, tolerance=tolerance,
        reproduced=reproduced, summary=summary,
        level={"label": level.get("label"), "concurrency": level.get("concurrency"),
               "request_rate": level.get("request_rate")} if level else None,
        measured_rounds=rounds, measured_spread=spread, conditions=ordered,
        incomparable_reasons=reasons, checks=checks, symptoms=symptoms,
        run_dir=str(run.path), bound=bound,
    )
