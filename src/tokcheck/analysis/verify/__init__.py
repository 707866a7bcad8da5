"""a claim against one's own run — same conditions? same number? if not, why?

Pure: takes the claim's fields (the ``fields`` of :func:`tokcheck.core.claim.parse_claim`, a dict),
a loaded run directory (:class:`tokcheck.record.store.Run`) and optionally the decode bound
(:func:`tokcheck.core.roofline.decode_bound`'s fields as a dict) and returns a :class:`Verdict`.

- **Conditions.** Each condition the claim states is put beside the run's record: ``match``,
  ``differ`` or ``unknown`` (either side silent). Conditions that change what the number
  *means* — model, GPU and count, concurrency, input and output lengths — make a claim
  incomparable when they differ (the guide, 4.3: with different context, concurrency or output
  lengths "tok/s 不能直接做减法"). The others (precision, engine and version, max_model_len,
  speculative decoding, prefix cache, CUDA graph) are the guide's explanations of a gap (4.4):
  a difference there is reported and the checks cite it, but the numbers are still compared.
- **Metric.** Claimed and measured are compared on one metric definition only: generation
  tok/s (1/TPOT, TTFT excluded), end-to-end tok/s, aggregate output throughput, or TTFT.
  Reproduced when ``|measured / claimed − 1| ≤ tolerance`` (default 20 %, the guide's 4.4).
- **Checks.** The guide's seven, in its order (5.4): measurement method, GPU busy, quantized
  weights, KV cache / max_model_len, speculative decoding and prefix cache, engine version,
  bandwidth bound — each with a status (``pass`` / ``warn`` / ``fail`` / ``unknown``) and the
  evidence from the record it rests on. Then the guide's symptom guides (5.1–5.3) that the
  evidence triggers.
"""

from __future__ import annotations

from tokcheck.core.metric_table import BY_CLAIM_NAME
from tokcheck.record.store import Run
from tokcheck.analysis.verify.checks import (CHECK_NAMES, _check_bound, _check_engine, _check_gpu_busy,
                                    _check_kv_cache, _check_measurement, _check_quantized,
                                    _check_spec_prefix)
from tokcheck.analysis.verify.bursts import NO_TPOT_INCOMPARABLE_SHARE, burst_stats
from tokcheck.analysis.verify.conditions import (BLOCKING, CONDITION_ORDER, _compare_condition, _level_name,
                                        _level_requests, claimed_value, level_metric, run_conditions,
                                        select_level)
from tokcheck.analysis.verify.lookup import BYTES_PER_PARAM, _fmt, normalize_precision
from tokcheck.analysis.verify.records import Check, Condition, Symptom, Verdict
from tokcheck.analysis.verify.symptoms import _symptoms

__all__ = ["BYTES_PER_PARAM", "CHECK_NAMES", "DEFAULT_TOLERANCE", "METRICS", "Check", "Condition",
           "Symptom", "Verdict", "normalize_precision", "verify"]

#: The guide (4.4): "如果自己复现的结果和宣称值偏差超过 20%，按优先级检查…"
DEFAULT_TOLERANCE = 0.20

#: Metric names as the claim parser spells them (the metric table's ``claim_name``).
METRICS = tuple(BY_CLAIM_NAME)

#: What each of them means, from the metric table.
METRIC_LABELS = {name: m.definition for name, m in BY_CLAIM_NAME.items()}

#: The claim's metric → the key of a tool's reading (:mod:`tokcheck.analysis.definitions`).
TOOL_KEYS = {"ttft": "ttft_ms", "generation_tok_s": "generation_tok_s", "e2e_tok_s": "e2e_tok_s",
             "aggregate_throughput": "output_throughput_tok_s"}


def verify(fields: dict, run: Run, *, tolerance: float = DEFAULT_TOLERANCE,
           bound: dict | None = None, metric: str | None = None, claim_tool: str | None = None,
           claim_text: str | None = None) -> Verdict:
    """Compare a claim (``fields``: ``Claim.fields``) with a run directory.

    ``tolerance`` is a fraction (0.2 = 20 %); ``bound`` the decode bound for the claim's model
    and GPU (keys ``hard_tok_s``, ``realistic_tok_s``, ``bytes_per_token``,
    ``context_tokens``; or ``{"reason": …}`` when it could not be computed); ``metric``
    overrides the claim's metric. ``claim_tool`` (``vllm-bench``, ``guidellm``, ``aiperf``): the
    tool the claim was measured with — the run is read under that tool's definitions
    (:mod:`tokcheck.analysis.definitions`) and compared with the claim so, and the tool's known
    traps are checked against ``claim_text`` (its command line) and the run
    (:mod:`tokcheck.analysis.verify.traps`). Pure: reads nothing but its arguments.
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
        status = _compare_condition(name, claimed_v, run_v)
        if name == "model" and status == "differ" and "model_names" in facts:
            # the served name may be a path or an alias: any of the run's names for it counts
            status = _compare_condition(name, claimed_v, facts["model_names"][0])
        conds[name] = Condition(name, claimed_v, run_v, status, name in BLOCKING, src)

    claimed, unit = claimed_value(fields)
    measured = None
    rounds = spread = None
    if metric is None:
        reasons.append("the claim does not say which metric its number is (use --metric)")
        conds["metric"] = Condition("metric", None, None, "unknown", True, None)
    elif level is not None:
        measured, unit_m, rounds, spread, mwhy = level_metric(level, metric)
        unit = unit or unit_m
        if measured is not None and metric == "generation_tok_s":
            b = burst_stats(_level_requests(run, level))
            if b.requests and b.one_read_share > NO_TPOT_INCOMPARABLE_SHARE:
                mwhy = (f"{b.one_read} of {b.requests} requests at {_level_name(level)} had every token "
                        "in one read (no TPOT): their generation tok/s is not a measurement "
                        f"(summary.json would have said {_fmt(measured)} tok/s)")
                measured = rounds = spread = None
        if measured is None:
            reasons.append(f"the run did not measure {metric}: {mwhy}")
        conds["metric"] = Condition("metric", metric, metric if measured is not None else None,
                                    "match" if measured is not None else "unknown", True,
                                    f"summary.json {_level_name(level)}")
    else:
        conds["metric"] = Condition("metric", metric, None, "unknown", True, None)
    measured_tokcheck = defs = None
    tool_title = None
    if claim_tool and claim_tool != "tokcheck" and level is not None:
        from tokcheck.analysis.definitions import TOOLS, definitions

        defs = definitions(run, level.level)
        tool = TOOLS[claim_tool]
        tool_title = f"{tool.title}'s definitions ({tool.version})"
        if metric is not None and measured is not None:
            measured_tokcheck = measured
            measured = defs[claim_tool].get(TOOL_KEYS[metric])
            rounds = spread = None
            if measured is None:
                reasons.append(f"{tool.title} has no {metric} of this run")
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
        _check_gpu_busy(run, level),
        _check_quantized(fields, run, conds),
        _check_kv_cache(fields, run, level),
        _check_spec_prefix(fields, run, level, conds),
        _check_engine(conds),
        _check_bound(fields, metric, claimed, measured, bound,
                     level.concurrency if level is not None else None),
    ]
    symptoms = _symptoms(run, level, metric, ratio, tolerance, checks)

    tol_pct = f"{tolerance * 100:g} %"
    where = _level_name(level) + (f", read under {tool_title}" if tool_title else "")
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
        level={"label": level.label, "concurrency": level.concurrency, "request_rate": level.request_rate,
               "max_in_flight": level.max_in_flight} if level is not None else None,
        measured_rounds=rounds, measured_spread=spread, conditions=ordered,
        incomparable_reasons=reasons, checks=checks, symptoms=symptoms,
        run_dir=str(run.path), bound=bound,
        claim_tool=claim_tool, measured_tokcheck=measured_tokcheck, definitions=defs,
        traps=_traps(claim_tool, claim_text, fields, run, level),
    )


def _traps(claim_tool: str | None, claim_text: str | None, fields: dict, run: Run, level) -> list:
    if not claim_tool:
        return []
    from tokcheck.analysis.verify.traps import tool_traps

    return tool_traps(claim_tool, claim_text or "", fields, run, level)
