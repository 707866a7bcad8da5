"""Take a speed claim apart: every figure with its role, and the facts a reproducible figure
needs, each with the words it was read from.

Pure text → :class:`Claim`. A claim is read in three passes over one normalised form of the
text (:mod:`.text`, same length as the original so every range points into what the user
pasted):

1. names — catalog models (with Hugging Face ids and Ollama tags) and GPUs, with their counts
   and systems ("DGX H100" = 8 × H100), so a GPU's model number is never read as a length;
2. figures — every speed and latency figure with its metric, scope, concurrency and speculative
   decoding (:mod:`.figures`), and the headline among them (:func:`.figures.choose_headline`);
3. words — precision and quantization, engine, lengths, options and memory footprints
   (:mod:`.words`).

``fields`` keep today's keys for the headline figure; ``sources`` says which words gave each
field. :data:`CHECKLIST` is the guide's minimum set of facts a reproducible figure needs
(docs/guide.md): fewer than :data:`MIN_PRESENT` present makes the claim a reference impression
only, not a basis for capacity planning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tokcheck.core.claim.figures import (
    METRICS,
    SCOPES,
    Figure,
    choose_headline,
    concurrency_mentions,
    find_figures,
    infer_single_request,
    scope_from_metric,
)
from tokcheck.core.claim.hardware import (
    GPU_LIKE,
    NameHit,
    count_range_before,
    find_names,
    gpu_count_anywhere,
    gpu_count_near,
    gpu_memory_anywhere,
    gpu_memory_near,
    gpu_row,
    is_comparison,
    machines_of,
    plural_after,
    used_subset,
)
from tokcheck.core.claim.numbers import plain
from tokcheck.core.claim.text import SENTENCE_END, normalise
from tokcheck.core.names import version_suffix
from tokcheck.core.claim.words import engine_words, footprint_words, length_words, option_words, precision_words
from tokcheck.errors import TokcheckError

__all__ = ["CHECKLIST", "FIELD_KEYS", "FOOTPRINT_KEYS", "METRICS", "MIN_PRESENT", "SCOPES", "Claim", "Figure",
           "apply_overrides", "parse_claim"]

# The keys of Claim.fields, in report order.
FIELD_KEYS = ("model", "weights_version", "precision", "quantization", "gpu", "gpu_count", "gpu_memory_gb",
              "engine", "engine_version", "concurrency", "batch_policy", "input_tokens", "output_tokens",
              "max_model_len", "metric", "value", "unit", "speculative_decoding", "prefix_cache", "cuda_graph")
#: Stated memory footprints and offload settings (Claim.footprint).
FOOTPRINT_KEYS = ("weights_gb", "memory_used_gb", "memory_used_scope", "host_memory_gb", "gpu_layers",
                  "total_layers", "cpu_layers", "n_cpu_moe", "kv_cache_dtype", "tensor_parallel", "pipeline_parallel",
                  "system")
#: The metrics an option may name (``--metric``): the figure metrics that make a headline.
OPTION_METRICS = ("ttft", "tpot", "generation_tok_s", "e2e_tok_s", "aggregate_throughput", "prefill_tok_s")

# The guide's checklist: item name → the fields that satisfy it.
CHECKLIST: dict[str, tuple[str, ...]] = {
    "model": ("model",),
    "weights_version": ("weights_version",),
    "precision": ("precision", "quantization"),
    "gpu": ("gpu",),
    "gpu_count": ("gpu_count",),
    "gpu_memory": ("gpu_memory_gb",),
    "engine": ("engine",),
    "engine_version": ("engine_version",),
    "concurrency": ("concurrency", "batch_policy"),
    "input_tokens": ("input_tokens",),
    "output_tokens": ("output_tokens",),
    "max_model_len": ("max_model_len",),
    "metric": ("metric",),
    "speculative_decoding": ("speculative_decoding",),
    "prefix_cache": ("prefix_cache",),
    "cuda_graph": ("cuda_graph",),
}
MIN_PRESENT = 5
# Beyond any serving system's published figure (a whole NVL72 rack serves about 1–2 million
# tok/s in vendor results): a figure above this is a typo or not tokens per second.
ABSURD_TOK_S = 1e9


@dataclass
class Claim:
    """A parsed claim.

    Attributes:
        text: the original text.
        fields: stated (or option-given) facts of the headline figure, keys from
            :data:`FIELD_KEYS` only; ``value`` is a number or a ``[lo, hi]`` range.
        figures: every figure of the text, in order (:class:`Figure`); one is the headline.
        sources: field → the words of the text it was read from (or ``"option --gpu"``).
        footprint: stated footprints and offload settings, keys from :data:`FOOTPRINT_KEYS`.
        notes: what the reader inferred and why, and names it did not know (with the nearest).
        unknown_names: ``[{"kind": "gpu"|"model", "words": …, "suggestions": […]}]``.
        inferred: fields read from what the text leaves out rather than from its words (a bare
            tok/s figure is one request's generation speed); they do not count as stated facts.
        gpus_named: every catalog GPU the text names as hardware of its own (not one it is
            compared against), ``(name, start)`` in text order, ``start`` in the normalised text.
    """

    text: str
    fields: dict = field(default_factory=dict)
    figures: list[Figure] = field(default_factory=list)
    sources: dict = field(default_factory=dict)
    footprint: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    unknown_names: list = field(default_factory=list)
    inferred: list = field(default_factory=list)
    gpus_named: list = field(default_factory=list)

    @property
    def headline(self) -> Figure | None:
        return next((f for f in self.figures if f.headline), None)

    @property
    def present(self) -> list[str]:
        return [item for item, keys in CHECKLIST.items()
                if any(self.fields.get(k) is not None and k not in self.inferred for k in keys)]

    @property
    def missing(self) -> list[str]:
        return [item for item in CHECKLIST if item not in self.present]

    @property
    def present_count(self) -> int:
        return len(self.present)

    @property
    def reference_only(self) -> bool:
        """Fewer than five checklist facts: a reference impression, not a basis for planning."""
        return self.present_count < MIN_PRESENT


# A CPU device written before a headline ("on a Raspberry Pi 5", "on an EPYC 9754")
_CPU_DEVICE_BEFORE = re.compile(r"raspberry\s*pi(?:\s*\d)?|树莓派|\bepyc\s+\d{4}\w*|\bxeon\b[\w\s\-]{0,16}?\d{4}\w*|"
                                r"\bi[3579][\s\-]\d{4,5}[a-z]*\b|\bx86\s*cpu|(?:以|用|靠)\s*cpu\s*(?:运算|计算|推理|跑)|\bcpu[\s\-]only\b|"
                                r"纯\s*(?:cpu|处理器)|仅用?\s*cpu", re.I)
#: An integrated GPU the catalog does not row (it shares the system's memory): "Radeon Vega 8",
#: "Radeon 860M", "Intel UHD Graphics 620", "Iris Xe Graphics", "Adreno 750"
IGPU = re.compile(r"(?<![\w\-])(?:amd\s+)?radeon\s+(?:vega\s*\d{1,2}|[6789]\d0m)(?![\w\-])|"
                  r"(?<![\w\-])(?:intel\s+)?(?:uhd|iris\s*xe|iris\s*plus|hd)\s+graphics(?:\s+\d{3,4})?(?![\w\-])|"
                  r"(?<![\w\-])(?:qualcomm\s+)?adreno\s*\d{3}(?![\w\-])", re.I)
#: A CPU's name: the device when no GPU is named ("a 70B Q4 model at 7-8 tok/s on an EPYC 9754")
CPU_NAMED = re.compile(r"\b(?:epyc|xeon|threadripper|ampereone|altra|graviton\d*)\b|至强|\bcore\s+(?:ultra\s+)?i?[3579]\b|"
                        r"\bi[3579][\s\-]\d{4,5}[a-z]*\b|\bryzen\s+(?:[3579]|ai\s+(?:9\s+)?(?:hx\s+)?3\d\d)\b|"
                        r"\bamd\s+[2-9]\d{3}g\b", re.I)  # "an AMD 5700G": an APU, run on its CPU


def _blank(t: str, spans: list[tuple[int, int]]) -> str:
    chars = list(t)
    for s, e in spans:
        for i in range(s, e):
            chars[i] = "§"
    return "".join(chars)


# A Hugging Face id ("Qwen/Qwen3-Coder-30B-A3B-Instruct-AWQ") and an Ollama tag ("qwen3:14b-fp8").
# (a hub address's host is no organisation: "hf.co/unsloth/Qwen3.8-27B-GGUF:Q4_K_M")
_HF_ID = re.compile(r"(?:(?<![\w./-])(?:https?://)?(?:hf\.co|huggingface\.co)/|(?<![\w./-]))"
                    r"(?!(?:hf\.co|huggingface\.co)/)(?P<org>[A-Za-z0-9][\w.\-]{1,40})/(?P<name>[A-Za-z0-9][\w.\-]{2,80})")
# (not "Qwen3.6-35B-A3B：1k 输入": a length after a colon is no tag)
_OLLAMA = re.compile(r"(?<![\w./-])(?P<name>[a-z][a-z0-9.\-]{1,30}):(?!\d+(?:\.\d+)?k\b)(?P<tag>[a-z0-9][a-z0-9.\-_]{0,40})(?![\w/])", re.I)
_SUFFIXES = re.compile(r"[\-_.](?:instruct|chat|base|it|hf|gguf|awq|gptq|fp8|fp4|nvfp4|mxfp4|int4|int8|w4a16|w8a8|"
                       r"bf16|fp16|dynamic|thinking|reasoning|\d{4}|v\d+(?:\.\d+)?|q\d\w*|mlx|4bit|8bit|ud|unsloth)$", re.I)
_MODEL_LIKE = re.compile(
    r"(?<![A-Za-z0-9_./-])(?P<m>[A-Za-z][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*-\d+(?:\.\d+)?[bBmM](?:-A\d+(?:\.\d+)?[bB])?"
    r"|(?!(?:A|An|The|Our|My|This|That|Their|Its|Each|Every|Any|Your|At|In|On|For|With|By|From|Of|To|And|But|While|Both|Only|Even|Then|Than|Using|Running|Unlike|Like|Versus|Vs)\s)[A-Z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*(?:-[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)*(?:\s[A-Z0-9][A-Za-z0-9.]*){0,2}\s\d+(?:\.\d+)?[bB](?:[\-\s]A\d+(?:\.\d+)?[bB])?)(?![A-Za-z0-9_])")


_QWEN_ZH = re.compile(r"(?:通义)?千问\s*(?P<rest>\d+(?:\.\d+)?(?:-[A-Za-z0-9.]+)*)")
_FILE_NAME = re.compile(r"(?<![\w./-])[a-z]+\d(?:_\d)?_\d+(?:\.\d+)?b(?:_[a-z0-9]+)*(?![\w.])", re.I)
# The weights version written after a model's name: "… -Instruct-2507", "… Thinking"
_VERSION_TAIL = re.compile(r"[\s\-_]*(instruct[\-\s]?\d{4}|instruct|thinking|base|chat|\d{4}(?:-\d{2})?)\b", re.I)
# Model families whose names are written as family + version ("Llama 3.1", "Qwen2.5")
_FAMILY_NAMES = "Llama|Qwen|Gemma|Mistral|DeepSeek|Phi|Yi|GLM"
# "Qwen2.5 (7B)": a family with its size in brackets
_SIZE_IN_BRACKETS = re.compile(rf"(?<![\w.\-])(?P<fam>(?:{_FAMILY_NAMES})[\s\-]?\d+(?:\.\d+)?|Falcon|Mixtral|Vicuna|MPT|Granite|MiMo)\s*"
                               r"\(\s*(?P<size>\d+(?:\.\d+)?)\s*[bB]\s*\)", re.I)
_BENCH_ARCH = re.compile(r"(?<![\w.\-])qwen(?P<v>\d)(?P<v2>\d)?(?:moe|next)?\s+(?P<size>\d+(?:\.\d+)?)\s*B"
                         r"(?:\.A(?P<act>\d+(?:\.\d+)?)B)?(?![\w])", re.I)


# A size written before a family's name: "the 70B Nemotron model", "a 7B LLaMA Q4_1 model"
_SIZE_THEN_NAME = re.compile(r"(?<![\w.\-])(?P<size>\d+(?:\.\d+)?)\s*[bB]\s+(?P<name>[A-Z][A-Za-z]+\d*(?:\.\d+)?|[a-z]+\d+(?:\.\d+)?)"
                             r"(?=[\s,)]|$)(?<!\bMoE)(?<!\bLLM)(?<!\bGGUF)")
_SIZE_THEN_VERSIONED = re.compile(rf"(?<![\w.\-])(?P<size>\d+(?:\.\d+)?)\s*[bB]\s+(?P<name>{_FAMILY_NAMES})\s?(?P<v>\d+(?:\.\d+)?)"
                                  r"(?![\w.])(?!\s*(?:[bB]\b|x\b|×|\*|gpus?\b|cards?\b|nodes?\b|张|卡|块))", re.I)
# A family written in lower case with its size: "llama 8B Q4_K_M"
_LOWER_FAMILY_SIZE = re.compile(r"(?<![\w.\-])(?P<fam>llama|qwen|mistral|gemma)\s+(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w.])")
# A family's name with its size glued on: "Qwen7B int4", "Llama70B"
_GLUED_SIZE = re.compile(r"(?<![\w.\-])(?P<fam>Qwen|Llama|Mistral|Gemma|Yi|Baichuan|InternLM|DeepSeek|Vicuna)"
                         r"(?P<size>\d+(?:\.\d+)?)[bB](?![\w.])", re.I)
def _family_size_matches(t: str):
    """Glued ("Qwen7B") and lower-case ("llama 8B") family-and-size names, glued ones first."""
    yield from _GLUED_SIZE.finditer(t)
    yield from _LOWER_FAMILY_SIZE.finditer(t)


# A tag that makes another model of a sized name: "Qwen3-4B-VL" is Qwen3-VL-4B, not Qwen3-4B
_OTHER_MODEL_TAG = r"VL|Vision|Omni|Coder|Math|Guard|Embedding|Reranker|Audio"
_TAG_AFTER_SIZE = re.compile(rf"(?<![\w.\-])(?P<fam>[A-Za-z]+[\d.]*)-(?P<size>\d+(?:\.\d+)?[bB])-(?P<tag>{_OTHER_MODEL_TAG})(?![A-Za-z])", re.I)


#: Ollama's default tags for its bare model names (ollama.com/library: llama2 → 7b, llama3 → 8b,
#: llama3.1 → 8b, llama3.2 → 3b, llama3.3 → 70b); Llama 3 8B has Llama 3.1 8B's shape.
_OLLAMA_DEFAULTS = {"llama2": "Llama 2 7B", "llama3": "Llama 3.1 8B", "llama3.1": "Llama 3.1 8B",
                    "llama3.2": "Llama 3.2 3B", "llama3.3": "Llama 3.3 70B"}
_OLLAMA_DEFAULT = re.compile(r"(?<![\w.\-/])(?:llama2|llama3(?:\.[123])?)(?![\w.:\-])(?!\s*\d+(?:\.\d+)?\s*[bBmM]\b)", re.I)


def _strip_suffixes(name: str) -> list[str]:
    out = [name]
    while True:
        s = _SUFFIXES.sub("", out[-1])
        if s == out[-1] or not s:
            return out
        out.append(s)


def _model_candidates(t: str) -> list[tuple[str, int, int, str | None]]:
    """Strings worth looking up as models: Hugging Face ids (org dropped, suffixes stripped one by
    one) and Ollama tags ("gpt-oss:20b" → "gpt-oss-20b"), with the quantization they name."""
    out = []
    for m in _HF_ID.finditer(t):
        if m.group("org").lower() in ("tok", "tokens", "t", "s", "ms", "gb"):
            continue
        for n in _strip_suffixes(m.group("name")):
            out.append((n, m.start(), m.end(), m.group("name")))
    for m in re.finditer(r"(?<![\w.\-])(?P<fam>llama|qwen|gemma|phi)[\-_ ]?v(?P<v>\d(?:\.\d)?)(?P<rest>[\-_ ]\d+(?:\.\d+)?[bB])", t, re.I):
        # Qualcomm's and others' "Llama-v3-8B", "Llama-v3.1-8B-Chat": the family's version with a v
        name = f"{m.group('fam')}-{m.group('v')}{m.group('rest')}"
        out.append((name, m.start(), m.end(), name))
    for m in _QWEN_ZH.finditer(t):
        # 通义千问 / 千问 is Qwen's Chinese name: "通义千问2.5-7B-Instruct" is Qwen2.5-7B-Instruct
        for n in _strip_suffixes("Qwen" + m.group("rest")):
            out.append((n, m.start(), m.end(), "Qwen" + m.group("rest")))
    for m in _FILE_NAME.finditer(t):
        # a weights file's name: "llama3_3_70b_instruct_q40" is Llama 3.3 70B Instruct
        name = re.sub(r"(?<=[a-z])(\d)_(\d)(?=_)", r"\1.\2", m.group(0), count=1, flags=re.I).replace("_", "-")
        for n in _strip_suffixes(name):
            out.append((n, m.start(), m.end(), name))
    for m in _SIZE_IN_BRACKETS.finditer(t):
        name = f"{m.group('fam').replace(' ', '')}-{m.group('size')}B"
        out.append((name, m.start(), m.end(), name))
    for m in _BENCH_ARCH.finditer(t):
        # llama-bench's model column: "qwen35 27B", "qwen3moe 30B.A3B" (architecture, then size)
        ver = m.group("v") + (f".{m.group('v2')}" if m.group("v2") else "")
        name = f"Qwen{ver}-{m.group('size')}B" + (f"-A{m.group('act')}B" if m.group("act") else "")
        out.append((name, m.start(), m.end(), name))
    for m in _family_size_matches(t):
        # lower-case "llama 8B" (a capitalised "Llama 8B" is model-shaped already), glued "Qwen7B"
        name = f"{m.group('fam')}-{m.group('size')}B"
        out.append((name, m.start(), m.end(), name))
    for m in _SIZE_THEN_VERSIONED.finditer(t):
        # "the 7B Llama 2 model": the family's version after its name, the size before it
        name = f"{m.group('name')} {m.group('v')} {m.group('size')}B"
        out.append((name, m.start(), m.end(), name))
    for m in _SIZE_THEN_NAME.finditer(t):
        name = f"{m.group('name')}-{m.group('size')}B"
        out.append((name, m.start(), m.end(), name))
    for m in _TAG_AFTER_SIZE.finditer(t):
        name = f"{m.group('fam')}-{m.group('tag')}-{m.group('size')}"
        out.append((name, m.start(), m.end(), name))
    for m in _OLLAMA_DEFAULT.finditer(t):
        # a bare Ollama name is its default tag: "llama3" is llama3:8b, "llama2" llama2:7b
        name = _OLLAMA_DEFAULTS[m.group(0).lower()]
        out.append((name, m.start(), m.end(), name))
    for m in _OLLAMA.finditer(t):
        tag = m.group("tag").lower()
        if tag.isdigit() or re.fullmatch(r"\d+:\d+", m.group(0)):
            continue
        size = re.match(r"(\d+(?:\.\d+)?[bm](?:-a\d+b)?)(?:-(.*))?$", tag)
        base = f"{m.group('name')}-{size.group(1)}" if size else m.group("name")
        out.append((f"{m.group('name')}:{tag}", m.start(), m.end(), m.group(0)))
        out.append((base, m.start(), m.end(), m.group(0)))
    return out


@dataclass
class _ModelHit:
    name: str
    start: int
    end: int
    words: str
    version: str | None = None
    version_words: str | None = None
    note: str | None = None


_SIZE_BEFORE = re.compile(r"(?<![\w.])(?P<size>\d+(?:\.\d+)?)\s*[bB]\s*(?:的|版|参数的?)?\s*$")
_YI_BEFORE = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*亿\s*(?:参数|參數)(?:的|量)?\s*$")
_YI_AFTER = re.compile(r"^\s*(?P<n>\d+(?:\.\d+)?)\s*亿\s*(?:参数|參數)")
_SIZE_AFTER = re.compile(r"^[\s\-_:]*(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w])")


# A tag glued after a catalog name that makes another model or a method of it
_OTHER_MODEL_AFTER = re.compile(r"(?:[\-_]|\s(?=[A-Z]))(?:OCR|Coder|VL|Math|Prover|Janus|Vision|Embedding|Reranker|Guard|Audio|Omni|"
                                r"mtp|eagle\d?|draft)(?![A-Za-z])", re.I)


# llama-bench's model column: the GGUF architecture and size ("qwen3moe 30B.A3B", "qwen2 7B")
_GGUF_ARCH_LABEL = re.compile(r"(?:qwen\d*(?:moe|next)?|llama\d?|gemma\d*|deepseek\d*|glm4(?:moe)?|phi\d|mistral\d?|"
                              r"gpt-?oss|olmoe?|granite(?:moe)?)\s+\d+(?:\.\d+)?B(?:\.A\d+(?:\.\d+)?B)?")


def _model_hits(t: str, models) -> list[_ModelHit]:
    """Every model the text names, in text order: Hugging Face ids and Ollama tags resolved
    through the catalog, catalog names and aliases, a family with its size written apart
    ("7B 的 Deepseek-r1" is deepseek-r1:7b, the 7B distill), and a bare "DeepSeek" (read as
    DeepSeek-V3, the 671B model the name usually means, and said so)."""
    from tokcheck.core.catalog import TIER_WORDS, find_model, quantized_from

    hits: list[_ModelHit] = []

    def taken(s: int, e: int) -> bool:
        return any(h.start < e and s < h.end for h in hits)

    for cand, s, e, whole in _model_candidates(t):
        if taken(s, e):
            continue
        try:
            spec = find_model(cand)
        except TokcheckError:
            continue
        base = quantized_from(spec.name)
        if base and "/" in t[s:e]:
            # a quantized release is one publisher's: "amd/Llama-3.1-70B-Instruct-FP8-KV" is not
            # NVIDIA's FP8 checkpoint, it is Llama 3.1 70B quantized by another
            org = t[s:e].split("/", 1)[0].lower()
            if org not in {a.split("/", 1)[0].lower() for a in spec.aliases if "/" in a}:
                spec = find_model(base)
        suffix = whole[len(cand):] if whole.lower().startswith(cand.lower()) else ""
        ver = re.search(r"(instruct[\-_]?\d{4}|instruct|thinking[\-_]?\d{0,4}|\d{4})", suffix, re.I)
        hits.append(_ModelHit(spec.name, s, e, t[s:e], ver.group(1) if ver else None, whole if ver else None))
    for h in find_names(t, [(m.name, m.aliases) for m in models], min_len=3):
        if taken(h.start, h.end) or _inside_other_model(t, h.start, h.end):
            continue
        glued = re.match(r"[\-_](\d+(?:\.\d+)?)[bB](?![a-z])", t[h.end:h.end + 10])
        own_size = _size_b(h.name) if glued else None
        if glued and own_size and abs(own_size - float(glued.group(1))) > 0.25 * float(glued.group(1)):
            continue  # "DeepSeek-7B-Chat" is no DeepSeek V3 (671B) named by its bare family
        tier = re.match(r"(?:\.\d+)?[\-_ ]?(" + TIER_WORDS + ")", t[h.end:h.end + 16], re.I)
        own = next((m for m in models if m.name == h.name), None)
        if tier and own and tier.group(1).lower() in " ".join((own.name, *own.aliases)).lower():
            tier = None  # "DeepSeek-V4.1-Flash": a minor version of the tier the model is
        if _OTHER_MODEL_AFTER.match(t, h.end) or tier:
            # "DeepSeek-OCR" is no DeepSeek V3, "GLM-5.3-Flash" no GLM-5 (though GLM-5.1 has its
            # shape), and "qwen3_next_mtp" is a speculative method's name: the name goes on
            continue
        words = t[h.start:h.end]
        bare_v = re.match(r"[\s\-_]?v(\d+(?:\.\d+)?)(?![\w.])(?![\-_]\w|\s+(?:" + TIER_WORDS + r")\b)", t[h.end:h.end + 24], re.I)
        if bare_v and words.lower() == "deepseek":
            # "DeepSeek V4" with no tier: of V4 Flash and V4 Pro, the smaller (the most favourable
            # reading); a version the catalog does not know is no DeepSeek V3
            try:
                spec = find_model(f"DeepSeek-V{bare_v.group(1)}")
                note = None
            except TokcheckError:
                if bare_v.group(1) not in ("4", "4.0"):
                    continue
                spec = find_model("DeepSeek-V4-Flash")
                note = (f"{t[h.start:h.end + bare_v.end()]!r} names no tier: read as {spec.name}, the smaller of "
                        "V4 Flash and V4 Pro (the most favourable reading)")
            hits.append(_ModelHit(spec.name, h.start, h.end + bare_v.end(), t[h.start:h.end + bare_v.end()], note=note))
            continue
        more = re.match(r"[\-_][A-Za-z]*\d[\w.]*(?:[\-_][A-Za-z][\w.]*)*", t[h.end:])
        if more:
            # "DeepSeek-V4.1-Flash": the bare "DeepSeek" goes on into a longer name, which is its model
            try:
                longer = find_model(words + more.group(0))
                if longer.name != h.name:
                    h = type(h)(longer.name, h.start, h.end + more.end())
                    words = t[h.start:h.end]
            except TokcheckError:
                pass
        hit = _ModelHit(h.name, h.start, h.end, words)
        # a size written apart from a family name: "7B 的 Deepseek-r1", "deepseek-r1 7b"
        size = _SIZE_BEFORE.search(t[max(0, h.start - 12):h.start]) or _SIZE_AFTER.match(t[h.end:h.end + 10])
        # "67亿参数的 DeepSeek R1", "DeepSeek 70亿参数模型"
        yi = _YI_BEFORE.search(t[max(0, h.start - 12):h.start]) or _YI_AFTER.match(t[h.end:h.end + 12])
        if size or yi:
            family = re.sub(r"[\s\-_:]*\d+(?:\.\d+)?\s*[bB]$", "", words.strip())
            # "67亿参数的 DeepSeek R1": 亿 is 10⁸, so 67亿 is 6.7B, the tag's rounded 7b
            billions = f"{round(float(yi.group('n')) / 10):g}" if yi else size.group("size")
            if yi:
                size = yi
            # a bare "DeepSeek" of a small size is Ollama's deepseek-r1 distill ("DeepSeek 70亿参数模型")
            for base in [family] + (["deepseek-r1"] if family.lower() == "deepseek" else []):
                try:
                    spec = find_model(f"{base}:{billions}b")
                except TokcheckError:
                    continue
                if spec.name != h.name:
                    hit = _ModelHit(spec.name, h.start, h.end, words,
                                    note=f"{words!r} with {size.group(0).strip()!r} is {spec.name}")
                break
        if hit.version is None:
            version = version_suffix(words, h.name, [a for m in models if m.name == h.name for a in m.aliases])
            tail = _VERSION_TAIL.match(t[h.end:h.end + 24])
            if tail:
                hit.version, hit.version_words = tail.group(1), t[h.start:h.end + tail.end()]
            elif version:
                hit.version, hit.version_words = version, words
        hits.append(hit)
    for m in _MODEL_LIKE.finditer(t):
        # a model-shaped name that is no alias: "Qwen3.5-122B", "Qwen 2.5 7B"
        if taken(m.start("m"), m.end("m")):
            continue
        name = re.sub(r"\s+", "-", re.sub(r"(?<=[A-Za-z])\s+(?=\d)", "", m.group("m")))
        try:
            spec = find_model(name)
        except TokcheckError:
            continue
        hit = _ModelHit(spec.name, m.start("m"), m.end("m"), m.group("m"))
        tail = _VERSION_TAIL.match(t[hit.end:hit.end + 24])
        if tail:
            hit.version, hit.version_words = tail.group(1), t[hit.start:hit.end + tail.end()]
        hits.append(hit)
    if not hits:
        # ("r1-awq", "r1-fp8": a bare R1 with its file's format after it)
        m = re.search(r"(?<![\w.\-/])R1(?:/V3)?(?![\w\-])", t) or re.search(
            r"(?<![\w.\-/])r1(?=[\-_](?:awq|gptq|fp8|fp4|nvfp4|int4|int8|w8a8|w4a16|gguf|bf16)\b)", t, re.I)
        if m:
            hits.append(_ModelHit("DeepSeek R1", m.start(), m.end(), m.group(0),
                                  note=f"{m.group(0)!r} read as DeepSeek-R1"))
    if not hits:
        m = re.search(r"(?<![\w.\-])(?:deepseek)(?![\w\-])(?!\s*(?:v\d|r\d|\d+(?:\.\d+)?\s*b\b|coder|llm|math|moe|distill))", t, re.I)
        if m:
            hits.append(_ModelHit("DeepSeek V3", m.start(), m.end(), m.group(0),
                                  note="'DeepSeek' with no version read as DeepSeek-V3 (the 671B model the name usually means)"))
    # "服务 Llama、Mixtral 等开源模型": a family named without its size in a list of examples is none
    hits = [h for h in hits if re.search(r"\d", h.words) or not re.match(r"\s*(?:等|,?\s*etc\b|and\s+(?:other|similar)\b)",
                                                                            t[h.end:h.end + 12], re.I)]
    arch = [h for h in hits if _GGUF_ARCH_LABEL.fullmatch(h.words)
            and re.match(r"\s+(?:I?Q\d|F16|BF16|F32|MXFP4|TQ\d)", t[h.end:h.end + 10], re.I)]
    if arch and len(arch) < len(hits):
        # "Qwen 3 Coder 30B-A3B as qwen3moe 30B.A3B Q8_0": llama-bench's architecture label names
        # the same file generically; the model named is the one that ran
        hits = [h for h in hits if h not in arch]
    return sorted(hits, key=lambda h: h.start)


def _inside_other_model(t: str, start: int, end: int) -> bool:
    """Whether the catalog name at ``start:end`` opens a longer model name the catalog does not
    know, which names another model: "DeepSeek-R1" in "DeepSeek-R1-Distill-Qwen-1.5B" (a 1.5B
    Qwen model distilled from R1), not "Llama-3.1-8B" in "Llama-3.1-8B-Instruct"."""
    from tokcheck.core.catalog import find_model

    if re.match(rf"-(?:{_OTHER_MODEL_TAG})(?![A-Za-z])", t[end:end + 12], re.I):
        return True  # "Qwen3-4B-VL": the vision model of that size
    if re.search(r"\d\s*[bBmM]$", t[start:end]):
        return False  # the catalog name carries its own size
    for m in _MODEL_LIKE.finditer(t, max(0, start - 1)):
        if m.start("m") > start:
            break
        if m.start("m") == start and m.end("m") > end:
            rest = t[end:m.end("m")]
            if not re.search(r"[A-Za-z]{3,}", re.sub(r"(?i)instruct|chat|base|thinking", "", rest)):
                return False
            try:
                find_model(m.group("m"))
                return False
            except TokcheckError:
                return True
    return False


# a family and a version with no size: "DeepSeek V5", "Qwen 4", "GLM-6"
_FAMILY_VERSION = re.compile(rf"(?<![\w.\-])(?:{_FAMILY_NAMES})[\s\-]?[vV]?\d+(?:\.\d+)?"
                             r"(?:[\s\-](?:flash|next|max|plus|turbo|mini|lite|pro|air|omni|coder)(?![\w.]))*(?![\w.]|\s*(?:[bBkK]\b|\d+(?:\.\d+)?\s*[bBmM]\b|x\b|×|\*|gpus?\b|cards?\b|nodes?\b|张|卡|块))", re.I)


def _known_version(words: str, models) -> bool:
    """Whether a family and version ("Qwen3", "Llama 3.1") open a catalog model's name or alias,
    so the words name a family the catalog has, not a version it lacks ("DeepSeek V5")."""
    key = re.sub(r"[\s\-_]", "", words.lower())
    return any(re.sub(r"[\s\-_]", "", n.lower()).startswith(key) for m in models for n in (m.name, *m.aliases))


def _unknown_model(t: str, notes: list, unknown: list) -> tuple[str, tuple[int, int]] | None:
    """A model-shaped name the catalog does not know ("Qwen3.6-35B"), with the nearest names."""
    hf = _HF_ID.search(t)
    m = _MODEL_LIKE.search(t)
    glued = next(_family_size_matches(t), None)
    if glued and not (hf or m):
        name = f"{glued.group('fam')}-{glued.group('size')}B"
        _note_unknown_model(name, notes, unknown)
        return name, glued.span()
    if hf and re.search(r"\d+(?:\.\d+)?[bBmM]", hf.group("name")):
        name, span = _strip_suffixes(hf.group("name"))[-1], hf.span()
    elif m:
        name, span = m.group("m").strip(), m.span("m")
    else:
        return None
    _note_unknown_model(name, notes, unknown)
    return name, span


def _is_compared_model(t: str, h: "_ModelHit") -> bool:
    """Whether the model at ``h`` is the one the claim is compared with, not the one it ran ("…
    25 t/s，与同等量化的 qwen3 8b 差不多", "faster than Llama 3.1 8B", "compared with Qwen3-8B")."""
    before = t[max(0, h.start - 24):h.start]
    if re.search(r"(?:\bthan|compared\s+(?:to|with)|\bversus|\bvs\.?|\bsimilar\s+to|\bas\s+fast\s+as|相比于?|相较于?|比起)"
                 r"\s*(?:the|an?)?\s*$", before, re.I):
        return True
    return bool(re.search(r"(?:与|和|跟|同)[^,.;，。；]{0,10}$", before)
                and re.match(r"[^,.;，。；]{0,8}?(?:差不多|相当|相近|一样|类似|持平|相比|对比)", t[h.end:h.end + 16]))


def _is_draft(t: str, start: int, end: int) -> bool:
    """Whether the words at ``start:end`` name the draft model of speculative decoding ("a
    llama3.2 1b-instruct q4_0 draft", "draft model Qwen3-0.6B")."""
    # (not across "with"/"and": "Llama-3.1-8B with a Llama-3.2-1B draft" names the target first)
    return bool(re.match(r"(?:(?!\bwith\b|\band\b|\busing\b)[\w\s.\-:]){0,24}?\bdraft\b", t[end:end + 32], re.I)
                or re.search(r"\bdraft(?:\s+model)?\s*(?:[:=]|is|of)?\s*$", t[max(0, start - 20):start], re.I))


_GLUED_NAME_MODEL = re.compile(r"(?<![\w.\-])[A-Z][A-Za-z]+\d+(?:\.\d+)?[MB](?=\s*(?:模型|models?\b))")


def _unknown_near(t: str, hits: list, head_start: int, known) -> tuple[str, str] | None:
    """A model-shaped name the catalog does not know, written before the headline and nearer to
    it than any known model: ``(name, words)``, else None."""
    from tokcheck.core.catalog import find_gpu, find_model

    best = None
    shaped = [(m.start("m"), m.end("m"), m.group("m").strip(), m.group("m")) for m in _MODEL_LIKE.finditer(t)]
    # "the 70B Nemotron model": a size before a capitalised name the catalog does not know
    shaped += [(m.start(), m.end(), f"{m.group('fam')}-{m.group('size')}B", m.group(0)) for m in _family_size_matches(t)]
    # "Tiny15M 模型": a name with its size glued on, called a model
    shaped += [(m.start(), m.end(), m.group(0), m.group(0)) for m in _GLUED_NAME_MODEL.finditer(t)]
    shaped += [(m.start(), m.end(), f"{m.group('name')}-{m.group('size')}B", m.group(0)) for m in _SIZE_THEN_NAME.finditer(t)
               if m.group("name")[0].isupper() and re.match(r"[\s\w.\-]{0,24}?\bmodel", t[m.end():m.end() + 32], re.I)]
    for s, e, name, words in sorted(shaped):
        if e > head_start or any(h.start < e and s < h.end for h in hits) or _is_draft(t, s, e):
            continue
        try:
            find_model(name)
            continue
        except TokcheckError:
            pass
        try:
            find_gpu(name)
            continue  # "8 NPUs (Ascend 910B)": a device's number is no size in billions
        except TokcheckError:
            best = (s, e, name, words)
    if best is None or (known is not None and best[0] < known.start < head_start):
        return None
    if re.search(r"[.;!?。；！？](?:\s|$)", t[best[1]:head_start]):
        return None  # in an earlier sentence
    return best[2], best[3]


def _note_unknown_model(name: str, notes: list, unknown: list) -> None:
    """Record ``name`` as a model the catalog does not know, with the nearest names (once)."""
    from tokcheck.core.catalog import find_model

    try:
        find_model(name)
    except TokcheckError as err:
        hint = str(err).split("did you mean", 1)[-1].strip(" ?") if "did you mean" in str(err) else ""
        if not any(u["words"] == name for u in unknown):
            unknown.append({"kind": "model", "words": name, "suggestions": [x.strip() for x in hint.split(" or ") if x]})
            notes.append(f"model {name!r} is not in the built-in catalog" + (f" — did you mean {hint}?" if hint else ""))


_FAMILY = re.compile(rf"(?<![\w.])({_FAMILY_NAMES})[\s\-]?(\d+(?:\.\d+)?)(?![\w.]|\s*[bB]\b)", re.I)


def _family_and_size(t: str, head) -> "_ModelHit | None":
    """A family named once ("an article on Llama 3.1") and a size written by the headline ("200+
    tokens/s for the 405B model"): the model they make together, if the catalog has it."""
    from tokcheck.core.catalog import find_model

    fams = [m for m in _FAMILY.finditer(t) if m.start() < head.span[0]]
    if not fams:
        return None
    fam = fams[-1]
    # "the RTX 5090 runs the 70B model at 18.2 tok/s and the 8B at 192": a sized model written
    # before the figure, in its sentence, is its own; else a size just after it
    before = [m for m in list(_SIZED_MODEL.finditer(t, fam.end(), head.span[0])) + list(_SIZED_MOE.finditer(t, fam.end(), head.span[0]))
              if not re.search(r"[.;!?。；！？](?:\s|$)", t[m.end():head.span[0]])]
    before.sort(key=lambda m: m.start())
    size = before[-1] if before else re.match(r"[^,;.。]{0,20}?(?<![\w.])(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w])",
                                                t[head.span[1]:])
    if size is None:
        return None
    try:
        active = size.groupdict().get("act") or ""
        spec = find_model(f"{fam.group(1)} {fam.group(2)} {size.group('size')}B{active}")
    except TokcheckError:
        return None
    return _ModelHit(spec.name, fam.start(), fam.end(), f"{fam.group(0)} … {size.group('size')}B",
                     note=f"{fam.group(0)!r} with {size.group('size')}B by the figure read as {spec.name}")


# A family written with its version and no size: "plain Qwen3 reached 200 TPS", "Groq + Llama 4"
_BARE_FAMILY = re.compile(r"(?<![\w.\-/])(?:(?P<fam>Qwen|Llama|Gemma|Phi|GLM|InternLM|Baichuan|SmolLM)(?P<sep>[\s\-]?)(?P<ver>\d+(?:\.\d+)?)"
                          r"|(?P<named>gpt-oss))"
                          r"(?![\w.\-:/]|[\s\-_]*\d+(?:\.\d+)?\s*[bBmM]\b|\s*\(\s*\d)"
                          r"(?P<tier>[\s\-](?:Plus|Max|Turbo|Flash)(?![\w.\-]))?")


def family_members(family: str) -> list[str]:
    """Catalog models of ``family`` ("Qwen3" → Qwen3-0.6B … Qwen3-235B-A22B), without other
    models that share its prefix (Qwen3-VL, Qwen3-Coder) or quantized releases (…-FP8)."""
    from tokcheck.core.catalog import models

    fam = re.escape(family).replace(r"\ ", r"[\s\-]?")
    out = [m.name for m in models()
           if re.match(rf"{fam}[\s\-](?:\d|Scout|Maverick)", m.name, re.I) and not re.search(r"FP8|FP4|\(", m.name)]
    return sorted(out, key=lambda n: (_size_b(n) or 0.0, n))


_VERSIONED_SIZE = re.compile(r"\s*(?P<fam>Llama|Qwen|Gemma|Phi|GLM|InternLM|Baichuan|SmolLM)[\s\-]?(?P<ver>\d+(?:\.\d+)?)"
                             r"[\s\-_]+(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w.])", re.I)


def missing_size_of_version(name: str) -> str | None:
    """Where ``name`` is a family, a version whose catalog models are all mixtures of experts and
    a size none of them has ("Llama 4.0 70B": Llama 4 is Scout and Maverick), why it names no
    model: the dense model of another version (Llama 3.1 70B) would judge a shape that version
    never had. Else None — a version with dense models may have sizes the catalog lacks, and the
    nearest dense size stands in for them."""
    from tokcheck.core.catalog import find_model

    m = _VERSIONED_SIZE.match(str(name or ""))
    if not m:
        return None
    version = re.sub(r"\.0$", "", m.group("ver"))
    members = family_members(f"{m.group('fam')} {version}") or family_members(f"{m.group('fam')}{version}")
    size = float(m.group("size"))
    if not members or any(abs((_size_b(n) or 0) - size) <= 0.25 * size for n in members) \
            or not all(find_model(n).is_moe for n in members):
        return None
    return (f"{m.group('fam')} {version} has no {m.group('size')}B model (its models, all mixtures of experts: "
            f"{', '.join(members)}), so the name cannot be sized")


def is_model_family(name: str) -> bool:
    """Whether a claim's model is a family written without a size ("Qwen3", "Llama 4"): no one
    catalog model is it, however near a fuzzy lookup comes ("Llama 4" is not Llama 4 Scout)."""
    from tokcheck.core.catalog import models
    from tokcheck.core.names import key

    whole = _BARE_FAMILY.fullmatch(str(name).strip())
    if not whole or whole.group("tier"):
        return False
    k = key(name)  # "GLM-5" is one model, the catalog's own name for it
    return not any(key(n) == k for m in models() for n in (m.name, *m.aliases))


def _bare_family(t: str, head_start: int) -> tuple[str, str, str | None] | None:
    """A family named without a size ("Qwen3", "Llama 4"), nearest before the headline else the
    first after it: ``(name, words, note)``. The claim's model is then the family, which no one
    bound fits: the note lists the sizes the catalog holds."""
    fams = list(_BARE_FAMILY.finditer(t))
    if not fams:
        return None
    before = [m for m in fams if m.start() < head_start]
    m = before[-1] if before else fams[0]
    name = m.group("named") or f"{m.group('fam')}{m.group('sep') or ''}{m.group('ver')}"
    if m.group("tier"):
        # "Qwen3.6 Plus", "Qwen3-Max": a hosted model of the family, not the family
        name = f"{name}-{m.group('tier').strip(' -')}"
        return name, m.group(0), None
    if not is_model_family(name):
        return None
    members = family_members(name)
    listed = ", ".join(members) if members else "none of its sizes"
    return name, m.group(0), (f"{name!r} names a family, not one model: its size decides the bound "
                              f"(the catalog holds {listed})")


# "running the 35B-A3B MoE": a mixture of experts named by its total and active sizes
_SIZED_MOE = re.compile(r"(?<![\w.\-])(?P<size>\d+(?:\.\d+)?)\s*[bB](?P<act>-A\d+(?:\.\d+)?[bB])\s*(?:MoE|models?|模型)?(?![\w.])")
_SIZED_MODEL = re.compile(r"(?<![A-Za-z0-9_.\-])(?P<size>\d+(?:\.\d+)?)\s*[bB]\s*(?:参数|參數)?\s*的?\s*(?:模型|models?\b|版本?|version\b)", re.I)


def _size_b(name: str) -> float | None:
    """A catalog model's total parameters in billions, else None."""
    from tokcheck.core.architecture import total_params
    from tokcheck.core.catalog import find_model

    try:
        return total_params(find_model(name)) / 1e9
    except (TokcheckError, ValueError):
        return None


# "DeepSeek-R1 各版本 …：14B 约需 8GB 显存 … 5-8 token/秒": a bare size opening a clause names the version
_CLAUSE_SIZE = re.compile(r"[:：,，;；、(（]\s*(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w.])(?!\s*(?:参数|參數|tokens?|context|上下文))")


def _other_size_of_family(t: str, mh: "_ModelHit", head, hits: list) -> "_ModelHit | None":
    """A family named first and a size written for the headline ("DeepSeek-R1 方案 …：70B 参数模型 …
    12 tokens/s"): the family's model of that size (Ollama's deepseek-r1:70b, the 70B distill),
    where it differs from the named model's own size by more than a quarter; else None."""
    from tokcheck.core.catalog import find_model

    sizes = sorted(list(_SIZED_MODEL.finditer(t, mh.end, head.span[0])) + list(_CLAUSE_SIZE.finditer(t, mh.end, head.span[0])),
                   key=lambda m: m.start("size"))
    if not sizes or re.search(r"[.;!?。；！？](?:\s|$)", t[sizes[-1].end():head.span[0]]):
        return None
    size = float(sizes[-1].group("size"))

    def near(billions: float | None) -> bool:  # within a quarter of the stated size
        return billions is not None and abs(billions - size) / size <= 0.25

    named = _size_b(mh.name)
    if named is None or near(named):
        return None
    named_sized = [h for h in hits if h.name != mh.name and near(_size_b(h.name))]
    if named_sized:
        # "Llama 3 70B, Phi3-Mini 3.8B and Llama 3 8B … The 70B model reached 5-10 tokens per second"
        h = named_sized[-1]
        return _ModelHit(h.name, h.start, h.end, h.words, h.version, h.version_words,
                         note=f"{sizes[-1].group(0)!r} by the figure is {h.name}, named earlier")
    spec = None
    # "本地部署 DeepSeek … 7B 模型": a DeepSeek size that is no DeepSeek-V3/R1 is Ollama's deepseek-r1 distill
    tries = [mh.words.strip()] + (["deepseek-r1"] if mh.name.startswith("DeepSeek") else [])
    for base in tries:
        try:
            spec = find_model(f"{base}:{sizes[-1].group('size')}b")
            break
        except TokcheckError:
            continue
    if spec is None:
        return None
    if spec.name == mh.name:
        return None
    return _ModelHit(spec.name, mh.start, mh.end, f"{mh.words} … {sizes[-1].group(0)}",
                     note=f"{mh.words!r} with {sizes[-1].group(0)!r} by the figure read as {spec.name}")


_BARE_SIZE = re.compile(r"(?<![\w.\-])(?P<size>\d+(?:\.\d+)?)\s*[bB](?![\w.\-])")


def _sized_before_head(t: str, head, figs: list, hits: list) -> "_ModelHit | None":
    """Models named only after the headline, its size written before it: "… 8B text … 8.715 ms and
    2B text (S=63) from 2.552 ms to 2.361 ms (423 tok/s), using … Qwen3-VL-8B-… and Qwen3-VL-2B-…"
    — the named model of the size written nearest before the headline in its sentence, and not
    before another figure in the headline's unit ("8B at 40 tok/s and 70B at 9 tok/s")."""
    start = max([m.end() for m in re.finditer(SENTENCE_END + "|[。；！？]", t[:head.span[0]])] + [0])
    sizes = [m for m in _BARE_SIZE.finditer(t, start, head.span[0])
             if not any(h.start <= m.start() < h.end for h in hits)
             and not any(m.end() <= f.span[0] < head.span[0] and f.unit == head.unit for f in figs)]
    if not sizes:
        return None
    size = float(sizes[-1].group("size"))
    sized = [h for h in hits if h.start > head.span[1] and (b := _size_b(h.name)) and abs(b - size) <= 0.25 * size]
    return sized[0] if len({h.name for h in sized}) == 1 else None


def _nearest_before(hits: list, start: int, text: str | None = None):
    """The hit nearest before position ``start`` (the headline figure), else the first after it —
    with ``text`` given, only one in the headline's own sentence ("… 2,500 t/s. A commenter says
    a DGX B200 …" names no hardware for the 2,500)."""
    before = [h for h in hits if h.start < start]
    if before:
        return before[-1]
    if text is None:
        return hits[0] if hits else None
    after = [h for h in hits if all(_CONTINUES_SUBJECT.match(text, b.end())
                                    for b in re.finditer(r"[.!?;。！？；](?:\s+|$)", text[:h.start]) if b.start() >= start)]
    return after[0] if after else None


# A sentence that goes on about the same run: "… 650 tokens per second. It serves the model on 8 B200 GPUs."
_CONTINUES_SUBJECT = re.compile(r"(?:(?:it|they|this|these|the\s+(?:model|run|setup|server|deployment|service|api))\b|该|它|其)",
                                re.I)


def _gpu_hits(t: str, gpus, systems, model_spans: list[tuple[int, int]], notes: list, unknown: list):
    """Systems and GPUs the text names: ``(system_hits, gpu_hits, unknown_gpu, spans)``. GPU hits
    leave out host-memory rows (those describe offload, not the GPU) and the GPUs a claim is
    compared against ("30 % more than H200 GPUs"); spans cover every name, so a model number
    is never read as a count or a length."""
    from tokcheck.core.catalog import find_gpu

    spans: list[tuple[int, int]] = []
    sys_hits = find_names(_blank(t, model_spans), [(s["name"], s["aliases"]) for s in systems], min_len=3)
    for m in _DGX_BY_GENERATION.finditer(t):
        # "DGX 系统(8×Blackwell GPU)": a DGX named by its GPUs' generation is that generation's DGX
        if not any(h.start <= m.start() < h.end for h in sys_hits):
            sys_hits.append(NameHit(_DGX_GENERATIONS[m.group("gen").lower()], m.start(), m.end()))
    spans.extend((h.start, h.end) for h in sys_hits)
    host = {g.name for g in gpus if g.kind == "host_memory"}
    hits = find_names(_blank(t, model_spans + spans), [(g.name, g.aliases) for g in gpus], min_len=2)
    # "at 5060.0 tok/s": a bare model number written as a figure is the figure, not an RTX 5060
    hits = [h for h in hits if not (t[h.start:h.end].isdigit() and re.match(
        r"(?:[.,]\d+)?\s*(?:tok|tokens?\b|t/s|tps\b|ms\b|s\b|秒|毫秒)", t[h.end:h.end + 12], re.I))]
    spans.extend((h.start, h.end) for h in hits)
    own = [h for h in hits if h.name not in host and not is_comparison(t, h)]
    # "vLLM-2080Ti-Definitive": a GPU's name inside a project's hyphenated name is no GPU of the
    # run, where the GPU is also named on its own
    inside = [h for h in own if re.search(r"[A-Za-z]-$", t[max(0, h.start - 2):h.start]) and re.match(r"-[A-Za-z]", t[h.end:h.end + 2])]
    if inside and len(inside) < len(own):
        own = [h for h in own if h not in inside]
    unknown_gpu = None
    if not own and not sys_hits and not any(h.name not in host for h in hits):
        for m in GPU_LIKE.finditer(_blank(t, model_spans + spans)):
            words = m.group(0).strip()
            if not re.search(r"\d", words) or re.fullmatch(r"[abhlv]\d{2,3}", words, re.I) and _looks_like_length(t, m):
                continue
            try:
                g = find_gpu(words)
            except TokcheckError as err:
                _note_unknown_gpu(words, err, notes, unknown)
                unknown_gpu = (words, m.start(), m.end())
                spans.append(m.span())
                break
            own.append(type(hits[0])(g.name, m.start(), m.end()) if hits else None)
            spans.append(m.span())
            break
    own = [h for h in own if h is not None]
    return sys_hits, own, unknown_gpu, spans


# a DGX or HGX named with its GPUs' architecture rather than the GPU ("DGX 系统(8×Blackwell GPU)",
# "an HGX Hopper system"): the eight-GPU system of that generation (systems.csv)
_DGX_GENERATIONS = {"blackwell": "DGX B200", "hopper": "DGX H100", "ampere": "DGX A100 640GB"}
_DGX_BY_GENERATION = re.compile(r"\b[DH]GX\s*(?:系统|系統|system|server|服务器|伺服器)?\s*[(（]?\s*(?:8\s*[×x\*]\s*)?"
                                r"(?:nvidia\s+)?(?P<gen>blackwell|hopper|ampere)(?![\w\-])(?!\s*ultra)", re.I)
# words that put a run on several GPUs without counting them
_SEVERAL_GPUS = re.compile(r"\bacross\s+(?:the\s+|a\s+|one\s+)?(?:node|gpus|cards|devices)\b|\b(?:different|all|other)\s+ranks\b|"
                           r"\bexpert[\s\-]parallel(?:ism)?\b|\bEP\s+(?:across|over)\b|\bDP[\s\-]attention\b|"
                           r"\bTP\s+and\s+EP\b|多卡并行|多卡部署", re.I)

# two GPUs written as a list or alternatives ("A100/H100", "4090 或 3090", "3090, 4090 and 5090"):
# how many of each ran is not said
# (a bare model number between them is one more of the list: "RTX 3060/4070/4090")
_LISTED = re.compile(r"(?:\s*(?:\(?\s*\d+\s*gb\s*\)?\s*)?(?:/|,|，|、|\+|&|or|and|plus|或|或者|和|与|及|以及)\s*(?:(?:an?|the)\s+)?"
                     r"(?:(?:nvidia|geforce|rtx|amd|radeon|intel)\s+)*(?:\d{3,4}\s*(?:ti|super|xtx|xt)?(?=\s*[/,，、+&或和与及]))?)+",
                     re.I)


def _listed_with_another(t: str, h, own: list) -> bool:
    """Whether another GPU is written next to ``h`` as one of a list or alternatives (then a
    singular name says no count); one compared in a sentence ("A10 比 3090 慢") does not stop it."""
    for o in own:
        if o.name == h.name or abs(o.start - h.start) >= 40:
            continue
        between = t[o.end:h.start] if o.start < h.start else t[h.end:o.start]
        if _LISTED.fullmatch(between):
            return True
    return False


_JOINED = re.compile(r"\s*(?:\(\s*\d+\s*gb\s*\)\s*)?(?:\d+\s*gb\s*)?(?:,|\+|plus|and|with|和|加|与|及)\s*(?:and\s+)?"
                     r"(?:(?:a|an|one|two|three|four|five|six|eight|\d+)\s*(?:x\s*)?)?(?:used\s+)?(?:nvidia\s+|geforce\s+|rtx\s+)?", re.I)


def _choose_gpu(t: str, sys_hits, own, systems, head_start: int, f: dict, src: dict, foot: dict, notes: list) -> None:
    """The hardware the headline figure ran on: a system (8 × B200 for a DGX B200), else the GPU
    named nearest before the headline with its count. A GPU named once, in the singular and
    without a count, is one GPU ("on an RTX 4090", "4090 上"); a plural without a count is none
    ("H200 GPUs"). GPUs joined in one rig ("a 3090 plus two 3060s") add up."""
    # "ND GB200 v6 virtual machines … with one GB200 NVL72 rack": a plural of a system counts
    # nothing when another system is named
    singular = [s for s in sys_hits if not re.match(r"\s*(?:virtual\s+machines|vms|instances|nodes|servers|systems)\b",
                                                   t[s.end:s.end + 24], re.I)]
    sys_hits = singular or sys_hits
    if sys_hits:
        h = _nearest_before(sys_hits, head_start, t)
        if h is None:
            sys_hits = []
    if sys_hits:
        sysrow = next(s for s in systems if s["name"] == h.name)
        f["gpu"], f["gpu_count"] = sysrow["gpu"], sysrow["count"]
        src["gpu"] = src["gpu_count"] = t[h.start:h.end]
        foot["system"] = (h.name, h.start, h.end)
        notes.append(f"{t[h.start:h.end]!r} is {sysrow['count']} × {sysrow['gpu']}")
        c = gpu_count_near(t, h, system=True)
        if c and re.search(r"卡|张|gpus?\b|cards?\b|npus?\b|accelerators?\b", t[c[1]:c[2]], re.I):
            # "单机 800T A2 八卡": a count of the system's own cards, not of systems
            f["gpu_count"], src["gpu_count"] = c[0], t[min(c[1], h.start):max(c[2], h.end)]
        elif c and isinstance(c[0], int) and 1 < c[0] < 64:
            f["gpu_count"] = sysrow["count"] * c[0]
            src["gpu_count"] = t[c[1]:h.end]
        inner = re.match(r"\s*(?:服务器|server)?\s*[(（]\s*(?P<n>\d{1,2})\s*(?:×|x|\*|张|块)\s*(?!\d)", t[h.end:h.end + 24], re.I)
        if inner and 1 <= int(inner.group("n")) < sysrow["count"]:
            # "Atlas 800T A2 服务器(4×昇腾 910B NPU …)": the cards the run had, written with the system
            # (not a mesh's shape: "a T3000 (2x4 mesh of Wormhole chips)" is all eight)
            f["gpu_count"], src["gpu_count"] = int(inner.group("n")), t[h.start:h.end + inner.end()]
        _subset_count(t, h, f, src)
        return
    h = _nearest_before(own, head_start, t) if own else None
    if h is None:
        return
    # "a 16 GB RTX 4080 or RTX 5080": alternatives; the one named nearest the figure is taken, and
    # the others neither add up nor stop a singular from counting one
    i = own.index(h)
    alternatives = [own[i - 1]] if i > 0 and re.fullmatch(r"\s*(?:or|/|或|或者)\s*", t[own[i - 1].end:h.start], re.I) else []
    own = [o for o in own if o not in alternatives]
    f["gpu"], src["gpu"] = h.name, t[h.start:h.end]
    variant = re.match(r"\s*\(\s*(pci[\s\-]?e|sxm\d?|nvl)\s*\)", t[h.end:h.end + 12], re.I)
    if variant:  # "four H100 (PCI-E) cards": the form factor written after the name
        from tokcheck.core.catalog import find_gpu

        try:
            g = find_gpu(f"{t[h.start:h.end]} {variant.group(1).replace('-', '').replace(' ', '')}")
            f["gpu"], src["gpu"] = g.name, t[h.start:h.end + variant.end()]
        except TokcheckError:
            pass
    if "Laptop" not in f["gpu"] and re.search(r"(?:laptop|notebook|mobile|笔记本(?:电脑)?(?:的|上的)?)\s*(?:nvidia\s+|geforce\s+)?$",
                                              t[max(0, h.start - 20):h.start], re.I):
        from tokcheck.core.catalog import find_gpu

        try:  # "a laptop RTX 5090": the laptop part, a different GPU from the desktop card
            g = find_gpu(f"{f['gpu']} Laptop")
            if "Laptop" in g.name:
                f["gpu"] = g.name
        except TokcheckError:
            pass
    c = gpu_count_near(t, h)
    if c:
        f["gpu_count"], src["gpu_count"] = c[0], t[min(c[1], h.start):max(c[2], h.end)]
        machines = machines_of(t, c[1], h.end)
        if machines:
            # "two machines with 8 Ascend 910B-64GB each": the count is per machine
            f["gpu_count"], src["gpu_count"] = c[0] * machines[0], t[machines[1]:machines[2]]
    elif not plural_after(t, h) and not count_range_before(t, h.start) and not _listed_with_another(t, h, own) \
            and not re.search(r"(?:\d+|[两双多几三四八])\s*台\s*$", t[max(0, h.start - 6):h.start]) \
            and not any(re.match(r"\s*(?:[a-z]+\s+)?(?:集群|cluster|机器|节点|服务器|nodes?|servers?|racks?|pods?|台)",
                                 t[o.end:o.end + 20], re.I) for o in own if o.name == h.name) \
            and not (_datacenter(h.name) and re.match(r"\s*(?:machines?|box(?:es)?|systems?|instances?|hosts?)\b", t[h.end:h.end + 12], re.I)):
        # (a datacenter GPU's "machine" holds several: "on a B200 machine" says no count; a
        # wafer-scale or LPU service runs on many chips, so "its LPU" says none either)
        each = any(re.search(r"(?:每张|每块|每卡|每个|\beach\s+|\bevery\s+|\bper\s+)\s*$", t[max(0, o.start - 8):o.start], re.I)
                   for o in own if o.name == h.name)
        if ((row := gpu_row(h.name)) is None or row.kind != "accelerator") and not each:
            # (not where a GPU is said of "each" one: "每张910B2的HBM占用约29954/65536 MB")
            foot["_singular"] = (1, h.start, h.end)  # one GPU, unless a count is written elsewhere
    mem = gpu_memory_near(t, h)
    variant = re.match(r"\s*(?:的)?\s*(?P<gb>\d{2,3})\s*(?:gb|g)\s*(?:版本?|version|variant|model)", t[h.end:h.end + 20], re.I)
    if variant and not mem:
        # "A100 的 40GB 版本": the memory variant written after the name
        mem = (float(variant.group("gb")), h.end, h.end + variant.end())
        from tokcheck.core.catalog import find_gpu
        try:
            g = find_gpu(f"{t[h.start:h.end]} {variant.group('gb')}GB")
            f["gpu"], src["gpu"] = g.name, t[h.start:h.end + variant.end()]
        except TokcheckError:
            pass
    if mem:
        f["gpu_memory_gb"], src["gpu_memory_gb"] = mem[0], t[h.start:mem[2]]
        sibling = _memory_variant(f["gpu"], mem[0])
        if sibling is None and (row := gpu_row(f["gpu"])) is not None and row.memory_gb and abs(row.memory_gb - mem[0]) >= 0.5:
            from tokcheck.core.catalog import find_gpu

            try:  # "A100-SXM4-40G": the whole name with its memory
                g = find_gpu(re.sub(r"(?<=\d)\s*g$", "GB", t[h.start:mem[2]].strip(" (（"), flags=re.I))
                sibling = g.name if g.name != f["gpu"] and g.memory_gb and abs(g.memory_gb - mem[0]) < 0.5 else None
            except TokcheckError:
                pass
        if sibling:  # "Jetson AGX Orin (32GB)", "Orin AGX(32G)": the row of that memory
            f["gpu"], src["gpu"] = sibling, t[h.start:mem[2]]
    elif not re.search(r"\d\s*(?:gb|g)\b", t[h.start:h.end], re.I):
        # "A100 40GB 或 RTX 4090；以 A100 为例": a card named again without its memory is the one
        # the text wrote with it
        fam = _family(f["gpu"])
        named = {o.name for o in own if o.name != f["gpu"] and _family(o.name) == fam
                 and re.search(r"\d\s*(?:gb|g)\b", t[o.start:o.end + 8], re.I)}
        if len(named) == 1:
            f["gpu"] = named.pop()
    if "gpu_count" not in f:  # the same GPU named again with its count ("Two RTX 3090s (3090 24GB * 2)")
        counts = [c for o in own if o.name == h.name and (c := gpu_count_near(t, o))]
        if counts:
            c = max(counts, key=lambda c: c[0])
            f["gpu_count"], src["gpu_count"] = c[0], t[c[1]:c[2]]
            foot.pop("_singular", None)
    # a rig of different GPUs joined by ","/"plus"/"and"/"+": their counts add up
    i = own.index(h)
    lo = hi = i
    while lo > 0 and _JOINED.fullmatch(t[own[lo - 1].end:own[lo].start]):
        lo -= 1
    while hi + 1 < len(own) and _JOINED.fullmatch(t[own[hi].end:own[hi + 1].start]):
        hi += 1
    group = own[lo:hi + 1]
    if len(group) > 1 and re.search(r"(?:比较|对比|compar\w*|versus|vs\.?)\s*$", t[max(0, group[0].start - 12):group[0].start], re.I):
        group = [h]  # "比较 M5 与 M4": two machines compared, not one rig
    if len(group) > 1 and len({g.name for g in group}) == len(group):
        total = sum((gpu_count_near(t, g) or (1,))[0] for g in group)
        f["gpu"], src["gpu"] = group[0].name, t[group[0].start:group[-1].end]
        f["gpu_count"], src["gpu_count"] = total, t[group[0].start:group[-1].end]
        foot.pop("_singular", None)
        notes.append(f"a rig of {total} GPUs: {t[group[0].start:group[-1].end]!r}")
    _subset_count(t, h, f, src)


def _subset_count(t: str, h, f: dict, src: dict) -> None:
    """"8 卡 RTX 5090 服务器只用前 4 张卡": the GPUs the run used are the count."""
    sub = used_subset(t, h.end)
    if sub and (not isinstance(f.get("gpu_count"), int) or sub[0] < f["gpu_count"]):
        f["gpu_count"], src["gpu_count"] = sub[0], t[sub[1]:sub[2]]


_CLAUSE_STOPS = r"[,;:，；：。]|" + SENTENCE_END


def _clause_start(t: str, at: int, stops: str = _CLAUSE_STOPS) -> int:
    """Where the clause holding position ``at`` begins: just after the last of ``stops`` before it."""
    return max([m.end() for m in re.finditer(stops, t[:at])], default=0)


def _clause_span(t: str, span: tuple[int, int]) -> tuple[int, int]:
    """The clause around ``span``: from the comma, colon, semicolon or full stop before it to the
    one after it."""
    start = _clause_start(t, span[0])
    m = re.search(_CLAUSE_STOPS, t[span[1]:])
    return start, span[1] + m.start() if m else len(t)


def _engine_beside_gpu(t: str, gpu_words: str | None, head_start: int, f: dict, src: dict) -> None:
    """"4 卡 H20(SGLang)和 4 卡昇腾 910B4(vLLM v0.11.0)": the engine in brackets after the
    claim's GPU is the one it ran. Of the places the GPU is named, the nearest before the headline
    figure with brackets after it is taken, else the first after it."""
    if not gpu_words or "engine" not in f:
        return
    at = [m.start() for m in re.finditer(re.escape(gpu_words), t)]
    bracket = r"\s*[(（]([^()（）]{1,40})[)）]"
    i = next((a for a in [a for a in reversed(at) if a < head_start] + [a for a in at if a >= head_start]
              if re.match(bracket, t[a + len(gpu_words):])), -1)
    m = re.match(bracket, t[i + len(gpu_words):]) if i >= 0 else None
    if not m or re.search(r"baseline|基线|\bthan\b|\bvs\.?|\bversus\b|对比|相比", m.group(1), re.I):
        return
    eng = engine_words(m.group(1))
    if "engine" in eng and eng["engine"][0] != f["engine"]:
        base = i + len(gpu_words) + m.start(1)
        for key in ("engine", "engine_version"):
            f.pop(key, None), src.pop(key, None)
            if key in eng:
                f[key], src[key] = eng[key][0], t[base + eng[key][1]:base + eng[key][2]]


def _no_change_across_devices(figs: list, hits: list) -> None:
    """"7B 在 RTX 4090 上 … 420ms，在 A100 上可优化至 180ms": two figures on two devices are a
    comparison, not a before/after change of one setup, so neither end is dropped as the worse."""
    for a, b in zip(figs, figs[1:]):
        if not a.before_change:
            continue
        before = [h.name for h in hits if h.end <= a.span[0]]
        between = [h.name for h in hits if a.span[1] <= h.start < b.span[0]]
        if before and between and between[-1] != before[-1]:
            a.before_change = False


def _unknown_gpu_before(t: str, head_start: int, model_spans: list[tuple[int, int]]):
    """A GPU-shaped name the catalog does not know, written in the headline's sentence before it:
    ``(words, start, end, the catalog's error)``, else None."""
    from tokcheck.core.catalog import find_gpu

    start = _clause_start(t, head_start, SENTENCE_END + "|[。！？]")
    found = None
    for m in GPU_LIKE.finditer(_blank(t, model_spans), start, head_start):
        words = m.group(0).strip()
        if not re.search(r"\d", words):
            continue
        try:
            find_gpu(words)
        except TokcheckError as err:
            found = (words, m.start(), m.end(), err)
    return found


def _unknown_gpu_fields(t: str, hit: NameHit, f: dict, src: dict) -> None:
    """A device the catalog does not know, named for the headline: its words as the GPU (the
    maker's Chinese name in Latin letters: "苹果 A17" is Apple's A17) and its count, counted as a
    known GPU's is ("two RTX 2050s", "on an RTX 2050": one)."""
    f["gpu"], src["gpu"] = re.sub(r"^苹果\s*", "Apple ", re.sub(r"^海光\s*", "Hygon ", hit.name)), hit.name
    if "gpu_count" in f:
        return
    c = gpu_count_near(t, hit)
    if c:
        f["gpu_count"], src["gpu_count"] = c[0], t[min(c[1], hit.start):max(c[2], hit.end)]
    elif not plural_after(t, hit):
        f["gpu_count"], src["gpu_count"] = 1, f"one {hit.name} named, no count"


def _note_unknown_gpu(words: str, err: TokcheckError, notes: list, unknown: list) -> None:
    """Record ``words`` as a GPU the catalog does not know, with the nearest names from ``err``."""
    hint = str(err).split("did you mean", 1)[-1].strip(" ?") if "did you mean" in str(err) else ""
    unknown.append({"kind": "gpu", "words": words, "suggestions": [x.strip() for x in hint.split(" or ") if x]})
    notes.append(f"GPU {words!r} is not in the built-in catalog" + (f" — did you mean {hint}?" if hint else ""))


def _soc(name: str) -> bool:
    """Whether the catalog's ``name`` is a system-on-chip (phone, board or laptop chip)."""
    from tokcheck.core.catalog import find_gpu

    try:
        return find_gpu(name).kind == "soc"
    except TokcheckError:
        return False


def _datacenter(name: str) -> bool:
    """Whether catalog GPU ``name`` is a datacenter part (sold in servers of several)."""
    row = gpu_row(name)
    return row is not None and row.kind in ("datacenter", "amd_datacenter")


def _family(name: str) -> str:
    """A catalog GPU name without its memory and form factor: "A100 80GB SXM" → "a100"."""
    return re.sub(r"\s*\d+\s*gb\b.*$|\s+(?:sxm\d?|pcie|nvl)$", "", name, flags=re.I).strip().lower()


def _memory_variant(name: str, gb: float) -> str | None:
    """The catalog row that differs from GPU ``name`` only in its memory and has ``gb`` GB of it
    ("Jetson AGX Orin 64GB" with 32 GB stated → "Jetson AGX Orin 32GB"), else None."""
    from tokcheck.core.catalog import gpus

    def stem(n: str) -> str:
        return re.sub(r"\s*\d+\s*gb\b", "", n, flags=re.I).strip().lower()

    here = gpu_row(name)
    if here is None or here.memory_gb is None or abs(here.memory_gb - gb) < 0.5:
        return None
    same = [g for g in gpus() if g.name != name and stem(g.name) == stem(name)
            and g.memory_gb is not None and abs(g.memory_gb - gb) < 0.5]
    return same[0].name if len(same) == 1 else None


def _looks_like_length(t: str, m: re.Match) -> bool:
    return bool(re.match(r"\s*(?:tokens?|tok)", t[m.end():]))


def parse_claim(text: str) -> Claim:
    """Read a speed claim, English or Chinese (simplified or traditional), into a :class:`Claim`.

    Examples: "DeepSeek V4 Flash at 278 tok/s, full precision, no quantization";
    "prompt processing 4668 tok/s, generation 93 tok/s on 2x RTX 3090 (Q4_K_M)";
    "单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000".

    Raises:
        TokcheckError: empty text; no speed or latency figure; a negative figure; a figure
            beyond any serving system (more than a billion tok/s).
    """
    from tokcheck.core.catalog import gpus, models, systems

    if text is None or not str(text).strip():
        raise TokcheckError("empty claim: give the claim text, e.g. \"Qwen3-32B at 58 tok/s on one H200\"")
    raw = " ".join(str(text).split())
    t = normalise(raw)
    f: dict = {}
    src: dict = {}
    foot: dict = {}
    notes: list[str] = []
    unknown: list[dict] = []

    model_hits = _model_hits(t, models())
    model_spans = [(h.start, h.end) for h in model_hits]
    if not model_hits:
        um = _unknown_model(t, notes, unknown)
        if um:
            f["model"], src["model"] = um[0], um[0]
            model_spans.append(um[1])
    rv = re.search(r"(?:revision|commit|权重版本|weights?\s+version)\s*[:=]?\s*([\w.\-]+)", t, re.I)
    if rv:
        f["weights_version"], src["weights_version"] = rv.group(1), rv.group(0)
        model_spans.append(rv.span())
    sys_hits, gpu_own, unknown_gpu, gpu_spans = _gpu_hits(t, gpus(), systems(), model_spans, notes, unknown)
    version_spans = []
    eng_all = engine_words(t)  # every version span is blanked before numbers are read
    if "engine_version" in eng_all:
        version_spans.append(eng_all["engine_version"][1:])
    for m in re.finditer(r"(?:vllm|sglang|llama\.cpp|ollama|lmdeploy|tensorrt-llm|mlx-lm|ktransformers)\s*(?:==|v)?\s*"
                         r"(\d+\.\d+(?:\.\d+)?(?:\.post\d+)?|b\d{3,5})", t, re.I):
        version_spans.append(m.span(1))
    masked = _blank(t, model_spans + gpu_spans + version_spans)

    figs = find_figures(t, masked)
    neg = re.search(r"(?<![\w\-])-\s*\d[\d,.]*\s*(?:tok|t/s|tokens)", t, re.I)
    if neg and not figs:
        raise TokcheckError(f"the claimed speed is negative ({neg.group(0).strip()})")
    if not figs:
        raise TokcheckError("no speed figure in the claim (expected a number with tok/s, tokens/s, t/s, "
                            "or a TTFT/TPOT in ms or s)")
    for fig in figs:
        # (a minus sign is glued to its number: "8.5 t/s/u - 272 t/s" is a dash between two figures)
        if re.search(r"(?:^|[\s:=(])-$", t[max(0, fig.span[0] - 3):fig.span[0]]):
            raise TokcheckError(f"the claimed figure is negative (-{fig.words})")
        if fig.is_rate and fig.high > ABSURD_TOK_S:
            raise TokcheckError(f"{plain(fig.high)} tok/s is beyond any serving system; check the number")
        if fig.high <= 0:
            raise TokcheckError(f"the claimed figure must be positive, got {fig.words!r}")
    _no_change_across_devices(figs, gpu_own + sys_hits)
    stated_conc = concurrency_mentions(_blank(masked, [fig.span for fig in figs]), [])
    infer_single_request(figs, any(c[0] > 1 for c in stated_conc)
                         or any(fig.scope in ("aggregate", "gpu", "node") for fig in figs))
    scope_from_metric(figs)
    head = choose_headline(figs)
    head.headline = True
    _choose_gpu(t, sys_hits, gpu_own, systems(), head.span[0], f, src, foot, notes)
    if "gpu" in f and t.find(src["gpu"]) > head.span[1]:
        # "Raspberry Pi 5 上跑出 8.03 TPS … RTX 5090 约 300 TPS": a CPU device named before the
        # headline is its device, not a GPU named only after it
        cpu_before = _CPU_DEVICE_BEFORE.search(t[:head.span[0]])
        unknown_before = _unknown_gpu_before(t, head.span[0], [(h.start, h.end) for h in model_hits])
        if cpu_before:
            f["gpu"], src["gpu"] = "CPU", cpu_before.group(0)
            f.pop("gpu_count", None), f.pop("gpu_memory_gb", None)
            foot.pop("_singular", None)
        elif unknown_before:
            # "在苹果 A17 芯片上可实现 60 tokens/s …，在 RTX 3060 上达 180": the device named before
            # the headline is its own, though the catalog does not know it
            words, s0, e0, _err = unknown_before
            f.pop("gpu_count", None), f.pop("gpu_memory_gb", None)
            foot.pop("_singular", None)
            _unknown_gpu_fields(t, NameHit(words, s0, e0), f, src)
            _note_unknown_gpu(words, unknown_before[3], notes, unknown)
    igpu = IGPU.search(t) if "gpu" not in f else None
    if igpu:
        # "a Ryzen 7 5800U drives a Radeon Vega 8 iGPU": the integrated GPU ran it, from system memory
        f["gpu"], src["gpu"] = " ".join(igpu.group(0).split()), igpu.group(0)
        f.setdefault("gpu_count", 1)
        src.setdefault("gpu_count", "one integrated GPU")
        notes.append(f"{igpu.group(0)!r} is an integrated GPU: it reads the system's memory")
    if "gpu" not in f and unknown_gpu and not re.search(re.escape(unknown_gpu[0]) + r"[\w\-]*\s+cpus?\b", t, re.I):
        # ("an AmpereOne A192-32X CPU" names a CPU)
        _unknown_gpu_fields(t, NameHit(*unknown_gpu), f, src)
    if f.get("gpu") and _soc(f["gpu"]):
        # "On a Radxa ROCK 5B (RK3588), CPU-only Ollama answered at ~0.21 tokens/second": the board's
        # CPU cores ran it, not its GPU or NPU
        at = t.rfind(str(src.get("gpu")), 0, head.span[0])
        sent = t[max(at, _clause_start(t, head.span[0], SENTENCE_END + "|[。！？]")):head.span[1]]
        cpu_only = re.search(r"cpu[\s\-]only|only\s+(?:on\s+)?(?:the\s+)?cpu|纯\s*(?:cpu|处理器)|仅用?\s*cpu", sent, re.I)
        if cpu_only:
            f["gpu"], src["gpu"] = "CPU", cpu_only.group(0)
            f.pop("gpu_count", None), src.pop("gpu_count", None)
    if "gpu" not in f and re.search(r"raspberry\s*pi|树莓派|\b(?:on|using)\s+(?:the\s+)?cpus\s+of\b|\b(?:on|using)\s+an?\s+[\w\-]+(?:\s+[\w\-]+){0,3}\s+cpu\b(?!\s*(?:and|\+|with|plus))|"
                                    r"\(\s*cpu\s*\)|cpu[\s\-]only|only\s+(?:on\s+)?(?:the\s+)?cpu|纯\s*(?:cpu|处理器)|仅用?\s*cpu|no\s+gpu|without\s+(?:a\s+)?gpu|无\s*gpu|"
                                    r"不用\s*(?:gpu|显卡)|没有\s*(?:gpu|显卡)|无独显|没有独显|无独立显卡|cpu\s+inference|cpu\s*推理", t, re.I):
        f["gpu"], src["gpu"] = "CPU", "CPU only"
    if "gpu" not in f:
        # a server or desktop CPU named with no GPU anywhere: "on an EPYC 9754", "i7-12700K 跑"
        cpu = CPU_NAMED.search(t)
        if cpu and not re.search(r"\bgpus?\b|显卡|\bcuda\b|vram|显存", t, re.I):
            f["gpu"], src["gpu"] = "CPU", cpu.group(0)
    # a draft model's name is not the claim's model ("with a llama3.2 1b q4_0 draft")
    targets = [h for h in model_hits if not _is_draft(t, h.start, h.end)] or model_hits
    compared = [h for h in targets if _is_compared_model(t, h)]
    # "速度和跑官方原版 qwen3.6-27b-fp8 一样，都是 40 token/s": the same speed as the only model
    # named is that model's speed
    targets = [h for h in targets if h not in compared] or (
        compared if re.search(r"一样|相同|都是|同样|the\s+same|as\s+fast\s+as|matching", t, re.I) else [])
    mh = _nearest_before(targets, head.span[0])
    own_size = re.match(r"\s*(?:on|for|with)\s+(?:an?\s+|the\s+)?(\d+(?:\.\d+)?)\s*[bB](?![\w.])", t[head.span[1]:head.span[1] + 30], re.I)
    if mh is not None and mh.start > head.span[1] and own_size \
            and abs((_size_b(mh.name) or 0) - float(own_size.group(1))) > 0.25 * float(own_size.group(1)):
        # "~12 tok/s on 70B …, 186 tok/s on Qwen3 8B": the size written with the headline is its
        # model's, and the model named after it is another's
        mh = None
    if mh is not None and mh.start > head.span[1]:
        mh = _sized_before_head(t, head, figs, targets) or mh
    um = _unknown_near(t, model_hits, head.span[0], mh)
    if um is not None:
        # "LFM2-8B-A1B 在 Q2_K 下最快，达 18.1 TPS；Qwen3-30B-A3B …": the name written for the
        # headline is its model, though the catalog knows only the other one
        mh = None
        f["model"], src["model"] = um
        _note_unknown_model(um[0], notes, unknown)
    if mh is not None and um is None:
        mh = _other_size_of_family(t, mh, head, targets) or mh
    if mh is None and "model" not in f:
        fam = _family_and_size(t, head)
        if fam is not None:
            mh = fam
    if mh is None and "model" not in f:
        bare = _bare_family(t, head.span[0])
        if bare is not None:
            f["model"], src["model"] = bare[0], bare[1]
            if bare[2]:
                notes.append(bare[2])
            else:
                _note_unknown_model(bare[0], notes, unknown)
    fv = _FAMILY_VERSION.search(t) if mh is None and "model" not in f else None
    if fv and not _known_version(fv.group(0), models()):
        # "DeepSeek V5", "Qwen 4": a known family with a version the catalog does not have
        f["model"] = src["model"] = " ".join(fv.group(0).split())
        _note_unknown_model(f["model"], notes, unknown)
    if mh is not None:
        f["model"], src["model"] = mh.name, mh.words
        if mh.version:
            f["weights_version"], src["weights_version"] = mh.version, mh.version_words
        if mh.note:
            notes.append(mh.note)
    value = list(head.value) if isinstance(head.value, tuple) else head.value
    f["value"], f["unit"] = value, head.unit
    src["value"] = src["unit"] = head.words
    inferred: list[str] = []
    if head.metric and not str(head.why.get("metric", "")).startswith("inferred"):
        f["metric"] = head.metric
        src["metric"] = head.why.get("metric") or head.why.get("gap") or head.words

    # --- GPU count written away from the name, GPU memory on its own
    clause_start = _clause_start(t, head.span[0], r"[,;。]")  # a colon or 、 does not end this one
    own_clause = masked[clause_start:head.span[0]]
    if "gpu_count" in f and "gpu" in f and "§" not in own_clause:
        # "8 卡 910B3 上 …，回复称 4 卡运行 … 36 tokens/s": a count in the headline's own clause,
        # which names no GPU, is the headline run's
        c = gpu_count_anywhere(own_clause, [])
        if c and c[0] != f["gpu_count"] and not re.match(r"单|single|one|a\s", own_clause[c[1]:c[2]], re.I):
            f["gpu_count"], src["gpu_count"] = c[0], t[clause_start + c[1]:clause_start + c[2]]
    if "gpu_count" not in f:
        # "每秒 3 万 Tokens：…单卡推理吞吐量达到 1.2 万 Tokens/秒，8 卡并行时 …": a count in the
        # clause of another figure is that figure's; the headline's is looked for elsewhere first
        others = [_clause_span(t, fig.span) for fig in figs if fig is not head]
        others = [c for c in others if not c[0] <= head.span[0] < c[1]]
        c = gpu_count_anywhere(_blank(masked, others), [fig.span for fig in figs]) if others else None
        c = c or gpu_count_anywhere(masked, [fig.span for fig in figs])
        if c:
            f["gpu_count"], src["gpu_count"] = c[0], t[c[1]:c[2]]
    nodes = re.search(r"(?<![\w.])(\d{1,3})\s+(?:nodes?|servers?|machines?|hosts?)\s+(?:of|with|x|each\s+with)\s+(\d+)\s*(?:x\s*)?", masked, re.I)
    if nodes:
        f["gpu_count"] = int(nodes.group(1)) * int(nodes.group(2))
        src["gpu_count"] = nodes.group(0)
    tp = re.search(r"(?:(?<![a-z0-9])tp|tensor[\s\-_]parallel(?:ism|[\s\-_]size)?|-tp|--tensor-parallel-size)\s*(?:=|:|of)?\s*(\d+)", masked, re.I)
    pp = re.search(r"(?:(?<![a-z0-9])pp|pipeline[\s\-_]parallel(?:ism|[\s\-_]size)?|-pp|--pipeline-parallel-size)\s*(?:=|:|of)?\s*(\d+)(?!\d)", masked, re.I)
    if tp:
        foot["tensor_parallel"] = (int(tp.group(1)), tp.start(), tp.end())
    if pp and not re.match(r"\s*\d", t[pp.end():]):
        foot["pipeline_parallel"] = (int(pp.group(1)), pp.start(), pp.end())
        if tp and f.get("gpu_count") == int(tp.group(1)):
            f["gpu_count"] = int(tp.group(1)) * int(pp.group(1))
            src["gpu_count"] = f"{tp.group(0)} × {pp.group(0)}"
    row = re.search(r"(?:^|[；;，,、:：]\s*)(?P<n>\d{1,3})\s*(?:卡|张卡|gpus?)\s*[：:]?\s*(?:约|~)?\s*$",
                    t[max(0, head.span[0] - 12):head.span[0]], re.I)
    if row and f.get("gpu_count") != int(row.group("n")):
        # "10卡MI50服务器 … 1卡16-18token/s；2卡29-36token/s": the headline's own row names its card count
        f["gpu_count"], src["gpu_count"] = int(row.group("n")), row.group(0).strip("；;，,、:： ")
        foot.pop("_singular", None)
    last_one = max((m.end() for m in re.finditer(r"单卡|单张|单块", t[:head.span[0]])), default=None)
    if src.get("gpu_count") in ("单卡", "单张", "单块") and re.search(r"多卡|多张|多块|双卡", t) and last_one is not None \
            and re.search(r"都|均|全都|\ball\b|\bboth\b", t[last_one:head.span[0]], re.I):
        # "FP16多卡部署和8 Bit、4 Bit量化单卡部署,推理都很慢": runs on one card and on several, the
        # headline said of them all: no count is the headline's
        f.pop("gpu_count", None), src.pop("gpu_count", None)
        foot.pop("_singular", None)
    singular = foot.pop("_singular", None)
    if singular and _SEVERAL_GPUS.search(t):
        # "DeepSeek-R1 on H20-96G … TP and EP across the node … on different ranks": the run has
        # several of the GPU named, though it says not how many
        singular = None
    if "gpu_count" not in f and singular and head.scope not in ("gpu", "node"):
        # ("1848 tok/s/GPU on MI355X": a per-GPU figure is a deployment's total over its GPUs,
        # so one GPU named says nothing of how many; nor does "on H20-96G … each node achieves")
        f["gpu_count"], src["gpu_count"] = 1, f"one {t[singular[1]:singular[2]]} named, no count"
    if "gpu_memory_gb" not in f:
        mem = gpu_memory_anywhere(masked)
        if mem:
            f["gpu_memory_gb"], src["gpu_memory_gb"] = mem[0], t[mem[1]:mem[2]]

    # --- precision, engine, lengths, options, footprints
    spans_ = [fig.span for fig in figs]
    chains = [(i, i + 1) for i in range(len(figs) - 1) if figs[i].before_change]
    eng = engine_words(t, near=head.span[0], figures=spans_, chains=chains)
    # a model named apart from the headline's (known, or unknown and chosen by name: "一篇“DeepSeek满血版”测评称 …
    # 运行GPT-3 175B …") takes the words written with it
    others = [(h.start, h.end) for h in model_hits if (mh is not None and h.name != mh.name)
              or (mh is None and f.get("model") and not (h.start <= t.find(str(src.get("model") or "\0")) < h.end))]
    prec = precision_words(t, near=head.span[0], figures=spans_, chains=chains, others=others)
    for key, hit in {**prec, **eng}.items():
        if key == "kv_cache_dtype":
            foot[key] = hit
            notes.append(f"{t[hit[1]:hit[2]]!r} is the KV cache's format, not the weights'")
            continue
        if key in ("precision", "quantization") and key in f:
            continue
        f[key], src[key] = hit[0], t[hit[1]:hit[2]]
    _engine_beside_gpu(t, src.get("gpu"), head.span[0], f, src)
    if mh is not None:
        # the headline model's own name says which file ran ("llama3.3:70b-instruct-q3_K_M",
        # "Qwen3-32B-AWQ"): it wins over a precision named elsewhere in the text
        # (the name goes on to the next space: "Phi4-14B-q8_0")
        name_end = mh.end + len(re.match(r"[\w.\-:/]*", t[mh.end:]).group(0))
        own = precision_words(t[:name_end], near=None, figures=None)
        own = {k: v for k, v in own.items() if k in ("precision", "quantization") and mh.start <= v[1] < name_end}
        # (not a checkpoint the text says it quantized: "loads DeepseekV3-BF16 and quantizes it online to int4")
        requantized = re.search(r"quantiz\w*\s+(?:it\s+|them\s+)?(?:\w+\s+){0,2}(?:to|into)\b|量化(?:为|成|到)", t[mh.end:], re.I)
        if "precision" in own and own["precision"][0] != "full" and not requantized:  # 满血版 names the full-size model
            for key, hit in own.items():
                f[key], src[key] = hit[0], t[hit[1]:hit[2]]
    no_figures = _blank(masked, [fig.span for fig in figs])
    own_prompt = []
    if head.metric != "prefill_tok_s":
        # "8.10 tokens per second for a 10-token prompt": that prompt is the prefill figure's
        # "~67 tokens/s end-to-end after a 1,052-token prefill": the figure it follows ran it; a
        # prompt written with the output length ("for a 1479-token prompt and 2023 completion
        # tokens") is the whole run's
        for fig in figs:
            m = re.match(r"\s*(?:end[\s\-]to[\s\-]end\s+)?(?:for|after|with|on)\s+(?:a|an|the)\s+~?[\d,.]+\s*k?(?:[\s\-]tokens?)?\s+"
                         r"(?:prompt|prefill|input|context)(?!\s*(?:and|,)\s*[\d,]+\s*(?:completion|output|generated|new)?\s*tokens)",
                         t[fig.span[1]:], re.I)
            if m and not fig.headline:
                own_prompt.append((fig.span[1], fig.span[1] + m.end()))
    for key, hit in length_words(_blank(no_figures, own_prompt), near=head.span[0], prefill_headline=head.metric == "prefill_tok_s").items():
        f[key], src[key] = hit[0], t[hit[1]:hit[2]]
    for key, hit in option_words(t).items():
        f[key], src[key] = hit[0], t[hit[1]:hit[2]]
    if head.spec_decoding is not None:
        f["speculative_decoding"] = head.spec_decoding
        src["speculative_decoding"] = head.why.get("speculative_decoding", head.words)
    elif f.get("speculative_decoding") is False:
        # "with Multi-Token Prediction enabled … generates 70–90 tok/s … Without MTP … 35–45": the
        # headline's own sentence turns it on; the "without" belongs to another figure
        own = t[_clause_start(t, head.span[0], SENTENCE_END + "|[。！？]"):head.span[0]]
        on = re.search(r"speculative|spec[\s\-_]decod|\bmtp\b|eagle|medusa|draft[\s\-]model|multi[\s\-]token\s+prediction|投机|推测解码",
                       own, re.I | re.A)
        if on and not re.search(r"\b(?:no|without|not|off|disabled)\b|不开|关闭|未开|无", own[max(0, on.start() - 12):on.end() + 12], re.I):
            f["speculative_decoding"], src["speculative_decoding"] = True, on.group(0)
    for key, hit in footprint_words(no_figures).items():
        foot.setdefault(key, hit)

    # --- concurrency of the headline: its own words, else the one stated for the whole text
    said_scope = not str(head.why.get("scope", "")).startswith(("inferred", "from the metric"))
    stated_scope = head.scope == "request" and said_scope and not re.match(r"per[\s\-]", str(head.why.get("scope", "")), re.I)
    if head.concurrency and (head.why.get("concurrency") or stated_scope):
        f["concurrency"] = head.concurrency
        src["concurrency"] = head.why.get("concurrency") or head.why.get("scope") or head.words
    else:
        stated = concurrency_mentions(masked, [fig.span for fig in figs])
        # a batch written for a prefill-only figure ("纯 Prefill（ISL=2K、OSL=1、batch=256）") is
        # that measurement's setting, not the decode headline's
        prefill_own = {fig.why.get("concurrency") for fig in figs
                       if fig is not head and fig.metric == "prefill_tok_s" and fig.why.get("concurrency")}
        stated = [c for c in stated if t[c[1]:c[2]] not in prefill_own]
        distinct = sorted({c[0] for c in stated})
        if len(distinct) == 1:
            f["concurrency"], src["concurrency"] = distinct[0], t[stated[0][1]:stated[0][2]]
        elif not stated and (one := re.search(r"single[\s\-](?:request|stream|user|sequence|query|batch)|单\s*batch|单批次?|one\s+(?:request|query)|"
                                              r"for\s+(?:1|one|a\s+single)\s+(?:query|request|user|stream)\b|单请求|单并发|单用户|单流|"
                                              r"batch[\s_\-]?size\s*(?:of\s*)?1(?!\d)|\bbs\s*=?\s*1(?!\d)", masked, re.I)) \
                and not (head.scope in ("aggregate", "gpu", "node") and any(
                    fig is not head and fig.scope in ("request", "user") and one.group(0) in str(fig.why.get("scope", ""))
                    for fig in figs)):
            # (not where the words are another figure's own, beside a total: "单用户推理速度超过 250
            # tokens/秒,最大吞吐量超过 30,000" runs the 30,000 at no single request)
            f["concurrency"], src["concurrency"] = 1, "single request"
    if head.metric == "generation_tok_s" and isinstance(f.get("concurrency"), int) and f["concurrency"] > 1 \
            and not (said_scope and head.scope in ("request", "user")):
        # "并发降到 32 时 … 出字率 266.11": a generation rate at the run's concurrency above one,
        # with no per-user word, is the total over the requests in flight
        head.metric, head.scope = "aggregate_throughput", "aggregate"
        head.why["metric"] = head.why["scope"] = f"a generation rate at concurrency {f['concurrency']} is their total"
        f["metric"], src["metric"] = "aggregate_throughput", src.get("concurrency", "")

    footprint = {k: v[0] for k, v in foot.items()}
    for k, v in foot.items():
        src.setdefault(f"footprint.{k}", t[v[1]:v[2]])
    if re.fullmatch(r"Apple M\d", str(f.get("gpu"))) and f.get("gpu_memory_gb"):
        # "a 512gb m3": only the M3 Ultra holds 512 GB, so the memory names the chip's tier
        from tokcheck.core.catalog import find_gpu

        try:
            base_gb = find_gpu(f["gpu"]).memory_gb or 0
        except TokcheckError:
            base_gb = 0
        stated = f["gpu_memory_gb"]
        for tier in ("Pro", "Max", "Ultra"):
            try:
                g = find_gpu(f"{f['gpu']} {tier}")
            except TokcheckError:
                continue
            if base_gb < stated * 0.9 <= (g.memory_gb or 0):
                f["gpu"] = g.name
                notes.append(f"{stated:g} GB is more memory than the base {src.get('gpu') or 'chip'} takes: "
                             f"read as the {g.name}")
                break
    if f.get("gpu") == "CPU" and "gpu_count" in f:
        f.pop("gpu_count")  # a CPU run counts no GPUs ("one socket of a Xeon Gold 6430")
        src.pop("gpu_count", None)
    fields = {k: f[k] for k in FIELD_KEYS if k in f and f[k] is not None}
    return Claim(text=raw, fields=fields, figures=figs, sources={k: v for k, v in src.items()},
                 footprint={k: footprint[k] for k in FOOTPRINT_KEYS if k in footprint}, notes=notes,
                 unknown_names=unknown, inferred=inferred,
                 gpus_named=[(h.name, h.start) for h in sorted(gpu_own, key=lambda h: h.start)])


def apply_overrides(claim: Claim, **given) -> Claim:
    """Complete or override fields with options (``gpu=…``, ``concurrency=…``); None is ignored.

    Raises:
        TokcheckError: an unknown field name or a non-positive count.
    """
    fields = dict(claim.fields)
    sources = dict(claim.sources)
    for key, value in given.items():
        if value is None:
            continue
        if key not in FIELD_KEYS:
            raise TokcheckError(f"unknown claim field {key!r}")
        if key in ("gpu_count", "concurrency", "input_tokens", "output_tokens", "max_model_len") and int(value) <= 0:
            raise TokcheckError(f"{key} must be positive, got {value}")
        if key == "metric" and value not in OPTION_METRICS:
            raise TokcheckError(f"metric must be one of {', '.join(OPTION_METRICS)}")
        fields[key] = value
        sources[key] = f"option --{key.replace('_', '-')}"
    inferred = [k for k in claim.inferred if k not in given or given[k] is None]
    return Claim(text=claim.text, fields={k: fields[k] for k in FIELD_KEYS if k in fields}, figures=claim.figures,
                 sources=sources, footprint=dict(claim.footprint), notes=list(claim.notes),
                 unknown_names=list(claim.unknown_names), inferred=inferred, gpus_named=list(claim.gpus_named))
