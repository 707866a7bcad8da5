"""Reading values out of run records written by several modules (bench, serve, doctor):
lookups that tolerate missing sections, and the normalization of precision and on/off words."""

from __future__ import annotations

import re
from typing import Any

from tokcheck.rundir import Run

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


def _norm(s: Any) -> str:
    return re.sub(r"[^a-z0-9.]", "", str(s).lower())


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


_PRECISION_ALIASES = {
    "bf16": "bf16", "bfloat16": "bf16", "torch.bfloat16": "bf16",
    "fp16": "fp16", "float16": "fp16", "half": "fp16", "torch.float16": "fp16",
    "fp32": "fp32", "float32": "fp32", "float": "fp32", "torch.float32": "fp32",
    "fp8": "fp8", "float8": "fp8", "float8e4m3fn": "fp8", "e4m3": "fp8", "fp8e4m3": "fp8",
    "int8": "int8", "w8a8": "int8", "w8a16": "int8",
    "int4": "int4", "w4a16": "int4", "awq": "int4", "gptq": "int4", "q4": "int4",
    "mxfp4": "mxfp4", "nvfp4": "nvfp4",
    "full": "full", "fullprecision": "full", "全精度": "full",
}

#: Bytes per parameter (SPEC C3; MXFP4 = 4 bits + one 8-bit scale per 32 values, OCP MX spec).
BYTES_PER_PARAM = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "full": 2.0, "fp8": 1.0, "int8": 1.0,
                   "int4": 0.5, "mxfp4": 4.25 / 8, "nvfp4": 4.5 / 8}


def normalize_precision(value: Any) -> str | None:
    """``"BF16"``, ``"bfloat16"``, ``"torch.bfloat16"`` → ``"bf16"``; "full precision" →
    ``"full"`` (which SPEC C3 defines as BF16/FP16); ``None`` when unknown."""
    if value is None:
        return None
    raw = str(value).strip().lower()
    if raw in _PRECISION_ALIASES:
        return _PRECISION_ALIASES[raw]
    key = re.sub(r"[^a-z0-9.全精度]", "", raw)
    if key in _PRECISION_ALIASES:
        return _PRECISION_ALIASES[key]
    for alias, canon in _PRECISION_ALIASES.items():
        if len(alias) >= 4 and alias in key:
            return canon
    return key or None


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
