"""One normaliser for model and GPU names: the claim reader, the catalog and verify all use it.

People write the same model many ways: ``Qwen3-30B-A3B``, ``qwen3 30b a3b``, ``Qwen/Qwen3-30B-A3B``
(a Hugging Face id with its organisation), ``qwen3:30b-a3b`` (an Ollama tag),
``/models/Qwen3-30B-A3B-Instruct-2507`` (a directory). GPUs too: ``H200 141GB``,
``NVIDIA H200``, ``GeForce RTX 4090``, ``4090``. The rules, in one place:

- Case, spaces, hyphens, underscores, slashes and colons never matter; the vendor words
  ``nvidia`` and ``geforce`` are dropped.
- Exact comparison (:func:`key`) also ignores dots (``Llama-3.1-8B`` = ``llama31 8b``).
  Containment (:func:`loose_key`, :func:`contains_words`) keeps them, because without dots a
  short name turns up inside an unrelated one (``Qwen2.5-7B`` would be inside ``Qwen2-57B``).
- Containment is by whole words: ``H200`` is inside ``H200 141GB`` but not inside ``H2000``.

Pure functions on strings; no catalog import (the catalog imports this module).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from tokcheck.errors import TokcheckError

T = TypeVar("T")

#: Words that name a vendor or a product line, not a device: dropped before comparing.
VENDOR_WORDS = ("geforce", "nvidia")
# Separators between the words of a name (Ollama tags use a colon: "qwen3:30b-a3b").
_SEP = r"[\s\-_/:]"
# A cache hash at the end of a directory name ("tiny-llama-341117c394bd").
_HASH_TAIL = re.compile(r"[-_.][0-9a-f]{8,}$")


def _drop_vendor(text: str) -> str:
    for word in VENDOR_WORDS:
        text = text.replace(word, "")
    return text


def key(name: Any) -> str:
    """Exact-comparison key: lower-case letters and digits only, vendor words dropped
    (``"NVIDIA GeForce RTX-4090"`` → ``"rtx4090"``; ``"qwen3:30b-a3b"`` → ``"qwen330ba3b"``)."""
    return _drop_vendor(re.sub(r"[\W_]", "", str(name).lower()))


def loose_key(name: Any) -> str:
    """Containment key: like :func:`key` but dots kept (``"Llama-3.1-8B"`` → ``"llama3.18b"``),
    so that versions stay apart (``"0.6.3"``)."""
    return _drop_vendor(re.sub(r"[^\w.]|_", "", str(name).lower()))


def words(name: Any) -> str:
    """The name as lower-case words separated by single spaces (``"Qwen/Qwen3-30B-A3B"`` →
    ``"qwen qwen3 30b a3b"``); dots kept, vendor words dropped."""
    text = _drop_vendor(re.sub(_SEP + "+", " ", str(name).lower()))
    return " ".join(text.split())


def contains_words(big: str, small: str) -> bool:
    """Whether ``small`` occurs in ``big`` as whole words, spaces between its words optional
    (both in :func:`words` form: ``contains_words("h200 141gb", "h200")`` is True,
    ``contains_words("h2000", "h200")`` is False)."""
    pattern = r"\s*".join(re.escape(w) for w in small.split())
    return re.search(r"(?<![a-z0-9])" + pattern + r"(?![a-z0-9])", big) is not None


def strip_org(name: Any) -> str:
    """The name without an organisation or directory in front (``"meta-llama/Llama-3.1-8B"`` →
    ``"Llama-3.1-8B"``; ``"/models/qwen3-8b/"`` → ``"qwen3-8b"``)."""
    return str(name).rstrip("/").rsplit("/", 1)[-1]


def base_name(name: Any) -> str:
    """:func:`strip_org` without a cache hash at the end (``"/cache/tiny-llama-341117c394bd"`` →
    ``"tiny-llama"``)."""
    return _HASH_TAIL.sub("", strip_org(name))


# ---------------------------------------------------------------------------- catalog lookup

def match_name(kind: str, query: str, items: Sequence[tuple[str, Iterable[str], T]]) -> T:
    """The item a loose name means, among ``(name, aliases, item)`` rows.

    First an exact :func:`key` match of the name or an alias (also with the organisation
    dropped: ``meta-llama/Llama-3.1-8B-Instruct``); then a unique whole-word containment in either
    direction ("H200 141GB" contains "H200"; "4090" is inside "RTX 4090"), where the longest
    contained name wins. Names shorter than three characters never match by containment.

    Raises:
        TokcheckError: an empty, unknown or ambiguous name (one line, with the nearest names).
    """
    q = key(query)
    if not q:
        raise TokcheckError(f"empty {kind} name")
    q_bare = key(strip_org(query))
    for name, aliases, obj in items:
        keys = {key(k) for k in (name, *aliases)}
        if q in keys or q_bare in keys:
            return obj
    qs = words(query)
    hits: dict[int, tuple[int, T]] = {}
    for i, (name, aliases, obj) in enumerate(items):
        for k in (name, *aliases):
            ks = words(k)
            if len(key(k)) < 3:
                continue
            if contains_words(qs, ks):
                score = len(ks)
            elif len(q) >= 3 and contains_words(ks, qs) and (kind != "model" or ks[:len(qs)] == qs):
                # a model's name is read from its start: "Qwen3.5 122B" is Qwen3.5-122B-A10B, but
                # "Qwen 7B" is not "R1 Distill Qwen 7B" (a GPU's number is found anywhere: "4090")
                score = len(qs) - len(ks)
            else:
                continue
            if i not in hits or score > hits[i][0]:
                hits[i] = (score, obj)
    if hits:
        best = max(s for s, _ in hits.values())
        winners = [o for s, o in hits.values() if s == best]
        if len(winners) == 1:
            return winners[0]
    names = [n for n, _, _ in items]
    keys = {key(k): n for n, al, _ in items for k in (n, *al)}
    close = difflib.get_close_matches(q, list(keys), n=6, cutoff=0.4)
    near = list(dict.fromkeys(keys[c] for c in close))[:3] or names[:3]
    raise TokcheckError(f"unknown {kind} {query!r} — did you mean {' or '.join(near)}?")


# ---------------------------------------------------------------------------- names in free text

def find_all_in_text(text: str, entries: Iterable[tuple[str, Iterable[str]]],
                     min_len: int = 2) -> list[tuple[str, int, int]]:
    """Every catalog name or alias written in ``text``, as ``(name, start, end)`` spans in text
    order, the longest match kept where two overlap. Separators between a name's words are
    optional or any of space, hyphen, underscore, slash, colon; a plural "s" is allowed
    ("two H100s"), and a count glued on with an x ("8xH200", "H100×8") does not hide the name. Keys with
    fewer than ``min_len`` letters and digits are skipped."""
    from tokcheck.core.claim.text import normalise  # (imported here: the claim package imports this module)

    low = text.lower()
    hits: list[tuple[str, int, int]] = []
    for name, aliases in entries:
        keys = [name, *aliases]
        # a claim is read simplified: "昇腾 800I A2" is also matched as "升腾 800I A2"
        keys += [normalise(k) for k in keys if re.search(r"[\u3400-\u9fff]", k) and normalise(k) != k]
        for k in keys:
            parts = [w for w in re.split(_SEP + "+", k.lower()) if w]
            if not parts or len(re.sub(r"[\W_]", "", k.lower())) < min_len:
                continue
            pat = (_SEP + "*").join(re.escape(w) for w in parts)
            for m in re.finditer(r"(?:(?<![a-z0-9])|(?<=\dx))" + pat + r"(?P<plural>s\b)?(?:(?![a-z0-9])|(?=x\d+(?![\d.]*\s*b\b)))", low):
                hits.append((name, m.start(), m.end(), bool(m.group("plural"))))
    # the longest match wins; of two as long, the one read without a plural "s" ("L40S" is the
    # L40S, not two L40s)
    hits.sort(key=lambda h: (-(h[2] - h[1]), h[3], h[1]))
    kept: list[tuple[str, int, int]] = []
    for h in hits:
        if not any(k[1] < h[2] and h[1] < k[2] for k in kept):
            kept.append(h[:3])
    return sorted(kept, key=lambda h: h[1])


def find_in_text(text: str, entries: Iterable[tuple[str, Iterable[str]]]) -> tuple[str, int, int] | None:
    """The longest catalog name or alias written in ``text`` (:func:`find_all_in_text`), as
    ``(name, start, end)``; None when there is none. ``"Qwen3 30B-A3B on one H200"`` →
    ``("Qwen3-30B-A3B", 0, 13)``."""
    hits = find_all_in_text(text, entries)
    return max(hits, key=lambda h: (h[2] - h[1], -h[1])) if hits else None


def version_suffix(matched: str, canonical: str, aliases: Iterable[str] = ()) -> str | None:
    """The part of a matched name beyond the model's own name (``"Qwen3-30B-A3B-Instruct-2507"``
    → ``"Instruct-2507"``; ``"DeepSeek-R1-0528"`` → ``"0528"``), or None. The canonical name is
    tried first, then the longest alias that the match extends."""
    low = re.sub(r"[^a-z0-9]", "", matched.lower())
    canon = re.sub(r"[^a-z0-9]", "", canonical.lower())
    if low == canon:
        return None
    # aliases the canonical name extends ("Qwen3 30B" of "Qwen3-30B-A3B") are no base for a version
    names = [canonical, *sorted((a for a in aliases
                                 if not canon.startswith(re.sub(r"[^a-z0-9]", "", a.lower()))), key=len, reverse=True)]
    for name in names:
        target = re.sub(r"[^a-z0-9]", "", name.lower())
        if not target or not low.startswith(target) or low == target:
            continue
        seen = ""
        for i, ch in enumerate(matched):
            if ch.isalnum():
                seen += ch.lower()
            if seen == target:
                return matched[i + 1:].strip(" -_/.:") or None
    return None


def same_model(claimed: Any, served: Any) -> bool:
    """Loose: the claimed name (:func:`loose_key`) inside one of the served names (a served
    name, a Hugging Face id, a model directory), or that name's :func:`base_name` inside the
    claimed one. ``served`` is one name or a list of them."""
    c = loose_key(claimed)
    if not c:
        return False
    for n in served if isinstance(served, list) else [served]:
        tails = {loose_key(strip_org(n)), loose_key(base_name(n))} - {""}
        if c in loose_key(n) or any(t in c or c in t for t in tails):
            return True
    return False
