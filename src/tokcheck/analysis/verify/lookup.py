"""Reading a run record for verify, compare and report: the telemetry figure of a level (or of
the run), and on/off words. Precision names come from the one vocabulary
(:mod:`tokcheck.core.precision`), name comparison from :mod:`tokcheck.core.names`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tokcheck.core.names import loose_key
from tokcheck.core.precision import FULL, PRECISIONS, find_precision
from tokcheck.core.precision import is_quantized as _is_quantized
from tokcheck.record.schema import LevelSummary, RunConditions, Telemetry
from tokcheck.record.store import Run


def telemetry_value(run: Run, level: LevelSummary | None, read: Callable[[Telemetry], Any]) -> Any:
    """The first value ``read`` finds (not ``None``) in the level's telemetry (the GPU sampler
    and ``/metrics`` scraper per level), then in run.json's (the whole run)."""
    for tele in (level.telemetry if level is not None else None, run.conditions.telemetry):
        if tele is not None:
            value = read(tele)
            if value is not None:
                return value
    return None


#: Loose comparison key of a name or version (letters, digits and dots; see tokcheck.core.names).
_norm = loose_key


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


#: Bytes per parameter of every name :func:`normalize_precision` returns (lower case), from the
#: one vocabulary, :mod:`tokcheck.core.precision` ("full" counts as BF16).
BYTES_PER_PARAM: dict[str, float] = {**{name.lower(): p.bytes_per_param for name, p in PRECISIONS.items()},
                                     FULL: PRECISIONS["BF16"].bytes_per_param}


def normalize_precision(value: Any) -> str | None:
    """The vocabulary's canonical name in lower case (``"BF16"``, ``"bfloat16"``,
    ``"torch.bfloat16"`` → ``"bf16"``; ``"Q4_K - Medium"`` → ``"q4_k_m"``); "full precision" →
    ``"full"`` (BF16 or FP16, see ``docs/guide.md``); ``None`` for nothing. A spelling the
    vocabulary does not know comes back as its letters and digits (``"auto"``)."""
    if value is None:
        return None
    name = find_precision(value)
    if name is not None:
        return name.lower()
    return re.sub(r"[^a-z0-9.全精度]", "", str(value).strip().lower()) or None


def is_quantized(name: Any) -> bool:
    """Whether a precision (any spelling) is a known format narrower than 16 bits."""
    return _is_quantized(name) is True


def _precision_match(claimed: str, run: str) -> bool:
    if claimed == "full":
        return run in ("bf16", "fp16", "full")
    if run == "full":
        return claimed in ("bf16", "fp16")
    return claimed == run


def _is_off(value: Any) -> bool | None:
    """``True`` when a setting reads as off/none, ``False`` when on, ``None`` when unknown."""
    if value is None:
        return None
    if isinstance(value, bool):
        return not value
    s = str(value).strip().lower()
    if s in ("", "none", "null", "off", "false", "no", "0", "disabled", "auto-none"):
        return True
    return False


# ----------------------------------------------------------------------------- the served model

#: Words that open a claim but are not a model's name.
_NOT_A_MODEL = {"a", "an", "the", "my", "our", "we", "i", "it", "this", "single", "one", "batch",
                "concurrency", "vllm", "sglang", "tgi", "trt", "tensorrt", "llama.cpp", "ollama",
                "bf16", "fp16", "fp8", "fp32", "int4", "int8", "full", "h100", "h200", "a100", "b200",
                "rtx", "gpu", "model", "speed", "throughput", "decode", "generation"}

_LEADING_NAME = re.compile(r"^\s*([A-Za-z][\w.\-/]*(?:\s+[A-Za-z0-9][\w.\-]*){0,3}?)\s*"
                           r"(?:\bon\b|\bat\b|\bwith\b|\bruns\b|\bserved\b|\bdoes\b|\bgets\b|[,:(])")


def leading_model_name(text: str) -> str | None:
    """The model name a claim opens with when the claim parser found none (a model the
    catalog does not know): ``"tiny-llama on vLLM 0.32.0, BF16, …"`` → ``"tiny-llama"``.
    ``None`` when the claim does not open with a name (``"single request on an H100: …"``)."""
    m = _LEADING_NAME.match(str(text or ""))
    if not m:
        return None
    name = m.group(1).strip()
    first = name.split()[0].lower()
    if first in _NOT_A_MODEL or "tok/s" in name.lower() or not re.search(r"[A-Za-z]{2}", name):
        return None
    return name


def _argv_model(argv: list[str] | None) -> str | None:
    for flag, value in zip(argv or [], (argv or [])[1:]):
        if flag == "--model":
            return str(value)
    return None


def served_model_names(c: RunConditions) -> list[str]:
    """Every name the run record gives the served model, without repeats: the endpoint's model
    (the served name), the server's model list, the engine's model and served name, the model
    path the server was started with, the precision audit's and the tokenizer's directory."""
    er, serve = c.engine_report, c.serve
    cands = [c.endpoint.model if c.endpoint else None, *((c.server.models or []) if c.server else []),
             er.served_model_name if er else None, er.model if er else None,
             serve.model if serve else None, _argv_model(serve.argv) if serve else None,
             c.precision_report.path if c.precision_report else None,
             c.tokenizer.source if c.tokenizer else None]
    out: list[str] = []
    for cand in cands:
        if cand and str(cand) not in out:
            out.append(str(cand))
    return out


def served_model_dir(c: RunConditions):
    """The served model's directory (a :class:`pathlib.Path` holding ``config.json``) among
    :func:`served_model_names`, or ``None`` when none is on this machine."""
    from pathlib import Path

    for cand in served_model_names(c):
        try:
            if (Path(cand).expanduser() / "config.json").is_file():
                return Path(cand).expanduser()
        except OSError:
            continue
    return None
