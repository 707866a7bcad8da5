"""Write a Hugging Face Llama directory as a GGUF file (F32, F16 or BF16), with numpy and the
``gguf`` package only — no torch, no transformers, nothing of llama.cpp's own converter.

What llama.cpp expects for ``general.architecture = "llama"`` (``docs/engines.md``, "llama.cpp"):

- tensor names ``token_embd``, ``output_norm``, ``output`` (absent when the embeddings are tied:
  llama.cpp then uses ``token_embd``), ``blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_output,
  ffn_norm, ffn_gate, ffn_up, ffn_down}.weight``;
- the rows of Q and K permuted from Hugging Face's rotate-half RoPE layout to llama.cpp's
  interleaved pairs, as llama.cpp's ``convert_hf_to_gguf.py`` does (``LlamaModel.permute``):
  ``w.reshape(n_head, 2, rows // n_head // 2, cols).swapaxes(1, 2).reshape(rows, cols)``, with
  ``n_head`` the KV-head count for K. Without it greedy tokens of a random model barely change
  but logits do (measured: mean |Δlogit| 70× larger), so conversions are checked on logits;
- 1-D tensors (the RMS norms) in F32;
- the tokenizer: ``tokenizer.ggml.model = "gpt2"`` (byte-level BPE; token strings in the
  byte-to-unicode form of ``tokenizer.json``), ``pre = "gpt-2"`` (the GPT-2 split regex, which is
  Hugging Face's ``ByteLevel(use_regex=True)``), merges as ``"a b"`` strings, added special tokens
  typed CONTROL, BOS/EOS/PAD ids, ``add_bos_token``/``add_eos_token`` from
  ``tokenizer_config.json`` (without ``add_bos_token = false`` llama.cpp may prepend BOS and count
  one prompt token more than the Hugging Face tokenizer), the chat template.

Tensors are converted and written one at a time from memory-mapped safetensors (the header is
read by hand: numpy has no bfloat16, so BF16 → F32 is ``uint16 << 16``), so a large model does
not have to fit in memory twice.

Quantized files (Q8_0, Q4_K_M …) are made from an F16/BF16 file by llama.cpp's own quantizer:
:func:`tokcheck.engines.llama_cpp.quantize_gguf`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

from tokcheck.errors import TokcheckError

#: file types this writer produces → (``general.file_type`` = llama_ftype value, tensor type name)
#: (llama.cpp ``include/llama.h``: LLAMA_FTYPE_ALL_F32 = 0, MOSTLY_F16 = 1, MOSTLY_BF16 = 32).
FILE_TYPES: dict[str, tuple[int, str]] = {"F32": (0, "F32"), "F16": (1, "F16"), "BF16": (32, "BF16")}

_HF_TO_GGUF = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def gguf_tensor_name(hf_name: str) -> str:
    """llama.cpp's name of a Hugging Face Llama tensor (``model.layers.0.mlp.up_proj.weight`` →
    ``blk.0.ffn_up.weight``).

    Raises:
        TokcheckError: a tensor a plain Llama does not have (biases, other architectures).
    """
    if hf_name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf_name == "model.norm.weight":
        return "output_norm.weight"
    if hf_name == "lm_head.weight":
        return "output.weight"
    parts = hf_name.split(".")
    if parts[:2] == ["model", "layers"] and hf_name.endswith(".weight"):
        key = ".".join(parts[3:-1])
        if key in _HF_TO_GGUF:
            return f"blk.{parts[2]}.{_HF_TO_GGUF[key]}.weight"
    raise TokcheckError(f"tensor {hf_name!r} is not part of a plain Llama: this converter "
                        "handles LlamaForCausalLM without biases only")


def permute_qk(w, n_head: int):
    """Hugging Face (rotate-half) → llama.cpp (interleaved pairs) row order of a Q or K
    projection of shape ``[n_head * head_dim, hidden]`` (numpy array, returned permuted)."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


# ---------------------------------------------------------------------------------------------
# Reading safetensors without torch

_ST_DTYPES = {"BF16": "uint16", "F16": "float16", "F32": "float32"}


def _safetensors_arrays(path: Path) -> dict[str, tuple[str, object]]:
    """name → (safetensors dtype, memory-mapped numpy array of the raw values).

    Raises:
        TokcheckError: an unreadable file or a dtype other than BF16/F16/F32.
    """
    import numpy as np

    try:
        with open(path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
    except (OSError, ValueError, struct.error) as err:
        raise TokcheckError(f"cannot read the safetensors header of {path}: {err}") from None
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = info["dtype"]
        if dtype not in _ST_DTYPES:
            raise TokcheckError(f"{path.name}: tensor {name} is {dtype}; only BF16/F16/F32 "
                                "checkpoints can be written as GGUF here (quantize afterwards)")
        a, b = info["data_offsets"]
        out[name] = (dtype, data[a:b].view(_ST_DTYPES[dtype]).reshape(info["shape"]))
    return out


def _to_f32(dtype: str, arr):
    import numpy as np

    if dtype == "BF16":
        return (np.asarray(arr).astype(np.uint32) << 16).view(np.float32)
    return np.asarray(arr, dtype=np.float32)


def _load_weights(model_dir: Path) -> dict[str, tuple[str, object]]:
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        files = sorted({model_dir / f for f in
                        json.loads(index.read_text())["weight_map"].values()})
    else:
        files = sorted(model_dir.glob("*.safetensors"))
    if not files:
        raise TokcheckError(f"no .safetensors files in {model_dir}")
    weights: dict[str, tuple[str, object]] = {}
    for f in files:
        weights.update(_safetensors_arrays(f))
    return weights


# ---------------------------------------------------------------------------------------------
# The tokenizer


def tokenizer_fields(tok_json: dict, tok_config: dict, vocab_size: int,
                     config: dict | None = None) -> dict:
    """The GGUF tokenizer of a byte-level BPE ``tokenizer.json`` (pure): ``tokens``,
    ``token_types`` (gguf ``TokenType`` values: CONTROL for special added tokens, USER_DEFINED
    for other added tokens, UNUSED for ids the vocabulary lacks), ``merges``, ``bos``/``eos``/
    ``pad`` ids (None when absent), ``add_bos``, ``add_eos``, ``chat_template``.

    Raises:
        TokcheckError: a tokenizer that is not BPE.
    """
    from gguf import TokenType

    model = tok_json.get("model") or {}
    if model.get("type") != "BPE":
        raise TokcheckError("only a byte-level BPE tokenizer.json can be written as GGUF here "
                            f"(this one is {model.get('type')!r})")
    id_to_tok = {i: t for t, i in model["vocab"].items()}
    added = {a["id"]: a for a in tok_json.get("added_tokens", [])}
    for i, a in added.items():
        id_to_tok[i] = a["content"]
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in id_to_tok:
            tokens.append(f"[PAD{i}]")
            types.append(int(TokenType.UNUSED))
        elif i in added:
            tokens.append(id_to_tok[i])
            types.append(int(TokenType.CONTROL if added[i].get("special")
                             else TokenType.USER_DEFINED))
        else:
            tokens.append(id_to_tok[i])
            types.append(int(TokenType.NORMAL))
    # tokenizers ≥ 0.20 saves merges as pairs, older releases as "a b" strings.
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    by_content = {t: i for i, t in id_to_tok.items()}
    config = config or {}

    def special(key: str, cfg_key: str) -> int | None:
        v = tok_config.get(key)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str) and v in by_content:
            return by_content[v]
        got = config.get(cfg_key)
        return got if isinstance(got, int) else None

    return {"tokens": tokens, "token_types": types, "merges": merges,
            "bos": special("bos_token", "bos_token_id"), "eos": special("eos_token", "eos_token_id"),
            "pad": special("pad_token", "pad_token_id"),
            "add_bos": bool(tok_config.get("add_bos_token", False)),
            "add_eos": bool(tok_config.get("add_eos_token", False)),
            "chat_template": tok_config.get("chat_template")}


# ---------------------------------------------------------------------------------------------
# Writing


def _write(out: Path, name: str, hparams: dict, tok: dict, file_type: str,
           tensors: list[tuple[str, tuple[int, ...], Callable[[], object]]]) -> None:
    """Write one GGUF file, streaming the tensors: ``tensors`` is ``[(gguf name, numpy shape,
    make → float32 array)]``; each is made, converted and written in turn."""
    import numpy as np
    from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType
    from gguf.quants import quantize

    ftype, ttype = FILE_TYPES[file_type]
    w = GGUFWriter(str(out), "llama")
    w.add_name(name)
    w.add_context_length(hparams["context_length"])
    w.add_embedding_length(hparams["hidden"])
    w.add_block_count(hparams["layers"])
    w.add_feed_forward_length(hparams["intermediate"])
    w.add_head_count(hparams["heads"])
    w.add_head_count_kv(hparams["kv_heads"])
    w.add_layer_norm_rms_eps(hparams["rms_norm_eps"])
    w.add_rope_freq_base(hparams["rope_theta"])
    w.add_rope_dimension_count(hparams["head_dim"])
    if hparams["head_dim"] != hparams["hidden"] // hparams["heads"]:
        w.add_key_length(hparams["head_dim"])
        w.add_value_length(hparams["head_dim"])
    w.add_vocab_size(hparams["vocab"])
    w.add_file_type(LlamaFileType(ftype))
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tok["tokens"])
    w.add_token_types(tok["token_types"])
    w.add_token_merges(tok["merges"])
    for key, add in (("bos", w.add_bos_token_id), ("eos", w.add_eos_token_id),
                     ("pad", w.add_pad_token_id)):
        if tok[key] is not None:
            add(tok[key])
    w.add_add_bos_token(tok["add_bos"])
    w.add_add_eos_token(tok["add_eos"])
    if tok.get("chat_template"):
        w.add_chat_template(tok["chat_template"])

    def converted(shape: tuple[int, ...], make: Callable[[], object]):
        f32 = np.ascontiguousarray(make(), dtype=np.float32)
        if len(shape) == 1 or ttype == "F32":
            return f32
        if ttype == "F16":
            return f32.astype(np.float16)
        bits = quantize(f32, GGMLQuantizationType.BF16)  # round to nearest even, as llama.cpp
        return np.ascontiguousarray(bits).view(np.uint16).reshape(f32.shape)

    def kind(shape):
        if len(shape) == 1 or ttype == "F32":
            return np.float32, 4, None
        if ttype == "F16":
            return np.float16, 2, None
        return np.uint16, 2, GGMLQuantizationType.BF16

    for tname, shape, _ in tensors:
        dtype, width, raw = kind(shape)
        n = 1
        for d in shape:
            n *= d
        w.add_tensor_info(tname, shape, np.dtype(dtype), n * width, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for _, shape, make in tensors:
        w.write_tensor_data(converted(shape, make))
    w.close()


def _hparams(cfg: dict) -> dict:
    heads = cfg["num_attention_heads"]
    hidden = cfg["hidden_size"]
    rope = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
    if (rope.get("rope_type") or rope.get("type") or "default") != "default":
        raise TokcheckError(f"RoPE scaling {rope.get('rope_type') or rope.get('type')!r} is not "
                            "handled by this converter")
    return {"context_length": int(cfg.get("max_position_embeddings", 2048)), "hidden": hidden,
            "layers": cfg["num_hidden_layers"], "intermediate": cfg["intermediate_size"],
            "heads": heads, "kv_heads": cfg.get("num_key_value_heads", heads),
            "rms_norm_eps": float(cfg.get("rms_norm_eps", 1e-6)),
            # transformers ≥ 5 writes rope_parameters.rope_theta; older releases rope_theta.
            "rope_theta": float(rope.get("rope_theta", cfg.get("rope_theta", 10000.0))),
            "head_dim": cfg.get("head_dim") or hidden // heads, "vocab": cfg["vocab_size"]}


def write_llama_gguf(model_dir: str | Path, out: str | Path, file_type: str = "F16") -> Path:
    """Write a Hugging Face Llama directory (``config.json``, safetensors in BF16/F16/F32, a
    byte-level BPE ``tokenizer.json``) as one GGUF file.

    Args:
        model_dir: the model directory (e.g. :func:`tokcheck.engines.tinymodel.build_tiny_llama`).
        out: the ``.gguf`` path to write (its folder must exist); written beside and renamed, so
            an interrupted write never leaves a file that looks finished.
        file_type: ``"F16"`` (default), ``"BF16"`` or ``"F32"`` (:data:`FILE_TYPES`).

    Returns:
        The written path.

    Raises:
        TokcheckError: not a plain Llama (architecture, biases, RoPE scaling), an unknown file
            type, a tokenizer that is not byte-level BPE, or unreadable files.
    """
    file_type = file_type.upper()
    if file_type not in FILE_TYPES:
        raise TokcheckError(f"unknown GGUF file type {file_type!r}: this writer makes "
                            f"{', '.join(FILE_TYPES)} (quantize the F16 file for others)")
    src = Path(model_dir).expanduser()
    out = Path(out).expanduser()
    try:
        cfg = json.loads((src / "config.json").read_text())
        tok_json = json.loads((src / "tokenizer.json").read_text())
        tc = src / "tokenizer_config.json"
        tok_cfg = json.loads(tc.read_text()) if tc.is_file() else {}
    except (OSError, ValueError) as err:
        raise TokcheckError(f"cannot read the model directory {src}: {err}") from None
    if cfg.get("model_type") != "llama":
        raise TokcheckError(f"{src} is a {cfg.get('model_type')!r} model: this converter writes "
                            "Llama models only")
    hp = _hparams(cfg)
    tok = tokenizer_fields(tok_json, tok_cfg, hp["vocab"], cfg)
    weights = _load_weights(src)
    if cfg.get("tie_word_embeddings", False):
        weights.pop("lm_head.weight", None)  # llama.cpp falls back to token_embd

    def order(n: str):
        layer = int(n.split(".")[2]) if n.startswith("model.layers.") else -1
        return (n.startswith("model.layers."), layer, n)

    tensors = []
    for hf in sorted(weights, key=order):
        st_dtype, raw = weights[hf]
        gname = gguf_tensor_name(hf)
        heads = hp["heads"] if gname.endswith("attn_q.weight") else \
            hp["kv_heads"] if gname.endswith("attn_k.weight") else None

        def make(st_dtype=st_dtype, raw=raw, heads=heads):
            f32 = _to_f32(st_dtype, raw)
            return permute_qk(f32, heads) if heads else f32

        tensors.append((gname, tuple(int(d) for d in raw.shape), make))
    tmp = out.with_name(f".{out.name}.partial")
    try:
        _write(tmp, src.name, hp, tok, file_type, tensors)
        tmp.replace(out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def write_random_llama_gguf(out: str | Path, *, seed: int = 0, layers: int = 1,
                            hidden: int = 256, intermediate: int = 512) -> Path:
    """A small random Llama as an F16 GGUF, with a vocabulary of the 256 byte tokens, two merges
    and ``<eos>`` — enough for llama.cpp to load, quantize (K-quants need rows that are multiples
    of 256 wide) and decode; used to check a llama.cpp build before it is trusted
    (:func:`tokcheck.engines.llama_cpp.check_build`).

    Returns:
        The written path.
    """
    import numpy as np
    from gguf import TokenType

    # GPT-2's byte-to-unicode table: printable bytes stand for themselves, the rest are shifted
    # above U+0100 (the form byte-level BPE vocabularies store their tokens in).
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + \
        list(range(0xAE, 0x100))
    shift = 0
    byte_char = {}
    for b in range(256):
        if b in printable:
            byte_char[b] = chr(b)
        else:
            byte_char[b] = chr(256 + shift)
            shift += 1
    tokens = [byte_char[b] for b in range(256)] + ["ab", "abc", "<eos>"]
    types = [int(TokenType.NORMAL)] * 258 + [int(TokenType.CONTROL)]
    tok = {"tokens": tokens, "token_types": types, "merges": ["a b", "ab c"], "bos": None,
           "eos": 258, "pad": None, "add_bos": False, "add_eos": False, "chat_template": None}
    vocab = len(tokens)
    hp = {"context_length": 256, "hidden": hidden, "layers": layers,
          "intermediate": intermediate, "heads": 4, "kv_heads": 2, "rms_norm_eps": 1e-6,
          "rope_theta": 10000.0, "head_dim": hidden // 4, "vocab": vocab}
    rng = np.random.default_rng(seed)
    kv = hp["kv_heads"] * hp["head_dim"]

    def rand(*shape):
        return lambda: rng.standard_normal(shape, dtype=np.float32) * 0.05

    def ones(n):
        return lambda: np.ones(n, dtype=np.float32)

    tensors: list = [("token_embd.weight", (vocab, hidden), rand(vocab, hidden)),
                     ("output_norm.weight", (hidden,), ones(hidden))]
    for i in range(layers):
        tensors += [(f"blk.{i}.attn_norm.weight", (hidden,), ones(hidden)),
                    (f"blk.{i}.attn_q.weight", (hidden, hidden), rand(hidden, hidden)),
                    (f"blk.{i}.attn_k.weight", (kv, hidden), rand(kv, hidden)),
                    (f"blk.{i}.attn_v.weight", (kv, hidden), rand(kv, hidden)),
                    (f"blk.{i}.attn_output.weight", (hidden, hidden), rand(hidden, hidden)),
                    (f"blk.{i}.ffn_norm.weight", (hidden,), ones(hidden)),
                    (f"blk.{i}.ffn_gate.weight", (intermediate, hidden),
                     rand(intermediate, hidden)),
                    (f"blk.{i}.ffn_up.weight", (intermediate, hidden), rand(intermediate, hidden)),
                    (f"blk.{i}.ffn_down.weight", (hidden, intermediate),
                     rand(hidden, intermediate))]
    out = Path(out)
    _write(out, "tokcheck-build-check", hp, tok, "F16", tensors)
    return out


def iter_gguf_fields(path: str | Path) -> Iterator[tuple[str, object]]:
    """``(key, value)`` of every metadata field of a GGUF file (arrays longer than 8 are
    shortened to their length), with the ``gguf`` package's reader.

    Raises:
        TokcheckError: not a readable GGUF file.
    """
    from gguf import GGUFReader

    try:
        reader = GGUFReader(str(path))
    except Exception as err:  # gguf raises ValueError/OSError/struct errors for bad files
        raise TokcheckError(f"cannot read the GGUF file {path}: {err}") from None
    for key, fld in reader.fields.items():
        try:
            value = fld.contents()
        except Exception:  # a field type an older gguf cannot decode: skip it
            continue
        if isinstance(value, list) and len(value) > 8:
            value = f"[{len(value)} items]"
        yield key, value
