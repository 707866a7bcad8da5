"""Prompts of an exact token count in the model's own tokenizer — any tokenizer that
``tokenizers`` loads (BPE, Unigram, WordLevel, WordPiece).

Words are found by encoding and checking counts, never by how the vocabulary spells its pieces:
every token id is decoded, and a decoded piece that is a plain lowercase word becomes a
candidate ``" word"``; it is kept when three of them in a row encode to exactly three tokens
(a token of its own, also next to itself). A vocabulary without such words (no spaces between
pieces, e.g. a character-level one) falls back to pieces that repeat the same way with nothing
between them. A prompt is a sequence of such words, checked by encoding it and trimmed or
extended a word at a time until its count is exact. Prompts are seeded (same seed, same prompts)
and distinct from one another, so a prefix cache cannot serve one request from another's prompt.
"""

from __future__ import annotations

import hashlib
import random

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.tokens import TokenizerInfo

#: Fewest words prompts are built from (fewer would make prompts repeat themselves).
MIN_WORDS = 50


def _decoded_pieces(tok: TokenizerInfo) -> list[str]:
    """Every non-special token id, decoded on its own (sorted, without duplicates)."""
    ids = [i for i in range(tok.tokenizer.get_vocab_size(with_added_tokens=True)) if i not in tok.special_ids]
    texts = tok.tokenizer.decode_batch([[i] for i in ids], skip_special_tokens=True)
    return sorted(set(texts))


def _keep_repeatable(tok: TokenizerInfo, words: list[str], limit: int) -> list[str]:
    """The words that encode to exactly one token each, three in a row."""
    out: list[str] = []
    step = 4096
    for i in range(0, len(words), step):
        batch = words[i:i + step]
        counts = tok.count_many([w + w + w for w in batch])
        out.extend(w for w, c in zip(batch, counts) if c == 3)
        if len(out) >= limit:
            break
    return out[:limit]


def single_token_words(tok: TokenizerInfo, limit: int = 2000) -> list[str]:
    """Words (with their leading space) that encode to exactly one token, also when repeated;
    for a vocabulary without spaced words, pieces that do so with nothing between them.

    Raises:
        TokcheckError: the vocabulary has fewer than :data:`MIN_WORDS` such pieces.
    """
    pieces = _decoded_pieces(tok)
    plain = sorted({p.strip() for p in pieces
                    if p.strip().isascii() and p.strip().isalpha() and p.strip().islower() and 2 <= len(p.strip()) <= 11})
    words = _keep_repeatable(tok, [" " + w for w in plain], limit)
    if len(words) < MIN_WORDS:
        raw = [p for p in pieces if p and p.isprintable() and not p.isspace() and "\ufffd" not in p]
        words = _keep_repeatable(tok, raw, limit)
    if len(words) < MIN_WORDS:
        raise TokcheckError(
            f"tokenizer {tok.source} has too few pieces that stay one token when repeated "
            f"({len(words)}; at least {MIN_WORDS} are needed) to build exact-length prompts")
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
    drafts = [[rng.choice(words) for _ in range(input_len)] for _ in range(count)]
    counts = tok.count_many(["".join(d) for d in drafts])
    prompts: list[str] = []
    for draft, n in zip(drafts, counts):
        tries = 0
        while n != input_len:
            tries += 1
            if tries > 50 or (n > input_len and len(draft) <= 1):
                raise TokcheckError(f"cannot build a prompt of exactly {input_len} tokens with {tok.source}")
            if n > input_len:
                del draft[-max(1, min(n - input_len, len(draft) - 1)):]
            else:
                draft.extend(rng.choice(words) for _ in range(input_len - n))
            n = tok.count("".join(draft))
        prompts.append("".join(draft))
    return prompts


def prompts_sha256(prompts: list[str]) -> str:
    """Digest of the prompt list (run.json ``workload.prompts_sha256``)."""
    h = hashlib.sha256()
    for p in prompts:
        h.update(p.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
