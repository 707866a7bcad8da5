"""Normalising a pasted claim without moving its characters.

Claims arrive with full-width punctuation and digits (``，``, ``：``, ``１２``), traditional
Chinese (``單卡``, ``並發``), non-breaking spaces and typographic dashes. Every later step
matches on one normalised form, and every figure and field keeps the character range it was
read from, so the normalised text must have the same length as the original: each character is
replaced by exactly one character.

Traditional → simplified Chinese uses OpenCC's ``t2s`` conversion (the ``opencc`` package,
Apache-2.0): a dictionary-based converter kept by the OpenCC project, rather than a hand-made
table of the few characters claims happen to use.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: Characters mapped to one ASCII character (NFKC would give several for some of them).
_ONE_CHAR = {
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u3000": " ",
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00d7": "x", "\u2715": "x", "\u2716": "x",
    "\u2248": "~", "\u301c": "~", "\uff5e": "~",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
    "\u3001": ",", "\u3002": ".", "\uff0c": ",", "\uff1b": ";", "\uff1a": ":",
    "\uff08": "(", "\uff09": ")", "\u3010": "[", "\u3011": "]",
}


@lru_cache(maxsize=1)
def _t2s():
    import opencc

    return opencc.OpenCC("t2s")


def _simplified(text: str) -> str:
    """Traditional Chinese → simplified, keeping the length (per character where the phrase
    conversion changes it)."""
    if not any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return text
    conv = _t2s()
    whole = conv.convert(text)
    if len(whole) == len(text):
        return whole
    return "".join(c if len(c := conv.convert(ch)) == 1 else ch for ch in text)


def normalise(text: str) -> str:
    """The claim in one form for matching, exactly as long as ``text``.

    Full-width forms become ASCII (NFKC, one character at a time), typographic dashes, spaces
    and multiplication signs become ``-``, `` `` and ``x``, Chinese punctuation becomes its ASCII
    counterpart (but a "、" or "，" between two digits stays "、": a list, never a thousands
    separator), and traditional Chinese becomes simplified.
    """
    out = []
    for i, ch in enumerate(text):
        if ch in "\u3001\uff0c" and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
            # "batch_size 1、512 个 token", "2919、7871": between digits a Chinese list mark is never
            # a thousands separator, so it stays one ("、")
            out.append("\u3001")
            continue
        if ch in _ONE_CHAR:
            out.append(_ONE_CHAR[ch])
            continue
        n = unicodedata.normalize("NFKC", ch)
        out.append(n if len(n) == 1 else ch)
    return _simplified("".join(out))


#: Where a sentence or clause ends in normalised text: ";", "!", "?", a line break, or a full stop
#: that is not a decimal point — followed by a space, the end, or a Chinese character
#: (normalise turns "。" into "." with no space after it), or written after a Chinese character
#: ("加速比 1.59 倍。batch size=64 时…": a "。" before a Latin word).
SENTENCE_END = r"[;!?\n]|\.(?!\d)(?=\s|$|[\u3400-\u9fff])|(?<=[\u3400-\u9fff])\.(?=[A-Za-z])"
