"""The known traps of a claim made with another tool (pure; ``docs/measurement.md``, "Other tools' definitions").

When a claim names the tool it was measured with (``verify --claim-tool vllm-bench``), these
checks read the claim's command line (its text) and the run record, and say which of the tool's
known traps could separate the claim from the run:

1. **output length not forced** — ``vllm bench serve`` sends ``ignore_eos`` only with
   ``--ignore-eos`` (vLLM 0.32.0 ``serve.py``); AIPerf only with ``--extra-inputs ignore_eos:true``
   (its README); GuideLLM v0.7.3 sends it whenever its data sets an output length
   (``request_handlers.py``). Without it requests stop at EOS and tok/s changes with the lengths.
2. **warm-up counted** — ``--num-warmups`` defaults to 0 in ``vllm bench serve``, AIPerf's
   ``--warmup-request-count`` to 0 (``config_defaults.py``), GuideLLM warms up only with
   ``--warmup``: the first requests (compilation of new shapes, CUDA-graph capture, empty
   caches) then count.
3. **closed vs open loop** — ``vllm bench serve``'s ``--request-rate`` defaults to ``inf`` (every
   request at once, bounded only by ``--max-concurrency``); a finite rate is an open loop
   (Poisson arrivals). GuideLLM's ``--rate-type``/``--profile`` ``synchronous``/``concurrent`` are
   closed loops, ``constant``/``poisson`` open; AIPerf's ``--concurrency`` closed,
   ``--request-rate`` open. A closed-loop run and an open-loop claim measure different things.
4. **``--random-range-ratio``** (``vllm bench serve``) — up to vLLM 0.8.3 input and output
   lengths were drawn from [r·L, L] (default r = 1: fixed); since vLLM pull request #16126
   (merged April 2025) from [(1 − r)·L, (1 + r)·L] (default r = 0: fixed). The same r means a
   different workload on either side of the change.
5. **whose token counts** — ``vllm bench serve`` counts ``usage.completion_tokens`` (else its
   tokenizer), GuideLLM ``usage`` else one token per streamed line, AIPerf its own tokenizer:
   where the run shows several tokens per read or a usage/tokenizer difference, the tool's count
   differs from tokcheck's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tokcheck.record.schema import LevelSummary
from tokcheck.record.store import Run

#: The last vLLM release with the old meaning of --random-range-ratio ([r·L, L]): vLLM pull
#: request #16126 changed it (merged 2025-04-10, after 0.8.3 was released).
RANGE_RATIO_OLD_UNTIL = (0, 8, 3)


@dataclass
class Trap:
    """One trap: ``status`` ``pass`` (the claim's command avoids it), ``warn`` (it could move the
    number), ``unknown`` (the claim does not say); ``evidence`` lines cite the claim or the record."""

    name: str
    status: str
    evidence: list[str] = field(default_factory=list)


def _has(text: str, *flags: str) -> bool:
    low = text.lower()
    return any(f in low for f in flags)


def _flag_value(text: str, flag: str) -> str | None:
    m = re.search(re.escape(flag) + r"[ =]+([^\s,;]+)", text, flags=re.IGNORECASE)
    return m.group(1) if m else None


def vllm_version(text: str, fields: dict[str, Any]) -> tuple[int, ...] | None:
    """The vLLM version a claim states (``vLLM 0.8.2``, ``vllm==0.9.1``), or ``None``."""
    m = re.search(r"vllm\s*(?:==|v|version\s*)?\s*(\d+)\.(\d+)(?:\.(\d+))?", text, flags=re.IGNORECASE)
    if m is None and str(fields.get("engine") or "").lower() == "vllm" and fields.get("engine_version"):
        m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", str(fields["engine_version"]))
    if m is None:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def _output_forced(tool: str, text: str, run: Run, level: LevelSummary | None) -> Trap:
    wl = run.conditions.workload
    run_side = (f"the run forced {wl.output_len} output tokens ({wl.output_forcing})"
                if wl is not None and wl.output_len else "the run's output forcing is not recorded")
    if level is not None and level.early_stops:
        run_side += f"; {level.early_stops} of its requests stopped early anyway"
    if tool == "vllm-bench":
        ok = _has(text, "--ignore-eos", "ignore_eos")
        why = "vllm bench serve sends ignore_eos only with --ignore-eos"
    elif tool == "aiperf":
        ok = _has(text, "ignore_eos")
        why = "AIPerf forces the output length only with --extra-inputs ignore_eos:true"
    else:
        ok = None
        why = "GuideLLM v0.7.3 sends ignore_eos with max_tokens when its data sets an output length"
        if _has(text, "output_tokens", "--output-tokens", "output-tokens"):
            ok = True
    if ok:
        return Trap("output length forced", "pass", [f"the claim's command forces it ({why})", run_side])
    if ok is None:
        return Trap("output length forced", "unknown", [why + "; the claim does not give its data", run_side])
    return Trap("output length forced", "warn",
                [f"not in the claim's command: {why}, so requests may stop at EOS and output lengths vary",
                 run_side])


def _warmup(tool: str, text: str, run: Run) -> Trap:
    flag = {"vllm-bench": "--num-warmups", "aiperf": "--warmup-request-count", "guidellm": "--warmup"}[tool]
    load = run.conditions.load
    run_side = (f"the run sent {load.warmup} warm-up request(s) per level, never measured"
                if load is not None and load.warmup is not None else "the run's warm-up is not recorded")
    value = _flag_value(text, flag)
    if value is not None and value not in ("0", "0.0"):
        return Trap("warm-up counted", "pass", [f"the claim's command warms up ({flag} {value})", run_side])
    default = {"vllm-bench": "--num-warmups defaults to 0 (vLLM 0.32.0 serve.py)",
               "aiperf": "--warmup-request-count defaults to 0 (AIPerf config_defaults.py)",
               "guidellm": "GuideLLM warms up only with --warmup"}[tool]
    return Trap("warm-up counted", "warn",
                [f"no warm-up in the claim's command: {default}, so the first requests (new shapes "
                 "compiled, CUDA graphs captured, empty caches) count", run_side])


def _loop(tool: str, text: str, run: Run) -> Trap:
    load = run.conditions.load
    mode = load.mode if load is not None else None
    claim_mode: str | None = None
    said = ""
    if tool == "vllm-bench":
        rate = _flag_value(text, "--request-rate")
        if rate is not None and rate.lower() not in ("inf", "infinity"):
            claim_mode, said = "open", f"--request-rate {rate}: Poisson arrivals (open loop)"
        elif _has(text, "--max-concurrency", "max-concurrency"):
            claim_mode, said = "closed", "--max-concurrency with the default --request-rate inf: a closed loop"
        else:
            claim_mode, said = "burst", ("no --request-rate and no --max-concurrency: every prompt is sent at "
                                         "once (concurrency = --num-prompts)")
    elif tool == "guidellm":
        kind = (_flag_value(text, "--rate-type") or _flag_value(text, "--profile") or "").lower()
        if kind in ("synchronous", "concurrent"):
            claim_mode, said = "closed", f"{kind}: a closed loop"
        elif kind in ("constant", "poisson"):
            claim_mode, said = "open", f"{kind}: an open loop"
        elif kind in ("throughput", "sweep"):
            claim_mode, said = "burst", f"{kind}: as many requests as the server takes"
    else:
        if _flag_value(text, "--request-rate") is not None:
            claim_mode, said = "open", "--request-rate: an open loop"
        elif _flag_value(text, "--concurrency") is not None:
            claim_mode, said = "closed", "--concurrency: a closed loop"
    run_side = f"the run: {mode} loop" if mode else "the run's load is not recorded"
    if claim_mode is None:
        return Trap("closed vs open loop", "unknown", ["the claim's command does not say how it sent requests",
                                                       run_side])
    if mode is not None and claim_mode == mode:
        return Trap("closed vs open loop", "pass", [f"the claim: {said}", run_side])
    return Trap("closed vs open loop", "warn", [f"the claim: {said}", run_side + " — the two measure different "
                                                "things (queueing shows in TTFT only in an open loop)"])


def _range_ratio(text: str, fields: dict[str, Any], run: Run) -> Trap | None:
    value = _flag_value(text, "--random-range-ratio")
    if value is None:
        return None
    try:
        r = float(value)
    except ValueError:
        return Trap("--random-range-ratio meaning", "unknown", [f"--random-range-ratio {value}: not a number"])
    version = vllm_version(text, fields)
    wl = run.conditions.workload
    lengths = (f"the run: exactly {wl.input_len} input and {wl.output_len} output tokens"
               if wl is not None and wl.input_len else "the run's lengths are not recorded")
    old = f"up to vLLM 0.8.3 lengths were drawn from [{r:g}·L, L] (mean {(1 + r) / 2:.2f}·L)"
    new = f"since vLLM PR #16126 from [{max(0.0, 1 - r):.2f}·L, {1 + r:.2f}·L] (mean L)"
    fixed_old, fixed_new = r == 1.0, r == 0.0
    if version is None:
        fixed = fixed_old and fixed_new
        return Trap("--random-range-ratio meaning", "pass" if fixed else "warn",
                    [f"--random-range-ratio {r:g} with no vLLM version in the claim: {old}; {new}", lengths])
    is_old = version[:3] <= RANGE_RATIO_OLD_UNTIL
    ver = ".".join(map(str, version))
    fixed = fixed_old if is_old else fixed_new
    meaning = old if is_old else new
    return Trap("--random-range-ratio meaning", "pass" if fixed else "warn",
                [f"vLLM {ver}: {meaning}" + (" — fixed lengths" if fixed else " — the lengths varied"), lengths])


def _token_counts(tool: str, run: Run, level: LevelSummary | None) -> Trap:
    reqs = [q for q in run.requests_at(level.level if level is not None else None) if q.error is None]
    usage = sum(1 for q in reqs if q.n_out_usage is not None)
    differ = sum(1 for q in reqs if q.n_out_usage is not None and q.n_out_tokenizer is not None
                 and q.n_out_usage != q.n_out_tokenizer)
    per_read = level.figure("tokens_per_chunk").value if level is not None else None
    ev: list[str] = []
    status = "pass"
    if tool == "vllm-bench":
        ev.append("vllm bench serve counts usage.completion_tokens (it always asks for usage), else its tokenizer")
        ev.append(f"the run: usage sent for {usage} of {len(reqs)} requests (tokcheck counts usage too)")
        if usage < len(reqs):
            status = "warn"
    elif tool == "guidellm":
        ev.append("GuideLLM counts the usage total, else one token per streamed line with text")
        if per_read is not None and per_read > 1:
            status = "warn"
            ev.append(f"the run: a median of {per_read:g} tokens per read — without usage GuideLLM would "
                      f"count about 1/{per_read:g} of the tokens")
        else:
            ev.append(f"the run: usage sent for {usage} of {len(reqs)} requests")
    else:
        ev.append("AIPerf counts with its own tokenizer, never usage")
        ev.append(f"the run: usage and the model tokenizer differ for {differ} of {len(reqs)} requests")
        if differ:
            status = "warn"
    return Trap("usage-based vs tokenizer counts", status, ev)


def tool_traps(tool: str, claim_text: str, fields: dict[str, Any], run: Run,
               level: LevelSummary | None) -> list[Trap]:
    """The traps of a claim made with ``tool`` (``vllm-bench``, ``guidellm``, ``aiperf``), in the
    module doc's order; ``[]`` for ``tokcheck``."""
    if tool not in ("vllm-bench", "guidellm", "aiperf"):
        return []
    text = claim_text or ""
    out = [_output_forced(tool, text, run, level), _warmup(tool, text, run), _loop(tool, text, run)]
    if tool == "vllm-bench":
        rr = _range_ratio(text, fields, run)
        if rr is not None:
            out.append(rr)
    out.append(_token_counts(tool, run, level))
    return out
