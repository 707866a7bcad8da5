"""The claim's conditions beside the run's, and the level and metric the claim speaks of."""

from __future__ import annotations

from typing import Any

from tokcheck.core.names import same_model
from tokcheck.core.metric_table import BY_CLAIM_NAME
from tokcheck.record.level import Level
from tokcheck.record.schema import GpuInfoRecord, LevelSummary, RunConditions
from tokcheck.record.store import Run
from tokcheck.analysis.verify.lookup import (_is_off, _norm, _precision_match, normalize_precision,
                                             served_model_names)

#: Conditions whose difference makes two numbers incomparable (the guide, 4.3).
BLOCKING = ("model", "gpu", "gpu_count", "concurrency", "input_tokens", "output_tokens")

#: Condition order in the table: what the issue lists, model first.
CONDITION_ORDER = ("model", "precision", "quantization", "gpu", "gpu_count", "engine",
                   "engine_version", "concurrency", "input_tokens", "output_tokens",
                   "max_model_len", "metric", "speculative_decoding", "prefix_cache", "cuda_graph")

#: Lengths within this fraction count as the same workload (1000 vs 1024 tokens is one).
LENGTH_MATCH_FRACTION = 0.10


def _environment_gpus(c: RunConditions) -> list[GpuInfoRecord] | None:
    """GPUs in the run's environment report (doctor); ``[]`` when it says there is none,
    ``None`` when the run has no environment report."""
    return c.environment.gpu_list() if c.environment is not None else None


def run_conditions(run: Run, level: LevelSummary | None) -> dict[str, tuple[Any, str]]:
    """The run's value of each condition and the record field it came from."""
    c = run.conditions
    er, pr, serve = c.engine_report, c.precision_report, c.serve
    out: dict[str, tuple[Any, str]] = {}

    models: list = []
    for m in [c.endpoint.model if c.endpoint else None] + list((c.server.models or []) if c.server else []):
        if m and m not in models:
            models.append(m)
    if models:
        out["model"] = (models[0] if len(models) == 1 else models, "run.json endpoint.model / server.models")
    names = served_model_names(c)
    if names:
        # every name of the served model (served name, engine's model, model directory), for
        # the loose comparison with the claim's model; not shown in the table
        out["model_names"] = (names, "run.json endpoint / server / engine_report / serve / precision_report")
        if "model" not in out:
            out["model"] = (names[0], "run.json engine_report / serve / precision_report")

    dtype = (er.dtype if er else None) or (serve.dtype if serve else None)
    if dtype is not None:
        out["precision"] = (normalize_precision(dtype), "run.json engine_report.dtype / serve.dtype")

    quant = None
    quant_src = None
    if er is not None and "quantization" in er.model_fields_set:
        quant, quant_src = er.quantization or "none", "run.json engine_report.quantization"
    elif pr is not None and pr.full_precision is not None:
        quant = "none" if pr.full_precision else (pr.method or "quantized")
        quant_src = "run.json precision_report.full_precision"
    elif serve is not None and "quantization" in serve.model_fields_set:
        quant, quant_src = serve.quantization or "none", "run.json serve.quantization"
    if quant is not None:
        out["quantization"] = (str(quant), quant_src)

    gpus = _environment_gpus(c)
    if gpus is not None:
        if gpus:
            names = sorted({str(g.name or "?") for g in gpus})
            out["gpu"] = (", ".join(names), "run.json environment (GPUs)")
            out["gpu_count"] = (len(gpus), "run.json environment (GPUs)")
        else:
            out["gpu"] = ("none (CPU)", "run.json environment: no NVIDIA GPU")
    tp = (serve.tensor_parallel_size if serve else None) or (er.tensor_parallel_size if er else None)
    if "gpu_count" not in out and tp and gpus:
        out["gpu_count"] = (tp, "run.json serve.tensor_parallel_size")

    engine = (er.engine if er else None) or (serve.engine if serve else None)
    if engine:
        out["engine"] = (str(engine), "run.json engine_report.engine")
    version = (er.version if er else None) or (c.server.version if c.server else None)
    if version:
        out["engine_version"] = (str(version), "run.json engine_report.version / server.version")

    if level is not None and level.concurrency is not None:
        out["concurrency"] = (level.concurrency, f"summary.json level {level.label}")
    # Lengths: what actually arrived at the level (a server that ignored the asked output
    # length delivered something else), else what was asked.
    wl = c.workload
    got_in = level.input_tokens if level is not None else None
    got_out = level.output_tokens if level is not None else None
    if got_in is not None:
        out["input_tokens"] = (_length(got_in.median), f"summary.json level {level.label} input_tokens "
                                                       f"(median; {got_in.source}; asked {got_in.requested})")
    elif wl is not None and wl.input_len is not None:
        out["input_tokens"] = (wl.input_len, "run.json workload.input_len")
    if got_out is not None:
        out["output_tokens"] = (_length(got_out.median), f"summary.json level {level.label} output_tokens "
                                                         f"(median of what arrived; asked {got_out.requested})")
    elif wl is not None and wl.output_len is not None:
        out["output_tokens"] = (wl.output_len, "run.json workload.output_len")
    mml = (serve.max_model_len if serve else None) or (er.max_seq_len if er else None)
    if mml:
        out["max_model_len"] = (int(mml), "run.json serve.max_model_len / engine_report.max_seq_len")

    if er is not None and er.model_fields_set & {"speculative_config", "speculative_decoding"}:
        spec = er.speculative_config if er.speculative_config is not None else er.speculative_decoding
        off = _is_off(spec)
        out["speculative_decoding"] = (not off if off is not None else False,
                                       "run.json engine_report.speculative_config")
    if er is not None and er.enable_prefix_caching is not None:
        out["prefix_cache"] = (not _is_off(er.enable_prefix_caching), "run.json engine_report.enable_prefix_caching")
    eager = er.enforce_eager if er else None
    device = str((er.device if er else None) or "").lower()
    if device == "cpu" or (gpus == []):
        out["cuda_graph"] = (False, "CPU run: no CUDA graphs")
    elif eager is not None:
        out["cuda_graph"] = (not eager, "run.json engine_report.enforce_eager")
    return out


def _length(x: float) -> int | float:
    """A length as an int when it is whole (a median of two may be half a token)."""
    return int(x) if float(x).is_integer() else x


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

def select_level(levels: list[LevelSummary], concurrency: Any) -> tuple[LevelSummary | None, str | None]:
    """The summary level the claim speaks of: the closed-loop level at the claimed concurrency
    (an open-loop level is never one, whatever its cap on requests in flight); with none
    claimed, the only level, else concurrency 1 (a bare "tok/s" is most often one request).
    Returns ``(level, reason_if_none)``."""
    if not levels:
        return None, "the run has no summary levels (summary.json missing or empty)"
    closed = [lv for lv in levels if lv.concurrency is not None]
    if concurrency is not None:
        want = Level.closed(int(concurrency))
        for lv in levels:
            if lv.level == want:
                return lv, None
        have = ", ".join(str(lv.concurrency) for lv in closed) or "none (open loop)"
        return None, f"the run has no level at the claimed concurrency {concurrency} (levels: {have})"
    if len(levels) == 1:
        return levels[0], None
    one = next((lv for lv in levels if lv.level == Level.closed(1)), None)
    return one or levels[0], None


def level_metric(level: LevelSummary, metric: str) -> tuple[float | None, str, list[float] | None, Any, str | None]:
    """``(value, unit, per-round values, spread, reason_if_none)`` of ``metric`` (a claim's
    metric name) at a level: the rounds' trimmed median (per-request metrics) or the level's
    per-round value's (aggregate output throughput)."""
    m = BY_CLAIM_NAME[metric]
    f = level.figure(m.name)
    why = None if f.value is not None else (f.reason or f"{m.name} absent from the level")
    return f.value, m.unit, f.rounds, f.spread, why


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


def _level_name(level: LevelSummary | None) -> str:
    return level.level.name if level is not None else "n/a"


def _level_requests(run: Run, level: LevelSummary | None) -> list:
    """The measured requests of ``level`` (every level's for ``None``)."""
    return run.requests_at(level.level if level is not None else None)
