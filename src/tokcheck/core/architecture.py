"""Model architecture from a Hugging Face ``config.json``: parameter counts per part and the KV cache.

Pure functions over :class:`ModelSpec`. Supported ``model_type`` values: ``llama``,
``mistral``, ``qwen2``, ``qwen3``, ``qwen3_moe``, ``qwen2_moe``, ``mixtral``,
``deepseek_v2``/``deepseek_v3`` (MLA), ``deepseek_v32``/``glm_moe_dsa`` (MLA + the DSA lightning
indexer), ``deepseek_v4`` (compressed sparse attention, estimated), ``gpt_oss``, ``llama4``
(interleaved dense and MoE layers, a shared expert, chunked local attention), ``qwen3_next`` /
``qwen3_5`` (Gated DeltaNet linear attention in 3 of 4 layers), ``gemma3`` (sliding windows every
layer but each Nth), ``glm4_moe``/``kimi_k2`` (dense first layers); other decoder-only configs with the
usual Llama-style keys are read the same way.

Formulas (SwiGLU MLPs as in all supported families):
- GQA attention per layer: ``h·(n_q·d) + 2·h·(n_kv·d) + (n_q·d)·h`` parameters.
- MLA attention (DeepSeek V2/V3 paper): ``h·r_q + r_q·n·(d_nope+d_rope) + h·(r_kv+d_rope)
  + r_kv·n·(d_nope+d_v) + n·d_v·h``.
- MLP / one expert: ``3·h·I``; router ``h·N``; embedding and LM head ``V·h`` each (one if tied).
- KV cache per token and layer: GQA ``2·n_kv·d`` values; MLA ``r_kv + d_rope`` values.
- Gated DeltaNet layer (Qwen3-Next / Qwen3.5, transformers ``Qwen3NextGatedDeltaNet``):
  ``h·(2·n_k·d_k + 2·n_v·d_v) + h·2·n_v + (2·n_k·d_k + n_v·d_v)·kernel + n_v·d_v·h`` parameters
  (q/k/v/z projection, the b/a gates, the depthwise convolution, the output projection). It keeps
  no per-token KV cache: a fixed state of ``n_v·d_k·d_v`` values plus the convolution's last
  ``kernel − 1`` inputs, read once per step whatever the context.
- DSA lightning indexer (DeepSeek V3.2, GLM-5): ``r_q·n_i·d_i + h·d_i + h·n_i`` parameters per
  layer and one ``d_i``-wide key per token and layer; attention reads at most ``index_topk``
  cached entries per step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModelSpec:
    """What the roofline needs to know about a model (from its ``config.json`` and model card).

    Sizes are counts (parameters, values), never bytes; precision is applied by the roofline.
    """

    name: str
    model_type: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int  # dense MLP width (0 if there are no dense MLP layers)
    vocab_size: int
    tie_embeddings: bool = False
    attention: str = "gqa"  # "gqa" | "mla" | "dsv4"
    attention_bias: bool = False
    # MLA / DeepSeek
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    o_lora_rank: int = 0
    o_groups: int = 0
    # sliding-window attention: the window and how many layers use it
    sliding_window: int | None = None
    sliding_layers: int = 0
    # linear attention (Gated DeltaNet) layers: no per-token KV cache, a fixed recurrent state
    linear_layers: int = 0
    linear_num_key_heads: int = 0
    linear_num_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel_dim: int = 4
    attn_output_gate: bool = False  # q_proj doubled for an output gate (Qwen3-Next, Qwen3.5)
    # Gemma 4: the global (full-attention) layers have their own head width and KV heads, and
    # with attention_k_eq_v no V projection (V is derived from K)
    global_head_dim: int = 0
    num_global_kv_heads: int = 0
    attention_k_eq_v: bool = False
    mlp_matrices: int = 3  # 3 for gated MLPs (SwiGLU, GeGLU); 2 for plain GELU/ReLU MLPs (OPT, GPT-2)
    # MoE
    num_experts: int = 0
    experts_per_token: int = 0
    num_shared_experts: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    moe_layers: int = 0
    # DeepSeek V4 compressed sparse attention
    compress_ratios: tuple[int, ...] = ()
    index_n_heads: int = 0
    index_head_dim: int = 0
    index_topk: int = 0
    hc_mult: int = 0
    mtp_layers: int = 0
    max_position_embeddings: int | None = None
    # provenance and the model card
    released_weights: dict = field(default_factory=lambda: {"default": "BF16"})
    released_detail: str = ""  # group / block sizes, KV-cache format, the quantizer
    activation: str = ""       # the MLP's activation ("silu", "relu"): ReLU MLPs leave most neurons at zero
    kv_cache_dtype: str = ""   # a serving setting ("FP8", "Q8_0"): the KV cache's format when not the activations'
    total_params_stated: float | None = None
    active_params_stated: float | None = None
    active_params_convention: str = "with_embedding"
    on_disk_gb_stated: float | None = None
    estimate: bool = False
    notes: str = ""
    source: str = ""
    checked: str = "no"
    aliases: tuple[str, ...] = ()

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0 and self.moe_layers > 0

    @property
    def dense_layers(self) -> int:
        """Layers with a dense MLP (all for a dense model; ``first_k_dense_replace`` layers;
        Llama 4's non-MoE layers)."""
        return self.num_layers - self.moe_layers

    @property
    def full_attention_layers(self) -> int:
        """Layers with softmax attention (all but the linear-attention layers)."""
        return self.num_layers - self.linear_layers


@dataclass(frozen=True)
class ParamBreakdown:
    """Parameter counts by part (whole model, main layers only; MTP layers apart).

    Attributes:
        attention: all layers' attention (incl. compressor/indexer for DeepSeek V4).
        dense_mlp: all dense MLP layers.
        expert: one routed expert (one layer).
        experts: all routed experts, all MoE layers.
        shared_experts: all shared experts, all MoE layers.
        router: all routers.
        embedding, lm_head: vocabulary matrices (lm_head 0 when tied).
        other: norms, hyper-connections.
        mtp: multi-token-prediction layers (not counted in totals; DeepSeek's convention).
    """

    attention: float
    dense_mlp: float
    expert: float
    experts: float
    shared_experts: float
    router: float
    embedding: float
    lm_head: float
    other: float
    mtp: float

    def total(self) -> float:
        return (self.attention + self.dense_mlp + self.experts + self.shared_experts + self.router
                + self.embedding + self.lm_head + self.other)


def _attention_params_per_layer(m: ModelSpec) -> float:
    h = m.hidden_size
    if m.attention == "mla":
        n = m.num_heads
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        q = (h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * n * qk) if m.q_lora_rank else h * n * qk
        kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank
        kv += m.kv_lora_rank * n * (m.qk_nope_head_dim + m.v_head_dim)
        return q + kv + n * m.v_head_dim * h
    if m.attention == "dsv4":
        n, d = m.num_heads, m.head_dim
        q = h * m.q_lora_rank + m.q_lora_rank * n * d
        kv = h * d  # one shared K=V head of width head_dim (num_key_value_heads = 1)
        o = n * d * m.o_lora_rank + m.o_groups * m.o_lora_rank * h  # grouped low-rank output
        return q + kv + o
    return _gqa_params(m, m.head_dim, m.num_kv_heads, False)


def _gqa_params(m: ModelSpec, d: int, kv_heads: int, k_eq_v: bool) -> float:
    h = m.hidden_size
    q = h * m.num_heads * d * (2 if m.attn_output_gate else 1)
    p = q + (1 if k_eq_v else 2) * h * kv_heads * d + m.num_heads * d * h
    if m.attention_bias:
        p += m.num_heads * d + 2 * kv_heads * d + h
    return p


def _global_layers(m: ModelSpec) -> int:
    """Softmax-attention layers without a sliding window."""
    return m.full_attention_layers - m.sliding_layers


def _linear_attention_params_per_layer(m: ModelSpec) -> float:
    """One Gated DeltaNet layer (see the module docstring)."""
    h = m.hidden_size
    nk, nv = m.linear_num_key_heads, m.linear_num_value_heads
    dk, dv = m.linear_key_head_dim, m.linear_value_head_dim
    conv = (2 * nk * dk + nv * dv) * m.linear_conv_kernel_dim
    return h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv + nv * dv * h + dv + 2 * nv


def _indexer_params_per_layer(m: ModelSpec) -> float:
    """DSA lightning indexer of an MLA model (DeepSeek V3.2, GLM-5): 0 without one."""
    if m.attention != "mla" or not m.index_n_heads:
        return 0.0
    h = m.hidden_size
    return m.q_lora_rank * m.index_n_heads * m.index_head_dim + h * m.index_head_dim + 2 * m.index_head_dim \
        + h * m.index_n_heads


def _dsv4_compressor_params(m: ModelSpec) -> float:
    """DeepSeek V4's KV compressors and indexer (an estimate from the config's widths)."""
    h, d = m.hidden_size, m.head_dim
    total = 0.0
    for r in m.compress_ratios[: m.num_layers]:
        if r <= 0:
            continue
        overlap = 2 if r == 4 else 1  # CSA layers compress overlapping windows (coff = 2)
        total += 2 * h * d * overlap  # wkv + wgate
        if r == 4:  # the lightning indexer: queries from the q latent, its own compressor
            total += m.q_lora_rank * m.index_n_heads * m.index_head_dim + h * m.index_n_heads
            total += 2 * h * m.index_head_dim * overlap
    return total


def param_breakdown(m: ModelSpec) -> ParamBreakdown:
    """Count parameters by part from the architecture (see the module docstring for formulas)."""
    h = m.hidden_size
    if m.global_head_dim and m.attention == "gqa":  # Gemma 4: global layers are shaped apart
        attention = _attention_params_per_layer(m) * m.sliding_layers + _global_layers(m) * _gqa_params(
            m, m.global_head_dim, m.num_global_kv_heads or m.num_kv_heads, m.attention_k_eq_v)
    else:
        attention = _attention_params_per_layer(m) * m.full_attention_layers
    attention += _linear_attention_params_per_layer(m) * m.linear_layers if m.linear_layers else 0
    attention += _indexer_params_per_layer(m) * m.num_layers
    if m.attention == "dsv4":
        attention += _dsv4_compressor_params(m)
    mats = m.mlp_matrices
    dense_mlp = mats * h * m.intermediate_size * m.dense_layers
    expert = mats * h * m.moe_intermediate_size if m.is_moe else 0
    experts = expert * m.num_experts * m.moe_layers
    shared_width = m.shared_expert_intermediate_size or m.moe_intermediate_size * m.num_shared_experts
    shared = mats * h * shared_width * m.moe_layers if m.is_moe else 0
    router = h * m.num_experts * m.moe_layers if m.is_moe else 0
    if m.model_type == "gpt_oss":  # expert biases (gate_up 2I, down h) and router bias
        experts += (2 * m.moe_intermediate_size + h) * m.num_experts * m.moe_layers
        router += m.num_experts * m.moe_layers
    embedding = m.vocab_size * h
    lm_head = 0 if m.tie_embeddings else m.vocab_size * h
    norms = 2 * h * m.num_layers + h
    if m.hc_mult:
        # hyper-connections: per layer two mixing maps of (hc·h) → (2·hc + hc²) (estimate)
        norms += 2 * m.num_layers * m.hc_mult * h * (2 * m.hc_mult + m.hc_mult ** 2)
    per_layer = (attention + dense_mlp + experts + shared + router) / max(m.num_layers, 1)
    mtp = m.mtp_layers * (per_layer + 2 * h * h)
    return ParamBreakdown(attention, dense_mlp, expert, experts, shared, router, embedding, lm_head, norms, mtp)


def total_params(m: ModelSpec) -> float:
    """All parameters of the main model (MTP layers excluded, as DeepSeek's 671B excludes them)."""
    return param_breakdown(m).total()


def active_params(m: ModelSpec, with_embedding: bool | None = None) -> float:
    """Parameters used per token: attention, dense MLPs, k routed + shared experts, router,
    LM head; plus the embedding table when ``with_embedding`` (the Qwen/Mixtral model-card
    convention; DeepSeek and gpt-oss cards leave it out). ``None`` → the model card's convention."""
    if with_embedding is None:
        with_embedding = m.active_params_convention == "with_embedding"
    b = param_breakdown(m)
    p = b.attention + b.dense_mlp + b.shared_experts + b.router + b.lm_head + b.other
    p += b.expert * m.experts_per_token * m.moe_layers
    if with_embedding or m.tie_embeddings:
        p += b.embedding
    return p


# ---------------------------------------------------------------- KV cache (counts of values)

def _kv_values_per_token_layer(m: ModelSpec) -> float:
    if m.attention == "mla":
        return m.kv_lora_rank + m.qk_rope_head_dim
    if m.attention == "dsv4":
        return m.head_dim
    return 2 * m.num_kv_heads * m.head_dim


def kv_values_per_token(m: ModelSpec) -> float:
    """KV cache values stored per token over all softmax-attention layers, ignoring windows and
    compression (Llama 3.1 8B: 2·32·8·128 = 65,536 values; DeepSeek V3 MLA: 61·576 = 35,136;
    Qwen3.5-35B-A3B: 10 full-attention layers of 2·2·256 = 10,240 — its 30 linear-attention
    layers add nothing per token)."""
    per = _kv_values_per_token_layer(m) + (m.index_head_dim if m.attention == "mla" and m.index_n_heads else 0)
    if m.global_head_dim and m.attention == "gqa":
        return per * m.sliding_layers + _global_kv_width(m) * _global_layers(m)
    return per * m.full_attention_layers


def _global_kv_width(m: ModelSpec) -> float:
    """KV values per token of one global layer (Gemma 4's wider heads; else the usual width)."""
    if m.global_head_dim and m.attention == "gqa":
        return 2 * (m.num_global_kv_heads or m.num_kv_heads) * m.global_head_dim
    return _kv_values_per_token_layer(m)


def linear_state_values(m: ModelSpec) -> float:
    """Values of the fixed per-sequence state of all linear-attention layers: the recurrent state
    ``n_v·d_k·d_v`` plus the convolution's last ``kernel − 1`` inputs of width ``2·n_k·d_k + n_v·d_v``
    (0 for a model without them). Qwen3.5-35B-A3B: 30 × (32·128·128 + 3·8192) = 16.46 M values."""
    if not m.linear_layers:
        return 0.0
    nk, nv = m.linear_num_key_heads, m.linear_num_value_heads
    dk, dv = m.linear_key_head_dim, m.linear_value_head_dim
    conv = (2 * nk * dk + nv * dv) * max(m.linear_conv_kernel_dim - 1, 0)
    return m.linear_layers * (nv * dk * dv + conv)


def kv_cache_values(m: ModelSpec, context_tokens: int) -> float:
    """KV cache values one sequence of ``context_tokens`` holds (sliding windows capped;
    DeepSeek V4: a 128-token window plus 1/r compressed entries and the indexer's keys)."""
    L = max(int(context_tokens), 0)
    per_layer = _kv_values_per_token_layer(m)
    if m.attention == "dsv4":
        total = 0.0
        W = m.sliding_window or 0
        for r in m.compress_ratios[: m.num_layers] or (0,) * m.num_layers:
            total += min(L, W) * per_layer
            if r > 0:
                total += math.ceil(L / r) * per_layer
                if r == 4:
                    total += math.ceil(L / r) * m.index_head_dim
        return total
    full_layers = m.full_attention_layers - m.sliding_layers
    sliding = m.sliding_layers * min(L, m.sliding_window or L)
    total = _global_kv_width(m) * full_layers * L + per_layer * sliding + linear_state_values(m)
    if m.attention == "mla" and m.index_n_heads:
        total += m.index_head_dim * L * m.num_layers  # the indexer's keys
    return total


def kv_read_values(m: ModelSpec, context_tokens: int) -> float:
    """KV cache values one decode step reads at ``context_tokens`` of context. Equal to
    :func:`kv_cache_values` except DeepSeek V4's CSA layers, which read all indexer keys but
    only the top-k (``index_topk``) selected compressed entries (an estimate), and DSA models
    (DeepSeek V3.2, GLM-5), which read all indexer keys but at most ``index_topk`` MLA entries."""
    if m.attention == "mla" and m.index_n_heads and m.index_topk:
        L = max(int(context_tokens), 0)
        return (_kv_values_per_token_layer(m) * min(L, m.index_topk) + m.index_head_dim * L) * m.num_layers
    if m.attention != "dsv4":
        return kv_cache_values(m, context_tokens)
    L = max(int(context_tokens), 0)
    W = m.sliding_window or 0
    d = m.head_dim
    total = 0.0
    for r in m.compress_ratios[: m.num_layers]:
        total += min(L, W) * d
        if r == 4:
            n = math.ceil(L / r)
            total += n * m.index_head_dim + min(n, m.index_topk or n) * d
        elif r > 0:
            total += math.ceil(L / r) * d
    return total
