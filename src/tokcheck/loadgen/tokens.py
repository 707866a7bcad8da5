"""The model's own tokenizer: loading it and counting tokens (never characters, see ``docs/measurement.md``).

Counts never include special tokens: nothing is added (no BOS/EOS from a post-processor) and
special tokens that appear in a text (e.g. an ``<|eos|>`` a server rendered because it was told
``skip_special_tokens=false``) are not counted as output.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tokcheck.errors import TokcheckError

if TYPE_CHECKING:  # pragma: no cover
    from tokenizers import Tokenizer


@dataclass(frozen=True)
class TokenizerInfo:
    """A loaded tokenizer and its identity (for run.json ``tokenizer``).

    Attributes:
        tokenizer: the ``tokenizers.Tokenizer``.
        source: the path given (file or directory), as a string.
        sha256: hex digest of the ``tokenizer.json`` bytes.
        vocab_size: vocabulary size including added tokens.
        special_ids: ids of special (added, ``special: true``) tokens.
    """

    tokenizer: Tokenizer
    source: str
    sha256: str
    vocab_size: int
    special_ids: frozenset[int]

    def identity(self) -> dict:
        return {"source": self.source, "sha256": self.sha256, "vocab_size": self.vocab_size}

    def count(self, text: str) -> int:
        """Number of tokens of ``text``, special tokens excluded. Returns an ``int`` ≥ 0."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if not self.special_ids:
            return len(ids)
        return sum(1 for i in ids if i not in self.special_ids)

    def count_pieces(self, pieces: list[str]) -> tuple[int, list[int]]:
        """Count the tokens of ``"".join(pieces)`` once, and attribute each token to the piece
        holding its last character (a token that spans two stream chunks belongs to the chunk
        that completed it). Special tokens are excluded.

        Returns:
            ``(total, per_piece)`` with ``sum(per_piece) == total``.
        """
        per_piece = [0] * len(pieces)
        if not pieces:
            return 0, per_piece
        ends, total_chars = [], 0
        for piece in pieces:
            total_chars += len(piece)
            ends.append(total_chars)
        enc = self.tokenizer.encode("".join(pieces), add_special_tokens=False)
        special = self.special_ids
        n = 0
        last = len(pieces) - 1
        for tid, (_, end) in zip(enc.ids, enc.offsets):
            if tid in special:
                continue
            i = bisect_left(ends, end) if end > 0 else 0
            per_piece[min(i, last)] += 1
            n += 1
        return n, per_piece

    def count_many(self, texts: list[str]) -> list[int]:
        """:meth:`count` for each text, in one batch call (the Rust side runs it in parallel)."""
        if not texts:
            return []
        encs = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        special = self.special_ids
        if not special:
            return [len(e.ids) for e in encs]
        return [sum(1 for i in e.ids if i not in special) for e in encs]


def load_tokenizer(path: str | Path) -> TokenizerInfo:
    """Load a ``tokenizer.json`` file, or the one inside a model directory.

    Raises:
        TokcheckError: the path does not exist, has no ``tokenizer.json``, or it cannot be read.
    """
    from tokenizers import Tokenizer

    p = Path(path).expanduser()
    file = p / "tokenizer.json" if p.is_dir() else p
    if not file.is_file():
        raise TokcheckError(
            f"no tokenizer.json at {p} — give a tokenizer.json file or a model directory holding one"
        )
    data = file.read_bytes()
    try:
        tok = Tokenizer.from_str(data.decode("utf-8"))
    except Exception as err:  # tokenizers raises a plain Exception on bad JSON
        raise TokcheckError(f"cannot read tokenizer {file}: {str(err).splitlines()[0]}") from None
    special = frozenset(
        tid for tid, added in tok.get_added_tokens_decoder().items() if getattr(added, "special", False)
    )
    return TokenizerInfo(
        tokenizer=tok,
        source=str(p),
        sha256=hashlib.sha256(data).hexdigest(),
        vocab_size=tok.get_vocab_size(with_added_tokens=True),
        special_ids=special,
    )
