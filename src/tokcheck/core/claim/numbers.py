"""Numbers as claims write them: ``34,491``, ``1.5 million``, ``1.5 万``, ``40+``, ``~700``,
``20~30``, ``190-195``, ``约 2 千``. Pure; works on text normalised by :mod:`.text`."""

from __future__ import annotations

import re

#: One number: thousands separators or plain, optional decimals. Not the tail of a word or
#: version ("pp512", "3.1"): the caller's pattern decides what may stand before it.
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\d,])\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?"

#: Multipliers written after a number, and their factor.
MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "千": 1e3, "万": 1e4, "million": 1e6, "mn": 1e6, "m": 1e6,
               "百万": 1e6, "亿": 1e8, "billion": 1e9}
MULTIPLIER = r"(?:thousand|million|billion|mn|百万|千|万|亿|k|m)"
#: A word joining the ends of a range ("1-4", "1–4", "1~32", "1 to 64", "1 至 32").
RANGE_JOIN = r"(?:-|–|—|~|～|to|至|到)"
#: Placed after a number: it is not the low end of a range ("batch size 1" but not "batch size 1-4").
NOT_RANGE_START = rf"(?!\s*{RANGE_JOIN}\s*\d)"
#: A whole count, thousands separators allowed ("4,000"); never the start of a decimal.
INTEGER = r"\d{1,3}(?:,\d{3})+(?!\d|\.\d)|\d+"

#: Words before a number that qualify it, and the qualifier they give.
QUALIFIER_BEFORE = (
    ("up_to", r"up\s+to|upto|as\s+high\s+as|as\s+much\s+as|peaks?\s+(?:of|at)|peak|maximum\s+of|max(?:imum)?|"
              r"最高(?:可达|达到?)?|最快|高达|峰值(?:达到?)?"),
    ("over", r"over|more\s+than|above|exceeding|in\s+excess\s+of|at\s+least|超过|超|大于|突破"),
    ("approx", r"~|about|around|approx(?:imately|\.)?|roughly|nearly|almost|close\s+to|circa|ca\.|"
               r"约|大约|大概|近|接近|差不多"),
    ("under", r"under|below|less\s+than|不到|低于|不足|少于"),
)
#: Words after a number that qualify it.
QUALIFIER_AFTER = (("over", r"\+|多|以上|余"), ("approx", r"左右|上下|ish"))

_WORD_COUNTS = {
    "one": 1, "single": 1, "a single": 1, "two": 2, "dual": 2, "twin": 2, "a pair of": 2, "pair of": 2,
    "three": 3, "four": 4, "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "octo": 8, "octa": 8,
    "ten": 10, "twelve": 12, "sixteen": 16, "sixty-four": 64, "thirty-two": 32,
}
_CN_DIGITS = {"一": 1, "单": 1, "二": 2, "两": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9, "十": 10, "十六": 16, "三十二": 32}

#: Count words (English) as a regex alternative, longest first.
COUNT_WORDS = "|".join(sorted((re.escape(w) for w in _WORD_COUNTS), key=len, reverse=True))
#: Chinese count characters as a regex alternative, longest first.
CN_COUNT = "|".join(sorted(_CN_DIGITS, key=len, reverse=True))


def to_float(number: str, multiplier: str | None = None) -> float:
    """``"34,491"`` → 34491.0; ``"132,75"`` → 132.75 (a decimal comma: one or two digits after
    it); ``("1.5", "million")`` → 1.5e6; ``("1.5", "万")`` → 15000.0."""
    if re.fullmatch(r"\d+,\d{1,2}", number):  # a decimal comma: "132,75 TPS"
        value = float(number.replace(",", "."))
    else:
        value = float(number.replace(",", ""))
    if multiplier:
        value *= MULTIPLIERS[multiplier.lower()]
    return value


def count_value(word: str) -> int | None:
    """A count written as a word or a digit string: ``"two"`` → 2, ``"双"`` → 2, ``"8"`` → 8."""
    w = word.strip().lower()
    if w.isdigit():
        return int(w)
    if w in _WORD_COUNTS:
        return _WORD_COUNTS[w]
    return _CN_DIGITS.get(w)


def plain(value: float) -> str:
    """A figure as people write it: ``100000.0`` → ``"100,000"``, ``93.5`` → ``"93.5"``, never
    ``1e+05``."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}"
