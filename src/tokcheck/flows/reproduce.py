"""One command from a claim to a verdict: derive the workload from the claim, check the machine
(doctor) and the weights (inspect), stop early when the checklist already fails, serve, bench
with rounds, verify and write the report.

:func:`plan_from_claim` and :func:`preflight` are pure; :func:`reproduce` is the edge.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tokcheck.analysis.verify.lookup import normalize_precision
from tokcheck.core.precision import torch_dtype

#: The guide's defaults where a claim is silent (3.4 and 4.3): about 1000 tokens in and out,
#: one request; its vLLM example serves with --max-model-len 8192.
DEFAULT_INPUT_LEN = 1000
DEFAULT_OUTPUT_LEN = 1000
DEFAULT_CONCURRENCY = 1
DEFAULT_MAX_MODEL_LEN = 8192
#: The guide (3.4): "连续执行三轮以上，去掉最高值和最低值后取中位数" — 3 rounds at least.
DEFAULT_ROUNDS = 3


@dataclass
class Plan:
    """The workload a claim implies: what to serve and how to bench it. ``notes`` say which
    values came from the guide's defaults because the claim was silent."""

    metric: str
    concurrency: int
    levels: list[int]
    input_len: int
    output_len: int
    max_model_len: int
    dtype: str
    rounds: int
    notes: list[str] = field(default_factory=list)


def plan_from_claim(fields: dict[str, Any], *, model_max_position: int | None = None,
                    rounds: int = DEFAULT_ROUNDS) -> Plan:
    """Derive the workload from the claim's fields (``Claim.fields``); pure.

    ``model_max_position``: the model's ``max_position_embeddings`` (config.json), which caps
    the default max_model_len.
    """
    notes: list[str] = []
    metric = fields.get("metric")
    if not metric:
        metric = "generation_tok_s"
        notes.append("the claim does not say which metric: generation tok/s assumed (the guide: "
                     "tok/s is the decode-phase speed)")
    conc = fields.get("concurrency")
    if conc is None:
        conc = DEFAULT_CONCURRENCY
        notes.append("concurrency not stated: one request (the guide's single-request reading)")
    inp = fields.get("input_tokens")
    if inp is None:
        inp = DEFAULT_INPUT_LEN
        notes.append(f"input length not stated: {DEFAULT_INPUT_LEN} tokens (the guide's recommendation)")
    out = fields.get("output_tokens")
    if out is None:
        out = DEFAULT_OUTPUT_LEN
        notes.append(f"output length not stated: {DEFAULT_OUTPUT_LEN} tokens (the guide's recommendation)")
    mml = fields.get("max_model_len")
    if mml is None:
        mml = DEFAULT_MAX_MODEL_LEN
        if model_max_position:
            mml = min(mml, int(model_max_position))
        mml = max(mml, int(inp) + int(out))
        notes.append(f"max_model_len not stated: {mml} (the guide's 8192, capped by the model's "
                     f"max_position_embeddings {model_max_position}, at least input + output)")
    prec = normalize_precision(fields.get("precision"))
    engine_dtype = torch_dtype(fields.get("precision")) if prec else None
    dtype = engine_dtype or "bfloat16"
    if prec and engine_dtype is None:
        notes.append(f"the claim's precision is {fields.get('precision')}: the model directory's "
                     "weights are served as they are (bfloat16); check 3 compares the two")
    elif prec is None:
        notes.append("precision not stated: bfloat16 (the guide's full precision)")
    levels = sorted({1, int(conc)})
    return Plan(metric=metric, concurrency=int(conc), levels=levels, input_len=int(inp),
                output_len=int(out), max_model_len=int(mml), dtype=dtype, rounds=int(rounds), notes=notes)


def preflight(fields: dict[str, Any], plan: Plan, checklist: list[dict[str, Any]],
              model_max_position: int | None) -> list[str]:
    """Reasons to stop before serving (empty: go on); pure. The checklist is doctor's pre-deployment checklist
    (``key``, ``status``, ``evidence``)."""
    stop: list[str] = []
    items = {c["key"]: c for c in checklist}
    claim_full = normalize_precision(fields.get("precision")) in (None, "full", "bf16", "fp16", "fp32")
    unq = items.get("unquantized")
    if unq and unq["status"] == "fail" and claim_full:
        stop.append(f"the weights are quantized, the claim is about full precision: {unq['evidence']}")
    fit = items.get("memory_fit")
    if fit and fit["status"] == "fail":
        stop.append(f"will not fit: {fit['evidence']}")
    need = plan.input_len + plan.output_len
    if plan.max_model_len < need:
        stop.append(f"max_model_len {plan.max_model_len} is below input + output = {need} tokens")
    if model_max_position and need > int(model_max_position):
        stop.append(f"input + output = {need} tokens exceeds the model's max_position_embeddings "
                    f"{model_max_position}")
    return stop


@dataclass
class ReproduceResult:
    """What :func:`reproduce` did: the plan, the checklist, why it stopped early (if it did),
    the run directory and verdict (if it measured), and the files it wrote."""

    plan: Plan
    checklist: list[dict[str, Any]]
    stopped: list[str]
    run_dir: str | None = None
    verdict: Any = None
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"plan": asdict(self.plan), "checklist": self.checklist, "stopped": self.stopped,
                "run_dir": self.run_dir, "verdict": self.verdict.to_dict() if self.verdict else None,
                "files": self.files}


def _model_max_position(model_dir: Path) -> int | None:
    try:
        cfg = json.loads((model_dir / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    v = cfg.get("max_position_embeddings")
    return int(v) if isinstance(v, int) else None


def reproduce(claim_text: str, model_dir: str | Path, *, out: str | Path, engine: str = "vllm",
              python: str | None = None, rounds: int = DEFAULT_ROUNDS, tolerance: float = 0.2,
              requests_per_round: int | None = None, warmup: int = 1, enforce_eager: bool = False,
              served_model_name: str | None = None, overrides: dict[str, Any] | None = None,
              progress: Callable[[str], None] | None = None) -> ReproduceResult:
    """Claim → plan → doctor + inspect → (stop, or) serve → bench → verify → report, in ``out``.

    Raises:
        TokcheckError: an unknown engine, a claim that does not parse, a model directory that
            is not one, an engine that fails to start, an output directory that already holds
            a run.
    """
    from tokcheck.analysis.verify.claim_bound import bound_for, claim_fields
    from tokcheck.machine.doctor import doctor
    from tokcheck.errors import TokcheckError
    from tokcheck.flows.pipeline import bench_served, serve_model
    from tokcheck.report import render_csv, render_html, render_markdown
    from tokcheck.record.store import load_run
    from tokcheck.analysis.verify import verify

    from tokcheck.engines.registry import get_engine

    say = progress or (lambda s: None)
    engine = get_engine(engine).name  # an unknown engine fails here, before any work
    mdir = Path(model_dir)
    if not (mdir / "config.json").is_file():
        raise TokcheckError(f"{mdir} is not a model directory (no config.json)")
    fields = claim_fields(claim_text, **(overrides or {}))
    max_pos = _model_max_position(mdir)
    plan = plan_from_claim(fields, model_max_position=max_pos, rounds=rounds)
    for n in plan.notes:
        say(f"plan: {n}")
    say(f"plan: {plan.metric} at concurrency {plan.concurrency}, {plan.input_len} in / "
        f"{plan.output_len} out, max_model_len {plan.max_model_len}, dtype {plan.dtype}, {plan.rounds} rounds")
    out = Path(out)
    if (out / "run.json").exists():
        raise TokcheckError(f"{out} already holds a run — choose another --out")
    out.mkdir(parents=True, exist_ok=True)

    say("doctor: checking the machine and the model directory")
    doc = doctor(model_dir=mdir, dtype=plan.dtype, max_model_len=plan.max_model_len,
                 concurrency=plan.concurrency, input_len=plan.input_len, output_len=plan.output_len,
                 rounds=plan.rounds)
    checklist = doc["checklist"]
    (out / "doctor.json").write_text(json.dumps(doc, indent=2, default=str))
    stopped = preflight(fields, plan, checklist, max_pos)
    result = ReproduceResult(plan=plan, checklist=checklist, stopped=stopped,
                             files=[str(out / "doctor.json")])
    if stopped:
        (out / "reproduce.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
        result.files.append(str(out / "reproduce.json"))
        return result

    with serve_model(mdir, engine=engine, python=python, dtype=plan.dtype, max_model_len=plan.max_model_len,
                     enforce_eager=enforce_eager, served_model_name=served_model_name, log_dir=out,
                     progress=say) as server:
        say(f"bench: concurrency {plan.levels}, {plan.rounds} rounds")
        bench_served(server, out, model_dir=mdir, input_len=plan.input_len, output_len=plan.output_len,
                     concurrency=plan.levels, rounds=plan.rounds, requests_per_round=requests_per_round,
                     warmup=warmup, environment=doc["environment"])
    run = load_run(out)
    bound = bound_for(fields, model_dir=mdir, run=run)
    verdict = verify(fields, run, tolerance=tolerance, bound=bound, metric=plan.metric)
    result.run_dir, result.verdict = str(out), verdict
    files = {"report.html": render_html([run], verdict, bound), "report.md": render_markdown([run], verdict, bound),
             "requests.csv": render_csv([run])}
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        result.files.append(str(out / name))
    (out / "reproduce.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    result.files.append(str(out / "reproduce.json"))
    return result
