"""The guide's seven checks (section 5.4), in its order, each citing the record's evidence."""

from __future__ import annotations

from typing import Any

from tokcheck.core.metric_table import BY_CLAIM_NAME
from tokcheck.core.units import fmt_bytes
from tokcheck.record.schema import EngineReport, LevelSummary, ServeSettings, Workload
from tokcheck.record.store import Run
from tokcheck.analysis.verify.bursts import BURST_WARN_SHARE, burst_stats
from tokcheck.analysis.verify.conditions import (_environment_gpus, _level_name, _level_requests,
                                                 level_metric)
from tokcheck.analysis.verify.lookup import (BYTES_PER_PARAM, _fmt, _is_off, is_quantized, normalize_precision,
                                             telemetry_value)
from tokcheck.analysis.verify.records import Check, Condition

#: The claim metrics (the metric table's ``claim_name``), and those that are speeds.
METRICS = tuple(BY_CLAIM_NAME)
SPEEDS = tuple(name for name, m in BY_CLAIM_NAME.items() if m.unit == "tok/s")

CHECK_NAMES = (
    "measurement method",
    "GPU busy",
    "quantized weights",
    "KV cache / max_model_len",
    "speculative decoding and prefix cache",
    "engine version",
    "bandwidth bound",
)

def _check_measurement(fields: dict, run: Run, level: LevelSummary | None, metric: str | None,
                       claimed: float | None, tolerance: float) -> Check:
    ev: list[str] = []
    advice: list[str] = []
    status = "pass"
    c = run.conditions
    tok = c.tokenizer
    if tok is not None and tok.source:
        ev.append(f"tokens counted with the model's tokenizer (run.json tokenizer.source = "
                  f"{tok.source}, vocab {tok.vocab_size})")
    else:
        status = "fail"
        ev.append("run.json has no tokenizer: output tokens were not counted with the model's own tokenizer")
    reqs = [q for q in _level_requests(run, level) if q.error is None]
    both = [q for q in reqs if q.n_out_usage is not None and q.n_out_tokenizer is not None]
    if both:
        off = [q for q in both if abs(q.n_out_usage - q.n_out_tokenizer) > max(1, 0.02 * q.n_out_usage)]
        if off:
            # Re-encoding generated text can merge tokens differently from the ids the model
            # emitted (BPE is not invertible on arbitrary output), so a few mismatches are a
            # warning; most requests disagreeing means a different tokenizer: a fault.
            status = "fail" if len(off) > len(both) / 2 else "warn"
            worst = max(off, key=lambda q: abs(q.n_out_usage - q.n_out_tokenizer))
            src = {q.n_out_source for q in reqs} - {None}
            ev.append(f"{len(off)} of {len(both)} requests: tokenizer count differs from usage "
                      f"(worst: usage {worst.n_out_usage} vs tokenizer {worst.n_out_tokenizer}, "
                      f"requests.jsonl n_out_usage / n_out_tokenizer)"
                      + (f"; the metrics count tokens from {', '.join(sorted(src))} (n_out_source)" if src else ""))
            advice.append("token counts disagree: check that the tokenizer is the served model's own")
        else:
            ev.append(f"tokenizer count equals usage.completion_tokens on all {len(both)} requests "
                      f"(requests.jsonl n_out_usage / n_out_tokenizer)")
    elif reqs:
        ev.append("the server sent no usage: output counted with the tokenizer only (no cross-check)")
    wl = c.workload or Workload()
    want = wl.output_len
    if level is not None:
        failed = level.requests_failed
        early = level.early_stops
        if failed:
            status = "fail"
            ev.append(f"{failed} failed requests at {_level_name(level)} (summary.json errors: {level.errors})")
        got = level.output_tokens
        if early:
            status = "fail"
            size = (f": {got.mean:,.0f} tokens on average ({got.min:,}–{got.max:,}), summary.json output_tokens"
                    if got is not None else "")
            ev.append(f"{early} requests delivered another output length than the asked {want} tokens "
                      f"(summary.json early_stops{size})")
        if not failed and not early:
            ev.append(f"{level.requests_ok} requests ok, none failed, every one delivered the asked {want} "
                      f"output tokens (sent {wl.output_forcing}; judged by what arrived)")
        client = level.client
        if client is not None and client.bound:
            status = "fail"
            ev.append("the client, not the server, limited these numbers (summary.json client.bound): "
                      + "; ".join(client.reasons))
            advice.append("the client was the limit: measure again with the client on a machine (or cores) of "
                          "its own, fewer other processes, or a lower concurrency; `tokcheck probe` shows "
                          "this machine's client ceiling")
        elif client is not None and client.ceiling_tok_s:
            ev.append(f"numbers above {client.ceiling_tok_s:,.0f} tok/s on this machine are client-bound "
                      "(tokcheck probe); this level stayed below")
        qd = level.stat("queue_delay_ms")
        if qd is not None:
            ev.append(f"median queue delay (send − due) {_fmt(qd.median)} ms (summary.json queue_delay_ms)")
    cc = telemetry_value(run, level, lambda t: t.metrics.cross_check)
    if cc is not None and cc.match is not None:
        if cc.match:
            ev.append(f"the server's generation-token counter agrees with tokcheck's count "
                      f"({_fmt(cc.server_generation_tokens)} tokens, /metrics cross_check)")
        else:
            status = "fail"
            ev.append(f"the server generated {_fmt(cc.server_generation_tokens)} tokens but tokcheck "
                      f"counted {_fmt(cc.counted_tokens)} (/metrics cross_check): other requests "
                      "were served meanwhile, or counting differs")
    b = burst_stats(reqs)
    if b.requests and (b.one_read_share > BURST_WARN_SHARE or b.zero_gap_share > BURST_WARN_SHARE):
        if status == "pass":
            status = "warn"
        if b.one_read:
            ev.append(f"{b.one_read} of {b.requests} requests had every token in one read: per-request "
                      "speed is not measurable there (requests.jsonl chunks; tpot_ms null or 0)")
        if b.zero_gaps:
            ev.append(f"{b.zero_gap_share * 100:.0f} % of inter-token gaps were 0 ms ({b.zero_gaps} of "
                      f"{b.gaps}): tokens arrived together, several SSE events per socket read "
                      "(requests.jsonl chunks)")
        if level is not None and level.client is not None and level.client.bound:
            advice.append("tokens arrived together because the client read late (it was the limit, "
                          "summary.json client): measure again with a client that keeps up")
        else:
            advice.append("the server (or a proxy) delivers tokens in bursts: TPOT and ITL measure the "
                          "delivery, not the decode; compare E2E tok/s or aggregate throughput, or "
                          "measure closer to the engine")
    elif b.requests:
        ev.append(f"tokens arrived spread out: {b.one_read} of {b.requests} requests in one read, "
                  f"{b.zero_gap_share * 100:.0f} % of gaps 0 ms (requests.jsonl chunks)")
    ev.append("time points: TTFT = first token − send; generation tok/s = 1/TPOT from the first "
              "token to the last (TTFT excluded); E2E tok/s = tokens ÷ (end − send)")
    # Which definition is the claimed number closest to? (the guide, 1.1 and 2.2)
    own = level_metric(level, metric)[0] if level is not None and metric in METRICS else None
    own_ok = own is not None and claimed and abs(own / claimed - 1) <= tolerance
    if claimed and metric in SPEEDS and not own_ok:
        near = []
        for lv in run.levels:
            for m in SPEEDS:
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


def _check_gpu_busy(run: Run, level: LevelSummary | None) -> Check:
    gpus = _environment_gpus(run.conditions)
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
        others = list(g.processes)
        if others:
            status = "fail"
            held = sum(int(p.used_memory_bytes or 0) for p in others)
            ev.append(f"GPU {i}: {len(others)} processes held {fmt_bytes(held)} before the run "
                      f"(run.json environment processes)")
            advice.append("stop the other processes on the GPU (nvidia-smi) and measure again")
        else:
            ev.append(f"GPU {i} ({g.name}): no other process held memory before the run")
        util = g.utilization_gpu_pct
        if util is not None:
            ev.append(f"GPU {i}: utilization {util} % before the run")
            if float(util) > 10:
                status = "fail"
    throttles = telemetry_value(run, level, lambda t: t.gpu_figures.throttling_seen)
    if throttles:
        status = "fail"
        ev.append(f"throttling seen during the run: {', '.join(map(str, throttles))} (telemetry throttling_seen)")
        advice.append("a power or thermal cap lowered the clocks: check power limit and cooling")
    mean_util = telemetry_value(run, level, lambda t: t.gpu_figures.utilization_mean_pct)
    if mean_util is not None:
        ev.append(f"mean GPU utilization during the run {_fmt(float(mean_util))} % (telemetry utilization_mean_pct)")
    return Check(2, CHECK_NAMES[1], status, ev, advice)


def _check_quantized(fields: dict, run: Run, conds: dict[str, Condition]) -> Check:
    ev: list[str] = []
    advice: list[str] = []
    pr, er = run.conditions.precision_report, run.conditions.engine_report
    run_full: bool | None = None
    if pr is not None and pr.full_precision is not None:
        run_full = pr.full_precision
        ev.append(f"weights audit: {'full precision' if run_full else 'NOT full precision'} "
                  f"(run.json precision_report.full_precision; {'; '.join(map(str, pr.reasons[:3]))})")
    if er is not None and er.model_fields_set & {"dtype", "quantization"}:
        q = er.quantization
        ev.append(f"engine loaded dtype={er.dtype or 'not stated'}, quantization={q or 'not stated'} "
                  "(run.json engine_report)")
        if _is_off(q) is False:
            run_full = False
        elif run_full is None and normalize_precision(er.dtype) in ("bf16", "fp16", "fp32"):
            run_full = True
    if run_full is None:
        return Check(3, CHECK_NAMES[2], "unknown",
                     ev + ["the run records neither a precision report nor the engine's loaded dtype"],
                     ["run `tokcheck inspect MODEL_DIR` and keep the server log (`tokcheck serve`)"])
    claim_prec = normalize_precision(fields.get("precision"))
    claim_quant = fields.get("quantization")
    claim_lower = is_quantized(claim_prec) or (_is_off(claim_quant) is False)
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


def _check_kv_cache(fields: dict, run: Run, level: LevelSummary | None) -> Check:
    er = run.conditions.engine_report or EngineReport()
    serve = run.conditions.serve or ServeSettings()
    ev: list[str] = []
    advice: list[str] = []
    status = "pass"
    mml = serve.max_model_len or er.max_seq_len
    kv_tokens = er.kv_cache_tokens
    max_conc = er.max_concurrency
    wl = run.conditions.workload or Workload()
    need = (wl.input_len or 0) + (wl.output_len or 0)
    conc = level.concurrency if level is not None else None
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
                  "takes KV cache memory and can cut concurrency (the guide warns of 30 %+ swings)")
    waiting = telemetry_value(run, level, lambda t: t.during.requests_waiting_max)
    if waiting:
        if status == "pass":
            status = "warn"
        ev.append(f"up to {_fmt(waiting)} requests waited in the server's queue (/metrics requests_waiting_max)")
    kv_peak = telemetry_value(run, level, lambda t: t.during.kv_cache_usage_fraction_max)
    if kv_peak is not None:
        ev.append(f"peak KV cache usage {float(kv_peak):.0%} (/metrics kv_cache_usage_fraction_max)")
        if float(kv_peak) >= 0.99 and status == "pass":
            status = "warn"
    preempt = telemetry_value(run, level, lambda t: t.metrics.counters.preemptions)
    if preempt:
        status = "fail"
        ev.append(f"{_fmt(preempt)} preemptions: the KV cache ran out and requests were evicted (/metrics)")
        advice.append("lower concurrency or max_model_len, or give the KV cache more memory")
    if status == "unknown" and (waiting is not None or kv_peak is not None):
        status = "pass"
    return Check(4, CHECK_NAMES[3], status, ev, advice)


def _check_spec_prefix(fields: dict, run: Run, level: LevelSummary | None, conds: dict[str, Condition]) -> Check:
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
        tpc = level.stat("tokens_per_chunk")
        if tpc is not None:
            ev.append(f"median tokens per chunk {_fmt(tpc.median)} (summary.json tokens_per_chunk; "
                      ">1 shows several tokens per step)")
    acc = telemetry_value(run, level, lambda t: t.metrics.spec_decode_acceptance_rate)
    if acc is not None:
        mal = telemetry_value(run, level, lambda t: t.metrics.spec_decode_mean_accepted_length)
        ev.append(f"speculative decoding acceptance rate {_fmt(float(acc))}, mean accepted length "
                  f"{_fmt(mal)} (/metrics)")
    hit = telemetry_value(run, level, lambda t: t.metrics.prefix_cache_hit_rate)
    if hit is not None:
        ev.append(f"prefix cache hit rate {float(hit):.0%} during the level (/metrics)")
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
          f"tokens of context; {bound.get('source', 'tokcheck.core.roofline')})"]
    advice: list[str] = []
    if metric not in SPEEDS or not claimed:
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
