"""The decode bound of a run's own model on its own GPU, for the report's roofline plot when no
claim is given: the model from the run's precision audit path (its ``config.json``), the GPU
from the run's environment (or ``--gpu``), the precision the engine loaded, the context at the
middle of generation (input + output / 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tokcheck.errors import TokcheckError
from tokcheck.record.store import Run
from tokcheck.analysis.verify.conditions import _environment_gpus
from tokcheck.core.precision import FULL, find_precision


def _model_dir(run: Run) -> Path | None:
    c = run.conditions
    for candidate in (c.precision_report.path if c.precision_report else None,
                      c.endpoint.model if c.endpoint else None,
                      c.tokenizer.source if c.tokenizer else None):
        if candidate and (Path(str(candidate)) / "config.json").is_file():
            return Path(str(candidate))
    return None


def bound_for_run(run: Run, gpu: str | None = None, model_dir: str | Path | None = None) -> dict[str, Any]:
    """``decode_bound``'s fields for the run's model on its GPU (``gpu``: the catalog's name of the
    GPU bounded, which a report contrasts with what the run used), or ``{"reason": …}``."""
    from tokcheck.core.catalog import find_gpu, model_from_config
    from tokcheck.core.roofline import decode_bound

    mdir = Path(model_dir) if model_dir else _model_dir(run)
    if mdir is None:
        return {"reason": "no bound: the run does not point at a model directory with a config.json"}
    gpus = _environment_gpus(run.conditions)
    name = gpu or (str(gpus[0].name) if gpus else None)
    if not name:
        why = "a CPU run (no GPU in its environment)" if gpus == [] else "no GPU recorded"
        return {"reason": f"no bound: {why}; give --gpu to bound against a GPU's bandwidth"}
    er = run.conditions.engine_report
    loaded = find_precision(er.dtype if er else None)
    prec = "BF16" if loaded in (None, FULL) else loaded
    wl = run.conditions.workload
    context = int(((wl.input_len if wl else None) or 1000) + ((wl.output_len if wl else None) or 1000) / 2)
    try:
        spec = find_gpu(name.replace("NVIDIA ", ""))
        b = decode_bound(model_from_config(mdir), spec, prec, context)
    except TokcheckError as err:
        return {"reason": f"no bound: {err}"}
    if not b.hard_tok_s:
        return {"reason": "no bound: the GPU has no bandwidth in the catalog"}
    return {"bytes_per_token": b.bytes_per_token, "hard_tok_s": b.hard_tok_s,
            "realistic_tok_s": b.realistic_tok_s, "context_tokens": b.context_tokens, "gpu": spec.name,
            "source": f"tokcheck.core.roofline: {mdir.name} on {spec.name} at {prec}"}
