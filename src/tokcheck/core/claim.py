"""C1, C2: take a tok/s claim (English or Chinese) apart into fields, and check it is complete.

Pure text → :class:`Claim`. Each field holds only what the text states (or an option gave);
nothing is guessed. :data:`CHECKLIST` is the guide's minimum set of facts a reproducible figure
needs (``docs/guide.md``, "The checklist of facts"): fewer than :data:`MIN_PRESENT` present means the claim is a
reference impression only, not a basis for capacity planning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tokcheck.errors import TokcheckError
from tokcheck.core.names import find_in_text, version_suffix
from tokcheck.core.precision import FULL_PRECISION_WORDS

# The keys of Claim.fields, in report order.
FIELD_KEYS = ("model", "weights_version", "precision", "quantization", "gpu", "gpu_count", "gpu_memory_gb",
              "engine", "engine_version", "concurrency", "batch_policy", "input_tokens", "output_tokens",
              "max_model_len", "metric", "value", "unit", "speculative_decoding", "prefix_cache", "cuda_graph")
METRICS = ("ttft", "generation_tok_s", "e2e_tok_s", "aggregate_throughput")

# The guide's checklist (docs/guide.md): item name → the fields that satisfy it.
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
# Beyond any GPU's bandwidth for one request and beyond published aggregate figures per node:
# a figure above this is a typo or not tok/s.
ABSURD_TOK_S = 10_000_000

_ENGINES = (
    ("TensorRT-LLM", r"tensorrt[\s\-_]*llm|trt[\s\-_]*llm"),
    ("vLLM", r"vllm"),
    ("SGLang", r"sglang"),
    ("llama.cpp", r"llama[\s\.\-_]*cpp"),
    ("Ollama", r"ollama"),
    ("LM Studio", r"lm[\s\-]*studio"),
    ("MLX", r"\bmlx(?:[\s\-_]*lm)?\b"),
    ("TGI", r"\btgi\b|text[\s\-]generation[\s\-]inference"),
    ("LMDeploy", r"lmdeploy"),
    ("ExLlamaV2", r"exllama(?:v2)?"),
    ("KTransformers", r"ktransformers"),
    ("transformers", r"\btransformers\b"),
)

_NUM = r"(\d[\d,]*(?:\.\d+)?)\s*([kK])?"


def _num(text: str, k: str | None = None, k_value: int = 1000) -> float:
    v = float(text.replace(",", ""))
    return v * k_value if k else v


@dataclass
class Claim:
    """A parsed claim.

    Attributes:
        text: the original text.
        fields: stated (or option-given) facts, keys from :data:`FIELD_KEYS` only.
        notes: what the parser inferred and why (e.g. "单卡 → gpu_count 1").
    """

    text: str
    fields: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    @property
    def present(self) -> list[str]:
        return [item for item, keys in CHECKLIST.items() if any(self.fields.get(k) is not None for k in keys)]

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


def _parse_value(text: str, f: dict) -> None:
    unit_rx = (r"(tok(?:en)?s?\s*/\s*s(?:ec)?|tokens?\s+per\s+second|tokens?/秒|t/s|tps\b|tok/sec|"
               r"token\s*每秒|个?\s*token\s*/\s*s|字/秒)")
    m = re.search(r"(-?\s*\d[\d,]*(?:\.\d+)?(?:e\+?\d+)?)\s*([kK])?\s*" + unit_rx, text, re.I)
    if m:
        raw = m.group(1).replace(" ", "")
        v = _num(raw.lstrip("-"), m.group(2))
        if raw.startswith("-"):
            raise TokcheckError(f"the claimed speed is negative ({raw} tok/s)")
        f["value"], f["unit"] = v, "tok/s"
        return
    m = re.search(r"每秒\s*(?:生成|输出|吐出)?\s*(-?\d[\d,]*(?:\.\d+)?)\s*个?\s*(?:token|tok)", text, re.I)
    if m:
        if m.group(1).startswith("-"):
            raise TokcheckError(f"the claimed speed is negative ({m.group(1)} tok/s)")
        f["value"], f["unit"] = _num(m.group(1)), "tok/s"
        return
    m = re.search(r"(?:ttft|time[\s\-]to[\s\-]first[\s\-]token|first[\s\-]token|首\s*token|首字|首\s*词)[^\d\-]{0,30}(-?\d[\d,]*(?:\.\d+)?)\s*(ms|毫秒|s|秒)(?![a-z])", text, re.I)
    if m:
        v = _num(m.group(1).lstrip("-"))
        if m.group(1).startswith("-"):
            raise TokcheckError(f"the claimed TTFT is negative ({m.group(1)} {m.group(2)})")
        f["value"], f["unit"], f["metric"] = v, ("ms" if m.group(2) in ("ms", "毫秒") else "s"), "ttft"


def parse_claim(text: str) -> Claim:
    """Parse a tok/s claim, English or Chinese, into :class:`Claim` fields.

    Examples: "DeepSeek V4 Flash at 278 tok/s, full precision, no quantization";
    "Llama 3.1 70B on 2x H100 SXM, vLLM 0.6.3, BF16, 64 concurrent requests: 2,300 tok/s total";
    "单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000".

    Raises:
        TokcheckError: empty text, no speed figure, a negative or absurd figure.
    """
    if text is None or not str(text).strip():
        raise TokcheckError("empty claim: give the claim text, e.g. \"Qwen3-32B at 58 tok/s on one H200\"")
    raw = " ".join(str(text).split())
    t = raw.replace("，", ", ").replace("：", ": ").replace("（", " (").replace("）", ") ").replace("×", "x")
    t = re.sub(r"\b(\d+)\s*[x*]\s*(?=[A-Za-z])", r"\1x ", t)  # "8xH200" → "8x H200" ("8x7B" untouched)
    low = t.lower()
    f: dict = {}
    notes: list[str] = []

    _parse_value(t, f)
    if "value" not in f:
        raise TokcheckError("no speed figure in the claim (expected a number with tok/s, tokens/s, or a TTFT in ms)")
    if f["value"] <= 0:
        raise TokcheckError(f"the claimed figure must be positive, got {f['value']:g} {f['unit']}")
    if f["unit"] == "tok/s" and f["value"] > ABSURD_TOK_S:
        raise TokcheckError(f"{f['value']:,.0f} tok/s is beyond any serving system; check the number")

    from tokcheck.core.catalog import gpus, models

    # --- model
    mm = find_in_text(t, [(m.name, m.aliases) for m in models()])
    if mm:
        f["model"] = mm[0]
        version = version_suffix(t[mm[1]:mm[2]], mm[0])
        if version:
            f["weights_version"] = version
        tail = t[mm[2]:mm[2] + 24]
        v = re.match(r"[\s\-_]*(instruct[\-\s]?\d{4}|instruct|base|chat|\d{4}(?:-\d{2})?|v\d+(?:\.\d+)?)\b", tail, re.I)
        if v:
            f["weights_version"] = v.group(1)
    else:
        g = re.search(r"\b([A-Za-z][A-Za-z0-9]*(?:[\-\s.][A-Za-z0-9.]+)*?[\-\s]\d+(?:\.\d+)?[bBmM](?:[\-\s]A\d+[bB])?)\b", t)
        if g:
            f["model"] = g.group(1)
            notes.append(f"model {g.group(1)!r} is not in the built-in catalog")
    rv = re.search(r"(?:revision|commit|权重版本|weights? version)\s*[:=]?\s*([\w.\-]+)", t, re.I)
    if rv:
        f["weights_version"] = rv.group(1)

    # --- GPU, count, memory
    gm = find_in_text(t, [(g.name, g.aliases) for g in gpus()])
    if gm:
        f["gpu"] = gm[0]
        before, after = t[: gm[1]], t[gm[2]:]
        c = re.search(r"(\d+)\s*[x\*]\s*(?:nvidia\s+)?$", before, re.I) or re.search(r"(\d+)\s*(?:张|块|卡)\s*$", before)
        if c:
            f["gpu_count"] = int(c.group(1))
        elif re.search(r"\b(?:an?|one|a single|single)\s+(?:nvidia\s+)?$", before, re.I):
            f["gpu_count"] = 1
            notes.append("'a/one <GPU>' read as gpu_count 1")
        mem = re.match(r"\s*[\-_(]?\s*(\d{2,3})\s*(?:GB|G|GiB)\b", after, re.I)
        if mem:
            f["gpu_memory_gb"] = float(mem.group(1))
        else:
            inside = re.search(r"(\d{2,3})\s*(?:gb|g)\b", t[gm[1]:gm[2]].lower())
            if inside:
                f["gpu_memory_gb"] = float(inside.group(1))
    cnt = re.search(r"\b(\d+)\s*(?:x\s*)?(?:gpus?|cards?)\b|\b(\d+)[\s\-]gpu\b|(\d+)\s*(?:张|块)\s*(?:卡|显卡|GPU)", t, re.I)
    if cnt and "gpu_count" not in f:
        f["gpu_count"] = int(next(g for g in cnt.groups() if g))
    if "gpu_count" not in f:
        if re.search(r"单卡|单张|一张|single[\s\-]gpu|one gpu|a single\s+\w+\s*gpu|\bon (?:one|a single) ", t, re.I):
            f["gpu_count"] = 1
        elif re.search(r"双卡|两张|dual[\s\-]gpu|two gpus", t, re.I):
            f["gpu_count"] = 2
        elif re.search(r"八卡|8卡", t):
            f["gpu_count"] = 8
    mem2 = re.search(r"(?:显存|vram|gpu memory)\s*[:=]?\s*(\d{2,3})\s*(?:GB|G)\b", t, re.I)
    if mem2:
        f["gpu_memory_gb"] = float(mem2.group(1))

    # --- precision and quantization
    for rx, name in ((r"\bbf16\b|bfloat16", "BF16"), (r"\bfp16\b|float16|半精度", "FP16"), (r"\bfp32\b|float32", "FP32"),
                     (r"\bnvfp4\b", "NVFP4"), (r"\bmxfp4\b", "MXFP4"), (r"\bfp8\b|float8|e4m3", "FP8"),
                     (r"\bint8\b|\bw8a8\b|\b8[\s\-]?bit", "INT8"), (r"\bint4\b|\bw4a16\b|\b4[\s\-]?bit", "INT4")):
        if re.search(rx, low) and "precision" not in f:
            f["precision"] = name
    if "precision" not in f and any(w in low for w in FULL_PRECISION_WORDS[:4]):
        f["precision"] = "full"
    if re.search(r"no[\s\-]quantization|without quantization|unquantized|un-quantized|无量化|不量化|未量化|非量化|no quant\b", low):
        f["quantization"] = "none"
    else:
        q = re.search(r"\b(awq|gptq|gguf|q[2-8]_k(?:_[sml])?|q[48]_0|exl2|bitsandbytes|bnb)\b", low)
        if q:
            f["quantization"] = q.group(1).upper()
        elif re.search(r"\bquantized\b|量化", low):
            f["quantization"] = "yes"
        elif f.get("precision") in ("FP8", "INT8", "INT4", "MXFP4", "NVFP4"):
            f["quantization"] = f["precision"]

    # --- engine and version
    for name, rx in _ENGINES:
        em = re.search(rf"(?:{rx})", low)
        if em:
            f["engine"] = name
            ver = re.match(r"\s*(?:==|v|version\s*|@\s*|\s)?\s*v?(\d+\.\d+(?:\.\d+)?(?:[\w.\-+]*)?|b\d{3,5})\b", low[em.end():])
            if ver:
                f["engine_version"] = ver.group(1).rstrip(".,")
            break

    # --- concurrency and batch policy
    conc = (re.search(r"(\d+)\s*(?:concurrent|parallel|simultaneous)\s*(?:requests?|users?|streams?|sequences?)?", t, re.I)
            or re.search(r"(?:concurrency|并发(?:数)?|batch[\s_\-]?size|\bbs|max[\s_\-]num[\s_\-]seqs)\s*(?:of|=|:|为)?\s*(\d+)", t, re.I)
            or re.search(r"(\d+)\s*(?:路)?并发", t))
    if conc:
        f["concurrency"] = int(conc.group(1))
    elif re.search(r"single[\s\-](?:request|stream|user|sequence)|one request|batch[\s_\-]?size\s*(?:of\s*)?1\b|\bbs\s*=?\s*1\b|单请求|单并发|单用户|单路", t, re.I):
        f["concurrency"] = 1
    bp = re.search(r"continuous batching|dynamic batching|static batch(?:ing)?|in-flight batching|连续批处理|动态批处理|静态批处理", low)
    if bp:
        f["batch_policy"] = bp.group(0)

    # --- lengths
    inp = (re.search(r"(?:input|prompt|输入|isl)\s*(?:length|长度|len)?\s*(?:of|=|:|约|为)?\s*~?\s*" + _NUM, t, re.I)
           or re.search(_NUM + r"\s*(?:input|prompt|输入)(?:\s*tokens?)?", t, re.I)
           or re.search(_NUM + r"\s*(?:tokens?\s*)?in\b", t, re.I))
    out = (re.search(r"(?:output|generation|输出|osl|max_tokens)\s*(?:length|长度|len)?\s*(?:of|=|:|约|为)?\s*~?\s*" + _NUM, t, re.I)
           or re.search(_NUM + r"\s*(?:output|输出)(?:\s*tokens?)?", t, re.I)
           or re.search(_NUM + r"\s*(?:tokens?\s*)?out\b", t, re.I))
    pair = (re.search(r"(?:isl\s*/\s*osl|in\s*/\s*out|input\s*/\s*output|输入\s*/\s*输出)\s*(?:lengths?|长度)?\s*[:=]?\s*"
                      + _NUM + r"\s*/\s*" + _NUM, t, re.I)
            or re.search(_NUM + r"\s*/\s*" + _NUM + r"\s*(?:tokens?\s*)?(?:in\s*/\s*out|输入\s*/\s*输出)", t, re.I))
    both = re.search(r"(?:输入输出各|输入和输出各|in and out)\s*" + _NUM, t, re.I)
    if pair:
        inp = out = None
        f["input_tokens"] = int(_num(pair.group(1), pair.group(2)))
        f["output_tokens"] = int(_num(pair.group(3), pair.group(4)))
    elif both:
        inp = out = None
        f["input_tokens"] = f["output_tokens"] = int(_num(both.group(1), both.group(2)))
    if inp:
        f["input_tokens"] = int(_num(inp.group(1), inp.group(2)))
    if out:
        f["output_tokens"] = int(_num(out.group(1), out.group(2)))
    ml = (re.search(r"max[\s_\-]model[\s_\-]len\s*(?:=|:)?\s*" + _NUM, t, re.I)
          or re.search(r"(?:context|上下文)\s*(?:length|长度|window)?\s*(?:of|=|:|为)?\s*" + _NUM, t, re.I)
          or re.search(_NUM + r"\s*(?:context|上下文)", t, re.I))
    if ml:
        f["max_model_len"] = int(_num(ml.group(1), ml.group(2), 1024))

    # --- metric
    if "metric" not in f:
        if re.search(r"\btotal\b|aggregate|throughput|总吞吐|吞吐|系统总|合计", low):
            f["metric"] = "aggregate_throughput"
        elif re.search(r"end[\s\-]to[\s\-]end|\be2e\b|端到端", low):
            f["metric"] = "e2e_tok_s"
        elif re.search(r"generation|decode|decoding|生成速度|持续生成|per[\s\-](?:request|user|stream)|单请求|single[\s\-](?:request|stream|user)", low):
            f["metric"] = "generation_tok_s"

    # --- optimizations
    if re.search(r"no speculative|without speculative|spec(?:ulative)?[\s\-_]decod\w*\s*(?:off|disabled)|无投机|不开投机|未开启投机|关闭投机", low):
        f["speculative_decoding"] = False
    elif re.search(r"speculative|spec[\s\-_]decod|\bmtp\b|eagle|medusa|draft model|投机解码|推测解码|n-?gram spec", low):
        f["speculative_decoding"] = True
    if re.search(r"no prefix[\s\-]cach\w*|prefix[\s\-]cach\w*\s*(?:off|disabled)|without prefix|无前缀缓存|关闭前缀缓存", low):
        f["prefix_cache"] = False
    elif re.search(r"prefix[\s\-]cach|\bapc\b|radix|前缀缓存", low):
        f["prefix_cache"] = True
    if re.search(r"enforce[\s\-_]eager|no cuda[\s\-]?graphs?|cuda[\s\-]?graphs?\s*(?:off|disabled)|eager mode", low):
        f["cuda_graph"] = False
    elif re.search(r"cuda[\s\-]?graphs?", low):
        f["cuda_graph"] = True

    return Claim(text=raw, fields={k: f[k] for k in FIELD_KEYS if k in f}, notes=notes)


def apply_overrides(claim: Claim, **given) -> Claim:
    """Complete or override fields with options (``gpu=…``, ``concurrency=…``); None is ignored.

    Raises:
        TokcheckError: an unknown field name or a non-positive count.
    """
    fields = dict(claim.fields)
    for key, value in given.items():
        if value is None:
            continue
        if key not in FIELD_KEYS:
            raise TokcheckError(f"unknown claim field {key!r}")
        if key in ("gpu_count", "concurrency", "input_tokens", "output_tokens", "max_model_len") and int(value) <= 0:
            raise TokcheckError(f"{key} must be positive, got {value}")
        if key == "metric" and value not in METRICS:
            raise TokcheckError(f"metric must be one of {', '.join(METRICS)}")
        fields[key] = value
    return Claim(text=claim.text, fields={k: fields[k] for k in FIELD_KEYS if k in fields}, notes=list(claim.notes))
