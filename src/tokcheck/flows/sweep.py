"""how TTFT, per-request speed and aggregate throughput move with max_model_len and
concurrency, and where they swing by more than 30 % (the guide, 2.3: "输入长度、输出长度、并发数
任何一个变化，tok/s 都可能变化 30% 以上").

:func:`sweep_cells` and :func:`find_swings` are pure over loaded run directories (one per
max_model_len, each with one level per concurrency); :func:`run_sweep` is the edge that
restarts the server per max_model_len and benches each concurrency.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from tokcheck.core.metric_table import METRIC, with_unit
from tokcheck.record.store import Run

#: The guide's warning (2.3): a change of one condition can move tok/s by 30 % or more.
SWING_THRESHOLD = 0.30

#: The three quantities a sweep follows: (the cell's key in ``sweep.json``, the metric table's name).
SWEEP_KEYS = (("ttft_ms", "ttft_ms"), ("generation_tok_s", "generation_tok_s"),
              ("aggregate_tok_s", "output_throughput_tok_s"))

#: (key, label, unit) of each, labels and units from the metric table.
SWEEP_METRICS = tuple((key, METRIC[name].title, METRIC[name].unit) for key, name in SWEEP_KEYS)


@dataclass
class Cell:
    """One (max_model_len, concurrency) point: rounds' trimmed medians, ``None`` when absent;
    ``reasons``: why each absent one is absent (the key of :data:`SWEEP_METRICS` → the run's
    ``*_reason``)."""

    max_model_len: int
    concurrency: int
    ttft_ms: float | None
    generation_tok_s: float | None
    aggregate_tok_s: float | None
    requests_failed: int | None
    run_dir: str
    client_bound: bool = False
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass
class Swing:
    """A change of ``metric`` by more than the threshold between neighbouring cells along
    ``axis`` (the other condition held fixed). ``change`` = to ÷ from − 1. ``client_bound``:
    the client limited either cell's numbers (summary.json ``client.bound``), so the swing may be
    the client's, not the server's."""

    metric: str
    axis: str
    held: dict[str, int]
    from_value: float
    to_value: float
    from_setting: int
    to_setting: int
    change: float
    client_bound: bool = False


def sweep_cells(runs: dict[int, Run]) -> list[Cell]:
    """Cells of a sweep: ``runs`` maps each max_model_len to its run directory; one cell per
    closed-loop level."""
    cells = []
    for mml in sorted(runs):
        run = runs[mml]
        for lv in run.levels:
            if lv.concurrency is None:
                continue
            figs = {key: lv.figure(name) for key, name in SWEEP_KEYS}
            reasons = {key: f.reason or "no value in the run's summary"
                       for key, f in figs.items() if f.value is None}
            cells.append(Cell(mml, lv.concurrency, **{k: f.value for k, f in figs.items()},
                              requests_failed=lv.requests_failed, run_dir=str(run.path),
                              client_bound=bool(lv.client and lv.client.bound), reasons=reasons))
    return sorted(cells, key=lambda c: (c.max_model_len, c.concurrency))


def find_swings(cells: list[Cell], threshold: float = SWING_THRESHOLD) -> list[Swing]:
    """Every neighbouring pair (along max_model_len at fixed concurrency, and along
    concurrency at fixed max_model_len) whose metric changes by more than ``threshold``."""
    out: list[Swing] = []
    by = {(c.max_model_len, c.concurrency): c for c in cells}
    mmls = sorted({c.max_model_len for c in cells})
    concs = sorted({c.concurrency for c in cells})
    for key, _label, _unit in SWEEP_METRICS:
        for conc in concs:
            line = [by[(m, conc)] for m in mmls if (m, conc) in by]
            out += _along(line, key, "max_model_len", {"concurrency": conc}, threshold)
        for mml in mmls:
            line = [by[(mml, c)] for c in concs if (mml, c) in by]
            out += _along(line, key, "concurrency", {"max_model_len": mml}, threshold)
    return out


def _along(line: list[Cell], key: str, axis: str, held: dict[str, int], threshold: float) -> list[Swing]:
    out = []
    for a, b in zip(line, line[1:]):
        va, vb = getattr(a, key), getattr(b, key)
        if not va or vb is None:
            continue
        change = vb / va - 1
        if abs(change) > threshold:
            out.append(Swing(key, axis, held, va, vb, getattr(a, axis), getattr(b, axis), change,
                             a.client_bound or b.client_bound))
    return out


def sweep_result(runs: dict[int, Run], threshold: float = SWING_THRESHOLD) -> dict[str, Any]:
    """``{"cells": [...], "swings": [...], "threshold": t}`` as plain data (``--json``)."""
    cells = sweep_cells(runs)
    return {"threshold": threshold, "cells": [asdict(c) for c in cells],
            "swings": [asdict(s) for s in find_swings(cells, threshold)]}


def swing_marks(cells: list[Cell], swings: list[Swing]) -> dict[tuple[int, int, str], list[str]]:
    """For display: (max_model_len, concurrency, metric) → marks like ``"+45 % vs max_model_len 2048"``
    on the cell a swing arrives at."""
    marks: dict[tuple[int, int, str], list[str]] = {}
    for s in swings:
        mml = s.to_setting if s.axis == "max_model_len" else s.held["max_model_len"]
        conc = s.to_setting if s.axis == "concurrency" else s.held["concurrency"]
        marks.setdefault((mml, conc, s.metric), []).append(
            f"{s.change:+.0%} vs {s.axis} {s.from_setting}"
            + (" (client-bound: the client, not the server, limited a side)" if s.client_bound else ""))
    return marks


def na_notes(cells: list[Cell]) -> tuple[dict[tuple[int, int, str], int], list[str]]:
    """Footnotes for the cells without a value: (max_model_len, concurrency, metric key) → the
    note's number, and the notes' texts in order (one per distinct reason)."""
    numbers: dict[tuple[int, int, str], int] = {}
    texts: list[str] = []
    for c in cells:
        for key, _, _ in SWEEP_METRICS:
            why = c.reasons.get(key)
            if getattr(c, key) is None and why:
                if why not in texts:
                    texts.append(why)
                numbers[(c.max_model_len, c.concurrency, key)] = texts.index(why) + 1
    return numbers, texts


def cell_text(cell: Cell, key: str, notes: dict[tuple[int, int, str], int]) -> str:
    """A cell's value (:func:`tokcheck.core.units.fmt_number`: thousands separators, three
    significant digits below 100), or ``n/a [k]`` pointing at the footnote that says why."""
    from tokcheck.core.units import fmt_number

    v = getattr(cell, key)
    if v is not None:
        return fmt_number(v)
    k = notes.get((cell.max_model_len, cell.concurrency, key))
    return f"n/a [{k}]" if k else "n/a"


def sweep_markdown(cells: list[Cell], swings: list[Swing], threshold: float = SWING_THRESHOLD) -> str:
    """The sweep as a Markdown table, swings over the threshold marked with ⚠, and under it why
    each n/a cell has no value."""
    marks = swing_marks(cells, swings)
    notes, why = na_notes(cells)
    out = ["| max_model_len | concurrency | " + " | ".join(with_unit(lbl, u) for _, lbl, u in SWEEP_METRICS) + " |",
           "|---|---|" + "---|" * len(SWEEP_METRICS)]
    for c in cells:
        vals = []
        for key, _, _ in SWEEP_METRICS:
            cell = cell_text(c, key, notes)
            for m in marks.get((c.max_model_len, c.concurrency, key), []):
                cell += f" ⚠ {m}"
            vals.append(cell)
        out.append(f"| {c.max_model_len} | {c.concurrency} | " + " | ".join(vals) + " |")
    out.append("")
    out += [f"[{i}] n/a: {text}" for i, text in enumerate(why, 1)]
    if why:
        out.append("")
    out.append(f"⚠ marks a change over {threshold:.0%} from the neighbouring setting (the guide warns "
               "that one changed condition can move tok/s by 30 % or more).")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- the edge

@dataclass
class SweepConfig:
    """What :func:`run_sweep` does: serve ``model`` once per ``max_model_lens`` entry with the
    engine (``python``: its environment), bench each of ``concurrency`` there, with fixed
    ``input_len`` / ``output_len`` tokens and ``rounds`` rounds; each max_model_len's run
    directory is ``out/mml-<N>``."""

    model: str
    max_model_lens: list[int]
    concurrency: list[int]
    out: str
    engine: str = "vllm"
    python: str | None = None
    input_len: int = 1000
    output_len: int = 1000
    rounds: int = 3
    requests_per_round: int | None = None
    warmup: int = 1
    dtype: str = "bfloat16"
    gpu_memory_utilization: float | None = None
    enforce_eager: bool = False
    served_model_name: str | None = None
    extra_args: list[str] = field(default_factory=list)


def run_sweep(cfg: SweepConfig, progress: Callable[[str], None] | None = None) -> dict[int, Path]:
    """Restart the server for each max_model_len and bench every concurrency; returns
    max_model_len → run directory. Stops the server between settings and on any error."""
    from tokcheck.flows.pipeline import bench_served, serve_model

    progress = progress or (lambda s: None)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    dirs: dict[int, Path] = {}
    for mml in cfg.max_model_lens:
        run_dir = out / f"mml-{mml}"
        progress(f"== max_model_len {mml}: starting the server")
        with serve_model(cfg.model, engine=cfg.engine, python=cfg.python, dtype=cfg.dtype,
                         max_model_len=mml, gpu_memory_utilization=cfg.gpu_memory_utilization,
                         enforce_eager=cfg.enforce_eager, served_model_name=cfg.served_model_name,
                         extra_args=cfg.extra_args, log_dir=run_dir, progress=progress) as server:
            progress(f"== max_model_len {mml}: bench at concurrency {cfg.concurrency}")
            bench_served(server, run_dir, model_dir=cfg.model, input_len=cfg.input_len,
                         output_len=cfg.output_len, concurrency=cfg.concurrency, rounds=cfg.rounds,
                         requests_per_round=cfg.requests_per_round, warmup=cfg.warmup)
        dirs[mml] = run_dir
    return dirs
