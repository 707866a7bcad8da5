"""The claim's conditions beside the run's, and the level and metric the claim speaks of."""

from __future__ import annotations

from typing import Any

from tokcheck.core.names import same_model
from tokcheck.record.store import Run
from tokcheck.analysis.verify.lookup import (_find, _first, _get, _is_off, _norm, _precision_match,
                                   normalize_precision, served_model_names)

#: Conditions whose difference makes two numbers incomparable (the seed, 4.3).
BLOCKING = ("model", "gpu", "gpu_count", "concurrency", "input_tokens", "output_tokens")

#: Condition order in the table: what the issue lists, model first.
CONDITION_ORDER = ("model", "precision", "quantization", "gpu", "gpu_count", "engine",
                   "engine_version", "concurrency", "input_tokens", "output_tokens",
                   "max_model_len", "metric", "speculative_decoding", "prefix_cache", "cuda_graph")

#: Lengths within this fraction count as the same workload (1000 vs 1024 tokens is one).
LENGTH_MATCH_FRACTION = 0.10

def _environment_gpus(run: dict) -> list[dict] | None:
    """GPUs in the run's environment report (doctor); ``[]`` when it says there is none,
    ``None`` when the run has no environment report."""
    env = run.get("environment")
    if not isinstance(env, dict):
        return None
    gpus = _find(env, ("gpus", "devices"))
    if isinstance(gpus, list):
        return [g for g in gpus if isinstance(g, dict)]
    if _get(env, "gpu", "available") is False or _find(env, ("nvml_available", "gpu_available")) is False:
        return []
    return None


def run_conditions(run: Run, level: dict | None) -> dict[str, tuple[Any, str]]:
    """The run's value of each condition and the record field it came from."""
    r = run.run
    er = r.get("engine_report") if isinstance(r.get("engine_report"), dict) else {}
    pr = r.get("precision_report") if isinstance(r.get("precision_report"), dict) else {}
    serve = r.get("serve") if isinstance(r.get("serve"), dict) else {}
    out: dict[str, tuple[Any, str]] = {}

    models: list = []
    for m in [_get(r, "endpoint", "model")] + list(_get(r, "server", "models") or []):
        if m and m not in models:
            models.append(m)
    if models:
        out["model"] = (models[0] if len(models) == 1 else models, "run.json endpoint.model / server.models")
    names = served_model_names(r)
    if names:
        # every name of the served model (served name, engine's model, model directory), for
        # the loose comparison with the claim's model; not shown in the table
        out["model_names"] = (names, "run.json endpoint / server / engine_report / serve / precision_report")
        if "model" not in out:
            out["model"] = (names[0], "run.json engine_report / serve / precision_report")

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


def _compare_condition(name: str, claimed: Any, run: Any) -> str:
    if claimed is None or run is None:
        return "unknown"
    if name == "model":
        return "match" if same_model(claimed, run) else "differ"
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
        return (v, "tok/s", level.get("output_throughput_tok_s_rounds"),
                level.get("output_throughput_tok_s_spread"), reason)
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
