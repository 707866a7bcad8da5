"""The guide's symptom guides (sections 5.1–5.3), triggered by the evidence of a run."""

from __future__ import annotations

import re

from tokcheck.record.schema import LevelSummary
from tokcheck.record.store import Run
from tokcheck.analysis.verify.checks import SPEEDS
from tokcheck.analysis.verify.conditions import _environment_gpus
from tokcheck.analysis.verify.lookup import _fmt, telemetry_value
from tokcheck.analysis.verify.records import Check, Symptom

_OOM_RE = re.compile(r"out of memory|OutOfMemoryError|CUDA error: out of memory|"
                     r"is less than desired (?:CPU|GPU) memory utilization|"
                     r"No available memory for the cache blocks|"
                     r"larger than the maximum number of tokens that can be stored in KV cache",
                     re.IGNORECASE)

def _symptoms(run: Run, level: LevelSummary | None, metric: str | None, ratio: float | None,
              tolerance: float, checks: list[Check]) -> list[Symptom]:
    out: list[Symptom] = []
    # A run whose environment lists no GPU ran on the CPU: GPU tools and GPU advice do not apply.
    cpu_run = _environment_gpus(run.conditions) == []
    log = run.server_log or ""
    oom = _OOM_RE.search(log)
    oom_errors = [q for q in run.requests if q.error is not None and _OOM_RE.search(q.error.detail)]
    if oom or oom_errors:
        ev = [f"server.log: {oom.group(0)!r}"] if oom else []
        if oom_errors:
            ev.append(f"{len(oom_errors)} requests failed with out-of-memory errors (requests.jsonl error)")
        out.append(Symptom("out of memory at start-up or under load", ev, [
            "look for other processes holding memory (`free -h`, `top`) and stop them",
            "lower --max-model-len step by step (e.g. 32768 → 8192)",
            "a smaller KV cache: lower --kv-cache-space-gib (vLLM for the CPU) or the context",
            "then a machine with more memory",
        ] if cpu_run else [
            "look for residual processes holding GPU memory (nvidia-smi) and stop them",
            "lower --max-model-len step by step (e.g. 32768 → 8192)",
            "lower --gpu-memory-utilization (0.9 → 0.8) to leave room for the CUDA context",
            "then a GPU with more memory, or --tensor-parallel-size 2 across two GPUs",
        ]))
    if metric in SPEEDS and ratio is not None and ratio < 1 - tolerance:
        util = telemetry_value(run, level, lambda t: t.gpu_figures.utilization_mean_pct)
        ev = [f"measured is {ratio:.2f}× the claim"]
        if cpu_run:
            steps = ["a CPU run: the server and the client shared the CPU — check what else ran on it "
                     "(`uptime` load average, `top`) and measure again on a quiet machine",
                     "rounds that differ a lot (the spread) mean the load moved the result",
                     "then the weights (precision, size: `tokcheck inspect`) and the engine's version and "
                     "settings set the speed"]
        elif util is None:
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
            "check the CPU's clock is not lowered (power saving, temperature) and no other job shares it"
            if cpu_run else "check the GPU is idle and not throttled (power, temperature)",
        ]))
    slow_first = False
    ev = []
    if metric == "ttft" and ratio is not None and ratio > 1 + tolerance:
        slow_first = True
        ev.append(f"measured TTFT is {ratio:.2f}× the claimed one")
    if level is not None:
        ttft, e2e = level.figure("ttft_ms").value, level.figure("e2e_latency_ms").value
        if ttft and e2e and ttft >= 0.25 * e2e:
            slow_first = True
            ev.append(f"median TTFT {_fmt(ttft)} ms is {ttft / e2e:.0%} of median E2E latency {_fmt(e2e)} ms")
    if slow_first:
        wl = run.conditions.workload
        if wl is not None and wl.input_len:
            ev.append(f"prompt length {wl.input_len} tokens (prefill work grows with it)")
        qd = level.figure("queue_delay_ms").value if level is not None else None
        if qd:
            ev.append(f"median queue delay {_fmt(qd)} ms")
        out.append(Symptom("slow first token", ev, [
            "a long prompt makes prefill long: try a shorter input to see",
            "queueing: requests wait behind long ones — check queue delay and waiting requests",
            "no prefix cache: repeated prefixes are prefilled again — enable prefix caching",
            "a large max_model_len reserves memory and can slow start-up and scheduling",
        ]))
    return out
