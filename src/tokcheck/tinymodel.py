"""A tiny model built locally, for tests and the learning path (no model hub needed).

The tokenizer is a byte-level BPE trained in seconds with the ``tokenizers`` library on the
Python standard library's own source files (always present, so the result is the same on
every machine with the same Python). Special tokens: ``<|bos|>``, ``<|eos|>``, ``<|pad|>``.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

BOS, EOS, PAD = "<|bos|>", "<|eos|>", "<|pad|>"

# A minimal chat template (Jinja, as Hugging Face tokenizers store it) so that chat
# completions work against the tiny model.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)


def _corpus_files(limit: int) -> list[str]:
    """The first ``limit`` standard-library ``.py`` files, sorted by name (deterministic)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(str(p) for p in stdlib.glob("*.py"))
    return files[:limit]


def train_tokenizer(out_dir: str | Path, vocab_size: int = 4096, corpus_files: int = 120) -> Path:
    """Train a byte-level BPE tokenizer and save ``tokenizer.json`` and
    ``tokenizer_config.json`` (with the chat template) into ``out_dir``.

    Args:
        out_dir: folder to write into (created if missing).
        vocab_size: target vocabulary size, special tokens included.
        corpus_files: how many standard-library source files to train on.

    Returns:
        The path of the written ``tokenizer.json``.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train(_corpus_files(corpus_files), trainer)
    path = out / "tokenizer.json"
    tok.save(str(path))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": BOS,
        "eos_token": EOS,
        "pad_token": PAD,
        "unk_token": None,
        "add_bos_token": False,
        "model_max_length": 1_000_000,
        "chat_template": CHAT_TEMPLATE,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": BOS, "eos_token": EOS, "pad_token": PAD}, indent=2)
    )
    return path
