"""Reading values out of run records written by several modules (bench, serve, doctor):
lookups that tolerate missing sections, and on/off words. Precision names come from the one
vocabulary (:mod:`tokcheck.core.precision`), name comparison from :mod:`tokcheck.core.names`."""

from __future__ import annotations

import re
from typing import Any

from tokcheck.core.names import loose_key
from tokcheck.core.precision import FULL, PRECISIONS, find_precision
from tokcheck.core.precision import is_quantized as _is_quantized
from tokcheck.record.store import Run


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _first(obj: dict | None, *keys: str) -> Any:
    """The first present, non-None value among ``keys`` of ``obj``."""
    if not isinstance(obj, dict):
        return None
    for k in keys:
        if obj.get(k) is not None:
            return obj[k]
    return None


def _find(obj: Any, keys: tuple[str, ...], depth: int = 4) -> Any:
    """Breadth-first search of nested dicts for the first of ``keys`` with a non-None value
    (the telemetry and environment sections are written by other modules)."""
    frontier = [obj]
    for _ in range(depth):
        nxt = []
        for o in frontier:
            if isinstance(o, dict):
                for k in keys:
                    if o.get(k) is not None:
                        return o[k]
                nxt.extend(v for v in o.values() if isinstance(v, (dict, list)))
            elif isinstance(o, list):
                nxt.extend(v for v in o if isinstance(v, (dict, list)))
        frontier = nxt
    return None


def _telemetry(run: Run, level: dict | None) -> list[Any]:
    """Where telemetry lives: the level's ``telemetry`` (GPU sampler and /metrics scraper per
    level), then run.json's ``telemetry`` (the whole run)."""
    out = []
    if level is not None and level.get("telemetry"):
        out.append(level["telemetry"])
    if run.run.get("telemetry"):
        out.append(run.run["telemetry"])
    return out


def _tel_find(run: Run, level: dict | None, keys: tuple[str, ...]) -> Any:
    for t in _telemetry(run, level):
        v = _find(t, keys, depth=5)
        if v is not None:
            return v
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


def _argv_model(argv: Any) -> str | None:
    if isinstance(argv, list):
        for flag, value in zip(argv, argv[1:]):
            if flag == "--model":
                return str(value)
    return None


def served_model_names(r: dict) -> list[str]:
    """Every name the run record gives the served model, without repeats: the endpoint's model
    (the served name), the server's model list, the engine's model and served name, the model
    path the server was started with, the precision audit's and the tokenizer's directory."""
    er = r.get("engine_report") if isinstance(r.get("engine_report"), dict) else {}
    serve = r.get("serve") if isinstance(r.get("serve"), dict) else {}
    pr = r.get("precision_report") if isinstance(r.get("precision_report"), dict) else {}
    cands = [_get(r, "endpoint", "model"), *list(_get(r, "server", "models") or []),
             er.get("served_model_name"), er.get("model"), serve.get("model"),
             _argv_model(serve.get("argv")), pr.get("path"), _get(r, "tokenizer", "source")]
    out: list[str] = []
    for c in cands:
        if c and str(c) not in out:
            out.append(str(c))
    return out


def served_model_dir(r: dict):
    """The served model's directory (a :class:`pathlib.Path` holding ``config.json``) among
    :func:`served_model_names`, or ``None`` when none is on this machine."""
    from pathlib import Path

    for c in served_model_names(r):
        try:
            if (Path(c).expanduser() / "config.json").is_file():
                return Path(c).expanduser()
        except OSError:
            continue
    return None
