"""What a report shows, computed from run directories (pure): per-request rows, ITL values,
the timeline, GPU telemetry samples, the conditions table."""

from __future__ import annotations

from typing import Any

from tokcheck.record.store import Run
from tokcheck.analysis.verify.lookup import _find

#: Per-request CSV columns, in order; times in ms relative to the run's first measured send.
CSV_COLUMNS = ("run", "level", "round", "index", "warmup", "prompt_index", "t_send_ms", "ttft_ms",
               "tpot_ms", "e2e_latency_ms", "generation_tok_s", "e2e_tok_s", "queue_delay_ms",
               "n_out_usage", "n_out_tokenizer", "n_prompt_usage", "early_stop", "error_kind",
               "error_detail")


def request_rows(run: Run) -> list[dict[str, Any]]:
    """One dict per request (warm-up included, marked), with :data:`CSV_COLUMNS` keys."""
    sends = [q["t_send_ns"] for q in run.requests if q.get("t_send_ns") is not None]
    t0 = min(sends) if sends else 0
    rows = []
    for q in run.requests:
        err = q.get("error") or {}
        rows.append({
            "run": run.name, "level": q.get("level"), "round": q.get("round"), "index": q.get("index"),
            "warmup": bool(q.get("warmup")), "prompt_index": q.get("prompt_index"),
            "t_send_ms": (q["t_send_ns"] - t0) / 1e6 if q.get("t_send_ns") is not None else None,
            "ttft_ms": q.get("ttft_ms"), "tpot_ms": q.get("tpot_ms"),
            "e2e_latency_ms": q.get("e2e_latency_ms"), "generation_tok_s": q.get("generation_tok_s"),
            "e2e_tok_s": q.get("e2e_tok_s"), "queue_delay_ms": q.get("queue_delay_ms"),
            "n_out_usage": q.get("n_out_usage"), "n_out_tokenizer": q.get("n_out_tokenizer"),
            "n_prompt_usage": q.get("n_prompt_usage"), "early_stop": q.get("early_stop"),
            "error_kind": err.get("kind"), "error_detail": err.get("detail"),
        })
    return rows


def itl_values_ms(request: dict[str, Any]) -> list[float]:
    """Per-token ITL of one request (DESIGN "Measurement definitions"): after the first chunk
    that carries tokens, a chunk of k tokens arriving g after the previous one contributes k
    values g/k, so that the values sum to ``t_last − t_first``."""
    chunks = [c for c in (request.get("chunks") or []) if c and c[1]]
    out: list[float] = []
    for (t_prev, _), (t, k) in zip(chunks, chunks[1:]):
        out.extend([(t - t_prev) / 1e6 / k] * int(k))
    return out


def level_of(run: Run, request: dict[str, Any]) -> str:
    """The label of the summary level a request belongs to."""
    key = str(request.get("level"))
    for lv in run.levels:
        if key in (str(lv.get("label")), str(lv.get("concurrency")), str(lv.get("request_rate"))):
            return str(lv.get("label"))
    return key


def timeline(run: Run, limit: int = 3000) -> list[dict[str, Any]]:
    """Measured requests as intervals in seconds since the first send: ``send``, ``first``
    (first token, or None), ``end`` and ``level``; sorted by send time."""
    reqs = [q for q in run.measured_requests() if q.get("t_send_ns") is not None]
    reqs.sort(key=lambda q: q["t_send_ns"])
    if not reqs:
        return []
    t0 = reqs[0]["t_send_ns"]
    out = []
    for q in reqs[:limit]:
        end = q.get("t_end_ns") or q.get("t_last_ns") or q["t_send_ns"]
        out.append({"send": (q["t_send_ns"] - t0) / 1e9,
                    "first": (q["t_first_ns"] - t0) / 1e9 if q.get("t_first_ns") else None,
                    "end": (end - t0) / 1e9, "level": level_of(run, q),
                    "error": bool(q.get("error"))})
    return out


_TIME_KEYS = ("t_ns", "perf_counter_ns", "time_ns", "t_perf_ns", "timestamp_ns")
_MEM_KEYS = ("memory_used_bytes", "mem_used_bytes", "used_memory_bytes")
_UTIL_KEYS = ("utilization_pct", "gpu_utilization_pct", "util_pct", "utilization_gpu_pct")


def _sample_lists(obj: Any, depth: int = 5) -> list[list[dict]]:
    found = []
    if depth < 0:
        return found
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        if any(k in obj[0] for k in _TIME_KEYS) and any(k in obj[0] for k in _MEM_KEYS + _UTIL_KEYS):
            return [obj]
        for x in obj:
            found += _sample_lists(x, depth - 1)
    elif isinstance(obj, dict):
        for v in obj.values():
            found += _sample_lists(v, depth - 1)
    return found


def gpu_series(run: Run) -> list[dict[str, Any]]:
    """GPU telemetry samples of the run (``gpu_samples.jsonl``, or a sample list inside
    run.json ``telemetry``) on the request clock: one series per GPU with ``t_s``
    (seconds since the first measured send), ``memory_gib`` and ``utilization_pct`` lists
    (``None`` entries where a sample lacks the value). ``[]`` when the run has none."""
    tel = run.run.get("telemetry")
    lists = [run.gpu_samples] if run.gpu_samples else _sample_lists(tel)
    if not lists:
        return []
    sends = [q["t_send_ns"] for q in run.measured_requests() if q.get("t_send_ns") is not None]
    t0 = min(sends) if sends else (run.run.get("clock") or {}).get("perf_counter_ns_at_start", 0)
    series = []
    for i, samples in enumerate(lists):
        tkey = next(k for k in _TIME_KEYS if k in samples[0])
        mkey = next((k for k in _MEM_KEYS if k in samples[0]), None)
        ukey = next((k for k in _UTIL_KEYS if k in samples[0]), None)
        gpu = samples[0].get("gpu", samples[0].get("index", i))
        by_gpu: dict[Any, list[dict]] = {}
        for s in samples:
            by_gpu.setdefault(s.get("gpu", s.get("index", gpu)), []).append(s)
        for g, ss in by_gpu.items():
            series.append({
                "gpu": g,
                "t_s": [(s[tkey] - t0) / 1e9 for s in ss],
                "memory_gib": [s.get(mkey) / 2**30 if mkey and s.get(mkey) is not None else None for s in ss],
                "utilization_pct": [s.get(ukey) if ukey else None for s in ss],
            })
    return series


def conditions_table(run: Run) -> list[tuple[str, str]]:
    """The run's conditions as (name, value) rows: what someone needs to reproduce it (K2)."""
    r = run.run
    rows: list[tuple[str, str]] = []

    def add(name: str, value: Any) -> None:
        if value is not None and value != "" and value != {}:
            rows.append((name, str(value)))

    ep = r.get("endpoint") or {}
    add("run", f"{run.name} (run id {r.get('run_id')})")
    add("created", r.get("created_at"))
    add("tokcheck", f"{r.get('tokcheck_version')} (schema {r.get('schema_version')})")
    add("endpoint", f"{ep.get('url')} ({ep.get('api')})")
    add("model", ep.get("model"))
    srv = r.get("server") or {}
    add("server version", srv.get("version"))
    er = r.get("engine_report") or {}
    if er:
        add("engine report", ", ".join(f"{k}={v}" for k, v in er.items()
                                       if not isinstance(v, (dict, list))))
    pr = r.get("precision_report") or {}
    if pr:
        fp = pr.get("full_precision")
        add("precision", ("full precision" if fp else "NOT full precision" if fp is False else "unknown")
            + (f" — {'; '.join(map(str, (pr.get('reasons') or [])[:3]))}" if pr.get("reasons") else ""))
    sv = r.get("serve") or {}
    if sv:
        add("serve", ", ".join(f"{k}={v}" for k, v in sv.items()))
    wl = r.get("workload") or {}
    add("workload", f"input {wl.get('input_len')} tokens, output {wl.get('output_len')} tokens, "
        f"temperature {wl.get('temperature')}, forcing {wl.get('output_forcing')}")
    add("prompts sha256", wl.get("prompts_sha256"))
    ld = r.get("load") or {}
    add("load", f"{ld.get('mode')} loop, concurrency {ld.get('concurrency')}, rate {ld.get('request_rate')}, "
        f"{ld.get('rounds')} rounds × {ld.get('requests_per_round')} requests, warm-up {ld.get('warmup')}")
    add("stream options", r.get("stream_options"))
    tok = r.get("tokenizer") or {}
    add("tokenizer", f"{tok.get('source')} (vocab {tok.get('vocab_size')}, sha256 {str(tok.get('sha256'))[:12]}…)")
    cl = r.get("client") or {}
    add("client", f"{cl.get('host')}, Python {cl.get('python')}, {cl.get('platform')}")
    env = r.get("environment")
    if isinstance(env, dict):
        gpus = _find(env, ("gpus",))
        if isinstance(gpus, list):
            add("GPUs", ", ".join(str(g.get("name")) for g in gpus if isinstance(g, dict)) or "none (CPU)")
    return rows
