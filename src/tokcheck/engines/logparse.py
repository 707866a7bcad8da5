"""Pure helpers to read vLLM's start-up log: its ``key=value, …`` config line and Python-literal
dictionaries. No I/O."""

from __future__ import annotations

import ast

_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` where it is not inside brackets or quotes.

    vLLM prints its engine config as ``key=value, key=Config(a=1, b=[2, 3]), key='x, y'``; a
    plain ``split(',')`` would cut nested values apart.
    """
    parts: list[str] = []
    stack: list[str] = []
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
        elif ch in _OPEN:
            # '<' opens only an enum repr such as <CUDAGraphMode.NONE: 0>, never a comparison.
            if ch != "<" or text[i + 1:i + 2].isalpha():
                stack.append(_OPEN[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif ch == sep and not stack:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_config_line(text: str) -> dict[str, str]:
    """``key=value, …`` (top level only) → {key: raw value text}."""
    out: dict[str, str] = {}
    for part in split_top_level(text):
        key, eq, value = part.partition("=")
        if eq and key.strip().isidentifier():
            out[key.strip()] = value.strip()
    return out


def literal(value: str | None):
    """A Python literal from its repr (``'x'`` → ``x``, ``None`` → None, ``2048`` → 2048,
    ``True`` → True); text that is not a literal (``torch.bfloat16``, ``auto``) stays text."""
    if value is None:
        return None
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def literal_dict(text: str) -> dict | None:
    """A dictionary printed with ``repr`` (vLLM's ``non-default args: {…}``), or None."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, dict) else None
