"""Built-in GPU and model data, looked up by loose names, and Hugging Face ``config.json`` reading.

Data files (package data, every row with its ``source`` and a ``checked`` mark: ``yes`` = the
figures agree with the primary datasheet / the model's own ``config.json``; ``partly`` = checked
against public copies of those (the model hub is out of reach here) or only some columns;
``no`` = taken from secondary tables, unverified):
- ``gpus.csv``: memory (GiB, as vendors quote HBM capacity: an "80 GB" H100 shows 81,559 MiB),
  peak memory bandwidth (TB/s, decimal), dense BF16/FP8 TFLOP/s, the achievable fraction of
  peak bandwidth used for the realistic bound and where it comes from.
- ``models/*.json``: a model's ``config.json`` fields (under ``config``) plus its model card's
  stated total/active parameters, released weight formats, source and checked mark.

Names match loosely (:func:`tokcheck.core.names.match_name`): case, spaces, hyphens, underscores,
an organisation prefix and Ollama's colon are ignored, and a unique contained match wins
("H200 141GB" → H200, "4090" → RTX 4090, "qwen3:30b-a3b" → Qwen3-30B-A3B).
"""

from __future__ import annotations

import csv
import difflib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from tokcheck.core.architecture import ModelSpec
from tokcheck.core.names import match_name
from tokcheck.core.quantization import quantization_scheme
from tokcheck.errors import TokcheckError

GIB = 1024 ** 3


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model from ``gpus.csv`` (or a bare bandwidth given by the user).

    Attributes:
        name: canonical name.
        memory_bytes: device memory in bytes (None when unknown, e.g. ``--bandwidth`` only).
        peak_bandwidth_bytes_per_s: datasheet peak memory bandwidth.
        bf16_dense_tflops, fp8_dense_tflops: dense tensor-core rates (None if unknown).
        achievable_fraction: share of peak bandwidth a real decode loop reaches (realistic bound).
        achievable_source: where that fraction comes from.
        checked: yes / partly / no — checked against a primary datasheet.
        source: where the row comes from.
        kind: datacenter, workstation, consumer, apple, amd_datacenter, amd_consumer, soc,
            host_memory (a host memory system, for weights offloaded to CPU RAM) or cpu.
        fp4_dense_tflops: dense FP4 tensor rate where the GPU has one.
        notes: how derived figures were computed (dense = sparse / 2, SM × clock …).
    """

    name: str
    memory_bytes: int | None
    peak_bandwidth_bytes_per_s: float
    bf16_dense_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    achievable_fraction: float = 0.8
    achievable_source: str = ("assumed: tuned batch-1 decode reaches ~70-90% of peak HBM bandwidth "
                              "(gpt-fast 69% on an A100-80GB; a device-to-device copy on an H200 ~90%)")
    checked: str = "no"
    source: str = ""
    aliases: tuple[str, ...] = ()
    kind: str = ""
    fp4_dense_tflops: float | None = None
    notes: str = ""

    @property
    def memory_gb(self) -> float | None:
        return None if self.memory_bytes is None else self.memory_bytes / GIB


def readable_source(text: str) -> str:
    """A catalog row's source as a reader sees it: the stored text keeps the handles of the
    searches its copies were found with (``find_string id N``, ``search: …``), which help whoever
    re-checks the row (docs/catalog-models.md, docs/catalog-gpus.md) but mean nothing to a user;
    they are dropped, what they annotate is kept."""
    out = re.sub(r"\s*\(\s*(?:find_string id \d+|search:[^()]*)\s*\)", "", text)
    out = re.sub(r",\s*find_string id \d+:\s*", ": ", out)
    out = re.sub(r",\s*find_string id \d+", "", out)
    out = re.sub(r"find_string id \d+(?::\s*|,\s*|\s*)", "", out)
    out = re.sub(r"\s*\(\s*\)", "", out)
    return re.sub(r"\s{2,}", " ", out).strip()


def _opt_float(text: str) -> float | None:
    text = (text or "").strip()
    return float(text) if text else None


@lru_cache(maxsize=1)
def gpus() -> tuple[GpuSpec, ...]:
    """All GPUs in the built-in catalog."""
    text = resources.files("tokcheck.core.catalog").joinpath("gpus.csv").read_text(encoding="utf-8")
    out = []
    for row in csv.DictReader(text.splitlines()):
        out.append(GpuSpec(
            name=row["name"],
            memory_bytes=int(float(row["memory_gib"]) * GIB) if (row.get("memory_gib") or "").strip() else None,
            peak_bandwidth_bytes_per_s=float(row["peak_bandwidth_tb_s"]) * 1e12,
            bf16_dense_tflops=_opt_float(row["bf16_dense_tflops"]),
            fp8_dense_tflops=_opt_float(row["fp8_dense_tflops"]),
            achievable_fraction=float(row["achievable_fraction"]),
            achievable_source=row["achievable_source"],
            checked=row["checked"],
            source=row["source"],
            aliases=tuple(a for a in row["aliases"].split("|") if a),
            kind=row.get("kind") or "",
            fp4_dense_tflops=_opt_float(row.get("fp4_dense_tflops") or ""),
            notes=row.get("notes") or "",
        ))
    return tuple(out)


@lru_cache(maxsize=1)
def systems() -> tuple[dict, ...]:
    """Systems and cloud shapes that imply a GPU and a count (``systems.csv``): ``{name,
    aliases, gpu, count, source}`` — "DGX H100" is 8 × H100 SXM, "GB200 NVL72" 72 × GB200."""
    text = resources.files("tokcheck.core.catalog").joinpath("systems.csv").read_text(encoding="utf-8")
    return tuple({"name": r["name"], "aliases": tuple(a for a in r["aliases"].split("|") if a), "gpu": r["gpu"],
                  "count": int(r["count"]), "source": r["source"]} for r in csv.DictReader(text.splitlines()))


@lru_cache(maxsize=1)
def _model_entries() -> tuple[dict, ...]:
    folder = resources.files("tokcheck.core.catalog").joinpath("models")
    entries = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".json"):
            entries.append(json.loads(item.read_text(encoding="utf-8")))
    return tuple(entries)


def quantized_from(name: str) -> str | None:
    """For a catalog entry that is a third party's quantized release of another catalog model
    (``"Llama 3.1 70B Instruct FP8 (NVIDIA ModelOpt)"``), that model's name; else None."""
    for e in _model_entries():
        if e["name"] == name:
            return e.get("quantized_from")
    return None


def models() -> tuple[ModelSpec, ...]:
    """All models in the built-in catalog."""
    return tuple(_spec_from_entry(e) for e in _model_entries())


def _spec_from_entry(entry: dict) -> ModelSpec:
    """A catalog entry → ModelSpec. ``config`` is the model's ``config.json`` as published;
    ``config_defaults`` holds the values transformers fills in for keys the published file
    leaves out (Gemma 3's text config names few keys), applied where the file is silent."""
    meta = {k: v for k, v in entry.items() if k not in ("config", "config_defaults")}
    cfg = dict(entry["config"])
    defaults = entry.get("config_defaults") or {}
    if defaults:
        if isinstance(cfg.get("text_config"), dict):
            cfg["text_config"] = {**defaults, **cfg["text_config"]}
        else:
            cfg = {**defaults, **cfg}
    return spec_from_hf_config(cfg, name=entry["name"], meta=meta)


def find_gpu(name: str) -> GpuSpec:
    """The catalog GPU for a loose name ("H200 141GB", "4090", "mi300x").

    Raises:
        TokcheckError: unknown or ambiguous name (one line, with the nearest names).
    """
    return match_name("GPU", name, [(g.name, g.aliases, g) for g in gpus()])


def find_model(name: str) -> ModelSpec:
    """The catalog model for a loose name ("DeepSeek-V4-Flash", "Qwen3-30B-A3B", "llama 3.1 8b").
    A size written in the name (billions of parameters) must be one the model is known by
    (:func:`names_size`): "DeepSeek-R1-Distill-Qwen-1.5B" is not DeepSeek R1, and
    "DeepSeek-Coder-33B" is not DeepSeek V3 (whose 37B active parameters no name of it states).

    A tier word the matched model is not known by ("Flash", "Air", "Max") makes another model:
    "GLM-5.3-Flash" is not GLM-5.

    Raises:
        TokcheckError: unknown or ambiguous name, a name whose size is not the matched model's, or
            a tier the model is not known by (one line, with the nearest names).
    """
    # a "+" glued to a name is "Plus" ("Command R+"): name keys drop it, which would make it another model
    name = re.sub(r"(?<=[A-Za-z0-9])\+(?![A-Za-z0-9])", " Plus", name)
    specs = models()
    spec = match_name("model", name, [(s.name, s.aliases, s) for s in specs])
    known = " ".join((spec.name, *spec.aliases)).lower()
    tier = next((w for w in _TIER.findall(name) if w.lower() not in known), None)
    if tier:
        # "GLM-5.3-Flash" is not GLM-5, nor "Qwen3-Max" a Qwen3: a tier of a line is another model;
        # a minor version of a known tier is that tier ("DeepSeek-V4.1-Flash" has V4 Flash's shape)
        major = re.sub(r"(?<=\d)\.\d+", "", name)
        if major != name:
            try:
                found = find_model(major)
                if tier.lower() in " ".join((found.name, *found.aliases)).lower():
                    return found
            except TokcheckError:
                pass
        near = difflib.get_close_matches(name, [s.name for s in specs], n=3, cutoff=0.4)
        raise TokcheckError(f"unknown model {name!r} ({tier!r} names another model than {spec.name})"
                            + (f" — did you mean {' or '.join(near)}?" if near else ""))
    ver = re.match(r"(?P<family>.+?)[\s\-_]?v(\d+)(?:\.\d+)?(?!\d)", name, re.I)
    if ver and ver.group("family").strip().lower() in {a.lower() for a in (spec.name, *spec.aliases)} \
            and ver.group(2) not in re.findall(r"(?<![a-z])v(\d+)(?!\d)", known, re.I) and re.search(r"(?<![a-z])v\d", known, re.I):
        # "DeepSeek V4" is not DeepSeek V3 (matched by its bare family alias): another major version
        near = difflib.get_close_matches(name, [s.name for s in specs], n=3, cutoff=0.4)
        raise TokcheckError(f"unknown model {name!r} (version V{ver.group(2)} is not {spec.name}'s)"
                            + (f" — did you mean {' or '.join(near)}?" if near else ""))
    size = _STATED_SIZE.search(name)
    if size and not names_size(spec, float(size.group(1)) * 1e9):
        near = difflib.get_close_matches(name, [s.name for s in specs], n=3, cutoff=0.4)
        raise TokcheckError(f"unknown model {name!r} (its size, {size.group(1)}B, is not {spec.name}'s)"
                            + (f" — did you mean {' or '.join(near)}?" if near else ""))
    return spec


#: Tiers of a model line that are models of their own ("GLM-4.7-Flash", "Qwen3-Max", "GLM-4.5-Air"),
#: as a regular expression's text (the claim reader uses it too).
TIER_WORDS = r"(?:Flash|Air|Lite|Mini|Nano|Turbo|Plus|Max|Small|Tiny|Micro)(?![A-Za-z])"
_TIER = re.compile(r"(?<![A-Za-z])(" + TIER_WORDS + ")", re.I)


def names_size(spec: ModelSpec, params: float) -> bool:
    """Whether a size written in a name (``params``, a count of parameters) can be ``spec``'s,
    each within :data:`SIZE_TOLERANCE`:

    - its total parameters ("Llama 2 7B" is 6.7B);
    - its active parameters only where one of the model's own names states that size: Llama 4
      is named by its active count ("Llama-4-Scout-17B-16E"), DeepSeek V3 is not, so
      "DeepSeek-Coder-33B" (33B, near V3's 37B active) does not fall to the bare "DeepSeek";
    - the size the vendor rounds into the name, where the catalog file states it
      (``nominal_params_stated``: Google names a 2.5B model "Gemma 2B"). Only entries that carry
      the key gain it; matching elsewhere is unchanged.
    """
    from tokcheck.core.architecture import active_params, total_params

    def near(p: float | None) -> bool:
        return bool(p) and 1 / SIZE_TOLERANCE <= params / p <= SIZE_TOLERANCE

    if near(total_params(spec)):
        return True
    entry = _entry_named(spec.name)
    nominal = entry.get("nominal_params_stated") if entry else None
    if nominal and near(float(nominal)):
        return True
    active = active_params(spec)
    if near(active):
        own = (_STATED_SIZE.search(n) for n in (spec.name, *spec.aliases))
        return any(1 / SIZE_TOLERANCE <= float(m.group(1)) * 1e9 / active <= SIZE_TOLERANCE for m in own if m)
    return False


def _entry_named(name: str) -> dict | None:
    """The catalog file (as read) of the model with this canonical name."""
    for e in _model_entries():
        if e["name"] == name:
            return e
    return None


#: How far a size written in a model's name may be from the catalog model's total or active
#: parameter count and still name it ("Llama 2 7B" is 6.7B, "Mistral Small 24B" 23.6B; a 49B
#: "Llama-3.3-Nemotron-Super-49B" is no Llama 3.3 70B).
SIZE_TOLERANCE = 1.25
# the total size written in a name: "1.5B" in "…-Qwen-1.5B"; not an active size ("A3B") nor "8x7B"
_STATED_SIZE = re.compile(r"(?<![\w.])(?<!x)(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")


def gpu_from_bandwidth(bandwidth_bytes_per_s: float, memory_bytes: int | None = None) -> GpuSpec:
    """A nameless GPU from a user-given bandwidth (``--bandwidth 3.35TB/s``)."""
    if not bandwidth_bytes_per_s or bandwidth_bytes_per_s <= 0:
        raise TokcheckError("bandwidth must be positive")
    return GpuSpec(name=f"{bandwidth_bytes_per_s / 1e12:g} TB/s device", memory_bytes=memory_bytes,
                   peak_bandwidth_bytes_per_s=float(bandwidth_bytes_per_s),
                   achievable_source="assumed: tuned batch-1 decode reaches ~70-90% of peak bandwidth "
                                     "(gpt-fast 69% on an A100-80GB; a device-to-device copy on an H200 ~90%)",
                   source="given on the command line", checked="n/a")


# ------------------------------------------------------------------ Hugging Face config.json

#: Values transformers' config classes fill in when a published ``config.json`` leaves a key
#: out (the file then relies on the class default). Gemma 3's text config (``Gemma3TextConfig``
#: in transformers ``models/gemma3/configuration_gemma3.py``) is the case met in practice: the
#: published gemma-3-4b-it file names neither its heads nor its vocabulary.
MODEL_TYPE_DEFAULTS: dict[str, dict] = {
    "gemma3_text": {"vocab_size": 262_208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "sliding_window": 4096, "sliding_window_pattern": 6, "max_position_embeddings": 131_072,
                    "tie_word_embeddings": True},
    # Falcon's files (and the first RefinedWeb ones) never write tie_word_embeddings: FalconConfig keeps
    # PretrainedConfig's default (True) and FalconForCausalLM ties lm_head to the word embeddings
    "falcon": {"tie_word_embeddings": True},
    "RefinedWeb": {"tie_word_embeddings": True},
    "RefinedWebModel": {"tie_word_embeddings": True},
}


#: Model types whose MLP is two matrices (up, down) with a plain GELU/ReLU, not a gated
#: SwiGLU/GeGLU of three (transformers' OPT, GPT-2, GPT-NeoX, Falcon, BLOOM, Phi-1/2, GPT-J; CodeGen and
#: MOSS, its fine-tune, whose MossMLP is fc_in / fc_out; the first CodeGeeX's Megatron MLP).
_PLAIN_MLP_TYPES = ("opt", "gpt2", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "bloom", "phi", "gptj",
                    "gpt_bigcode", "codegen", "moss", "codegeex")


def _text_config(cfg: dict) -> dict:
    """The decoder's config: a multimodal wrapper's ``text_config`` (with its own ``torch_dtype``
    and ``quantization_config``, else the wrapper's), or the config itself."""
    inner = cfg.get("text_config")
    if not isinstance(inner, dict) or "hidden_size" in cfg:
        return cfg
    out = dict(inner)
    out["model_type"] = inner.get("model_type", cfg.get("model_type"))
    for key in ("torch_dtype", "dtype", "quantization_config", "tie_word_embeddings"):
        if out.get(key) is None and cfg.get(key) is not None:
            out[key] = cfg[key]
    return out


def _is_moe_layer(cfg: dict, mt: str, i: int) -> bool:
    """Whether layer ``i`` has routed experts: Llama 4's ``interleave_moe_layer_step`` (every
    Nth layer), ``first_k_dense_replace`` + ``moe_layer_freq`` (DeepSeek, GLM, Kimi: the first k
    layers dense), Qwen's ``decoder_sparse_step`` / ``mlp_only_layers``, else every layer."""
    if mt.startswith("llama4"):
        step = int(cfg.get("interleave_moe_layer_step") or 1)
        moe = cfg.get("moe_layers")
        return i in set(moe) if moe else (i + 1) % step == 0
    if "first_k_dense_replace" in cfg or "moe_layer_freq" in cfg:
        if i < int(cfg.get("first_k_dense_replace") or 0):
            return False
        return i % int(cfg.get("moe_layer_freq") or 1) == 0
    if "decoder_sparse_step" in cfg or "mlp_only_layers" in cfg:
        step = int(cfg.get("decoder_sparse_step") or 1)
        return i not in set(cfg.get("mlp_only_layers") or []) and (i + 1) % step == 0
    return True


def _get(cfg: dict, *keys, default=None):
    for k in keys:
        if cfg.get(k) is not None:
            return cfg[k]
    return default


def _dbrx_flat(cfg: dict) -> dict:
    """DBRX (transformers ``DbrxConfig``) names its sizes MosaicML's way and keeps attention and
    MoE sizes one level down: ``n_layers``, ``n_heads``, ``max_seq_len``, ``attn_config.kv_n_heads``,
    ``ffn_config.ffn_hidden_size`` (each expert's SwiGLU width), ``ffn_config.moe_num_experts`` /
    ``moe_top_k``, ``ffn_config.ffn_act_fn.name``. The flat names are filled in where the file is
    silent; nothing it states is changed."""
    attn = cfg.get("attn_config") if isinstance(cfg.get("attn_config"), dict) else {}
    ffn = cfg.get("ffn_config") if isinstance(cfg.get("ffn_config"), dict) else {}
    act = ffn.get("ffn_act_fn") if isinstance(ffn.get("ffn_act_fn"), dict) else {}
    flat = {"num_hidden_layers": cfg.get("n_layers"), "num_attention_heads": cfg.get("n_heads"),
            "max_position_embeddings": cfg.get("max_seq_len"), "num_key_value_heads": attn.get("kv_n_heads"),
            "rope_theta": attn.get("rope_theta"), "intermediate_size": ffn.get("ffn_hidden_size"),
            "num_local_experts": ffn.get("moe_num_experts"), "num_experts_per_tok": ffn.get("moe_top_k"),
            "hidden_act": act.get("name")}
    out = dict(cfg)
    for key, value in flat.items():
        if out.get(key) is None and value is not None:
            out[key] = value
    return out


def _falcon_kv_heads(cfg: dict, heads: int) -> int | None:
    """Falcon's KV heads (transformers ``FalconConfig``): the new decoder architecture (Falcon-40B,
    -180B) has ``num_kv_heads`` groups (``n_head_kv`` in the first RefinedWeb files); otherwise
    ``multi_query`` (the class default) means one KV head (Falcon-7B, whose file still writes
    ``num_kv_heads`` 71, which the model then ignores), and without it ``num_kv_heads`` holds.
    None for other models."""
    if str(cfg.get("model_type") or "").lower() not in ("falcon", "refinedweb", "refinedwebmodel"):
        return None
    if cfg.get("new_decoder_architecture") or str(cfg.get("model_type")).lower() == "refinedweb":
        return int(_get(cfg, "num_kv_heads", "n_head_kv", default=heads))
    return 1 if cfg.get("multi_query", True) else int(_get(cfg, "num_kv_heads", "n_head_kv", default=heads))


def spec_from_hf_config(cfg: dict, name: str | None = None, meta: dict | None = None) -> ModelSpec:
    """A :class:`ModelSpec` from a parsed ``config.json`` dict (see :mod:`tokcheck.core.architecture`).

    Raises:
        TokcheckError: when a field the bound needs is missing or not a positive number.
    """
    cfg = _text_config(cfg)
    if cfg.get("model_type") == "dbrx" or isinstance(cfg.get("ffn_config"), dict):
        cfg = _dbrx_flat(cfg)
    cfg = {**MODEL_TYPE_DEFAULTS.get(str(cfg.get("model_type")), {}), **cfg}
    meta = dict(meta or {})
    mt = str(cfg.get("model_type") or "unknown")
    try:
        h = int(_get(cfg, "hidden_size", "n_embd", "d_model"))
        layers = int(_get(cfg, "num_hidden_layers", "n_layer", "num_layers"))
        heads = int(_get(cfg, "num_attention_heads", "n_head"))
        vocab = int(_get(cfg, "vocab_size", "padded_vocab_size"))
    except (KeyError, TypeError, ValueError) as err:
        raise TokcheckError(f"config.json lacks a field the bound needs ({err}); need hidden_size, "
                            "num_hidden_layers, num_attention_heads, vocab_size") from None
    if min(h, layers, heads, vocab) <= 0:
        raise TokcheckError("config.json has a non-positive size field")
    # ChatGLM2/3 and GLM-4-9B (model_type chatglm) name their sizes Megatron's way: num_layers,
    # padded_vocab_size, ffn_hidden_size (the SwiGLU width), kv_channels (the head width),
    # multi_query_group_num (KV heads, when multi_query_attention), seq_length (the context)
    groups = cfg.get("multi_query_group_num") if cfg.get("multi_query_attention") else None
    kv_heads = _falcon_kv_heads(cfg, heads) or int(_get(cfg, "num_key_value_heads", default=groups or heads))
    head_dim = int(_get(cfg, "head_dim", "kv_channels", default=h // heads))
    inter = int(_get(cfg, "intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", default=4 * h) or 0)
    if mt == "qwen":  # Qwen (1): intermediate_size counts both halves of its gated MLP (w1, w2)
        inter //= 2

    attention = "gqa"
    if mt == "deepseek_v4" or cfg.get("compress_ratios") is not None:
        attention = "dsv4"
    elif cfg.get("kv_lora_rank"):
        attention = "mla"

    # MoE layout
    n_exp = int(_get(cfg, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", default=0) or 0)
    k = int(_get(cfg, "num_experts_per_tok", "experts_per_token", "top_k_experts", "moe_topk", "moe_k", default=0) or 0)
    shared = int(_get(cfg, "n_shared_experts", default=0) or 0)
    shared_width = int(_get(cfg, "shared_expert_intermediate_size", "shared_intermediate_size", default=0) or 0)
    moe_width = int(_get(cfg, "moe_intermediate_size", "expert_intermediate_size", default=0) or 0)
    dense_width = inter
    llama4 = mt.startswith("llama4")
    if n_exp and cfg.get("enable_moe_block") and not shared_width:
        shared_width = inter  # Gemma 4 MoE: the dense MLP stays beside the experts, always active
    if n_exp and not moe_width:
        moe_width = inter  # mixtral, gpt_oss, llama4, minimax: experts have intermediate_size
    if llama4 and n_exp:
        # Llama 4: experts and the one shared expert are intermediate_size wide; the dense layers
        # in between use intermediate_size_mlp (transformers Llama4TextConfig)
        shared_width = shared_width or inter
        dense_width = int(cfg.get("intermediate_size_mlp") or inter)
    moe_layers = 0
    if n_exp:
        moe_layers = sum(1 for i in range(layers) if _is_moe_layer(cfg, mt, i))
    if n_exp and not k:
        raise TokcheckError("config.json describes experts but not how many are active per token "
                            "(num_experts_per_tok)")

    # linear-attention layers (Qwen3-Next, Qwen3.5: Gated DeltaNet)
    types = [str(t) for t in (cfg.get("layer_types") or [])][:layers]
    linear_layers = 0
    if cfg.get("linear_num_value_heads"):
        if types:
            linear_layers = sum(1 for t in types if "linear" in t)
        elif cfg.get("full_attention_interval"):
            n = int(cfg["full_attention_interval"])
            linear_layers = sum(1 for i in range(layers) if (i + 1) % n != 0)

    # sliding windows: layer_types (gpt-oss, Gemma 3 re-saves), Gemma's sliding_window_pattern
    # (every Nth layer global), Llama 4's chunked attention (attention_chunk_size on the layers
    # that use RoPE: 3 of 4), Mistral's global sliding_window
    window = cfg.get("sliding_window")
    sliding_layers = 0
    if attention != "dsv4" and llama4 and cfg.get("attention_chunk_size"):
        window = int(cfg["attention_chunk_size"])
        no_rope = cfg.get("no_rope_layers")
        sliding_layers = sum(1 for x in no_rope[:layers] if x) if no_rope else layers - layers // 4
    elif attention != "dsv4" and window:
        if types and any("sliding" in t for t in types):
            sliding_layers = sum(1 for t in types if "sliding" in t)
        elif cfg.get("sliding_window_pattern"):
            n = int(cfg["sliding_window_pattern"])
            sliding_layers = sum(1 for i in range(layers) if (i + 1) % n != 0)
        elif types:
            sliding_layers = 0
        elif cfg.get("use_sliding_window", True) and not mt.startswith("qwen"):
            sliding_layers = layers
        # Qwen configs carry sliding_window but use_sliding_window=false: full attention.
        if mt.startswith("qwen") and not cfg.get("use_sliding_window", False):
            sliding_layers = 0
        if window and cfg.get("max_position_embeddings") and int(window) >= int(cfg["max_position_embeddings"]):
            sliding_layers = 0  # a window as long as the context changes nothing

    released = meta.get("released_weights")
    quant = quantization_scheme(cfg, meta.get("hf_quant_config"))
    detail = meta.get("released_weights_detail", "")
    if quant is not None:
        released, qdetail = quant
        detail = detail or qdetail
    elif not released:
        from tokcheck.core.precision import canonical_precision

        dtype = str(_get(cfg, "torch_dtype", "dtype", default="bfloat16"))
        try:
            default = canonical_precision(dtype)
        except TokcheckError:
            default = "BF16"
        released = {"default": default}
        if cfg.get("expert_dtype") == "fp4":
            released["experts"] = "MXFP4"

    return ModelSpec(
        name=name or meta.get("name") or str(cfg.get("_name_or_path") or mt),
        model_type=mt,
        hidden_size=h, num_layers=layers, num_heads=heads, num_kv_heads=kv_heads, head_dim=head_dim,
        intermediate_size=dense_width if (not n_exp or moe_layers < layers) else 0,
        vocab_size=vocab,
        tie_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        attention=attention,
        attention_bias=bool(_get(cfg, "attention_bias", "add_qkv_bias", default=False)),
        q_lora_rank=int(cfg.get("q_lora_rank") or 0),
        kv_lora_rank=int(cfg.get("kv_lora_rank") or 0),
        qk_nope_head_dim=int(cfg.get("qk_nope_head_dim") or 0),
        qk_rope_head_dim=int(cfg.get("qk_rope_head_dim") or 0),
        v_head_dim=int(cfg.get("v_head_dim") or 0),
        o_lora_rank=int(cfg.get("o_lora_rank") or 0),
        o_groups=int(cfg.get("o_groups") or 0),
        sliding_window=int(window) if window else None,
        sliding_layers=sliding_layers,
        linear_layers=linear_layers,
        linear_num_key_heads=int(cfg.get("linear_num_key_heads") or 0),
        linear_num_value_heads=int(cfg.get("linear_num_value_heads") or 0),
        linear_key_head_dim=int(cfg.get("linear_key_head_dim") or 0),
        linear_value_head_dim=int(cfg.get("linear_value_head_dim") or 0),
        linear_conv_kernel_dim=int(cfg.get("linear_conv_kernel_dim") or 4),
        attn_output_gate=bool(cfg.get("attn_output_gate")) or mt == "qwen3_next",
        global_head_dim=int(cfg.get("global_head_dim") or 0),
        num_global_kv_heads=int(cfg.get("num_global_key_value_heads") or 0),
        attention_k_eq_v=bool(cfg.get("attention_k_eq_v")),
        mlp_matrices=2 if mt in _PLAIN_MLP_TYPES else 3,
        activation=str(_get(cfg, "hidden_act", "activation_function", "hidden_activation", default="") or ""),
        num_experts=n_exp, experts_per_token=k, num_shared_experts=shared,
        moe_intermediate_size=moe_width, shared_expert_intermediate_size=shared_width,
        moe_layers=moe_layers,
        compress_ratios=tuple(int(r) for r in (cfg.get("compress_ratios") or [])[:layers]),
        index_n_heads=int(cfg.get("index_n_heads") or 0),
        index_head_dim=int(cfg.get("index_head_dim") or 0),
        index_topk=int(cfg.get("index_topk") or 0),
        hc_mult=int(cfg.get("hc_mult") or 0),
        mtp_layers=int(_get(cfg, "num_nextn_predict_layers", "mtp_num_hidden_layers", default=0) or 0),
        max_position_embeddings=_get(cfg, "max_position_embeddings", *(("seq_length",) if mt == "chatglm" else ())),
        released_weights=dict(released),
        released_detail=str(detail or ""),
        total_params_stated=meta.get("total_params_stated"),
        active_params_stated=meta.get("active_params_stated"),
        active_params_convention=meta.get("active_params_convention", "with_embedding"),
        on_disk_gb_stated=meta.get("on_disk_gb_stated"),
        estimate=bool(meta.get("estimate", attention == "dsv4")),
        notes=meta.get("notes", ""),
        source=meta.get("source", "config.json"),
        checked=meta.get("checked", "n/a"),
        aliases=tuple(meta.get("aliases", ())),
    )


def model_from_config(path: str | Path) -> ModelSpec:
    """Read a Hugging Face ``config.json`` (or a model directory holding one) into a ModelSpec.

    Raises:
        TokcheckError: missing file, invalid JSON, or a config without the needed fields.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise TokcheckError(f"no config.json at {str(path)!r}")
    try:
        cfg = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TokcheckError(f"cannot read {str(p)!r} as JSON: {err}") from None
    if not isinstance(cfg, dict):
        raise TokcheckError(f"{str(p)!r} is not a config.json object")
    name = cfg.get("_name_or_path") or p.parent.name or "model"
    return spec_from_hf_config(cfg, name=str(name), meta={"source": str(p), "checked": "n/a"})


def resolve_model(name_or_path: str) -> ModelSpec:
    """A catalog name, a ``config.json`` path, or a model directory → ModelSpec."""
    p = Path(str(name_or_path)).expanduser()
    if str(name_or_path).endswith(".json") or p.is_dir() or p.is_file():
        return model_from_config(p)
    return find_model(name_or_path)


__all__ = ["GpuSpec", "ModelSpec", "find_gpu", "find_model", "gpu_from_bandwidth", "gpus", "model_from_config",
           "models", "resolve_model", "spec_from_hf_config"]
