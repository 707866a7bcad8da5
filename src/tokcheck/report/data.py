"""What a report shows, computed from run directories (pure): per-request rows, the timeline,
GPU telemetry samples, the conditions table."""

from __future__ import annotations

from typing import Any

from tokcheck.core.metric_table import shown_in
from tokcheck.record.schema import RequestRecord
from tokcheck.record.store import Run

#: The per-request metrics in the CSV (the metric table's, in its order).
CSV_METRICS = tuple(m for m in shown_in("csv") if m.kind == "request")

#: Per-request CSV columns, in order; times in ms relative to the run's first measured send.
CSV_COLUMNS = ("run", "level", "round", "index", "warmup", "prompt_index", "t_send_ms",
               *(m.name for m in CSV_METRICS),
               "n_out_usage", "n_out_tokenizer", "n_prompt_usage", "early_stop", "client_marks", "error_kind",
               "error_detail")


def request_rows(run: Run) -> list[dict[str, Any]]:
    """One dict per request (warm-up included, marked), with :data:`CSV_COLUMNS` keys."""
    sends = [q.t_send_ns for q in run.requests if q.t_send_ns is not None]
    t0 = min(sends) if sends else 0
    rows = []
    for q in run.requests:
        row: dict[str, Any] = {
            "run": run.name, "level": q.level, "round": q.round, "index": q.index,
            "warmup": q.warmup, "prompt_index": q.prompt_index,
            "t_send_ms": (q.t_send_ns - t0) / 1e6 if q.t_send_ns is not None else None,
        }
        # every value as measured; the marks the client put on it are a column of their own
        unmarked = q.model_copy(update={"client_marks": []}) if q.client_marks else q
        for m in CSV_METRICS:
            vals = m.values(unmarked)
            row[m.name] = vals[0] if vals else None
        row.update({
            "n_out_usage": q.n_out_usage, "n_out_tokenizer": q.n_out_tokenizer,
            "n_prompt_usage": q.n_prompt_usage, "early_stop": q.early_stop,
            "client_marks": " ".join(q.client_marks) or None,
            "error_kind": q.error.kind if q.error else None, "error_detail": q.error.detail if q.error else None,
        })
        rows.append(row)
    return rows


def level_of(run: Run, request: RequestRecord) -> str:
    """The label of the summary level a request belongs to (its own ``level`` without one)."""
    level = run.level_of(request)
    found = run.level_summary(level) if level is not None else None
    return found.label if found is not None else request.level


def timeline(run: Run, limit: int = 3000) -> list[dict[str, Any]]:
    """Measured requests as intervals in seconds since the first send: ``send``, ``first``
    (first token, or None), ``end`` and ``level``; sorted by send time."""
    reqs = sorted((q for q in run.measured_requests() if q.t_send_ns is not None), key=lambda q: q.t_send_ns)
    if not reqs:
        return []
    t0 = reqs[0].t_send_ns
    out = []
    for q in reqs[:limit]:
        end = q.t_end_ns or q.t_last_ns or q.t_send_ns
        out.append({"send": (q.t_send_ns - t0) / 1e9,
                    "first": (q.t_first_ns - t0) / 1e9 if q.t_first_ns else None,
                    "end": (end - t0) / 1e9, "level": level_of(run, q),
                    "error": q.error is not None})
    return out


def gpu_series(run: Run) -> list[dict[str, Any]]:
    """The run's GPU samples (``gpu_samples.jsonl``) on the request clock: one series per GPU
    with ``t_s`` (seconds since the first measured send), ``memory_gb`` (GB = 10⁹ bytes) and
    ``utilization_pct`` lists (``None`` where a sample lacks the value). ``[]`` when the run
    has none."""
    if not run.gpu_samples:
        return []
    sends = [q.t_send_ns for q in run.measured_requests() if q.t_send_ns is not None]
    clock = run.conditions.clock
    t0 = min(sends) if sends else ((clock.perf_counter_ns_at_start if clock else None) or 0)
    by_gpu: dict[int, list] = {}
    for s in run.gpu_samples:
        by_gpu.setdefault(s.index, []).append(s)
    return [{"gpu": g,
             "t_s": [(s.t_ns - t0) / 1e9 for s in ss],
             "memory_gb": [s.memory_used_bytes / 1e9 if s.memory_used_bytes is not None else None for s in ss],
             "utilization_pct": [s.utilization_gpu_pct for s in ss]}
            for g, ss in by_gpu.items()]


def show(value: Any) -> str:
    """A value as a person reads it in a table: ``yes`` / ``no`` for flags, ``not stated`` for
    absent values, numbers with thousands separators, lists joined, dicts as ``key: value`` —
    never Python's ``None``, ``True`` or ``False``."""
    from tokcheck.core.units import fmt_number, fmt_yes_no

    if value is None or value == "" or value == [] or value == {}:
        return "not stated"
    if isinstance(value, bool):
        return fmt_yes_no(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return fmt_number(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(show(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {show(v)}" for k, v in value.items())
    text = str(value)
    return {"None": "not stated", "True": "yes", "False": "no"}.get(text, text)


def _device(device: str | None) -> str:
    return {"cpu": "the CPU", "cuda": "an NVIDIA GPU (CUDA)"}.get(str(device or "").lower(),
                                                                  device or "a device it does not state")


def _engine_rows(er: Any) -> list[tuple[str, str]]:
    """What the engine's start-up log states, one readable row per subject."""
    from tokcheck.core.units import fmt_bytes

    rows = [("engine", f"{er.engine or 'an engine'} {er.version or '(version not stated)'} on "
                       f"{_device(er.device)}")]
    loaded = [f"dtype {show(er.dtype)}", f"quantization {show(er.quantization)}",
              f"KV cache dtype {show(er.kv_cache_dtype)}"]
    if er.architecture:
        loaded.insert(0, er.architecture)
    if er.max_seq_len:
        loaded.append(f"max_seq_len {er.max_seq_len:,} tokens")
    rows.append(("engine loaded", ", ".join(loaded)))
    if er.kv_cache_tokens or er.kv_cache_memory_gib:
        kv = f"{er.kv_cache_tokens:,} tokens" if er.kv_cache_tokens else "tokens not stated"
        if er.kv_cache_memory_gib:
            kv += f" in {fmt_bytes(er.kv_cache_memory_gib * 2**30)}"
        if er.max_concurrency:
            kv += (f"; {show(er.max_concurrency)} requests of {show(er.max_concurrency_tokens)} tokens "
                   "fit at once")
        rows.append(("KV cache", kv))
    feats = [f"prefix caching {show(er.enable_prefix_caching)}",
             f"chunked prefill {show(er.enable_chunked_prefill)}",
             f"speculative decoding {show(er.speculative_decoding)}"
             + (f" ({er.speculative_config})" if er.speculative_decoding and er.speculative_config else ""),
             f"eager mode, no CUDA graphs {show(er.enforce_eager)}"]
    if er.compilation_mode or er.cudagraph_mode:
        feats.append(f"compilation {show(er.compilation_mode)}, CUDA graphs {show(er.cudagraph_mode)}")
    if er.tensor_parallel_size:
        feats.append(f"tensor parallel {er.tensor_parallel_size}")
    if er.pipeline_parallel_size:
        feats.append(f"pipeline parallel {er.pipeline_parallel_size}")
    rows.append(("engine features", "; ".join(feats)))
    return rows


def _serve_row(sv: Any) -> str:
    """How tokcheck started the server, as one readable line."""
    parts = [f"engine {show(sv.engine)}", f"dtype {show(sv.dtype)}",
             f"max_model_len {show(sv.max_model_len)}",
             "gpu_memory_utilization " + (show(sv.gpu_memory_utilization)
                                          if sv.gpu_memory_utilization is not None else "the engine's default"),
             "tensor parallel " + (show(sv.tensor_parallel_size) if sv.tensor_parallel_size is not None
                                   else "the engine's default"),
             f"quantization {show(sv.quantization)}", f"eager mode {show(sv.enforce_eager)}"]
    extra = sv.model_extra or {}
    for key in ("threads", "batch_size"):
        if extra.get(key) is not None:
            parts.append(f"{key.replace('_', ' ')} {show(extra[key])}")
    if sv.extra_args:
        parts.append(f"engine arguments {' '.join(map(str, sv.extra_args))}")
    if sv.startup_s is not None:
        parts.append(f"ready after {sv.startup_s:.0f} s")
    return "; ".join(parts)


def conditions_table(run: Run) -> list[tuple[str, str]]:
    """The run's conditions as readable (name, value) rows — what someone needs to reproduce it
    (``docs/run-directory.md``). Flags read yes / no / not stated (:func:`show`), never
    ``None`` / ``True`` / ``False``; rows whose section the run lacks are left out."""
    c = run.conditions
    rows: list[tuple[str, str]] = []

    def add(name: str, value: Any) -> None:
        if value is not None and value != "" and value != {}:
            rows.append((name, show(value)))

    ep = c.endpoint
    add("run", f"{run.name} (run id {c.run_id})")
    add("measured", f"{c.created_at} to {c.finished_at}" if c.finished_at else c.created_at)
    add("tokcheck", f"{c.tokcheck_version} (record schema {c.schema_version})")
    if ep is not None:
        add("server", f"{ep.url} ({ep.api} API), model {ep.model}")
    add("server version", c.server.version if c.server else None)
    if c.engine_report is not None and c.engine_report.model_dump(exclude_none=True):
        rows.extend(_engine_rows(c.engine_report))
    pr = c.precision_report
    if pr is not None and pr.model_dump(exclude_none=True):
        fp = pr.full_precision
        add("weights", ("full precision" if fp else "NOT full precision" if fp is False else "unknown")
            + (f" ({pr.precision or pr.method})" if (pr.precision or pr.method) else "")
            + (f" — {'; '.join(map(str, pr.reasons[:3]))}" if pr.reasons else ""))
    if c.serve is not None and c.serve.model_dump(exclude_none=True):
        add("started by tokcheck with", _serve_row(c.serve))
    wl = c.workload
    if wl is not None:
        add("workload", f"{show(wl.input_len)} tokens in, {show(wl.output_len)} tokens out, temperature "
            f"{show(wl.temperature)}, output length forced with {show(wl.output_forcing)}")
        add("prompts sha256", wl.prompts_sha256)
    ld = c.load
    if ld is not None:
        cap = f", at most {ld.max_in_flight} in flight" if ld.max_in_flight is not None else ""
        what = (f"concurrency {show(ld.concurrency)}" if ld.mode == "closed"
                else f"request rate {show(ld.request_rate)} req/s{cap}")
        add("load", f"{ld.mode} loop, {what}; {show(ld.rounds)} rounds × {show(ld.requests_per_round)} "
            f"requests, {show(ld.warmup)} warm-up per level")
    add("stream options", c.stream_options)
    tok = c.tokenizer
    if tok is not None:
        add("tokenizer", f"{tok.source} (vocabulary {show(tok.vocab_size)}, sha256 {str(tok.sha256)[:12]}…)")
    cl = c.client
    if cl is not None:
        add("client", f"{cl.host}, Python {cl.python}, {cl.platform}"
            + (f", connections {cl.connections}" if cl.connections else ""))
        if cl.ceiling is not None and cl.ceiling.tok_s:
            add("client ceiling", f"numbers above {cl.ceiling.tok_s:,.0f} tok/s on this machine are client-bound "
                f"(tokcheck probe, {cl.ceiling.measured_at})")
    gpus = c.environment.gpu_list() if c.environment is not None else None
    if gpus is not None:
        add("GPUs", ", ".join(str(g.name) for g in gpus) or "none: the run was on the CPU")
    return rows


def machine_text(run: Run) -> str:
    """What the run ran on, in a few words: its GPUs (``2 × H100 SXM``), ``the CPU (no GPU)``, or
    ``not recorded``."""
    c = run.conditions
    gpus = c.environment.gpu_list() if c.environment is not None else None
    if gpus:
        names = [str(g.name or "GPU").replace("NVIDIA ", "") for g in gpus]
        return ", ".join(f"{names.count(n)} × {n}" for n in dict.fromkeys(names))
    if gpus == [] or (c.engine_report is not None and c.engine_report.device == "cpu"):
        return "the CPU (no GPU)"
    return "not recorded"


def run_gpu_names(run: Run) -> list[str] | None:
    """The names of the GPUs the run's environment lists (``NVIDIA `` dropped); ``[]`` for a CPU
    run, ``None`` when the run does not say."""
    c = run.conditions
    gpus = c.environment.gpu_list() if c.environment is not None else None
    if gpus is None:
        return [] if c.engine_report is not None and c.engine_report.device == "cpu" else None
    return [str(g.name or "").replace("NVIDIA ", "") for g in gpus]
