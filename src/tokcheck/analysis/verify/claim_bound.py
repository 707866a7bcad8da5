"""A claim's fields and its decode bound for verify and reproduce: the claim parsed and
completed by options, the model named by the claim's opening words when the catalog does not
know it, and the roofline bound of the claim's model on the claim's (or the run's) GPU."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tokcheck.errors import TokcheckError


def claim_fields(text: str, **overrides: Any) -> dict[str, Any]:
    """The claim's fields (issue 2's keys), completed or overridden by the given options
    (``None`` is ignored). When the parser found no model (a name the catalog does not know,
    such as ``tiny-llama``), the name the claim opens with is taken as the model
    (:func:`tokcheck.analysis.verify.lookup.leading_model_name`), for the loose comparison with the
    run's served model. Raises TokcheckError for a claim that does not parse."""
    from tokcheck.core.claim import apply_overrides, parse_claim
    from tokcheck.analysis.verify.lookup import leading_model_name

    fields = dict(apply_overrides(parse_claim(text), **overrides).fields)
    if not fields.get("model"):
        name = leading_model_name(text)
        if name:
            fields["model"] = name
    return fields


def _run_gpu(run) -> str | None:
    from tokcheck.analysis.verify.conditions import _environment_gpus

    gpus = _environment_gpus(run.conditions) or []
    name = str(gpus[0].name or "") if gpus else ""
    return name.replace("NVIDIA ", "") or None


def bound_for(fields: dict[str, Any], model_dir: str | Path | None = None, run=None) -> dict[str, Any]:
    """The claim's single-request decode bound (``tokcheck claim``'s roofline: the claim's
    model and GPU from the catalog), or ``{"reason": …}`` when it cannot be computed.

    When the claim's model is not in the catalog, the model comes from ``model_dir``'s
    ``config.json``, or else from the served model directory the run record names
    (:func:`tokcheck.analysis.verify.lookup.served_model_dir`). With a ``run`` (:class:`Run`), the
    claim's silent GPU and input/output lengths are taken from the run. On a CPU run with no
    GPU named the reason says that the bound needs a GPU or a bandwidth."""
    from tokcheck.core.catalog import find_model, model_from_config
    from tokcheck.core.claim import FIELD_KEYS, Claim
    from tokcheck.core.verdict import analyze_claim
    from tokcheck.analysis.verify.lookup import served_model_dir

    f = {k: v for k, v in fields.items() if k in FIELD_KEYS}
    taken: list[str] = []
    if run is not None:
        if not f.get("gpu") and _run_gpu(run):
            f["gpu"] = _run_gpu(run)
            taken.append(f"GPU {f['gpu']}")
        wl = run.conditions.workload
        for key, rkey in (("input_tokens", "input_len"), ("output_tokens", "output_len")):
            value = getattr(wl, rkey) if wl is not None else None
            if not f.get(key) and value:
                f[key] = value
                taken.append(f"{rkey} {value}")
        if model_dir is None:
            model_dir = served_model_dir(run.conditions)
    model = None
    if model_dir is not None:
        try:
            if not f.get("model"):
                raise TokcheckError("no model named")
            find_model(f["model"])
        except TokcheckError:
            try:
                model = model_from_config(model_dir)
            except TokcheckError as err:
                return {"reason": f"no bound: {err}"}
    claim = Claim(text="", fields=f)
    try:
        analysis = analyze_claim(claim, model=model)
    except TokcheckError as err:
        return {"reason": f"no bound: {err}"}
    b = analysis.bound
    name = analysis.model.name if analysis.model else f.get("model")
    if not b or not b.get("hard_tok_s"):
        if b and b.get("bytes_per_token") and not f.get("gpu"):
            where = " (this run was on the CPU)" if run is not None and _cpu_run(run) else ""
            why = (f"{name} reads {b['bytes_per_token'] / 1e9:,.2f} GB per token, but the bound needs a "
                   f"GPU or a bandwidth and neither the claim nor the run names a GPU{where}; "
                   "give --gpu NAME to bound it against that GPU")
        else:
            why = "; ".join(analysis.explanations[:1]) or (b or {}).get("hard_tok_s_reason") or "no GPU or bandwidth"
        return {"reason": f"no bound: {why}"}
    out = dict(b)
    gpu = analysis.gpu.name if analysis.gpu else f.get("gpu")
    src = f"tokcheck.core.roofline: {name} on {gpu} at {b.get('precision')}"
    if model is not None:
        src += f" (model from {Path(model_dir)}/config.json)"
    if taken:
        src += f"; from the run: {', '.join(taken)}"
    out["source"] = src
    return out


def _cpu_run(run) -> bool:
    from tokcheck.analysis.verify.conditions import _environment_gpus

    return _environment_gpus(run.conditions) == []
