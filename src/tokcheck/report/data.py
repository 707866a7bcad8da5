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
    with ``t_s`` (seconds since the first measured send), ``memory_gib`` and
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
             "memory_gib": [s.memory_used_bytes / 2**30 if s.memory_used_bytes is not None else None for s in ss],
             "utilization_pct": [s.utilization_gpu_pct for s in ss]}
            for g, ss in by_gpu.items()]


def conditions_table(run: Run) -> list[tuple[str, str]]:
    """The run's conditions as (name, value) rows: what someone needs to reproduce it
    (``docs/run-directory.md``)."""
    c = run.conditions
    rows: list[tuple[str, str]] = []

    def add(name: str, value: Any) -> None:
        if value is not None and value != "" and value != {}:
            rows.append((name, str(value)))

    ep = c.endpoint
    add("run", f"{run.name} (run id {c.run_id})")
    add("created", c.created_at)
    add("tokcheck", f"{c.tokcheck_version} (schema {c.schema_version})")
    if ep is not None:
        add("endpoint", f"{ep.url} ({ep.api})")
        add("model", ep.model)
    add("server version", c.server.version if c.server else None)
    er = c.engine_report.model_dump(mode="json") if c.engine_report else {}
    if er:
        add("engine report", ", ".join(f"{k}={v}" for k, v in er.items() if not isinstance(v, (dict, list))))
    pr = c.precision_report
    if pr is not None and pr.model_dump():
        fp = pr.full_precision
        add("precision", ("full precision" if fp else "NOT full precision" if fp is False else "unknown")
            + (f" — {'; '.join(map(str, pr.reasons[:3]))}" if pr.reasons else ""))
    sv = c.serve.model_dump(mode="json") if c.serve else {}
    if sv:
        add("serve", ", ".join(f"{k}={v}" for k, v in sv.items()))
    wl = c.workload
    if wl is not None:
        add("workload", f"input {wl.input_len} tokens, output {wl.output_len} tokens, "
            f"temperature {wl.temperature}, forcing {wl.output_forcing}")
        add("prompts sha256", wl.prompts_sha256)
    ld = c.load
    if ld is not None:
        cap = f", at most {ld.max_in_flight} in flight" if ld.max_in_flight is not None else ""
        add("load", f"{ld.mode} loop, concurrency {ld.concurrency}, rate {ld.request_rate}{cap}, "
            f"{ld.rounds} rounds × {ld.requests_per_round} requests, warm-up {ld.warmup}")
    add("stream options", c.stream_options)
    tok = c.tokenizer
    if tok is not None:
        add("tokenizer", f"{tok.source} (vocab {tok.vocab_size}, sha256 {str(tok.sha256)[:12]}…)")
    cl = c.client
    if cl is not None:
        add("client", f"{cl.host}, Python {cl.python}, {cl.platform}"
            + (f", connections {cl.connections}" if cl.connections else ""))
        if cl.ceiling is not None and cl.ceiling.tok_s:
            add("client ceiling", f"numbers above {cl.ceiling.tok_s:,.0f} tok/s on this machine are client-bound "
                f"(tokcheck probe, {cl.ceiling.measured_at})")
    gpus = c.environment.gpu_list() if c.environment is not None else None
    if gpus is not None:
        add("GPUs", ", ".join(str(g.name) for g in gpus) or "none (CPU)")
    return rows
