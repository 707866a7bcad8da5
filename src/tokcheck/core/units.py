"""Parse sizes and rates a user types: ``120GB``, ``3.35TB/s``, ``3350 GB/s``, ``8k``.

Decimal prefixes (GB = 1e9, TB/s = 1e12 B/s) unless the binary form is written (GiB = 2**30).
"""

from __future__ import annotations

import re

from tokcheck.errors import TokcheckError

_PREFIX = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15,
           "ki": 2 ** 10, "mi": 2 ** 20, "gi": 2 ** 30, "ti": 2 ** 40}


def parse_bytes(text: str) -> float:
    """``"120GB"`` → 1.2e11 bytes; ``"141GiB"`` → 141·2**30; a bare number is bytes (1e6 or more:
    a bare "120" is refused, since it almost always means 120 GB).

    Raises:
        TokcheckError: unparseable, zero, negative, or a bare number below 10⁶.
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*([kmgtp]i?)?\s*b?\s*", str(text), re.I)
    if not m:
        raise TokcheckError(f"cannot read {text!r} as a size (e.g. 120GB, 141GiB)")
    value = float(m.group(1)) * _PREFIX[(m.group(2) or "").lower()]
    if value <= 0:
        raise TokcheckError(f"size must be positive, got {text!r}")
    if not m.group(2) and value < 1e6:  # "120" meant 120 GB, not 120 bytes
        raise TokcheckError(f"{text!r} has no unit and would be {value:,.0f} bytes: give one (e.g. {m.group(1)}GB)")
    return value


def parse_bandwidth(text: str) -> float:
    """``"3.35TB/s"`` → 3.35e12 bytes/s; ``"900GB/s"``; a bare number is bytes/s.

    Raises:
        TokcheckError: unparseable, zero, negative, above 1 PB/s (no memory is that fast) or
        below 1 GB/s (a bare "3.3" meant TB/s).
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*([kmgtp]i?)?\s*(?:b(?:ytes?)?)?\s*(?:/\s*s(?:ec)?|ps)?\s*",
                     str(text), re.I)
    if not m:
        raise TokcheckError(f"cannot read {text!r} as a bandwidth (e.g. 3.35TB/s, 900GB/s)")
    value = float(m.group(1)) * _PREFIX[(m.group(2) or "").lower()]
    if value <= 0:
        raise TokcheckError(f"bandwidth must be positive, got {text!r}")
    if value > 1e15:
        raise TokcheckError(f"bandwidth {text!r} is beyond any memory system (over 1 PB/s)")
    if value < 1e9:  # "3.3" meant 3.3 TB/s; no memory system a model is served from is below 1 GB/s
        hint = f"give a unit (e.g. {m.group(1)}TB/s)" if not m.group(2) else "check the unit"
        raise TokcheckError(f"bandwidth {text!r} is {value:,.3g} bytes/s, below any memory system (1 GB/s): {hint}")
    return value


def parse_count(text: str, what: str, unit: str = "tokens", *, allow_zero: bool = False) -> int:
    """``"8k"`` → 8192 for lengths (binary k, as max_model_len is usually written); ``"32"`` → 32.

    ``what`` names the option (``--context``) and ``unit`` what it counts (tokens, requests, GPUs),
    both for the error message. ``allow_zero`` accepts 0 (e.g. no tokens in the KV cache).

    Raises:
        TokcheckError: unparseable, fractional, negative, or zero (unless ``allow_zero``).
    """
    if allow_zero:
        rule = f"{what} must be a whole number of {unit}, 0 or more"
    else:
        rule = f"{what} must be a positive whole number of {unit}"
    example = " (e.g. 8192 or 8k)" if unit == "tokens" else ""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kK])?\s*", str(text))
    if not m:
        raise TokcheckError(f"{rule}{example}, got {text!r}")
    value = float(m.group(1)) * (1024 if m.group(2) else 1)
    if value != int(value) or value < 0 or (value == 0 and not allow_zero):
        raise TokcheckError(f"{rule}{example}, got {text!r}")
    return int(value)


def parse_fraction(text: str, what: str, *, allow_zero: bool = False, meaning: str = "") -> float:
    """A share in (0, 1] (or [0, 1] with ``allow_zero``): ``"0.9"`` → 0.9.

    Raises:
        TokcheckError: not a number, not finite, or outside the range.
    """
    rng = "from 0 to 1" if allow_zero else "above 0 and at most 1"
    rule = f"{what} must be a number {rng}{f' ({meaning})' if meaning else ''}, got {text!r}"
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise TokcheckError(rule) from None
    if not (0 <= value <= 1) or (value == 0 and not allow_zero):
        raise TokcheckError(rule)
    return value


def plain_number(x) -> str:
    """A figure as people write it, never in exponent form: ``100000`` → ``100,000``,
    ``2.49e6`` → ``2,490,000``, ``93.5`` → ``93.5``; a ``(lo, hi)`` range → ``lo–hi``; None → ``n/a``."""
    if x is None:
        return "n/a"
    if isinstance(x, (list, tuple)):
        return "–".join(plain_number(v) for v in x)
    v = float(f"{float(x):.6g}")
    if v.is_integer():
        return f"{int(v):,}"
    return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.1f}"


def sig3(x: float) -> str:
    """``x`` to 3 significant digits with thousands separators: 27.5, 181, 1,160, 0.512.

    The bounds rest on an 80 % achievable-bandwidth estimate; more digits would claim precision
    they do not have.
    """
    import math

    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    r = float(f"{x:.3g}")
    decimals = max(0, 2 - math.floor(math.log10(abs(r))))
    return f"{r:,.{decimals}f}"


def parse_count_list(text: str, what: str, unit: str = "requests") -> list[int]:
    """``"1,4,16"`` → ``[1, 4, 16]``: a comma-separated list of positive whole numbers, each read
    by :func:`parse_count` (so ``"2k,4k"`` works for lengths).

    Raises:
        TokcheckError: an empty list, or an item :func:`parse_count` rejects.
    """
    items = [x.strip() for x in str(text).split(",") if x.strip()]
    if not items:
        raise TokcheckError(f"{what} needs at least one positive whole number of {unit}, e.g. 1,4,16")
    return [parse_count(x, what, unit) for x in items]


# ---------------------------------------------------------------------------------------------
# Printing numbers: one formatter for bytes, counts and rates, used by every message and table.

#: The base of every size tokcheck prints: decimal, as datasheets state bandwidth (TB/s) and as
#: model cards and claims state weight sizes, so bytes per token ÷ bandwidth can be read off
#: directly. An "80 GB" H100 has 80 GiB = 85.9 GB.
BYTES_BASE = "decimal units: 1 kB = 10³, 1 MB = 10⁶, 1 GB = 10⁹, 1 TB = 10¹² bytes"

_DECIMAL_UNITS = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3))


def fmt_number(x: float | None) -> str:
    """A measured value (tok/s, ms, a ratio) for people: thousands separators, no exponent,
    digits by size — ``28652.96`` → ``28,653``; ``141.26`` → ``141``; ``27.46`` → ``27.5``;
    ``5.067`` → ``5.07``; ``10.0`` → ``10``; ``0.00531`` → ``0.00531``; ``5e6`` → ``5,000,000``;
    None → ``n/a``.

    Three significant digits below 100 (more would claim a precision a run-to-run spread of a few
    per cent does not have); whole units from 100 up, since rounding 28,653 to 28,700 would hide
    a measured digit.
    """
    import math

    if x is None:
        return "n/a"
    x = float(x)
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 99.95:
        return f"{x:,.0f}"
    decimals = min(8, max(0, 2 - math.floor(math.log10(a))))
    text = f"{x:.{decimals}f}"
    if "." in text:  # 10.0 → 10, 27.50 → 27.5: trailing zeros claim no digit
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_rate(x: float | None, unit: str = "tok/s") -> str:
    """A rate with its unit: ``fmt_rate(28652.96)`` → ``28,653 tok/s``; None → ``n/a``."""
    return "n/a" if x is None else f"{fmt_number(x)} {unit}".rstrip()


def fmt_count(n: float | None, noun: str = "") -> str:
    """A whole count with thousands separators: ``fmt_count(15986, "sequences")`` →
    ``15,986 sequences``; None → ``n/a``."""
    if n is None:
        return "n/a"
    text = f"{round(float(n)):,}"
    return f"{text} {noun}" if noun else text


def fmt_bytes(n: float | None) -> str:
    """Bytes in decimal units (:data:`BYTES_BASE`), three significant digits:
    ``6_820_352`` → ``6.82 MB``; ``2.2e9`` → ``2.20 GB``; ``1.41e11`` → ``141 GB``; below
    10,000 the exact count, ``2,048 bytes``; None → ``n/a``."""
    if n is None:
        return "n/a"
    n = float(n)
    a = abs(n)
    if a < 1e4:
        return f"{n:,.0f} bytes"
    for unit, size in _DECIMAL_UNITS:
        if a >= size * 0.9995:
            v = n / size
            if abs(v) >= 99.95:
                return f"{v:,.0f} {unit}"
            return f"{v:.{2 if abs(v) < 9.995 else 1}f} {unit}"
    return f"{n:,.0f} bytes"  # pragma: no cover - a < 1e4 returned above


def fmt_yes_no(v: bool | None, unknown: str | None = "not stated") -> str | None:
    """``True`` → ``yes``, ``False`` → ``no``, ``None`` → ``not stated`` (or ``unknown``): how a
    flag reads in a table a person looks at (never Python's True/False/None)."""
    return unknown if v is None else ("yes" if v else "no")
