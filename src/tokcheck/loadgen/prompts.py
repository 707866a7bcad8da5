"""Prompts of an exact token count in the model's own tokenizer.

Each prompt is a sequence of whole words, each a single token and a pre-token of its own
(byte-level BPE ``Ġword``, SentencePiece ``▁word``), so that counts add up exactly; a prompt
is then checked by encoding it and trimmed or extended until the count is exact. Prompts are
seeded (same seed, same prompts) and distinct from one another, so a prefix cache cannot
serve one request from another's prompt.
"""

from __future__ import annotations

import hashlib
import random

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.tokens import TokenizerInfo

_WORD_MARKS = ("Ġ", "▁")


def single_token_words(tok: TokenizerInfo, limit: int = 2000) -> list[str]:
    """Words (with their leading space) that encode to exactly one token, also when repeated.

    Raises:
        TokcheckError: the vocabulary has too few such words (an unusual tokenizer).
    """
    vocab = tok.tokenizer.get_vocab()
    candidates = sorted(
        piece for piece in vocab if piece[:1] in _WORD_MARKS and piece[1:].isascii()
        and piece[1:].isalpha() and piece[1:].islower() and 2 <= len(piece) <= 12
    )
    words: list[str] = []
    if candidates:
        texts = [" " + piece[1:] for piece in candidates]
        counts = tok.count_many([w + w + w for w in texts])
        words = [w for w, c in zip(texts, counts) if c == 3][:limit]
    if len(words) < 50:
        raise TokcheckError(
            f"tokenizer {tok.source} has too few single-token words to build exact-length prompts"
        )
    return words


def make_prompts(tok: TokenizerInfo, input_len: int, count: int, seed: int = 0) -> list[str]:
    """``count`` distinct prompts of exactly ``input_len`` tokens (special tokens excluded).

    Raises:
        TokcheckError: input_len < 1, or a prompt cannot be brought to the exact length.
    """
    if input_len < 1:
        raise TokcheckError("--input-len must be at least 1")
    words = single_token_words(tok)
    rng = random.Random(seed)
    # The leading space stays: " word" is the single token; "word" at the start might not be.
    prompts = ["".join(rng.choice(words) for _ in range(input_len)) for _ in range(count)]
    counts = tok.count_many(prompts)
    for i, n in enumerate(counts):
        p = prompts[i]
        tries = 0
        while n != input_len:
            tries += 1
            if tries > 50:
                raise TokcheckError(f"cannot build a prompt of exactly {input_len} tokens with {tok.source}")
            if n > input_len:
                p = p.rsplit(" ", 1)[0]
            else:
                p = p + rng.choice(words)
            n = tok.count(p)
        prompts[i] = p
    return prompts


def prompts_sha256(prompts: list[str]) -> str:
    """Digest of the prompt list (run.json ``workload.prompts_sha256``)."""
    h = hashlib.sha256()
    for p in prompts:
        h.update(p.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
