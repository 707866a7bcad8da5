"""Words of a claim that are not figures or hardware: weight precision and quantization (with
negations, and KV-cache formats that are not the weights'), the engine and its version, batching,
input and output lengths, max_model_len, prefix caching, CUDA graphs, and stated memory
footprints. Each reader returns the value and the character range it was read from. Pure.
"""

from __future__ import annotations

import re

from tokcheck.core.claim.numbers import NUMBER, to_float
from tokcheck.core.claim.text import SENTENCE_END

Hit = tuple[object, int, int]  # (value, start, end) in the normalised text

# --------------------------------------------------------------------------- precision

#: GGUF file/tensor type names as llama.cpp spells them (Q4_K_M, IQ2_XXS, UD-Q2_K_XL …).
_GGUF = r"(?:ud-)?(?:i?q[1-8](?:_[0-9])?(?:_k)?(?:_(?:xxs|xs|s|m|l|xl|nl))*|tq[12]_0|f16|bf16|f32)"
_GGUF_RX = re.compile(rf"(?<![a-z0-9])(?P<q>(?:ud-)?(?:i?q[1-8](?:_[0-9k]+)+(?:_(?:xxs|xs|s|m|l|xl|nl))*|"
                      rf"iq[1-6]_k(?:ss|s|l|t)|iq[1-6]_?(?:xxs|xs|s|m|nl|k)(?:_(?:xxs|xs|s|m|l))?|tq[12]_0|q[2-8]k[sml])(?:_r[48])?)(?![a-z0-9])", re.I)
# Weight-precision words → the claim's precision value (the order matters: first match wins
# among overlapping words).
_PRECISION_WORDS: tuple[tuple[str, str], ...] = (
    ("NVFP4", r"nvfp4"),
    ("MXFP4", r"mxfp4"),
    ("FP4", r"\bfp4\b|\bfloat4\b|\be2m1\b"),
    ("BFP8", r"\bbfp8(?:[\-_]?b)?\b"),
    ("DFloat11", r"\bdfloat11\b|\bdf11\b"),
    ("FP8", r"\bfp8\b|--(?:enable|use)_fp8\b|\bfloat8\b|\be4m3\b|\bw8a8[\s\-_]?fp8\b|\bfp8[\s\-_]?dynamic\b"),
    ("INT8", r"(?<![a-z0-9])q8f(?:16|32)(?:_\d)?(?![a-z0-9])|\bint8\b|\bw8a8\b|\bw8a16\b|\b8[\s\-]?bits?\b|\bbnb[\s\-_]?8bit|\bllm\.int8|8\s*位(?:元|比特)?量化|8\s*比特"),
    ("INT4", r"(?<![a-z0-9])q4f(?:16|32)(?:_\d)?(?![a-z0-9])|\bint4\b|\bauto[\-_]?round\b|\bw4a(?:4|16)\b|\bw4a8(?:kv4|kv8)?\b|\bw4afp8\b|\bw4a8[\-_]?fp8\b|\b4[\s\-]?bits?\b|\bawq\b|\bgptq\b|\bnf4\b|\bbnb[\s\-_]?4bit|q4\s*量化|4\s*位(?:元|比特)?量化|4\s*比特"),
    ("1.58bpw", r"\bb1\.58\b|\b1\.58[\s\-]?bits?\b|\bternary\b"),
    ("6bpw", r"\b6[\s\-]?bits?\b"),
    ("5bpw", r"\b5[\s\-]?bits?\b"),
    ("INT3", r"\b3[\s\-]?bits?\b|\bint3\b|(?<![a-z0-9])q3f16(?:_\d)?(?![a-z0-9])"),  # (MLC's q3f16_1, q4f16_1, q8f16_1)
    ("INT2", r"\b2[\s\-]?bits?\b|\bint2\b"),
    ("BF16", r"\bbf16\b|\bbfloat16\b"),
    ("FP16", r"\bfp16\b|\bfloat16\b|\bhalf[\s\-]precision\b|半精度|\bf16\b|\bdtype[\s=:]*half\b"),
    ("FP32", r"\bfp32\b|\bfloat32\b|\bf32\b|单精度"),
    # MLC LLM's quantization codes: q4f16_1 is 4-bit weights with FP16 compute, q0f16 no quantization
    ("INT8", r"\bq8f(?:16|32)_\d\b"),
    ("INT4", r"\bq4f(?:16|32)_(?:\d|ft)\b"),
    ("INT3", r"\bq3f(?:16|32)_\d\b"),
    ("FP16", r"\bq0f16\b"),
    ("FP32", r"\bq0f32\b"),
)
_FULL_WORDS = re.compile(r"full[\s\-]precision|full[\s\-]weights?|original[\s\-](?:weights|precision|model)|"
                         r"unquantized|un-quantized|non-quantized|not\s+(?:a\s+)?quantized|no[\s\-]quant\w*|"
                         r"without\s+quantization|全精度|满血|原版权重|原始权重|未量化|无量化|不量化|非量化|没有量化|"
                         r"fp16/bf16|bf16/fp16|"
                         # 16-bit weights with no type named: BF16 or FP16, the released width
                         r"\b16[\s\-]?bits?\b|\bw16a16\b|16\s*位(?:精度|权重)?", re.I)
_NO_QUANT = re.compile(r"unquantized|un-quantized|non-quantized|not\s+(?:a\s+)?quantized(?:\s+version)?|"
                       r"no[\s\-]quant\w*|without\s+(?:any\s+)?quantization|未量化|无量化|不量化|非量化|没有量化|"
                       r"不做量化|无需量化", re.I)
_QUANT_METHODS = (("AWQ", r"\bawq\b"), ("GPTQ", r"\bgptq\b"), ("AutoRound", r"\bauto[\-_]?round\b"), ("GGUF", r"\bgguf\b"),
                  ("bitsandbytes", r"bitsandbytes|\bbnb\b"), ("EXL2", r"\bexl[23]\b|\d\s*bpw\b"), ("MLX", r"\bmlx[\s\-_]?\d?bit"),
                  ("HQQ", r"\bhqq\b"), ("compressed-tensors", r"compressed[\s\-]tensors"))
_QUANTIZED = ("FP8", "BFP8", "INT8", "INT4", "INT3", "INT2", "FP4", "NVFP4", "MXFP4")
_KV_CONTEXT = re.compile(r"kv[\s\-_]*(?:cache)?|cache[\s_\-]*(?:type|dtype)|ctk|ctv|-ctk|-ctv|--cache-type", re.I)


def _is_kv(t: str, s: int, e: int) -> bool:
    """Whether the precision word at [s, e) describes the KV cache ("FP8 KV cache",
    "kv_cache_dtype=fp8", "q8_0 KV cache", "-ctk q8_0")."""
    before, after = t[max(0, s - 22):s].lower(), t[e:e + 20].lower()
    return bool(re.search(r"(?:kv[\s\-_]*(?:cache)?(?:[\s\-_]*(?:dtype|type|quant\w*))?|cache[\s_\-]*(?:type|dtype)(?:[\s\-_]*[kv])?|"
                          r"-ct[kv]|--cache-type-[kv]|\b[kv]\s+cache)\s*[:=]?\s*$", before)
                or re.match(r"\)?(?:\s*/\s*[a-z0-9_]+)?(?:\s*\([^)]{0,12}\))?\s*(?:kv|k/v|key[\s\-/]value)[\s\-_]*(?:cache)?", after)
                or re.match(r"\s*(?:k|v)\s+cache", after))


def _others_own(mentions: list[Hit], near: int | None, others: list[tuple[int, int]] | None,
                figures: list[tuple[int, int]] | None, text: str = "") -> list[Hit]:
    """Mentions less those that belong to another model than the headline's: written in or right
    after that model's name ("Qwen3.5-27B-AWQ", "Qwen3-14B 4bit", "Llama-70B in Q4") with no
    figure in between."""
    if not others or near is None:
        return mentions
    spans = figures or []

    def attached(h: Hit) -> bool:
        for a, b in others:
            if a <= h[1] and h[1] - b <= 12 and not any(b <= f[0] < h[1] for f in spans):
                return True
            if text and h[2] <= a and re.fullmatch(r"\s*的\s*", text[h[2]:a]):
                return True  # "比没有量化的 qwen72b": words written before the other model, joined by 的
        return False

    return [h for h in mentions if not attached(h)]


def _pick(mentions: list[Hit], near: int | None, figures: list[tuple[int, int]] | None = None,
          text: str = "", chains: list[tuple[int, int]] | None = None) -> Hit | None:
    """The mention that belongs to the headline figure at ``near``.

    Each mention belongs to the figure nearest to it (``figures``: every figure's span), a comma,
    semicolon or full stop in between counting as distance: "FP8 精度下 21 tok/s，INT4 精度下
    28 tok/s" gives FP8 to 21. Of a change "from A (…) to B (…)" (``chains``: index pairs), what
    stands between A and B is A's, and B takes A's when it has none. Of the headline's own
    mentions the nearest is taken; else the nearest before the headline; else the first after
    the last figure (words that close the claim, "… with FP4 weights"). With no headline, the
    first mention."""
    if not mentions:
        return None
    if near is None or not figures:
        return min(mentions, key=lambda h: h[1])

    chinese = len(re.findall(r"[\u3400-\u9fff]", text)) >= 8

    def dist(h: Hit, f: tuple[int, int]) -> int:
        a, b = (h[2], f[0]) if h[2] <= f[0] else (f[1], h[1])
        gap = max(b - a, 0)
        between = re.sub(r"\([^()]{0,12}\)", "", text[a:b]) if text else ""  # "llama.cpp (CPU) 约 15-30"
        far = 0
        if text and re.search(r"[,;(。，；（]|" + SENTENCE_END, between + " "):
            # a comma between; in Chinese the words that describe a figure come before it ("FP8
            # 量化版占 14 GB 显存、推理速度 80 token/s"), so after a figure they open the next item
            # ("80 token/s，BF16 原模 … 42"); English also writes them after ("57.6 t/s with IQ3_K_R4")
            far = 80 if h[2] > f[0] and chinese else 40
        elif text and h[2] <= f[0] and not chinese and re.fullmatch(r"\s*and\s+", between, re.I):
            far = 40  # "85 tok/s for LLaMA 3.1 70B in FP16 and 72 tok/s …": "and" opens the next item
        elif text and h[1] >= f[1] and not chinese and re.match(r"\s*(?:and|while|whereas|but)\s", between, re.I):
            far = 40  # "a BF16 baseline of ~1082 tok/s and a best config of FP8 weights at 1544": the next item's
        if text and re.search(r"\bagainst\b|\bversus\b|\bvs\.?|compared\s+(?:to|with)|相比|对比|而", between, re.I):
            # "… at 4.0bpw, against the 164 t/s": words before "against" are the figure before's;
            # "25.6 tok/s，而仓库默认的 SGLang … 为 32-40": words after it are the next item's
            far += 80
        return gap + far

    def clause(pos: int) -> int:  # clauses end at ";", "。", "!", "?" or a full stop
        return len(re.findall(SENTENCE_END + "|[。；！？]", text[:pos])) if text else 0

    def owner(h: Hit) -> int:
        for i, j in chains or ():
            if figures[i][1] <= h[1] < figures[j][0]:
                return i
        # a mention belongs to a figure of its own clause when its clause has one
        same = [i for i in range(len(figures)) if clause(figures[i][0]) == clause(h[1])]
        return min(same or range(len(figures)), key=lambda i: dist(h, figures[i]))

    head = next((i for i, f in enumerate(figures) if f[0] == near), None)
    own = [h for h in mentions if head is not None and owner(h) == head]
    if not own and head is not None:
        own = [h for h in mentions if any(j == head and owner(h) == i for i, j in chains or ())]
    if own:
        return min(own, key=lambda h: dist(h, figures[head]))
    before = [h for h in mentions if h[1] < near]
    if before:
        return max(before, key=lambda h: h[1])
    last = max(f[1] for f in figures)
    tail = [h for h in mentions if h[1] >= last]
    if tail and text and figures.index(max(figures, key=lambda f: f[1])) != head \
            and re.fullmatch(r"\s*(?:at|with|in|using|@)?\s*(?:an?\s+)?", text[last:min(tail, key=lambda h: h[1])[1]], re.I):
        return None  # "… 5-6 tokens per second at 2-bit": the last figure's own, not the headline's
    return min(tail, key=lambda h: h[1]) if tail else None


def _gguf_name(q: str) -> str:
    """A GGUF type as llama.cpp prints it ("q4_k_m" → "Q4_K_M", "Q4KM" → "Q4_K_M")."""
    q = q.upper()
    m = re.fullmatch(r"(UD-)?(I?Q\d)K([SML])", q)
    if m:
        return f"{m.group(1) or ''}{m.group(2)}_K_{m.group(3)}"
    m = re.fullmatch(r"(UD-)?(IQ\d)(XXS|XS|S|M|NL)", q)  # "IQ2XXS" is IQ2_XXS
    return f"{m.group(1) or ''}{m.group(2)}_{m.group(3)}" if m else q


#: A bare "Q8" / "Q6" … as people write llama.cpp quantizations: read as the usual type of that
#: width (Q8_0, Q6_K, the K-quant mediums); a bare "Q4" stays a 4-bit claim (INT4), since
#: Q4_0, Q4_K_S and Q4_K_M are all common.
# the run before a quantization ("量化前", "before quantization", "pre-quantization")
_BEFORE_QUANT = re.compile(r"量化前|量化之前|before\s+(?:the\s+)?quantiz\w*|pre-?quantiz\w*", re.I)
_BARE_Q = {"2": "Q2_K", "3": "Q3_K_M", "4": "INT4", "5": "Q5_K_M", "6": "Q6_K", "8": "Q8_0"}


def precision_words(t: str, near: int | None = None, figures: list[tuple[int, int]] | None = None,
                    chains: list[tuple[int, int]] | None = None, others: list[tuple[int, int]] | None = None) -> dict:
    """Weight precision and quantization stated in ``t``.

    Returns a dict with any of: ``precision`` (FP32, BF16, FP16, FP8, INT8, INT4, FP4, NVFP4,
    MXFP4, a GGUF type such as ``Q4_K_M``, ``Nbpw`` for an EXL2 bit width, or ``full`` for "full
    precision"/"全精度" without a type), ``quantization`` (AWQ, GPTQ, GGUF, EXL2, bitsandbytes, …
    or ``none`` when negated), ``kv_cache_dtype``, each with ``(value, start, end)``. Where a text
    names several, the one nearest before position ``near`` (the headline figure) is taken
    (:func:`_pick`); ``others`` (the spans of models other than the headline's) take the words
    written with them (:func:`_others_own`).
    """
    out: dict[str, Hit] = {}
    mentions: list[Hit] = []
    gguf: list[Hit] = []
    for m in _BENCH_TYPE.finditer(t):
        # llama-bench's type column: "Q4_K - Medium" is Q4_K_M
        hit = (f"{m.group(1).upper()}_{m.group(2)[0].upper()}", m.start(), m.end())
        mentions.append(hit)
        gguf.append(hit)
    for m in re.finditer(r"(?<![a-z0-9])(?:ud-)?(i?q[1-8])-(k)-(xxs|xs|s|m|l|xl)(?![a-z0-9])", t, re.I):
        # "deepseek-r1-q4-k-m": a GGUF type written with hyphens
        if not any(h[1] <= m.start() < h[2] for h in mentions):
            hit = (f"{m.group(1).upper()}_K_{m.group(3).upper()}", m.start(), m.end())
            mentions.append(hit)
            gguf.append(hit)
    for m in _GGUF_RX.finditer(t):
        if any(h[1] <= m.start() < h[2] for h in mentions):
            continue
        if _is_kv(t, m.start(), m.end()):
            out.setdefault("kv_cache_dtype", (_gguf_name(m.group("q")), m.start(), m.end()))
            continue
        hit = (_gguf_name(m.group("q")), m.start(), m.end())
        mentions.append(hit)
        gguf.append(hit)
    for m in re.finditer(r"(?<![a-z0-9])q_([2-8](?:_[0-9])+)(?![\w.])", t, re.I):
        # "Q_4_0_4_8": llama.cpp's Q4_0_4_8 written with an underscore after the Q
        if not any(h[1] <= m.start() < h[2] for h in mentions):
            hit = (f"Q{m.group(1)}", m.start(), m.end())
            mentions.append(hit)
            gguf.append(hit)
    for m in re.finditer(r"(?<![\w.])q([2-68])(?![\w.])", t, re.I):
        if not _is_kv(t, m.start(), m.end()) and not any(h[1] <= m.start() < h[2] for h in mentions):
            hit = (_BARE_Q[m.group(1)], m.start(), m.end())
            mentions.append(hit)
            if hit[0] != "INT4":
                gguf.append(hit)
    for m in re.finditer(r"(?:(?<=[a-z0-9][_\-])|(?<![a-z0-9]))q([48])0(?![\w])", t, re.I):
        # distributed-llama's types: "Q40" is Q4_0, also in file names ("llama3_1_8b_instruct_q40")
        if not any(h[1] <= m.start() < h[2] for h in mentions):
            mentions.append((f"Q{m.group(1)}_0", m.start(), m.end()))
            gguf.append(mentions[-1])
    own_bpw = set()
    for m in re.finditer(r"(?<![A-Za-z0-9.])(\d(?:\.\d+)?)\s*(?:bpw\b|bits?[\s\-]per[\s\-]weight\b)", t, re.I):
        if re.search(r"(?:i?q\d(?:_[0-9a-z]+)+)[\-_]$", t[max(0, m.start() - 12):m.start()], re.I):
            own_bpw.add(float(m.group(1)))
            continue  # "Q3_K_S-2.70bpw": the GGUF type's own size, the type is the format
        if float(m.group(1)) in own_bpw:
            continue  # "… at 2.70 BPW" again later: still that type's size
        mentions.append((f"{m.group(1)}bpw", m.start(), m.end()))
    for name, rx in _PRECISION_WORDS:
        for m in re.finditer(rx, t, re.I | re.A):
            if any(h[1] <= m.start() < h[2] for h in mentions):
                continue
            if _is_kv(t, m.start(), m.end()):
                out.setdefault("kv_cache_dtype", (name, m.start(), m.end()))
            elif not _negated(t, m.start()):
                mentions.append((name, m.start(), m.end()))
    full = next((m for m in _FULL_WORDS.finditer(t) if not _is_kv(t, m.start(), m.end())), None)
    if full:
        mentions.append(("full", full.start(), full.end()))
    mentions = _own_mentions(t, mentions, near)
    mentions = _others_own(mentions, near, others, figures, t)
    pick = _pick(mentions, near, figures, t, chains)
    if pick is not None and pick[0] == "full" and any(h[0] != "full" for h in mentions):
        # "full precision … BF16": a named type says more than the words "full precision"
        # — unless the words name a width themselves: "20.2 TPS in W16A16, ~35.5 in W8A16" is 16-bit
        typed = [h for h in mentions if h[0] != "full"]
        alt = _pick(typed, near, figures, t, chains)
        if alt is not None and not re.search(r"16", t[pick[1]:pick[2]]) and (t[pick[1]:pick[2]] == "满血" or not any(
                min(alt[2], pick[2]) <= f[0] < max(alt[1], pick[1]) for f in figures or ())):
            # ("满血" names the whole model more than its width: "满血 DeepSeek-R1 … B200 采用 FP4 精度")
            pick = alt  # "unquantized … 3413 tok/s … 3708 for FP16": FP16 is the other figure's
    if pick is not None and near is not None and pick[2] <= near and _BEFORE_QUANT.search(t[pick[2]:near][-40:]):
        # "用 awq 量化成 INT4 … 量化前 … 推理耗时 4s；量化后 … 29s": the headline is the run before
        # the quantization the text names, so that type is not its precision
        pick = None
        methods_before = True
    else:
        methods_before = False
    if pick is not None:
        out["precision"] = pick
        if pick in gguf:
            out["quantization"] = ("GGUF", pick[1], pick[2])
    neg = _NO_QUANT.search(t)
    if methods_before:
        pass
    elif neg:
        out["quantization"] = ("none", neg.start(), neg.end())
    elif "quantization" not in out:
        methods = []
        for name, rx in _QUANT_METHODS:
            for m in re.finditer(rx, t, re.I | re.A):
                if not _is_kv(t, m.start(), m.end()):
                    methods.append((name, m.start(), m.end()))
        method = _pick(_others_own(methods, near, others, figures, t), near, figures, t, chains)
        if method is not None:
            out["quantization"] = method
        else:
            m = re.search(r"\bquantized\b|\bquantised\b|量化版|量化后|量化模型", t, re.I)
            if m:
                out["quantization"] = ("yes", m.start(), m.end())
    if "quantization" not in out and "precision" in out and out["precision"][0] in _QUANTIZED:
        out["quantization"] = out["precision"]
    return out


_BENCH_TYPE = re.compile(r"(?<![a-z0-9])(q[2-8]_k)\s*-\s*(medium|small|large)\b", re.I)
_WIDTH = ("INT8", "INT4", "INT3", "INT2")
_AGAINST_BEFORE = re.compile(r"(?:相比|相较于?|对比|比起|较|(?<![对相])比|compared\s+(?:with|to)|versus|vs\.?|than|over)\s*(?:the\s+|an?\s+)?$", re.I)
# ("94.18% of BF16 quality": the format a quantization is measured against)
_AGAINST_AFTER = re.compile(r"\s*(?:'s\s+)?(?:基线|baseline|quality\b|accuracy\b)", re.I)


def _own_mentions(t: str, mentions: list[Hit], near: int | None = None) -> list[Hit]:
    """Leave out the precision words that are not the run's own: a method's default width where
    a width is written with it ("GPTQ-Int8" is INT8, not GPTQ's usual INT4), any type in a GGUF
    file's name but its last ("DeepSeek-V3-BF16-…-Q8_0.gguf" is a Q8_0 file made from BF16), and
    the baseline a precision is set against ("FP8 相比 BF16 基线", "compared with the BF16
    baseline") — the last two only where another word is left."""
    out = []
    for h in mentions:
        word = t[h[1]:h[2]].lower()
        if word in ("gptq", "awq") and any(o[0] in _WIDTH and 0 <= o[1] - h[2] <= 3 for o in mentions):
            continue
        if word in ("gptq", "awq") and re.search(r"(?:auto[\-_]?|llm[\-_])$", t[max(0, h[1] - 5):h[1]], re.I):
            continue  # "auto-gptq 0.6.0", "llm-awq": a package's name, not the weights' format
        if h[0] in _WIDTH and re.search(r"\(\s*$", t[max(0, h[1] - 3):h[1]]) \
                and any(o[0] not in _WIDTH and o[0] not in ("full",) and 0 <= h[1] - o[2] <= 3 for o in mentions):
            continue  # "q4km (int4)": the bracket explains the GGUF type before it
        if re.search(r"(?:a\s+few|some|several|certain|部分)\s*$", t[max(0, h[1] - 12):h[1]], re.I) \
                and re.match(r"\s*(?:layers?|层)", t[h[2]:h[2] + 10], re.I) and len(mentions) > 1:
            continue  # "w4a16 with a few w8a16 layers": the few layers are not the weights' format
        if re.match(r"\s*(?:attention|activations?|compute|computation|accumulat\w*|math|计算|运算|激活)(?![a-z])", t[h[2]:h[2] + 14], re.I):
            continue  # "FP8 attention", "fp32 compute": how it computes, not the weights' format
        if re.search(r"(?:flashmla|flashinfer|flash[\-_]?attn(?:ention)?\d?|sage[\-_]?attn(?:ention)?\d?)[\-_ ]?$", t[max(0, h[1] - 16):h[1]], re.I):
            continue  # "FlashMLA-FP8": an attention kernel's build, not the weights' format
        if re.match(r"[\s\-]*(?:(?:gguf|quant(?:ized)?)\s+)?(?:drafter|draft(?:[\s\-]model)?|eagle\d?\s+head|草稿模型|小模型|draft\s*模型)(?![a-z])",
                    t[h[2]:h[2] + 24], re.I):
            continue  # "with a Q4_K_M drafter": the draft model's format, not the served model's
        if re.search(r"(?:\bwhether\b|是否|是不是|会不会)[^;,?。，；？]{0,120}$", t[max(0, h[1] - 130):h[1]], re.I):
            continue  # "asks whether … means it runs in FP16": a format asked about, not stated
        out.append(h)
    typed = [h for h in out if h[0] not in _WIDTH and h[0] != "full" and re.match(r"(?:ud-)?i?q\d_", t[h[1]:h[2]], re.I)]
    if typed:
        # "UD-Q4_K_XL GGUF … with Q4 MTP": a full GGUF type says more than a bare width
        # — unless the bare width is written in the headline's sentence and the type in another:
        # "R1 的 Q4 量化能到 20 t/s。也有人提到 Q4_K_M …" keeps the Q4
        def apart(a: int, b: int) -> bool:
            return bool(re.search(SENTENCE_END + "|[。；！？]", t[min(a, b):max(a, b)]))

        out = [h for h in out if not (h[0] in _WIDTH and re.fullmatch(r"q\d", t[h[1]:h[2]], re.I)
                                      and not (near is not None and not apart(h[1], near)
                                               and all(apart(o[1], near) for o in typed)))]
        # "the 1.58-bit UD-IQ1_S": the GGUF type names the file, the bit count only describes it
        # — where the type is named in the same sentence; "… at 2.70 bits per weight. … iq4_xs …" keeps it
        # ("an IQ3_KS GGUF (3.65 BPW, 320.216 GiB)": the size of the typed file, written after it)
        out = [h for h in out if not (h[0].endswith("bpw") and (re.search(r"bit|ternary|b1\.58", t[h[1]:h[2]], re.I)
                                                               or any(0 <= h[1] - o[2] <= 24 for o in typed))
                                      and any(not re.search(SENTENCE_END + "|[。；！？]", t[min(h[2], o[2]):max(h[1], o[1])])
                                              for o in typed))]
    # "an 81 GiB IQ2XXS/Q2_K/Q8 GGUF": a mixed file, named by its first (largest share) type
    # ("FP8/AWQ 版本" are two files, either of which may have run: those stay)
    gguf_like = [h for h in out if re.match(r"(?:ud-)?i?q\d", t[h[1]:h[2]], re.I)]
    # ("an IQ2XXS w2Q2K Q8 imatrix GGUF": the types listed with spaces)
    listed = [h for h in gguf_like if any(o is not h and re.fullmatch(r"\s*/\s*|\s+(?:\w{1,6}\s+)?", t[o[2]:h[1]]) for o in gguf_like)]
    if listed and len(listed) < len(out):
        out = [h for h in out if h not in listed]
    drafts = [h for h in out if re.match(r"[\w\s.\-]{0,12}?\bdraft\b", t[h[2]:h[2] + 20], re.I)]
    if drafts and len(drafts) < len(out):
        out = [h for h in out if h not in drafts]  # "a 7b q8_0 draft": the draft's file, not the target's
    for f in re.finditer(r"[\w.\-]+\.gguf\b", t, re.I):
        inside = [h for h in out if f.start() <= h[1] < f.end()]
        if len(inside) > 1:
            last = max(inside, key=lambda h: h[1])
            first = min(inside, key=lambda h: h[1])
            if all(re.fullmatch(r"(?:nv|mx)?fp\d|int\d", t[h[1]:h[2]], re.I) for h in inside) \
                    and re.fullmatch(r"[\-_]", t[first[2]:sorted(inside, key=lambda h: h[1])[1][1]]):
                last = first  # "DeepSeek-V4-Flash-FP4-FP8-native.gguf": a mix named by its first (largest) type
            out = [h for h in out if h not in inside or h is last]
    against = [h for h in out if _AGAINST_BEFORE.search(t[max(0, h[1] - 16):h[1]]) or _AGAINST_AFTER.match(t, h[2])]
    if against and len(against) < len(out):
        out = [h for h in out if h not in against]
    return out


def _negated(t: str, s: int) -> bool:
    return bool(re.search(r"(?:\bno|\bnot|\bwithout|\bnon|未|无|不|没有)[\s\-]*(?:\w+[\s\-]+)?$", t[max(0, s - 14):s], re.I))


# --------------------------------------------------------------------------- engine

_ENGINES = (
    ("ik_llama.cpp", r"ik[\s_\-]*llama(?:\.cpp)?"),
    ("TensorRT-LLM", r"tensorrt[\s\-_]*llm|trt[\s\-_]*llm"),
    ("TensorRT", r"\btensorrt\b"),
    ("vllm-mlx", r"\bvllm[\-_]mlx\b"),
    ("mlx-swift-lm", r"\bmlx[\-_]swift(?:[\-_]lm)?\b"),
    ("rapid-mlx", r"\brapid[\-_]mlx\b"),
    ("RKLLM", r"\brkllm\b|\brknn[\-_]llm\b"),
    ("FastDeploy", r"\bfastdeploy\b"),
    ("NInfer", r"\bninfer\b"),
    ("ds4.c", r"\bds4\.c\b|\bds4(?='s\b|\s+(?:engine|server|backend|binary|runs?|build)\b)|\bds4-bench\b"),
    ("llama2.c", r"\bllama2\.c\b"),
    ("FastChat", r"\bfastchat\b"),
    ("TileRT", r"\btilert\b"),
    ("Crane", r"\bcrane(?=\s+(?:engine|inference|runtime|推理|框架))"),
    ("MTPLX", r"\bmtplx\b"),
    ("Xinference", r"\bxinference\b"),
    ("text-generation-webui", r"text[\-_]generation[\-_]webui|\boobabooga\b"),
    ("koboldcpp", r"\bkoboldcpp\b"),
    ("tinygrad", r"\btinygrad\b"),
    ("gpt-fast", r"\bgpt[\-_]fast\b"),
    ("distributed-llama", r"\bdistributed[\s\-_]llama\b"),
    ("candle-vllm", r"\bcandle[\-_]vllm\b"),
    ("efficient-transformers", r"\befficient[\-_]transformers\b"),
    ("Jan", r"\bJan(?=\s+(?:user|app|desktop|ai)\b|'s\b)"),
    ("Atomic Chat", r"\batomic\s+chat\b"),
    ("vLLM", r"\bvllm\b"),
    ("SGLang", r"\bsglang\b"),
    ("llama-cpp-python", r"llama[\-_]cpp[\-_]python"),
    ("llama.cpp", r"llama[\s\.\-_]*cpp|llama-(?:server|bench|batched-bench|cli|speculative)\b"),
    # llama-bench's test names, "pp512 … tg128", with no engine named: llama.cpp's benchmark
    ("llama.cpp", r"\bpp\d{2,5}\b(?=.{0,160}?\btg\d{2,4}\b)"),
    ("Ollama", r"\bollama\b"),
    ("LM Studio", r"lm[\s\-]*studio"),
    ("MLX", r"\bmlx(?:[\s\-_]*(?:lm|vlm))?\b(?![\-_]community)"),
    ("TGI", r"\btgi\b|text[\s\-]generation[\s\-]inference"),
    ("LMDeploy", r"\blmdeploy\b|\bturbomind\b"),
    ("TabbyAPI", r"tabbyapi"),
    ("AutoAWQ", r"\bautoawq\b"),
    # "Mistral 7B (ExLlamaV2 kernel)": a kernel another engine calls is no engine of its own
    ("ExLlamaV2", r"exllamav2(?![\s\-_]*kernels?\b)"),
    ("ExLlamaV3", r"exllamav3(?![\s\-_]*kernels?\b)"),
    ("ExLlama", r"exllama(?![\s\-_]*kernels?\b)(?!v\d)"),
    ("KTransformers", r"ktransformers"),
    ("QServe", r"\bqserve\b"),
    ("OpenNMT-py", r"\bopennmt(?:[\-_]py)?\b"),
    ("Exo", r"(?<![\w\-])exo(?![\w\-])"),
    ("MindFormers", r"\bmindformers\b"),
    ("MAX", r"\bmodular(?:'s)?\s+max\b|\bmax\s+serve\b"),
    ("BeeLlama", r"\bbeellama\b"),
    ("bigdl-llm", r"\bbigdl[\s\-_]*llm\b"),
    ("MindIE", r"\bmindie\b"),
    ("ipex-llm", r"\bipex[\s\-_.]*llm\b"),
    ("DeepSpeed-MII", r"deepspeed[\s\-_]*(?:mii|fastgen)"),
    # ("the dustynv/mlc:0.1.1 container … with the MLC benchmark script")
    ("MLC-LLM", r"\bmlc[\s\-_]*llm\b|\bmlc(?:'s)?[\s\-_]+chat\b|\bmlc(?=\s+(?:benchmark|container|engine|runtime|serve)\b|:\d)"),
    ("OpenVINO", r"\bopenvino(?:[\s\-_]*genai)?\b"),
    ("Neural Speed", r"\bneural[\s\-_]*speed\b"),
    ("Chitu", r"\bchitu\b|赤兔(?:推理)?引擎|赤兔"),
    ("mllm", r"\bmllm\b"),
    ("chatglm.cpp", r"\bchatglm\.cpp\b"),
    ("FasterTransformer", r"\bfaster[\s\-_]*transformer\b"),
    ("QNN", r"\bqnn\b|qualcomm\s+ai\s+engine\s+direct"),
    ("fastllm", r"\bfastllm\b"),
    ("AirLLM", r"\bairllm\b"),
    ("PowerInfer", r"\bpowerinfer\b"),
    ("transformers", r"\btransformers\b"),
)


#: The engine an engine is built on, where the judge treats them alike: front ends and forks of
#: llama.cpp and of MLX run the same kernels (how weights are split, offloaded and quantized).
ENGINE_FAMILY = {"llama-cpp-python": "llama.cpp", "TabbyAPI": "ExLlamaV2", "ExLlama": "ExLlamaV2", "ExLlamaV3": "ExLlamaV2", "koboldcpp": "llama.cpp", "distributed-llama": None, "mlx-swift-lm": "MLX", "rapid-mlx": "MLX",
                 "MTPLX": "MLX", "vllm-mlx": "MLX", "text-generation-webui": None, "Xinference": None,
                 "BeeLlama": "llama.cpp", "bigdl-llm": "ipex-llm", "Exo": "MLX"}


def engine_family(name: str | None) -> str | None:
    """The engine whose behaviour the judge applies to ``name`` ("koboldcpp" → "llama.cpp");
    the name itself where it is its own family."""
    return ENGINE_FAMILY.get(name) or name


def _change_word_at(t: str, start: int, end: int) -> int:
    """Where the words of a change between two figures turn to the result ("… under llama.cpp to
    ~1.9s", "，换成 llama.cpp 跑 …"): the last change word in ``t[start:end]``, else ``start``."""
    found = list(re.finditer(r"\bto\b|\binto\b|(?<!达)(?<!能)(?<!可)到|(?<!甚)至|→|->|换成|换用|改用|切换|\bswitch\w*|\bmov\w+\s+to\b", t[start:end], re.I))
    return start + found[-1].start() if found else start


def engine_words(t: str, near: int | None = None, figures: list[tuple[int, int]] | None = None,
                 chains: list[tuple[int, int]] | None = None) -> dict:
    """``engine`` and ``engine_version`` ("vLLM 0.6.3", "llama.cpp b4500", "SGLang v0.4.1"): the
    engine named nearest before position ``near`` (the headline figure), else the first after it.
    llama.cpp's own tools (``llama-server``, ``llama-bench``) name it too. Of several, the one that
    belongs to the headline figure (:func:`_pick`)."""
    out: dict[str, Hit] = {}
    hits: list[Hit] = []
    for name, rx in _ENGINES:
        for m in re.finditer(rx, t, re.I | re.A):
            if not any(h[1] <= m.start() < h[2] for h in hits):
                hits.append((name, m.start(), m.end()))
    # llama-bench's "pp512 … tg128" names llama.cpp only where no engine is named ("vLLM … pp1024
    # tg128" is vLLM run on llama-bench's test shapes)
    implied = [h for h in hits if h[0] == "llama.cpp" and re.match(r"pp\d", t[h[1]:h[2]], re.I)]
    if implied and len(implied) < len(hits):
        hits = [h for h in hits if h not in implied]
    # an engine a figure is compared against ("11.69x faster than llama.cpp") is not the one it
    # ran on; a backend ("Ollama with the llama.cpp Vulkan backend") yields to the engine named
    hits = [h for h in hits if not re.search(r"(?:\bthan|\bvs\.?|\bversus|compared\s+(?:to|with)|比|相比)\s*$",
                                              t[max(0, h[1] - 16):h[1]], re.I)]
    # "llama.cpp build b9275 as the baseline": the engine a figure is measured against
    # "维护者建议 … 改用 vllm 或 sglang": engines advised, not run
    advised = [h for h in hits if re.search(r"(?:建议|推荐|\bsuggest\w*|\brecommend\w*|\badvis\w*)[^,.;。，；]{0,20}$", t[max(0, h[1] - 24):h[1]], re.I)]
    if advised and len(advised) < len(hits):
        hits = [h for h in hits if h not in advised]
    baseline = [h for h in hits if re.match(r"[\s\w.\-]{0,20}?\bas\s+(?:the\s+|a\s+)?baseline\b", t[h[2]:h[2] + 40], re.I)]
    if baseline and len(baseline) < len(hits):
        hits = [h for h in hits if h not in baseline]
    # "KTransformers 0.5.2 (kt-kernel + SGLang)", "xinference 0.15.0 的 transformers 推理引擎": an
    # engine inside another's brackets, or another's own, is its component ("ipex-llm's llama.cpp
    # build" is llama.cpp, built by another project)
    parts = [h for h in hits if any(o[2] <= h[1] and re.fullmatch(r"\s*(?:v?\d[\w.\-]*\s*)?(?:(?:for|on)\s+\w+\s*)?(?:[(（][^()（）]*|的\s*)",
                                                                    t[o[2]:h[1]], re.I) for o in hits if o is not h)]
    if parts and len(parts) < len(hits):
        hits = [h for h in hits if h not in parts]
    # "ds4.c, a single-file Metal engine built on llama.cpp/GGML": what an engine is built on is its part
    built = [h for h in hits if re.search(r"(?:built|based)\s+on\s+(?:top\s+of\s+)?$|基于\s*$", t[max(0, h[1] - 20):h[1]], re.I)]
    if built and len(built) < len(hits):
        hits = [h for h in hits if h not in built]
    # "KTransformers+SGLang": the first of two engines joined by "+" runs on the second
    joined = [h for h in hits if any(o[2] <= h[1] and re.fullmatch(r"\s*(?:v?\d[\w.\-]*\s*)?\+\s*", t[o[2]:h[1]]) for o in hits if o is not h)]
    if joined and len(joined) < len(hits):
        hits = [h for h in hits if h not in joined]
    if any(h[0] == "MLX" for h in hits):  # exo runs MLX on Macs: where MLX is named, it is the engine
        hits = [h for h in hits if h[0] != "Exo"] or hits
    # "rapid_mlx 0.7.9 and mlx 0.31.2", "koboldcpp (llama.cpp …)": a runtime built on a library
    # is the engine; the library it names beside it is its part
    wrappers = {ENGINE_FAMILY[h[0]] for h in hits if ENGINE_FAMILY.get(h[0]) and ENGINE_FAMILY[h[0]] != h[0]}
    if wrappers:
        hits = [h for h in hits if h[0] not in wrappers] or hits
    backends = [h for h in hits if re.match(r"\s*(?:[\w.\-]+\s+){0,2}back[\s\-]?end", t[h[2]:h[2] + 30], re.I)]
    if backends and len({h[0] for h in hits} - {h[0] for h in backends}) >= 1:
        hits = [h for h in hits if h not in backends]
    if figures and chains and near is not None:
        # "cut TTFT from ~24.5s under llama.cpp to ~1.9s": the engine written with the figure the
        # change starts from is what the headline moved away from, when another engine is named
        left = [h for h in hits if any(figures[j][0] == near and figures[i][1] <= h[1] < _change_word_at(t, figures[i][1], figures[j][0])
                                       for i, j in chains)]
        if left and len(left) < len(hits):
            hits = [h for h in hits if h not in left]
    pick = _pick(hits, near, figures, t, chains) if hits else None
    if pick is None and hits:
        pick = min(hits, key=lambda h: h[1])
    if pick is not None:
        out["engine"] = pick
        v = re.match(r"\s*(?:==|version\s*|@\s*|\()?\s*(v?\d+\.\d+(?:\.\d+)?(?:[\w.+\-]*\w)?|b\d{3,5})\b",
                     t[pick[2]:], re.I)
        if v:
            out["engine_version"] = (v.group(1).lstrip("vV"), pick[2] + v.start(1), pick[2] + v.end(1))
    return out


# --------------------------------------------------------------------------- lengths

# a length in characters or words is no token count ("输入 664 个字符")
_NOT_CHARS = r"(?!\s*个?\s*(?:字符|汉字|字(?!节)|characters?\b|chars?\b|words?\b))"
# "takes 1 input token per step": what a decoder consumes per step is no prompt length
_NOT_PER_STEP = r"(?!(?:\s*tokens?)?\s*(?:per|each|a|every|每)\s*(?:decode\s+|decoding\s+)?(?:step|iteration|forward\s+pass|pass|步|次迭代))"
# "a BS=1 output throughput": a batch size, concurrency or parallel degree is no length
_NOT_A_SETTING = r"(?<!bs=)(?<!bs)(?<!bs\s)(?<!bs\s=)(?<!bs=\s)(?<!tp=)(?<!tp)(?<!tp\s)(?<!batch=)(?<!batch\s)(?<!batch\ssize\s)(?<!concurrency\s)(?<!concurrency=)"
_N = rf"{_NOT_A_SETTING}(?P<n>{NUMBER})\s*(?P<k>k|千)?(?!\.?\d){_NOT_CHARS}"
_N2 = rf"(?P<n2>{NUMBER})\s*(?P<k2>k|千)?(?!\.?\d){_NOT_CHARS}"


def _length(m: re.Match, g: str = "n", k: str = "k", kilo: int = 1000) -> int:
    return round(to_float(m.group(g)) * (kilo if m.group(k) else 1))  # an average "216.79" is 217


def _nearest_match(patterns: list[str], t: str, near: int | None, taken: tuple[int, int] | None = None) -> re.Match | None:
    """Among every match of every pattern, the one closest to position ``near`` (the headline
    figure), else the first in the text; never one whose number lies in ``taken`` (the number
    another length already used: "输入 2000 输出 500" has no output of 2000)."""
    found = [m for rx in patterns for m in re.finditer(rx, t, re.I)
             if taken is None or not (taken[0] <= m.start("n") < taken[1])]
    if not found:
        return None
    if near is None:
        return min(found, key=lambda m: m.start())

    def apart(m: re.Match) -> int:
        # a length in another clause than the headline's is another run's ("a 512-token prompt …
        # generated at 26.14 tokens/s; a 5632-token prompt prefilled at …")
        a, b = sorted((m.start(), near))
        return 200 if re.search(r";|；|。|" + SENTENCE_END, t[a:b]) else 0
    return min(found, key=lambda m: (min(abs(m.start() - near), abs(m.end() - near)) + apart(m), m.start()))


def length_words(t: str, near: int | None = None, prefill_headline: bool = False) -> dict:
    """``input_tokens``, ``output_tokens``, ``max_model_len`` stated in ``t`` (``t`` has model
    and GPU names blanked, so "RTX 4070" is never 4,070 tokens). Where a text states several
    (one per figure), the one nearest ``near`` — the headline figure — is taken. llama-bench's
    ``pp512`` is a prompt length only for a prefill headline (its ``tg128`` test has no prompt)."""
    out: dict[str, Hit] = {}
    pair = (re.search(r"(?:isl\s*/\s*osl|in\s*/\s*out|input\s*/\s*output|输入\s*/\s*输出|prompt\s*/\s*(?:output|generation))"
                      rf"\s*(?:lengths?|长度|tokens?)?\s*(?:of|=|:)?\s*{_N}\s*/\s*{_N2}", t, re.I)
            or re.search(rf"{_N}\s*(?:tokens?\s*)?/\s*{_N2}\s*(?:tokens?\s*)?(?:in\s*/\s*out|input\s*/\s*output|输入\s*/\s*输出|isl\s*/\s*osl)", t, re.I)
            or re.search(rf"{_N}\s*(?:tokens?\s+)?(?:in(?:put)?)\s*(?:/|,|and|\+)\s*{_N2}\s*(?:tokens?\s+)?out(?:put)?\b", t, re.I)
            or re.search(rf"\b{_N}\s*(?:in|input)\s*[/→>-]+\s*{_N2}\s*(?:out|output)\b", t, re.I)
            # "prefill 4096 / decode 1024": the two phases' lengths (not their speeds, which a unit follows)
            or re.search(rf"\b(?:prefill|prompt)\s*[:=]?\s*{_N}\s*/\s*(?:decode|generation)\s*[:=]?\s*{_N2}"
                         r"(?!\s*(?:tok|t/s|tps|ms|s\b|秒|token/s|tokens?\s*/|tokens?\s+per))", t, re.I)
            # "a random 8192-in/1024-out workload"
            or re.search(rf"\b{_N}-(?:in|input)\s*/\s*{_N2}-(?:out|output)\b", t, re.I)
            # "ISL 128 / OSL 128", "ISL=1024, OSL=8192": of several, the headline's
            or _nearest_match([rf"\bisl\s*[:=]?\s*{_N}\s*(?:/|,|and|、)?\s*osl\s*[:=]?\s*{_N2}"], t, near))
    pair = (pair
            or re.search(rf"(?:输入|input)\s*(?:tokens?\s*)?[:=]?\s*{_N}\s*(?:tokens?\s*)?[,/]?\s*(?:输出|output)\s*(?:tokens?\s*)?[:=]?\s*{_N2}", t, re.I)
            or re.search(rf"{_N}\s*(?:tokens?\s*)?(?:输入|input)\s*[,/]?\s*{_N2}\s*(?:tokens?\s*)?(?:输出|output)", t, re.I)
            or re.search(rf"(?<![\w./])(?P<n>\d+(?:\.\d+)?)\s*(?P<k>k)\s*/\s*(?P<n2>\d+(?:\.\d+)?)\s*(?P<k2>k)(?![\w/])", t, re.I))
    if pair:
        out["input_tokens"] = (_length(pair), pair.start(), pair.end())
        out["output_tokens"] = (_length(pair, "n2", "k2"), pair.start(), pair.end())
    both = re.search(rf"(?:(?:输入输出|输入和输出|输入\s*[、,，]\s*输出)(?:长度|長度)?各(?:为|是|為)?|in\s+and\s+out|input\s+and\s+output(?:\s+lengths?)?\s+(?:of|each)?)\s*(?:约)?\s*{_N}", t, re.I)
    if both and "input_tokens" not in out:
        v = _length(both)
        out["input_tokens"] = out["output_tokens"] = (v, both.start(), both.end())
    taken_n = None
    if "input_tokens" not in out:
        pats = [rf"(?:input|prompt|context\s+of\s+the\s+prompt|输入|提示词?|isl)\s*(?:length|长度|len|size|tokens?)?\s*"
                rf"(?:of|=|:|约|为|是)?\s*~?\s*{_N}(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)",
                rf"{_N}\s*(?:input|prompt(?!s)|输入){_NOT_PER_STEP}(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)(?:\s*tokens?)?(?!\s*/\s*s)",
                rf"{_N}[\s\-]*tokens?\s+prefill\b",
                rf"prompt[\s_]eval[\s_]count\s*[:=]?\s*{_N}",
                rf"\bprompt_tokens\s*[:=]?\s*{_N}",  # an OpenAI-style usage field
                rf"{_N}[\s\-]*tokens?\s+(?:[a-z]+\s+)?(?:of\s+)?(?:inputs?|prompts?|documents?|context\s+of\s+input)\b",
                rf"(?:prompt\s+eval\w*|evaluated|prompt\s+processing)\s+(?:over|of|on|at)\s+{_N}\s*tokens?",
                rf"{_N}\s*长度(?:的)?(?:文本|输入|prompt)",
                # "2048 tokens of pre-filled context", "Prefill seq 1024"
                rf"{_N}[\s\-]*tokens?\s+of\s+pre-?fill(?:ed)?\s+(?:context|prompt)\b",
                rf"\bprefill\s+seq(?:uence)?(?:[\s_\-]*len(?:gth)?)?\s*[:=]?\s*{_N}"]
        if prefill_headline:
            pats.append(r"\bpp\s*(?P<n>\d+)\b(?P<k>)")
        m = _nearest_match(pats, t, near)
        if m:
            out["input_tokens"] = (_length(m), m.start(), m.end())
            taken_n = m.span("n")
    if "output_tokens" not in out:
        # "256 output tokens … the run took 58.90 s for 128000 generated tokens": a length stated
        # as the output's is the request's; a count of generated tokens may be the whole run's
        m = _nearest_match([
            rf"(?:output|输出|osl|max_tokens|max_new_tokens|max\s+(?:new\s+)?tokens)\s*(?:length|长度|len|tokens?)?\s*"
            rf"(?:of|=|:|约|为|是)?\s*~?\s*{_N}(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)(?!\s*(?:tok(?:en)?s?\s+)?(?:per|每))",
            rf"{_N}\s*(?:output|输出)(?:\s*tokens?)?(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)(?!\s*(?:tok(?:en)?s?\s+)?(?:per|每))"],
            t, near, taken=taken_n)
        if m:
            out["output_tokens"] = (_length(m), m.start(), m.end())
    if "output_tokens" not in out:
        m = _nearest_match([
            rf"(?:output|generation|generated|输出|生成|osl|max_tokens|max_new_tokens|max\s+(?:new\s+)?tokens)\s*(?:length|长度|len|tokens?)?\s*"
            rf"(?:of|=|:|约|为|是)?\s*~?\s*{_N}(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)(?!\s*(?:tok(?:en)?s?\s+)?(?:per|每))",
            rf"{_N}\s*(?:output|输出)(?:\s*tokens?)?(?!\s*(?:tok(?:en)?s?|t)\s*/\s*s)(?!\s*(?:tok(?:en)?s?\s+)?(?:per|每))",
            rf"{_N}[\s\-]*tokens?\s+(?:of\s+)?(?:output|generation|generated|decode|decoding)\b",
            rf"{_N}\s*completion\s+tokens?",
            # "200 tokens from a 15-token prompt were generated in 8.11 seconds"
            rf"{_N}\s+(?:new\s+)?tokens\b[^.;,]{{0,30}}?\b(?:were|was|got)\s+generated\b",
            rf"\b(?:completion_tokens|generate_token_len|generated_tokens)\s*[:=]?\s*{_N}",  # an OpenAI-style usage field, LMDeploy's generate_token_len
            rf"{_N}\s+max(?:imum)?\s+(?:new\s+)?tokens\b",  # "a 512-token prompt and 128 max tokens"
            rf"{_N}\s+max_(?:new_)?tokens\b",  # "with 400 max_tokens"
            rf"max_new_tokens?\s*[:=]\s*{_N}",  # "max_new_token=512"
            rf"--max[\-_]new[\-_]tokens?[\s=]+{_N}",  # "--max-new-tokens 128"
            # "文本生成（1024token）速度": the output length in brackets after the generation word
            rf"(?:生成|输出|generation)\s*[(（]\s*{_N}\s*(?:个)?\s*tokens?\s*[)）]",
            rf"\bdecode\s+seq(?:uence)?(?:[\s_\-]*len(?:gth)?)?\s*[:=]?\s*{_N}",
            rf"\bfor\s+(?:~|about\s+)?{_N}\s*(?:output\s+|new\s+|generated\s+)?tokens?\b(?!\s*(?:of\s+)?(?:prompt|input|context))",
            rf"{_N}[\s\-]*tokens?\s+(?:\w+\s+)?completions?\b",
            rf"{_N}\s*tokens?\s+in\s+\d+(?:\.\d+)?\s*(?:s|sec|secs|seconds?|秒)\b",
            rf"generat(?:e|es|ing|ed)\s+(?:~|about\s+|around\s+|roughly\s+|approximately\s+)?{_N}\s*(?:new\s+)?tokens?\b",
            rf"(?<!prompt\s)(?<!prompt_)\beval[\s_]count\s*[:=]?\s*{_N}",
            rf"(?<![\d.]){_N}\s+generated\b(?!\s+(?:at|in)\b)",
            rf"\btg\s*(?P<n>\d+)\b(?P<k>)"], t, near, taken=taken_n)
        if m:
            out["output_tokens"] = (_length(m), m.start(), m.end())
    ml = (re.search(rf"max[\s_\-]model[\s_\-]len\s*(?:=|:)?\s*{_N}", t, re.I)
          or re.search(rf"(?:context|上下文|ctx|n_ctx|-c)\s*(?:length|长度|window|size|len)?\s*(?:of|=|:|为)?\s*{_N}", t, re.I)
          or re.search(rf"{_N}[\s\-]*(?:tokens?[\s\-]*)?(?:context|上下文|ctx)", t, re.I))
    if ml:
        out["max_model_len"] = (_length(ml, kilo=1024), ml.start(), ml.end())
    for key in ("input_tokens", "output_tokens"):
        # "10 个请求共输入 20431 tokens、生成 1280 tokens", "64 requests with 131,072 input tokens in
        # total": the lengths of N requests together; each request's is the total over N
        hit = out.get(key)
        runs = hit and re.search(r"(?<![\d.])(?P<r>\d{1,5})\s*(?:个)?\s*(?:请求|requests?|prompts?)\s*(?:共|总共|合计|一共|in\s+total|totall?ing)?"
                                 r"[^;.。；]{0,30}$", t[max(0, hit[1] - 48):hit[1]], re.I)
        if runs and (re.search(r"共|总|合计|total", t[max(0, hit[1] - 40):hit[2] + 12], re.I)) and int(runs.group("r")) > 1:
            out[key] = (round(hit[0] / int(runs.group("r"))), hit[1], hit[2])
    return out


# --------------------------------------------------------------------------- options

def option_words(t: str) -> dict:
    """``batch_policy``, ``prefix_cache``, ``cuda_graph`` and the text-wide
    ``speculative_decoding`` (True/False) stated in ``t``."""
    out: dict[str, Hit] = {}
    low = t.lower()
    m = re.search(r"continuous[\s\-]batching|dynamic[\s\-]batching|static[\s\-]batch(?:ing)?|in-?flight[\s\-]batching|"
                  r"连续批处理|动态批处理|静态批处理", low)
    if m:
        out["batch_policy"] = (m.group(0), m.start(), m.end())
    m = re.search(r"no\s+(?:mtp|speculative|spec\w*\s+decod\w*|draft)|without\s+(?:mtp|speculative|spec\w*|draft|eagle)|"
                  r"spec(?:ulative)?[\s\-_]decod\w*\s*(?:off|disabled)|mtp\s+(?:off|disabled)|"
                  r"不开(?:启)?\s*(?:投机|推测|mtp)|关闭\s*(?:投机|推测|mtp)|未开启?\s*(?:投机|推测|mtp)|无\s*(?:投机|mtp)|"
                  r"(?:不用|没用|没有用|未用|未使用|不使用)\s*(?:投机|推测|mtp)", low)
    if m:
        out["speculative_decoding"] = (False, m.start(), m.end())
    else:
        m = re.search(r"speculative|spec[\s\-_]decod|\bmtp\b|eagle[\s\-]?\d?\b|medusa|draft[\s\-]model|lookahead[\s\-]decod|\bdflash\d*\b|"
                      r"\bspec(?:[\-_]type)?\s*=\s*(?!none|off|0\b)\w|"
                      r"投机解码|推测解码|n-?gram\s+spec|multi[\s\-]token\s+prediction|多\s*token\s*预测", low, re.A)
        if m:
            out["speculative_decoding"] = (True, m.start(), m.end())
    m = re.search(r"no\s+prefix[\s\-]cach\w*|prefix[\s\-]cach\w*\s*(?:off|disabled)|without\s+prefix|无前缀缓存|关闭前缀缓存", low)
    if m:
        out["prefix_cache"] = (False, m.start(), m.end())
    else:
        m = re.search(r"prefix[\s\-_]cach(?!\w*\s*=\s*(?:0|false|off)\b)|\bapc\b|radix[\s\-]?(?:cache|attention)|前缀缓存", low)
        if m:
            out["prefix_cache"] = (True, m.start(), m.end())
    m = re.search(r"enforce[\s\-_]eager|no\s+cuda[\s\-]?graphs?|cuda[\s\-_]?graphs?\s*(?:off|disabled)|eager\s+mode|"
                  r"disabl\w*[\s\-_]+cuda[\s\-_]?graphs?|without\s+cuda[\s\-]?graphs?|"
                  r"(?:关闭|禁用|不开启?|未开启?)\s*cuda[\s\-_]?graphs?", low)
    if m:
        out["cuda_graph"] = (False, m.start(), m.end())
    else:
        m = re.search(r"cuda[\s\-]?graphs?", low)
        if m:
            out["cuda_graph"] = (True, m.start(), m.end())
    return out


# --------------------------------------------------------------------------- footprints

_GB = r"(?P<gb>\d+(?:\.\d+)?)\s*(?P<u>gib|gb|g|tb)\b"


# A GPU's or machine's name, whose bracketed size is its memory ("RTX 3090 (24GB)"), not weights
_GPU_SHAPED = re.compile(r"rtx|gtx|radeon|\b[abhl]\d{2,3}|mi\d{3}|gb\d{3}|\bm[1-5]\b|ultra|max|pro\b|studio|"
                         r"spark|jetson|gpu|card|mac", re.I)


def footprint_words(t: str) -> dict:
    """Stated memory footprints: ``weights_gb`` ("14GB of weights", "a 65 GB download"),
    ``memory_used_gb`` and ``memory_used_scope`` (``per_gpu`` or ``total``; "显存占用约 65GB",
    "182GB per card"), ``host_memory_gb`` ("18.5 GB in system RAM"), ``gpu_layers`` and
    ``total_layers`` ("16 of 80 layers on the GPU", "-ngl 99"), ``cpu_layers`` ("offloading 20-30 layers
    to CPU": the most of a range), ``n_cpu_moe`` ("--n-cpu-moe 36").
    Sizes in GB as written (GiB and GB both read as the number given)."""
    out: dict[str, Hit] = {}

    def gb(m: re.Match) -> float:
        v = float(m.group("gb"))
        return v * 1000 if m.group("u").lower() == "tb" else v

    m = (re.search(rf"{_GB}\s*(?:of\s+)?(?:model\s+)?(?:weights?|parameters|model\s+file|file|download|on\s+disk|checkpoint)\b"
                   r"(?!\s+(?:read\s+)?(?:per|each|every)\s+(?:token|step))", t, re.I)  # "13 GB of weights read per token" is a step's read
         or re.search(rf"\ban?\s+{_GB}\s+(?:[\w/\-]+\s+){{0,2}}gguf\b", t, re.I)  # "an 81 GiB IQ2XXS/Q2_K/Q8 GGUF"
         or re.search(rf"\ba\s+{_GB}[\s\-]*model\b", t, re.I)
         or re.search(rf"(?:weights?|model\s+(?:size|file)|file\s+size|权重|模型(?:文件)?大小)\s*(?:is|are|of|:|=|约|为|占)?\s*(?:about|~|约)?\s*{_GB}", t, re.I))
    # "llama-7b (4.2GB in memory)", "整个模型（Llama 3 70B 约 140GB）"
    m = m or re.search(rf"{_GB}\s+in\s+memory\b", t, re.I) \
        or re.search(rf"(?:模型|\bmodel\b)[^,.;，。；]{{0,30}}?(?:约|大约|about|~|≈|仅|只有|只|only\s+|just\s+)\s*{_GB}", t, re.I)
    m = re.search(rf"(?:压到|压缩到|shrunk\s+to|quantized\s+(?:down\s+)?to|down\s+to)\s*(?:约|about|~)?\s*{_GB}", t, re.I) or m
    # "so the model fits in 81GB on 128GB Macs": the size the weights were made to fit
    m = m or re.search(rf"\bmodel\s+fits\s+(?:in(?:to)?|within)\s+(?:about\s+|~)?{_GB}", t, re.I)
    if m is None:
        # "GLM-5.1-MXFP4-Q8 (378GB, 256 MoE experts)": a size in brackets right after a model's name
        for b in re.finditer(rf"(?P<name>[A-Za-z][\w.\-]*\d[\w.\-]*)\s*\(\s*(?:~|about\s+)?{_GB}\s*[,;)]", t, re.I):
            if not _GPU_SHAPED.search(b.group("name")):
                m = b
                break
    if m:
        out["weights_gb"] = (gb(m), m.start(), m.end())
    else:
        mib = re.search(r"(?P<mib>\d+(?:\.\d+)?)\s*mib\s+(?:mapped|model|file|weights)", t, re.I)
        if mib:  # llama.cpp's "82697.67 MiB mapped": the weights file held in memory
            out["weights_gb"] = (round(float(mib.group("mib")) * 1.048576 / 1000, 2), mib.start(), mib.end())
    m = (re.search(rf"{_GB}\s*(?:of\s+|in\s+)?(?:the\s+)?(?:system\s+|host\s+|cpu\s+)?(?:ram|dram|ddr\d?|memory)\s*(?:used)?(?!\s*bandwidth)"
                   r"(?<!vram)", t, re.I) if re.search(r"system\s+ram|host\s+(?:ram|memory)|cpu\s+(?:ram|memory)|\bdram\b|内存", t, re.I) else None)
    if m and re.search(r"system|host|cpu|dram|ddr|ram(?!\s*\w)", t[m.start():m.end() + 6], re.I) \
            and not re.search(r"vram|显存|gpu", t[m.start():m.end()], re.I):
        out["host_memory_gb"] = (gb(m), m.start(), m.end())
    m = re.search(rf"内存(?:占用|使用)?\s*(?:约|大约|为)?\s*{_GB}", t, re.I)
    if m and "host_memory_gb" not in out:
        out["host_memory_gb"] = (gb(m), m.start(), m.end())
    m = (re.search(rf"(?:显存|vram|gpu\s+memory|memory|内存(?=\s*占用\s*(?:仅|只有|只)))\s*(?:占用|使用|usage|used|use|consumption|footprint)\s*(?:is|of|:|=|约|为|达到?)?\s*(?:about|~|约|仅|只有|只|only|just)?\s*{_GB}"
                   r"(?P<per>\s*(?:per|/|each|每)\s*(?:gpu|card|卡))?", t, re.I)
         or re.search(rf"{_GB}\s*(?:of\s+)?(?:vram|显存|gpu\s+memory)\s*(?:used|usage|occupied|占用)"
                      r"(?P<per>\s*(?:per|/|each|每)\s*(?:gpu|card|卡))?", t, re.I)
         or re.search(rf"(?:using|uses|used|consum\w+|occup\w+|占用了?)\s*(?:about|~|约)?\s*{_GB}"
                      r"(?P<per>\s*(?:per|/|each|每)\s*(?:gpu|card|卡))?(?:\s*(?:of\s+)?(?:vram|显存|gpu\s+memory))", t, re.I)
         or re.search(rf"{_GB}(?P<per>\s*(?:per|/|each|每)\s*(?:gpu|card|卡))\s*(?:used|occupied|of\s+(?:vram|memory))", t, re.I)
         or re.search(rf"(?:memory|vram|显存|内存)\s+(?:use\s+|usage\s+)?(?:spik|peak|ris|climb|jump|grow|hitt)\w*\s+(?:up\s+)?to\s*{_GB}"
                      r"(?P<per>)", t, re.I))
    if m:
        out["memory_used_gb"] = (gb(m), m.start(), m.end())
        scope = "per_gpu" if (m.group("per") or re.search(r"每卡|单卡|per\s+(?:gpu|card)", t[max(0, m.start() - 12):m.end() + 12], re.I)) else "total"
        out["memory_used_scope"] = (scope, m.start(), m.end())
    m = re.search(r"(?P<g>\d+)\s*(?:of|/|out\s+of)\s*(?P<all>\d+)\s*layers?\s*(?:on|in|offloaded\s+to)\s*(?:the\s+)?(?:gpu|vram)", t, re.I)
    if m:
        out["gpu_layers"] = (int(m.group("g")), m.start(), m.end())
        out["total_layers"] = (int(m.group("all")), m.start(), m.end())
    else:
        m = re.search(r"(?:-ngl|--n-gpu-layers|n_gpu_layers|gpu[\s_\-]layers)\s*[=:]?\s*(?P<g>\d+)", t, re.I)
        if m:
            out["gpu_layers"] = (int(m.group("g")), m.start(), m.end())
    if "gpu_layers" not in out:
        # "offloading 20-30 layers to CPU": the layers kept off the GPU (of a range, the most, which
        # leaves the GPU the least to hold)
        m = re.search(r"offload(?:ing|ed|s)?\s+(?:only\s+|just\s+)?(?P<n>\d{1,3})(?:\s*(?:-|–|~|to)\s*(?P<n2>\d{1,3}))?"
                      r"\s*(?:of\s+(?:the\s+)?(?P<all>\d{1,3})\s+)?layers?\s+(?:to|onto|into)\s+(?:the\s+)?"
                      r"(?:cpu|system\s+ram|ram|host|dram|system\s+memory)\b", t, re.I)
        if m:
            out["cpu_layers"] = (int(m.group("n2") or m.group("n")), m.start(), m.end())
            if m.group("all"):
                out["total_layers"] = (int(m.group("all")), m.start(), m.end())
    m = re.search(r"(?:--n-cpu-moe|n_cpu_moe|-ncmoe)\s*[=:]?\s*(?P<n>\d+)", t, re.I)
    if m:
        out["n_cpu_moe"] = (int(m.group("n")), m.start(), m.end())
    return out
