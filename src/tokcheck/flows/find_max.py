"""Find the limit: the highest load that still meets an SLO (``tokcheck sweep --find-max``).

Against a running server, one bench level at a time, each into its own run directory
(``<out>/NN-<level>``, its run.json ``search`` saying which step it was), judged by the SLO
(:mod:`tokcheck.core.slo`; the level's value of each objective at its percentile):

1. **Up.** From the start load (concurrency, or request rate in an open loop), double while the
   level meets the SLO.
2. **Saturation.** When a doubling raised aggregate output throughput by less than
   ``saturation_gain`` (5 % by default) the server is saturated: more load only queues. The search
   stops by itself, and the answer is the last level at which throughput still rose (the
   saturated one met the SLO too and gave no more throughput; both are in the record).
3. **Bisect.** Once a level misses the SLO, bisect between the highest level that met it and
   the lowest that missed (to adjacent concurrencies; to ``rate_precision``, 10 % by default, of
   the request rate) — the answer is the highest level that met it.

It also stops at ``max_load`` and after ``max_steps`` levels. ``find_max.json`` in ``out`` holds
the SLO, every step (level, met or not, each objective's value, throughput, goodput, the
decision taken), the answer and why the search stopped.

Why 5 %: a doubling of the load that yields under 5 % more tokens per second is within the
rounds' usual spread on a busy machine (``docs/measurement.md``), so the extra load buys nothing
measurable; set ``--saturation-gain`` to be stricter or looser.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tokcheck.core.slo import parse_slo
from tokcheck.errors import TokcheckError
from tokcheck.record.level import Level

#: Default: throughput must rise by at least this fraction per doubling of the load (module doc).
SATURATION_GAIN = 0.05

#: Default relative precision of the request rate found in an open loop.
RATE_PRECISION = 0.10


@dataclass
class FindMaxConfig:
    """What to search: the server (``url``, ``model`` as it serves it, ``tokenizer``), the SLO
    (a :func:`tokcheck.core.slo.parse_slo` spec), the workload and rounds of each level, the loop
    (``mode`` ``closed``: concurrency from ``start``; ``open``: request rate from ``start``
    req/s, with ``max_in_flight``), and the limits."""

    url: str
    model: str
    tokenizer: str
    slo: str
    out: str
    mode: str = "closed"
    start: float = 1
    max_load: float = 256
    saturation_gain: float = SATURATION_GAIN
    rate_precision: float = RATE_PRECISION
    max_steps: int = 12
    api: str = "completions"
    input_len: int = 1000
    output_len: int = 1000
    rounds: int = 3
    warmup: int = 1
    requests_per_round: int | None = None
    max_in_flight: int | None = None
    timeout_s: float = 600.0
    api_key: str | None = None
    seed: int = 0


@dataclass
class Step:
    """One level of the search."""

    step: int
    label: str
    load: float
    run_dir: str
    met: bool | None
    throughput_tok_s: float | None
    goodput_tok_s: float | None
    share_met_all: float | None
    objectives: list[dict[str, Any]]
    decision: str = ""


@dataclass
class SearchResult:
    """The search: its steps, the answer (``None`` when even the start load missed the SLO) and
    why it stopped."""

    slo: str
    source: str | None
    mode: str
    steps: list[Step] = field(default_factory=list)
    answer: Step | None = None
    stopped_because: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"slo": self.slo, "source": self.source, "mode": self.mode,
                "steps": [asdict(s) for s in self.steps],
                "answer": asdict(self.answer) if self.answer is not None else None,
                "stopped_because": self.stopped_because}


def _level(cfg: FindMaxConfig, load: float) -> Level:
    if cfg.mode == "open":
        return Level.open(load, cfg.max_in_flight)
    return Level.closed(int(load))


def _fmt(load: float, mode: str) -> str:
    return f"rate {load:g} req/s" if mode == "open" else f"concurrency {int(load)}"


def search(cfg: FindMaxConfig, measure: Callable[[int, Level], Any]) -> SearchResult:
    """Run the search of the module doc. ``measure(step, level)`` benches one level and returns
    its :class:`~tokcheck.record.schema.LevelSummary` (with ``slo``) and run directory.

    Raises:
        TokcheckError: a bad SLO, mode, start or limit.
    """
    slo = parse_slo(cfg.slo)
    if cfg.mode not in ("closed", "open"):
        raise TokcheckError(f"bad mode {cfg.mode!r}: closed or open")
    if cfg.start <= 0 or cfg.max_load < cfg.start:
        raise TokcheckError("the search needs 0 < start ≤ the highest load")
    if cfg.mode == "closed" and (int(cfg.start) != cfg.start or int(cfg.max_load) != cfg.max_load):
        raise TokcheckError("concurrency must be a whole number")
    result = SearchResult(slo=slo.text, source=slo.source, mode=cfg.mode)
    passing: list[Step] = []
    lo_pass: float | None = None
    hi_fail: float | None = None
    load = cfg.start
    for n in range(1, cfg.max_steps + 1):
        summary, run_dir = measure(n, _level(cfg, load))
        lv_slo = summary.slo
        step = Step(step=n, label=summary.label, load=load, run_dir=str(run_dir),
                    met=lv_slo.met if lv_slo is not None else None,
                    throughput_tok_s=summary.figure("output_throughput_tok_s").value,
                    goodput_tok_s=lv_slo.goodput_tok_s if lv_slo is not None else None,
                    share_met_all=lv_slo.share_met_all if lv_slo is not None else None,
                    objectives=[o.model_dump() for o in (lv_slo.objectives if lv_slo is not None else [])])
        result.steps.append(step)
        if step.met:
            below = max((s for s in passing if s.load < load), key=lambda s: s.load, default=None)
            passing.append(step)
            lo_pass = load if lo_pass is None else max(lo_pass, load)
            if hi_fail is None and below is not None and below.throughput_tok_s and step.throughput_tok_s is not None:
                gain = step.throughput_tok_s / below.throughput_tok_s - 1
                if gain < cfg.saturation_gain:
                    step.decision = (f"met the SLO; throughput {gain:+.0%} from {_fmt(below.load, cfg.mode)}: "
                                     "saturated, stop")
                    result.answer = below
                    result.stopped_because = (f"saturation: doubling the load to {_fmt(load, cfg.mode)} raised "
                                              f"throughput by {gain:+.1%} (< {cfg.saturation_gain:.0%})")
                    break
        else:
            hi_fail = load if hi_fail is None else min(hi_fail, load)
        nxt = _next_load(cfg, lo_pass, hi_fail, load)
        if nxt is None:
            step.decision = "met the SLO" if step.met else "missed the SLO"
            result.answer = max(passing, key=lambda s: s.load, default=None)
            if lo_pass is None:
                result.stopped_because = f"even {_fmt(cfg.start, cfg.mode)} missed the SLO"
            elif hi_fail is None:
                result.stopped_because = f"reached the highest load asked for ({_fmt(cfg.max_load, cfg.mode)})"
            else:
                result.stopped_because = (f"bracketed: {_fmt(lo_pass, cfg.mode)} met the SLO, "
                                          f"{_fmt(hi_fail, cfg.mode)} missed it")
            break
        step.decision = f"{'met' if step.met else 'missed'} the SLO; next {_fmt(nxt, cfg.mode)}"
        load = nxt
    else:
        result.answer = max(passing, key=lambda s: s.load, default=None)
        result.stopped_because = f"stopped after {cfg.max_steps} steps (--max-steps)"
    return result


def _next_load(cfg: FindMaxConfig, lo_pass: float | None, hi_fail: float | None, load: float) -> float | None:
    """The next load to try, or ``None`` when the search is done (module doc)."""
    closed = cfg.mode == "closed"
    if hi_fail is None:  # going up
        if load >= cfg.max_load:
            return None
        return min(load * 2, cfg.max_load)
    low = lo_pass if lo_pass is not None else 0
    if closed:
        mid = (int(low) + int(hi_fail)) // 2
        if mid <= low or mid < 1 or mid >= hi_fail:
            return None
        return float(mid)
    if lo_pass is None:
        mid = hi_fail / 2
        return mid if mid >= cfg.start / 8 else None
    if hi_fail / lo_pass - 1 <= cfg.rate_precision:
        return None
    return round((lo_pass + hi_fail) / 2, 6)


def run_find_max(cfg: FindMaxConfig, hooks_for: Callable[[int], tuple[list, dict]] | None = None,
                 progress: Callable[[str], None] | None = None) -> SearchResult:
    """Bench each step against ``cfg.url`` into ``cfg.out/NN-<level>`` and write
    ``cfg.out/find_max.json``. ``hooks_for(step)``: the telemetry hooks and run.json extras for a
    step (:func:`tokcheck.machine.run_telemetry.telemetry_for`); none by default.

    Raises:
        TokcheckError: as :func:`search` and :func:`tokcheck.loadgen.bench.run_bench`.
    """
    from pydantic import ValidationError

    from tokcheck.loadgen.bench import BenchConfig, run_bench

    progress = progress or (lambda s: None)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)

    def measure(step: int, level: Level) -> tuple[Any, Path]:
        run_dir = out / f"{step:02d}-{level.label.replace('=', '')}"
        progress(f"== step {step}: {level.name}")
        try:
            bench = BenchConfig(
                url=cfg.url, model=cfg.model, tokenizer=cfg.tokenizer, api=cfg.api, input_len=cfg.input_len,
                output_len=cfg.output_len, concurrency=[level.concurrency or 1],
                request_rate=[level.request_rate] if level.request_rate else None,
                max_in_flight=level.max_in_flight, rounds=cfg.rounds, warmup=cfg.warmup,
                requests_per_round=cfg.requests_per_round, out=str(run_dir), timeout_s=cfg.timeout_s,
                api_key=cfg.api_key, seed=cfg.seed, slo=cfg.slo)
        except ValidationError as err:
            first = err.errors()[0]
            raise TokcheckError(f"bad option {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
        hooks, extra = hooks_for(step) if hooks_for is not None else ([], {})
        extra = {**extra, "search": {"step": step, "mode": cfg.mode, "slo": cfg.slo, "folder": str(out)}}
        summary = run_bench(bench, conditions_extra=extra, hooks=hooks)
        return summary.levels[0], run_dir

    result = search(cfg, measure)
    (out / "find_max.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    return result
