"""Every speed or latency figure in a claim, with its role.

A claim is a list of figures: "prompt processing 4668 tok/s, generation 93 tok/s" holds two,
"210 tok/s single-stream and ~700 tok/s aggregate across 10 concurrent requests" two with
different scopes. Each :class:`Figure` carries its value (a range stays a range), unit, metric,
scope, concurrency, whether speculative decoding produced it, a qualifier ("up to", "over",
"about") and the character range it was read from.

How a figure gets its role: the words between the number and the unit ("30 *output* tokens/s"),
the words right after the unit ("… tokens/s *per GPU*"), and the words around it up to the
neighbouring figure or the end of the sentence. The text between two figures is split at the
comma, semicolon or conjunction nearest the second one, so "4668 tok/s for prompt processing
and 93 tok/s for generation" gives each figure its own words. The nearest keyword of each kind
wins. Pure; works on the normalised text of :mod:`.text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tokcheck.core.claim.numbers import (
    CN_COUNT,
    INTEGER,
    MULTIPLIER,
    NOT_RANGE_START,
    NUMBER,
    QUALIFIER_AFTER,
    QUALIFIER_BEFORE,
    RANGE_JOIN,
    count_value,
    to_float,
)
from tokcheck.core.claim.text import SENTENCE_END

#: What a figure measures.
METRICS = ("ttft", "tpot", "e2e_latency", "generation_tok_s", "e2e_tok_s", "aggregate_throughput", "prefill_tok_s")
#: Whose speed it is: one request, each user (per-request speed under load), all requests
#: together, per GPU, per node.
SCOPES = ("request", "user", "aggregate", "gpu", "node")

_GAP_WORDS = (r"output|total|generated|generation|generating|decode|decoding|prompt|input|prefill|aggregate|"
              r"narrative|code|coding|chat|creative|reasoning|math|"
              r"average|avg|mean|median|peak|sustained|completion|response|new|gen|text|eval|tg|pp|"
              r"baseline|optimi[sz]ed|measured|effective|perceived|个|輸出|输出|生成")
_TOK_UNIT = (r"(?:tok(?:en)?s?|tk|t)\s*(?:/|per\s+|每\s*)\s*(?:s|sec|seconds?|秒)(?![a-z])"
             r"|tokens?\s+(?:per|a|each|every)\s+sec(?:onds?)?(?![a-z])"
             r"|tps(?![a-z])|tgs(?![a-z])|tks(?![a-z])|tok/sec|tokens?-per-sec(?:ond)?(?![a-z])|(?:tokens?|tok|令牌|词元|字词)\s*每秒"
             r"|(?:个\s*)?(?:令牌|词元)\s*/\s*秒|字\s*/\s*秒")
_MS_PER_TOK = (r"(?:ms|毫秒)\s*(?:/|per\s+|每\s*)\s*(?:(?:output|generated|new|decoded)\s+)?(?:个\s*)?(?:tok(?:en)?s?|T(?![A-Za-z]))(?![a-z])"
               # "10.0 ms per-token latency"
               r"|(?:ms|毫秒)\s+per[\s\-]token(?=\s+latency)"
               # "推理速度可达 15ms/次": a time per decode step
               r"|(?:ms|毫秒)\s*/\s*次(?!\s*(?:请求|对话|问答|调用|批))")
# "200-300K TPM": tokens per minute, a service's rate, read in tok/s (÷ 60)
_TPM = r"(?:TPM|tok(?:en)?s?\s*(?:/|per\s+|每\s*)\s*min(?:ute)?|tokens?\s*每分钟)(?![a-z])"
_S_PER_TOK = r"(?:s|sec|seconds?|秒)\s*(?:/|per\s+|每\s*)\s*(?:(?:output|generated|new|decoded)\s+)?(?:个\s*)?(?:tok(?:en)?|令牌)(?![a-z])"
_S_PER_1K = r"(?:s|sec|seconds?|秒)\s*(?:/|per\s+|每\s*)\s*(?:1k|1000|1,000|千|一千)\s*(?:个\s*)?(?:tok(?:en)?s?)(?![a-z])"
# "0.62s/req": a whole request's time, read as a latency in s or ms
_PER_REQ = r"(?:\s*/\s*(?:req(?:uest)?(?![a-z])|批次?|batch(?![a-z])))?"  # "3.8 秒/批次" at batch size 1
_MS = r"(?:ms|msec|milliseconds?|毫秒)" + _PER_REQ + r"(?![a-z/])"
_SEC = r"(?:s|sec|secs|seconds?|秒)" + _PER_REQ + r"(?![a-z/])(?!\s*内?\s*(?:全部|都|即)?\s*(?:发出|发送|发完|下发))"  # (not "0.002秒内全部发出")

# "1.29 tokens/s/TFLOPS", "3 tok/s per watt": an efficiency, tokens per second per unit of compute,
# power or money, not a speed
_NOT_EFFICIENCY = r"(?!\s*(?:/|per\s+|每)\s*(?:[tpg]?flops?|tops|watts?|w|kw|\$|usd|dollars?|瓦|美元)(?![a-z]))"

_NUM_BODY = (rf"(?P<num>{NUMBER})(?:\s*(?:~|->|→|-|to|至|到)\s*(?P<num2>{NUMBER}))?"
             rf"(?:\s*(?P<mult>{MULTIPLIER})(?![a-z]))?\s*(?P<post>\+|多|余|ish(?=\s))?")
_FIGURE = re.compile(
    rf"(?<![a-z0-9_.])(?:(?<!/)|(?<=\d/))(?:(?<!\d,)|(?!\d{{3}}(?![\d.])))" + _NUM_BODY
    + rf"\s*(?P<gap>(?:(?:{_GAP_WORDS})(?![a-z])\s*){{0,3}})"
    + rf"(?:(?P<tpot>{_MS_PER_TOK})|(?P<stpot>{_S_PER_TOK})|(?P<s1k>{_S_PER_1K})|(?P<tok>{_TOK_UNIT}){_NOT_EFFICIENCY}|(?P<tpm>{_TPM})|(?P<ms>{_MS})|(?P<sec>{_SEC}))",
    re.I,
)
# "每秒生成 30 个 token", "每秒约 1.5 万 tokens": the rate written before the number.
_FIGURE_CN = re.compile(
    r"每秒(?:钟)?\s*(?P<most>最多|最高|最快)?\s*(?:平均|持续|稳定)?\s*(?:能|可以?|可)?\s*(?:生成|输出|吐出|产生|处理|解码|回复)?\s*(?:约|大约|接近|近|超过|超|高达|不到|不足|少于|低于)?\s*"
    rf"(?P<num>{NUMBER})(?:\s*(?:-|~|至|到)\s*(?P<num2>{NUMBER}))?(?:\s*(?P<mult>千|万|k))?\s*(?P<post>多)?\s*(?:个)?\s*"
    r"(?:(?:输出|生成)的?\s*)?(?:tokens?|tok|令牌|词元|字词)"
    # "token 生成速率稳定在每秒 15~20 个左右": the token named before, the count after 每秒
    rf"|(?<=[^，,。；;]{{0}})(?:tokens?|令牌|词元)\s*(?:的)?\s*(?:生成|输出|解码)?\s*(?:速率|速度)[^，,。；;]{{0,8}}?每秒(?:钟)?\s*(?:约|大约|近|超过|超|高达)?\s*"
    rf"(?P<num_b>{NUMBER})(?:\s*(?:-|~|至|到)\s*(?P<num2_b>{NUMBER}))?\s*个(?!\s*(?:tokens?|tok|令牌|词元|字))"
    # "每秒回复token数量40.23": the count of tokens per second named, then its number
    r"|每秒(?:钟)?\s*(?:生成|输出|回复|解码)?\s*(?:的)?\s*(?:tokens?|令牌|词元)\s*(?:数量|数|个数)\s*(?:为|是|:|：)?\s*(?:约|大约)?\s*"
    rf"(?P<num_c>{NUMBER})(?!\d|\.\d)(?!\s*(?:个|秒|s\b|ms|%))", re.I)

# "被问到每秒多少 token 时回答：… 都在 53 上下": a number answering a question about the rate
_ASKED_RATE = re.compile(rf"(?:每秒(?:能)?(?:输出|生成|跑)?多少\s*(?:个)?\s*tokens?|多少\s*tokens?\s*/\s*s|how\s+many\s+tok(?:en)?s?\s+(?:per|a)\s+sec\w*)"
                         rf"[^。？?]{{0,80}}?(?<![\d.])(?P<num>{NUMBER})\s*(?:上下|左右|附近)", re.I)
# "速度 2.5token": a speed written as a bare count of tokens after the word for speed
_SPEED_TOKENS = re.compile(rf"(?:速度|speed)\s*(?:为|是|约|:|：)?\s*(?P<num>{NUMBER})\s*(?:个\s*)?tokens?(?![/\w])", re.I)
# … and the list after it: "，8192 时 3.2token，4096 时 3.9token"
_SPEED_TOKENS_MORE = re.compile(rf"(?:^|时|，|,|、)\s*(?P<num>{NUMBER})\s*(?:个\s*)?tokens?(?![/\w])", re.I)

# Latency words: a bare "8.66 秒" or "35 ms" is a figure only near one of these.
_LATENCY_WORDS = re.compile(
    r"ttft|\bftl\b|time[\s\-]to[\s\-]first[\s\-](?:token|byte)|first[\s\-]token|首\s*(?:个\s*)?(?:token|字|词|包)|第一个\s*(?:token|字|词)|"
    r"latency|延迟|时延|响应时间|tpot|\bitl\b|\btbt\b|inter[\s\-]token|time\s+per\s+(?:output\s+)?token|per\s+token|"
    r"每\s*个?\s*token|takes?|took|需要|要|耗时|用时|花了|花费|用了|等了|waited|(?:推理|推论|生成|响应)时间|prefill\w*|预填充|"
    r"单步(?:推理|操作)|(?:推理|操作)体感|"
    r"返回[^，,。；;]{0,12}回答|完整(?:返回|回答|响应)|完整的?回复|(?:一次|每次|一条)(?:回复|回答|响应|请求)|"
    r"process(?:es|ing)?\s+(?:the\s+)?prompts?|"
    # "decode went from 9.213 ms to 8.715 ms", "a 12 ms decode step": one decode step's time
    r"\bdecode\s+(?:step|went|latency|time)|decode[\s\-]step|per[\s\-]step\s+(?:latency|time)|每步|(?:一|每)个?\s*step", re.I)

# "单请求吞吐量", "single-request throughput": one stream's speed, though the word is throughput's
_ONE_STREAM_THROUGHPUT = (r"(?:单请求|单并发|单用户|单路|单个请求|single[\s\-](?:request|stream|user)|per[\s\-](?:request|stream|sequence))"
                          r"\s*(?:的)?\s*(?:(?:output|decode|generation)\s+)?(?:tokens?\s+)?(?:吞吐量?|throughput)")

_KEYWORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "metric": (
        ("prefill_tok_s", r"(?:pre-?fill|预填充)\s*(?:throughput|吞吐量?)|prompt\s+processing|prompt[\s\-]eval\w*|\bpp(?!\s*[=:]\s*\d)\s*\d*\b(?!\s*tp\b)|pre-?fill\w*(?!\s+(?:buffer|chunk|batch|size|step))|预处理|预填充|提示词?处理|"
                          r"prompt\s*(?:speed|throughput|tok|阶段|phase|stage|rate)|input\s+(?:processing|speed)|处理提示|首段|"
                          r"for\s+(?:a|the)\s+[\d,]+[\s\-]tokens?\s+prompt|prompt[\s_]?tps|for\s+the\s+prompt\b|"
                          r"(?:on\s+)?the\s+first\s+(?:inference\s+|forward\s+)?pass|"
                          r"\bprocess\s*:"),  # koboldcpp's "Process:25.05s (… = 66.89T/s)"
        ("e2e_tok_s", r"end[\s\-]to[\s\-]end|\be2e\b|端到端|including\s+(?:prefill|ttft|prompt)"),
        ("generation_tok_s", r"decod(?:e|ing)\s+throughput|generation|generating|generate[sd]?|\btg\s*\d*\b|decod\w+|\beval\b|生成|解码|吐字|出字|"
                             r"输出速度|text\s+gen|token\s+gen|output\s+speed|inference\s+speed|推理速度|" + _ONE_STREAM_THROUGHPUT),
        ("aggregate_throughput", r"throughput|(?<![\d.]b\s)(?<![\d.]b)\btotal\b(?!\s*/)|aggregate|combined\s+(?:throughput|generation|output|decode)|overall|system[\s\-]wide|"
                                 r"吞吐|总(?:输出)?|整体|合计(?=[^，,。；;]{0,10}(?:输出|吞吐|生成|解码|每秒|tokens?|$))|across\s+(?:all\s+)?\d+"),
    ),
    "scope": (
        ("request", _ONE_STREAM_THROUGHPUT + r"|single[\s\-](?:request|stream|user|sequence|batch|query|prompt|slot|lane)|one\s+(?:request|sequence|query|stream)|per\s+prompt\b|"
                    r"for\s+(?:1|one)\s+(?:query|request|user|stream)|batch\s*(?:size\s*)?(?:of\s*)?(?:1|one)(?![\d.]|,\d{3})" + NOT_RANGE_START + r"|单流|"
                    r"batch[\s_\-]?size\s*(?:of\s*)?1(?!\d|,\d{3})" + NOT_RANGE_START + r"|\bbs\s*=?\s*1(?!\d)|\bbs1\b|"
                    r"concurrency\s*(?:of\s*|=\s*)?1(?!\d|,\d{3})" + NOT_RANGE_START + r"|"
                    r"\bc\s*=\s*1(?!\d)|\b1[\s\-]batch\b|one\s+at\s+a\s+time|(?<!tokens\s)per[\s\-](?:request|stream|sequence)|单请求|单并发|单用户|单路|"
                    r"单个请求|单条|单次请求|单线程请求|1\s*并发|并发\s*(?:数\s*)?(?:为\s*)?1(?!\d)" + NOT_RANGE_START),
        ("user", r"per[\s\-]user|/\s*user|(?<=/s)/\s*u\b|each\s+user|every\s+user|per\s+person|每(?:个)?用户|每路|单用户速度"),
        ("gpu", r"per[\s\-](?:gpu|card|accelerator|chip|device|npu|hpu)|(?<![a-z])(?<!cpu)/\s*(?:gpu|card|npu|hpu|chip)\b|(?<=/s)/\s*(?:gpu|card|npu|hpu|chip)\b|each\s+gpu\s+(?:achieves|gets|reaches|delivers|does|serves|processes)|每\s*(?:张|块|颗|顆|个|個)?\s*(?:卡|gpu)|单卡吞吐|\btgs\b"),
        # ("每个节点八台 GPU", "each node with 8 GPUs" describe the layout, not a per-node figure)
        ("node", r"per[\s\-](?:node|server|machine|system|host)|single[\s\-](?:machine|node|server)\s+(?:performance|throughput)|/\s*node\b|each\s+node(?!\s+(?:has|with|of)\s+\d)|"
                 r"每(?:个)?节点(?!\s*(?:有|配)?\s*(?:\d+|[一二两三四五六七八九十]+)\s*(?:台|张|块|个|卡|gpu))|每台|单机吞吐"),
        ("aggregate", r"(?<![\d.]b\s)(?<![\d.]b)\btotal\b(?!\s*/)|aggregate|combined\s+(?:throughput|generation|output|decode)|overall|(?<!decode\s)(?<!decoding\s)throughput|across\s+(?:all\s+)?\d+|吞吐|总(?:输出)?|整体|合计(?=[^，,。；;]{0,10}(?:输出|吞吐|生成|解码|每秒|tokens?|$))|"
                      r"最大并发|高并发|under\s+(?:full\s+)?load|at\s+max(?:imum)?\s+concurrency|(?<![a-z\d._\-])\d+\s*并发"),
    ),
    "spec": (
        ("false", r"no\s+(?:mtp|spec\w*|speculative|draft)|without\s+(?:an?\s+|the\s+)?(?:mtp|spec\w*|speculative|draft|eagle)|"
                  r"(?:mtp|spec\w*\s+decod\w*|speculative\s+decoding)\s+(?:off|disabled)|\bplain\b|baseline|vanilla|\bstock\s+(?!settings|ryzen|intel|amd|nvidia|geforce|rtx|gtx|radeon|apple|mac|gpu|cpu|clocks?|cooler|memory|ram|ddr|card|hardware|\d)\w|"
                  r"(?:standard|regular|normal|ordinary|autoregressive)\s+decod\w*|\bautoregressive(?!\s+draft)|普通解码|常规解码|标准解码|"
                  r"不开(?:启)?\s*(?:投机|推测|mtp)|关闭\s*(?:投机|推测|mtp)|未开启?\s*(?:投机|推测|mtp)|无\s*(?:投机|mtp)|(?:不用|没用|没有用|未用|未使用|不使用)\s*(?:投机|推测|mtp)"),
        ("true", r"speculative|spec(?:ulative)?[\s\-_]decod\w*|\bmtp\b|eagle\s*-?\d?|medusa|draft\s+model|lookahead|\bd?flash\d?[\s\-_]?draft|\bdflash\d*\b|"
                 r"\bspec(?:[\-_]type)?\s*=\s*(?!none|off|0\b)\w|"
                 r"n-?gram\s+spec|multi[\s\-]token\s+prediction|投机|推测解码|多\s*token\s*预测"),
    ),
}
_KEYWORD_RX = {kind: [(value, re.compile(rx, re.I | re.A)) for value, rx in rules] for kind, rules in _KEYWORDS.items()}

# A number of requests in flight stated near a figure.
_CONCURRENCY_RX = [re.compile(rx, re.I) for rx in (
    r"(?<![\d.])(?P<n>\d+)\s*(?:concurrent|parallel|simultaneous)\s*(?:requests?|users?|streams?|sequences?|sessions?|clients?)?",
    r"\b(?:at\s+)?(?P<n>one)\s+concurrent\s+(?:request|user|stream|sequence)",
    r"(?:concurrency|\bconc\b|并发(?:请求)?(?:数|量)?|并行数|batch[\s_\-]?sizes?|批处理(?:大小)?|批大小|\bbs|max[\s_\-]num[\s_\-]seqs|--parallel|-np)\s*"
    r"(?:of|=|:|为|是|设为|设置为)?\s*(?P<n>" + INTEGER + r")(?!\d|[.,]\d)",
    r"(?<![a-z\d._\-])(?P<n>\d+)\s*(?:路)?\s*(?:高)?\s*并发",  # (not "FP8并发测试")
    r"(?<![\d.])(?P<n>\d+)\s*(?:simultaneous\s+|concurrent\s+)?users\b",
    r"batch(?:es)?\s+of\s+(?P<n>\d+)",
    # "并发请求数从 3 路提升到 12 路": the setting after the change
    r"并发(?:请求)?(?:数|量)?\s*从\s*\d+\s*路?\s*(?:提升|增加|提高|升|扩大)(?:到|至)\s*(?P<n>\d+)",
    # "只有 1 个请求时", "32 个并发请求" (not "压测 500 个请求", a count of requests sent)
    r"(?:只有|仅有|同时有?)\s*(?P<n>\d+)\s*个\s*(?:请求|用户)",
    r"(?<![\d.])(?P<n>\d+)\s*个\s*并发(?:请求|用户)",
    r"(?<![\d.])(?P<n>\d+)\s+(?:running|active|in-flight)\s+(?:requests?|sequences?|reqs)\b",
    r"(?<![\d.])(?P<n>\d+)\s+(?:requests?|sequences?|reqs)\s+(?:running|active|in\s+flight)\b",  # vLLM's log line
    r"\brunning\s*:\s*(?P<n>\d+)\s*reqs\b",  # vLLM's log line: "Running: 1 reqs, Swapped: 0 reqs"
    r"(?<![\d.])(?P<n>\d+)[\s\-]batch\b",  # "1-batch decode", "10-batch decode"
    r"\bbatch\s*(?:size\s*)?(?:of\s*)?(?:=\s*)?(?P<n>" + INTEGER + r")(?!\d|[.,]\d)(?!\s*-?\s*bits?\b)",
    r"max(?:imum)?\s+(?P<n>\d+)\s+(?:sequences|seqs|concurrent)",
    r"(?:并发|并行)\s*(?:数|量)?\s*(?:均|都)?\s*(?:为|是|设为)\s*(?P<n>\d+)(?![\d.])",
    r"\bc\s*=\s*(?P<n>\d+)(?![\d.])",
    # "48.9 tok/s single-stream (C1) and 242.0 tok/s at C8"
    r"(?:\bat\s+|\()c(?P<n>\d{1,4})\b(?!\s*-)",
    # "135.5 tok/s C1 greedy decode": the setting written right after a figure's unit
    r"(?<=/s\s)c(?P<n>\d{1,4})\b(?!\s*[-/])",
    r"\bc(?P<n>\d{1,4})\s+(?:profile|run|setting|config(?:uration)?|results?)\b",  # "the nvfp4 C8 profile"
    r"\bcohort\s+c(?P<n>\d{1,4})\b",  # "measured cohort C8"
    # "as concurrency went from 4 to 64": the setting at the change's end
    r"(?:concurrency|batch[\s_\-]?size)\s+(?:\w+\s+)?from\s+\d+\s+(?:up\s+)?to\s+(?P<n>\d+)(?!\d|\.\d)",
    # "concurrency lowered to 32", "并发降到 32": the run's setting after a change
    r"(?:concurrency|并发(?:数|量)?)\s*(?:(?:was|is)\s+)?(?:lowered|raised|reduced|increased|cut|set|降|升|提高|提升|增加|减少|调|设)"
    r"\s*(?:到|至|为|to)\s*(?P<n>\d+)(?![\d.])",
)]

_NOT_A_RATE = r"(?!\s*(?:gb|gib|mb|tb|b\b|k\b|m\b|%|x\b|倍|万|千|[/:]|个|字|tokens?|tok\b|layers?|gpus?|cores?|核|ms\b|s\b|秒|seconds?|月|年|日|号))"
_CONTINUES = re.compile(
    rf"\s*(?:\([^)]{{0,24}}\))?\s*,?\s*(?:(?:and|then|but)\s+)?(?:再|并|又)?(?:(?:further|\w+ing|\w+s|\w+ed)\s+)?"
    rf"(?:to|into|到|降到|升到|提升到|提高到|翻到|翻倍到|提到|降至|升至|vs\.?|versus|against|compared\s+(?:to|with)|than|→|->)\s*(?:about\s+|~|约)?"
    rf"(?P<num>{NUMBER})(?![\d.,]?\d)" + _NOT_A_RATE, re.I)
_BARE_SPEED = re.compile(
    rf"(?P<word>decode|decoding|\btg(?:\d+)?(?!\d)|\bpp(?:\d+)?(?!\d)|generation|\bgen\b|prefill|生成|解码|预填充|速度|speed|\w*tps\w*|tok_s\w*|"
    rf"tokens_per_second\w*|throughput)\s*(?:速度)?\s*(?:[a-z]+\s+){{0,2}}"
    rf"(?:从|from|约|~|about|为|是|of|at|:)?\s*(?<![\d.])(?P<num>{NUMBER})(?![\d.,]?\d)" + _NOT_A_RATE, re.I)
# A figure's own setting written after it: "at concurrency 1", "with 48 threads", "at Q2_K"
_SETTING_TAIL = re.compile(r"\s+(?:at|with)\s+(?:concurrency\s+|batch\s+(?:size\s+)?|bs\s*)?[\w.]*\w(?:\s+(?:threads?|users?|requests?|tokens?|streams?))?(?!\w|\.\w)", re.I)
# … and the bare numbers listed after it, each "at" a setting of its own
_LISTED_AT = re.compile(rf"\s*(?:[(,;]|\band\b|,\s*and\b)\s*(?:~|about\s+)?(?<![\d.])(?P<num>{NUMBER})(?:\s*[–\-~]\s*(?P<num2>{NUMBER}))?"
                        r"(?=\s+at\s+(?:concurrency\s+|batch\s+(?:size\s+)?)?[\w.]+)", re.I)
# Strong decode/prefill words: a bare number right after one is a speed even when other figures
# have units ("NVFP4 解码 38.65、FP8 为 20.5").
_BARE_STRONG = re.compile(
    rf"(?P<word>\bdecod(?:e|ing)|\btg(?:\d+)?(?!\d)(?=\s*(?:约|~|about|:|=|为)\s*\d)|\beval\s+rate|解码|生成速度|出字率|吐字率|出字速度|吐字速度|(?:generation|gen|decode|decoding|prompt|prefill)[\s_]?tps\b)\s*(?:速度)?\s*(?:从|from|约|~|about|为|是|of|at|:|=)?\s*"
    rf"(?<![\d.])(?P<num>{NUMBER})(?![\d.,]?\d)" + _NOT_A_RATE +
    rf"(?P<more>(?:\s*[,、]\s*(?:[a-z0-9]+\s*)?(?:为|是|:)?\s*(?P<num2>{NUMBER})(?![\d.,]?\d)" + _NOT_A_RATE + r")?)", re.I)
_SHARED_UNIT = re.compile(
    rf"(?<![\d.])(?<![A-Za-z_\-])(?<!tg\s)(?<!pp\s)(?P<num>{NUMBER})"
    rf"(?:(?P<word>\s*(?:pp|tg|prefill|decode|prompt|gen|input|output|narrative|code|coding|chat|creative|reasoning|math)\d*)\s*(?:/|\band\b|\bvs\.?|\bversus\b|\bor\b|和|与)"
    rf"|\s*(?:/|\bvs\.?|\bversus\b))\s*", re.I)
# "输入/输出速度为 43.48/15.82 tok/s", "prefill/decode: 2100/48 tok/s": two measures named in
# the order of the numbers
_PAIR_WORDS = re.compile(r"(?P<a>输入|预填充|input|prefill|prompt|\bpp)\s*/\s*(?P<b>输出|生成|解码|output|decode|generation|\btg)"
                         r"[^\d,;。，；]{0,16}$", re.I)
# "decoded at 80.08 and 95.36 tok/s": two readings after a verb share the unit
# "吞吐量为 81.3 和 28.8 tokens/秒": the same in Chinese
_AT_X_AND = re.compile(rf"(?:(?:\bat|\bof|\bbetween|\breached|\breaches|\bgets|\bgot)\s+|(?:为|是|达到?|约)\s*)(?:~|about\s+|约)?"
                       rf"(?P<num>{NUMBER})\s*(?:\band\b|和|与)\s*(?:~|about\s+|约)?$", re.I)
_SPREAD = re.compile(rf"\s*(?:±|\+/-|\+-)\s*(?:{NUMBER})")
# "(最大推理速度,token / s)", "Tokens/秒(3万序列)为 30,214", "token 生成速度(…):turbomind 为 206.4": the
# unit (or a token speed's name) written once, as a table's heading, for the bare numbers after it
_UNIT_HEADER = re.compile(r"(?<![\d.])(?<![\d.]\s)(?:(?:output|generation|decode)\s+)?(?:tok(?:en)?s?\s*/\s*(?:s(?:ec)?|秒)|tokens?\s+per\s+second|\btps\b|"
                          r"tokens?\s*(?:的)?\s*(?:生成|推理|输出|解码)\s*速度)(?![a-z])", re.I)
_HEADED_NUMBER = re.compile(rf"(?:\bdid|\bdoes|\bgot|\bgets|\breached|\breaches|\bhit|\bhits|\bat|:|：|为|是)\s*(?:~|约|(?:about|around|roughly|approximately)\s+)?"
                            rf"(?<![\d.])(?P<num>{NUMBER})(?![\d.]?\d)(?!,\d{{3}}(?!\d))(?:\s*(?:~|～|-|至|到)\s*(?P<num2>{NUMBER})(?![\d.]?\d))?"
                            + _NOT_A_RATE, re.I)
# "ChatGLM-6b-fp16 在 Batch 64、256、512 下分别为 2919、7871、10209": a list after a headed number
_HEADED_MORE = re.compile(rf"\s*[、,，]\s*(?:和|与|and\s+)?(?<![\d.])(?P<num>{NUMBER})(?![\d.]?\d)(?!,\d{{3}}(?!\d))" + _NOT_A_RATE, re.I)
# a setting's value, not a speed: "prompt_tokens 为 1", "batch size = 1", "并发为 10"
_SETTING_BEFORE = re.compile(r"(?:tokens?|batch(?:[\s_]?size)?|\bbs|并发(?:数)?|线程(?:数)?|threads?|长度|length|序列|层|layers?|"
                             r"\bn[_\-]?\w+|num[_\-]\w+|max[_\-]\w+)\s*(?:数)?\s*$", re.I)
_UNIT_IN_BRACKETS = re.compile(rf"(?P<what>(?:gen(?:eration)?|decode|prompt|prefill|input|output)?\s*throughput)?\s*"
                               rf"\(\s*(?:tok(?:en)?s?\s*/\s*s(?:ec)?|tokens?\s+per\s+second)\s*\)\s*[:：=]\s*(?P<num>{NUMBER})(?![\d.,]?\d)", re.I)
# "Tokens per second 为 280.7", "tok/s: 54": the unit named, then its number
# ("Target t/s/u of 38": a per-user rate's unit, then its number)
_UNIT_THEN_NUMBER = re.compile(rf"(?<![\w/])(?:tokens?\s+per\s+second|tok(?:en)?s?\s*/\s*s(?:ec)?|t/s(?=/u\b))(?:/u(?:ser)?\b)?\s*(?:为|是|:|：|=|\bwas\b|\bis\b|\bof\b)\s*"
                               rf"(?:约|~|about\s+)?(?P<num>{NUMBER})(?![\d.,]?\d)" + _NOT_A_RATE, re.I)
# a log's key and its value: "tokens_per_sec 1857.9" (TensorRT-LLM's benchmark.py)
# ("max_output_tokens_per_s 为 308.0": vllm bench's peak, a stressed figure)
_LOG_KEY_NUMBER = re.compile(rf"(?<![\w/])(?P<key>(?:(?:max|peak|mean|median|p\d+|total|output)_)*)tokens?_per_s(?:ec(?:ond)?)?"
                             rf"\s*(?:[:=]|为|是)?\s*(?P<num>{NUMBER})(?![\d.,]?\d)", re.I)
_EVERY = re.compile(rf"(?:\bone|\ba|\b1)\s+(?:new\s+|output\s+)?token\s+every\s+(?:~|about\s+)?(?P<num>{NUMBER})"
                    rf"(?:\s*(?:-|~|to)\s*(?P<num2>{NUMBER}))?\s*(?P<u>ms|milliseconds?|s|sec|seconds?)(?![a-z])", re.I)
_TIMES_PER_SECOND = re.compile(rf"(?:~|about\s+|approximately\s+|roughly\s+)?(?P<num>{NUMBER})\s+times\s+(?:per|a)\s+second", re.I)
# (the last joined by "and": "eval rates of 19.56, 17.72, 22.64, 19.34 and 21.36 tokens/s")
_LIST_BEFORE = re.compile(rf"(?P<lead>分别(?:为|是)?\s*)?(?<![\d.,、])(?P<list>(?:(?:{NUMBER})\s*[,、]\s*)+(?:(?:{NUMBER})\s*[,、]?\s*(?:and|和|与)\s+)?)$")
_SLASH_LIST_BEFORE = re.compile(rf"(?<![\d.,/])(?P<list>(?:{NUMBER})\s*/\s*(?:(?:{NUMBER})\s*/\s*)+)$")
_FROM_TO = re.compile(rf"(?:\bfrom|从|由)\s*(?:~|about\s+|约)?(?<![\d.])(?P<a>{NUMBER})(?P<ua>\s*(?:ms|s|秒|tok/s(?:ec)?|tokens?/s|t/s)(?![a-z]))?"
                      rf"\s*(?:\bto\b|(?:降|升|提升|提高|增加|减少|缩短)?(?:到|至))\s*(?:~|about\s+|约)?"
                      rf"(?P<b>{NUMBER})(?![\d.,]?\d)(?P<ub>\s*(?:ms|s|秒|tok/s(?:ec)?|tokens?/s|t/s)(?![a-z]))?", re.I)
_FROM_WORDY = re.compile(rf"(?:从|由)\s*(?:约)?(?<![\d.])(?P<a>{NUMBER})\s*(?:提升|提高|降低?|升|增加|减少|翻倍?|缩短|压缩)(?:到|至)\s*(?:约)?$")
# A setting named just before "from X to Y": "as concurrency went from 4 to 64", "并发从 4 到 64"
_SETTING_CHANGED = re.compile(r"(?:concurren\w*|batch(?:[\s_\-]?size)?|\bbs|users?|requests?|context(?:\s+length)?|prompts?|"
                              r"sequences?|threads?|layers?|GPUs?|cards?|nodes?|并发数?|批大小|批次|上下文|线程|卡数)"
                              r"\W{0,3}(?:[a-z]+\s+){0,2}$", re.I)
_UNIT_AGAIN = {"tok/s": r"tok/s(?:ec)?|tokens?/s|t/s", "s": r"s|秒", "ms": r"ms", "ms/tok": r"ms|s|秒"}
_CONTRAST = re.compile(r"\bbut\b|\bwhile\b(?!\s+(?:keeping|maintaining|staying|holding|sustaining|meeting))|\bwhereas\b|\bversus\b|\bvs\.?|\bhowever\b|;|但是?|而|然而|相比之下|并称|并表示|并指出|此外|另外", re.I)
# Words that set two results against each other (theirs vs mine), which is not a change of one.
_SET_AGAINST = re.compile(r"而|whereas|相比|对比|相较", re.I)
_BOUNDARY = re.compile(SENTENCE_END + "|。")
# Words that set the figures after them against the one before: "…, versus 361.70 token/s"
_VERSUS = re.compile(r"\bversus\b|\bvs\.?(?!\w)|compared\s+(?:to|with)|\bagainst\b|相比|对比|相较", re.I)
# Words that quote a figure from elsewhere to measure a result against ("far from the 564
# tokens/s shown in the paper", "the 50-60 tokens per second advertised on the front page")
_REFERENCE_BEFORE = re.compile(r"(?:\bfar\s+(?:from|below)|\bshort\s+of|\bwell\s+below|\bnowhere\s+near)\s+(?:the\s+|their\s+|its\s+)?"
                               r"(?:(?:official|advertised|published|claimed|reported|expected|quoted)\s+)?(?:~|about\s+)?$", re.I)
_REFERENCE_AFTER = re.compile(r"[^,.;]{0,24}?\b(?:shown|reported|claimed|advertised|published|quoted|listed)\s+(?:in|on|by)\s+"
                              r"(?:the\s+|their\s+|its\s+)?(?:[\w\-]+\s+){0,2}(?:paper|docs?|documentation|readme|blog|website|front\s+page|"
                              r"page|announcement|model\s+card)\b", re.I)
_SPLIT = re.compile(r",|;|\band\b|\bwith\b|\bwhile\b|\bversus\b|\bvs\.?|\bor\b|\bbut\b|而|和|与|以及|但|对比|相比|→|->")
_CHANGE_TO = re.compile(r"(?:(?<!up )(?<!up)\bto\b|\binto\b|(?<!达)(?<!能)(?<!可)到|至|降到|降至|提升到|提升至|升到|升至|提高到|翻到|变为|→|->)"
                        r"\s*(?:~|≈|about\s+|around\s+|approximately\s+|约)?\s*$", re.I)
# "从默认配置的 18 提升到调优后的 25": a change with words between 到 and its result
_CHANGE_WORDY = re.compile(r"(?:提升|提高|降低?|升|增加|减少|压缩|缩短|翻)(?:到|至)(?:[^\d,;.。，；]|\d+\s*[年月日号](?:份)?){1,12}$")
# "at first … and … after tuning", "起初 … 后": a before/after narrative
_BEFORE_WORDS = re.compile(r"at\s+first|initially|originally|at\s+the\s+start|before\s+(?:tuning|the|it)|\buntil\b|起初|一开始|最初|原来|开启", re.I)
_AFTER_WORDS = re.compile(r"\bafter\b|\bthen\b|\blater\b|\bnow\b|后|之后|然后|现在|关闭", re.I)
# "5 tok/s; switching to llama.cpp … 190 tok/s", "只有 5 tok/s，换成 … 后 达到 190": a switch of
# engine, model or setting between two figures is a before/after change too
_SWITCH = re.compile(r"\bswitch(?:ing|ed)?\s+(?:to|over\s+to)\b|\bmoving\s+to\b|\bmoved\s+to\b|"
                     r"换成|换用|改用|改成|切换到|切换为|换到", re.I)


@dataclass
class Figure:
    """One speed or latency figure of a claim.

    Attributes:
        value: the number in ``unit`` (``1.5 million tok/s`` → 1.5e6); a range is ``(lo, hi)``.
        unit: ``tok/s``, ``ms``, ``s``, ``ms/tok`` (time per output token) or ``s/1k tok``.
        metric: one of :data:`METRICS`, or None where the words do not say.
        scope: one of :data:`SCOPES`, or None.
        concurrency: requests in flight the words give for this figure (1 for "single stream").
        spec_decoding: True/False where the words say so ("with MTP", "plain"), else None.
        qualifier: ``up_to``, ``over``, ``approx``, ``under`` or None.
        span: ``(start, end)`` character range of the claim text the figure was read from.
        words: that text.
        why: the words that set metric, scope, concurrency and speculative decoding.
        headline: whether this is the claim's headline figure (:func:`choose_headline`).
        before_change: the first figure of "from X to Y" (Y is the result).
        condition: why the figure is a condition of the measurement rather than its result — a
            target asked about ("能否超过 30 tok/s", "Can it reach 100 tok/s?") or the per-user
            speed a throughput was read at ("at 75 tok/s/user interactivity") — else None.
    """

    value: float | tuple[float, float]
    unit: str
    span: tuple[int, int]
    words: str
    metric: str | None = None
    scope: str | None = None
    concurrency: int | None = None
    spec_decoding: bool | None = None
    qualifier: str | None = None
    why: dict = field(default_factory=dict)
    headline: bool = False
    before_change: bool = False
    condition: str | None = None

    @property
    def high(self) -> float:
        """The figure's value, or the top of its range."""
        return self.value[1] if isinstance(self.value, tuple) else self.value

    @property
    def is_rate(self) -> bool:
        return self.unit == "tok/s"

    def to_json(self) -> dict:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"value": value, "unit": self.unit, "metric": self.metric, "scope": self.scope,
                "concurrency": self.concurrency, "spec_decoding": self.spec_decoding, "qualifier": self.qualifier,
                "span": list(self.span), "words": self.words, "headline": self.headline,
                "condition": self.condition}


def _qualifier(t: str, start: int, end: int, post: str | None) -> str | None:
    # "up to +40 tokens/sec": a plus sign before the number is no sign of its own
    before = re.sub(r"\s*\+\s*$", "", t[max(0, start - 24):start])
    for name, rx in QUALIFIER_BEFORE:
        if re.search(rf"(?:{rx})\s*$", before, re.I):
            if name == "approx" and re.search(r"\bpeak(?:s|ed|ing)?\s+(?:at\s+)?(?:~|about|around|roughly)\s*$", before, re.I):
                return "up_to"  # "peaks at ~1,047 tok/s": the stress word wins over the approximation
            if name == "over" and re.search(r"(?:最高|峰值|最大)[^0-9,;.，；。]{0,8}(?:超过|超|突破|大于)\s*$", before):
                return "up_to"  # "最大吞吐量超过 30,000 tokens/秒": the stress word wins over "more than"
            return name
    # "a peak output throughput of only 393", "最高吞吐 522": the stress word a few words before
    if re.search(r"(?:\bpeak|(?<!previous\s)(?<!prior\s)(?<!old\s)(?<!former\s)(?<!public\s)\brecord(?![a-z])|最高|峰值|"
                 r"最大(?!\s*(?:并发|batch|上下文|长度|显存|内存)))"
                 r"[^0-9,;.，；。]{0,30}$", t[max(0, start - 40):start], re.I) \
            and not re.search(r"(?:previous|prior|old|former|earlier)\s+(?:\w+\s+)?record", t[max(0, start - 40):start], re.I):
        return "up_to"
    after = t[end:end + 4]
    if post:
        for name, rx in QUALIFIER_AFTER:
            if re.fullmatch(rx, post):
                return name
    for name, rx in QUALIFIER_AFTER:
        if re.match(rf"\s*(?:{rx})", after) and name == "approx":
            return name
    return None


# A latency in minutes: "两分半" (two and a half minutes), "3 分钟", "2.5 minutes"
_MINUTES = re.compile(rf"(?<![\d.])(?P<n>\d+(?:\.\d+)?|{CN_COUNT})\s*(?:个\s*)?(?:分钟|分(?=半)|minutes?\b|mins?\b|(?P<hour>小时|钟头|hours?\b|hrs?\b))(?P<half>半)?", re.I)


def _raw_figures(t: str, masked: str) -> list[Figure]:
    found: list[Figure] = []
    # "3806.89 ± 15.44 t/s": the spread is no figure of its own
    masked = _SPREAD.sub(lambda m: " " * len(m.group(0)), masked)
    for m in _FIGURE.finditer(masked):
        unit = ("ms/tok" if m.group("tpot") or m.group("stpot") else "s/1k tok" if m.group("s1k")
                else "tok/s" if m.group("tok") or m.group("tpm") else "ms" if m.group("ms") else "s")
        mult = m.group("mult")
        if mult and mult.lower() == "m" and not re.match(r"\s*(?:tok|t/s|tps)", t[m.end("mult"):], re.I):
            continue
        if mult and mult.lower() == "m" and t[m.start("mult")] == "m":
            continue  # lower-case "m" after a number is metres or minutes, never "million" here
        lo = to_float(m.group("num"), mult)
        hi = to_float(m.group("num2"), mult) if m.group("num2") else None
        if m.group("stpot"):
            lo, hi = lo * 1000, None if hi is None else hi * 1000  # s/token → ms/token
        if m.group("tpm"):
            lo, hi = round(lo / 60, 1), None if hi is None else round(hi / 60, 1)  # tokens per minute → tok/s
        if hi is not None and _SETTING_WORD_BEFORE.search(t[max(0, m.start() - 24):m.start()]) \
                and re.search(r"to|到|至", t[m.end("num"):m.start("num2")], re.I):
            # "from 96 tok/s at concurrency 1 to 772 tok/s": the first number is a setting's, not a range's start
            found.append(Figure(value=hi, unit=unit, span=(m.start("num2"), m.end()), words=t[m.start("num2"):m.end()],
                                qualifier=_qualifier(t, m.start("num2"), m.end("num2"), m.group("post"))))
            continue
        start_range = re.search(rf"(?:\bfrom|从|由)\s*(?P<a>{NUMBER})\s*[-–~]\s*$", t[max(0, m.start() - 24):m.start()], re.I)
        if hi is not None and start_range and re.search(r"to|到|至", t[m.end("num"):m.start("num2")], re.I) \
                and to_float(start_range.group("a"), mult) < lo:
            # "regressed from 136–137 to 98 mean decode tok/s": a change whose start is a range
            a0 = m.start() - (len(t[max(0, m.start() - 24):m.start()]) - start_range.start("a"))
            found.append(Figure(value=(to_float(start_range.group("a"), mult), lo), unit=unit, span=(a0, m.end("num")),
                                words=t[a0:m.end("num")], before_change=True))
            found.append(Figure(value=hi, unit=unit, span=(m.start("num2"), m.end()), words=t[m.start("num2"):m.end()],
                                qualifier=_qualifier(t, m.start("num2"), m.end("num2"), m.group("post"))))
            continue
        if hi is not None and (re.search(r"(?:\bfrom|从|由)\s*$", t[max(0, m.start() - 8):m.start()], re.I)
                               and re.search(r"to|到|至", t[m.end("num"):m.start("num2")], re.I)
                               or re.search(r"→|->", t[m.end("num"):m.start("num2")])):
            # "from 51 to 79 t/s" is a change, not a range: two figures, the second the result
            first = Figure(value=lo, unit=unit, span=(m.start(), m.end("num")), words=t[m.start():m.end("num")],
                           before_change=True)
            found.append(first)
            # ("峰值为 38.77 -> 74.67 tok/s": the stress word before the change's start is its end's too)
            fig = Figure(value=hi, unit=unit, span=(m.start("num2"), m.end()), words=t[m.start("num2"):m.end()],
                         qualifier=_qualifier(t, m.start("num2"), m.end("num2"), m.group("post"))
                         or (_qualifier(t, m.start(), m.end("num"), None) if re.search(r"→|->", t[m.end("num"):m.start("num2")]) else None))
            found.append(fig)
            continue
        if hi is not None and hi < lo and re.search(r"~|～|到|至", t[m.end("num"):m.start("num2")]):
            # "decodes at 150 ~ 40 tk/s" (falling as the context grows): a range written high to low
            lo, hi = hi, lo
        elif hi is not None and hi <= lo:
            # "190-195" is a range; "2-5" as in "TP 2-5"? keep; "8-1" is not a range: take the 2nd number
            lo, hi = hi, None
        value: float | tuple[float, float] = (lo, hi) if hi is not None else lo
        span = (m.start(), m.end())
        if unit in ("ms", "s"):
            if re.search(r"(?:加载|載入|装载|load(?:ing|ed)?|启动|startup|cold[\s\-]start)\s*(?:时间|耗时|用时|time|took|takes|in)?\s*(?:为|是|:|：|约|of)?\s*(?:~|about\s+)?$",
                         t[max(0, span[0] - 20):span[0]], re.I):
                continue  # "完整模型加载时间47秒": loading the model, not serving a request
            around = t[max(0, span[0] - 48):span[0]] + " " + t[span[1]:span[1] + 24]
            if not _LATENCY_WORDS.search(around) and not re.search(r"/\s*(?:req|批|batch)", m.group(0), re.I):
                continue  # "0.62s/req" is a request's time by its unit
        fig = Figure(value=value, unit=unit, span=span, words=t[span[0]:span[1]],
                     qualifier=_qualifier(t, m.start(), m.end("num2") if m.group("num2") else m.end("num"),
                                          m.group("post")))
        gap = (m.group("gap") or "").strip()
        if gap:
            fig.why["gap"] = gap
        if m.group("tpm"):
            # tokens per minute is how services meter their total rate (an API's TPM limit)
            fig.why["unit"] = f"{m.group('tpm')!r} is tokens per minute: ÷ 60 to tok/s"
            fig.metric, fig.why["metric"] = "aggregate_throughput", m.group("tpm")
        found.append(fig)
    for m in _MINUTES.finditer(masked):
        # "推理大约需要两分半", "took 3 minutes": a latency in minutes, read in seconds
        span = m.span()
        if any(f.span[0] < span[1] and span[0] < f.span[1] for f in found) \
                or not _LATENCY_WORDS.search(t[max(0, span[0] - 24):span[0]]):
            continue
        n = m.group("n")
        mins = float(n) if re.fullmatch(r"\d+(?:\.\d+)?", n) else count_value(n)
        if not mins:
            continue
        found.append(Figure(value=(mins + (0.5 if m.group("half") else 0)) * (3600 if m.group("hour") else 60), unit="s", span=span,
                            words=t[span[0]:span[1]]))
    if not found:
        for m in _ASKED_RATE.finditer(masked):
            fig = Figure(value=to_float(m.group("num")), unit="tok/s", span=m.span("num"), words=t[m.start("num"):m.end()])
            fig.why["unit"] = "the answer to a question about tokens per second"
            found.append(fig)
    for m in _SPEED_TOKENS.finditer(masked):
        # "速度 2.5token，8192 时 3.2token": a speed written as a bare token count, and the list after it
        sentence_end = re.search(r"[。；;!?！？]", masked[m.end():])
        stop = m.end() + (sentence_end.start() if sentence_end else len(masked))
        for n in [m, *_SPEED_TOKENS_MORE.finditer(masked, m.end(), stop)]:
            span = n.span("num")
            if not any(f.span[0] < span[1] and span[0] < f.span[1] for f in found):
                found.append(Figure(value=to_float(n.group("num")), unit="tok/s", span=span,
                                    words=t[span[0]:n.end()]))
    if re.search(r"(?:tok(?:en)?s?\s*/\s*s(?:ec)?|tokens?\s+per\s+second)\s+per\s+user", masked, re.I):
        # "… 253 tok/sec per user … only reached 40 output tokens per user": the rate's unit, shortened
        for m in re.finditer(rf"(?<![\d.,])(?P<num>{NUMBER})\s+(?:output\s+)?tokens?\s+per\s+user\b", masked, re.I):
            span = (m.start("num"), m.end())
            if not any(f.span[0] < span[1] and span[0] < f.span[1] for f in found):
                found.append(Figure(value=to_float(m.group("num")), unit="tok/s", span=span, words=t[span[0]:span[1]]))
    for m in _FIGURE_CN.finditer(masked):
        span = (m.start(), m.end())
        if any(f.span[0] < span[1] and span[0] < f.span[1] for f in found):
            continue
        if m.group("num_b"):
            lo = to_float(m.group("num_b"))
            hi = to_float(m.group("num2_b")) if m.group("num2_b") else None
            span = (m.start("num_b"), m.end())
        elif m.group("num_c"):
            lo, hi = to_float(m.group("num_c")), None
        else:
            lo = to_float(m.group("num"), m.group("mult"))
            hi = to_float(m.group("num2"), m.group("mult")) if m.group("num2") else None
        # "系统最高吞吐量突破每秒 3 万 token": the peak named before 每秒 stresses the figure too
        peak = re.search(r"(?:最高|最大|峰值)[^，,。；;]{0,8}$", masked[max(0, m.start() - 12):m.start()])
        fig = Figure(value=(lo, hi) if hi and hi > lo else lo, unit="tok/s", span=span, words=t[span[0]:span[1]],
                     qualifier="up_to" if m.group("most") or peak else "over" if m.group("post") else None)
        verb = re.search(r"生成|输出|吐出|解码|回复", m.group(0))  # (for the token-first form, in the words before)
        if verb:  # "每秒生成 122 tokens": the verb inside the figure names its metric
            fig.why["gap"] = verb.group(0)
        found.append(fig)
    for m in _BARE_STRONG.finditer(masked):
        if re.search(r"(?:prefill|prompt|input|输入)\s*[:=]?\s*\d+\s*[/,、]\s*$", masked[max(0, m.start() - 24):m.start()], re.I):
            continue  # "prefill 4096 / decode 1024": a pair of lengths, not a speed
        for g in ("num", "num2"):
            if not m.group(g):
                continue
            if g == "num2" and re.search(r"batch|\bbs\b|concurren|并发|批", masked[m.end("num"):m.start("num2")], re.I):
                continue  # "decode 25、batch 64": the batch is a setting
            span = (m.start(g), m.end(g))
            if any(f.span[0] < span[1] and span[0] < f.span[1] for f in found):
                continue
            fig = Figure(value=to_float(m.group(g)), unit="tok/s", span=span, words=t[span[0]:span[1]])
            fig.why["unit"] = f"no unit stated; {m.group('word')!r} read as a speed in tok/s"
            found.append(fig)
    for fig in list(found):
        # "3670.42 pp / 82.74 tg tok/s": two numbers before one unit
        m = _SHARED_UNIT.search(masked, max(0, fig.span[0] - 40), fig.span[0])
        if m and m.end() == fig.span[0] and not any(f.span[0] <= m.start("num") < f.span[1] for f in found):
            span = (m.start("num"), m.end("num") + len(m.group("word") or ""))
            other = Figure(value=to_float(m.group("num")), unit=fig.unit, span=(m.start("num"), m.end("num")),
                           words=t[m.start("num"):m.end("num")] + (m.group("word") or ""))
            pair = None if m.group("word") else _PAIR_WORDS.search(masked, max(0, m.start("num") - 40), m.start("num"))
            if m.group("word"):
                other.why["gap"] = m.group("word").strip()
            elif pair and "/" in m.group(0):
                # "输入/输出速度为 43.48/15.82 tok/s": the words name the numbers in their order
                other.why["gap"] = pair.group("a")
                fig.why["gap"] = fig.why.get("gap") or pair.group("b")
            elif re.fullmatch(r"\d[\d.,]*/", m.group(0)) and fig.value > other.value and fig.value <= 2 * other.value \
                    and not isinstance(fig.value, tuple):
                # "around 350/370 tokens/s": two close readings of one speed are a range
                fig.value, fig.span = (other.value, fig.value), (other.span[0], fig.span[1])
                fig.words = t[fig.span[0]:fig.span[1]]
                continue
            found.append(other)
    for fig in list(found):
        m = _AT_X_AND.search(masked, max(0, fig.span[0] - 40), fig.span[0])
        if m and re.search(r"(?:tok(?:en)?s?/s(?:ec)?|t/s|tps|ms)\s*$", masked[max(0, m.start() - 12):m.start()], re.I):
            continue  # "35.11 tok/s at 16,384 and 33.86 tok/s": the number after a figure's "at" is its setting
        if m and not any(f.span[0] <= m.start("num") < f.span[1] for f in found):
            found.append(Figure(value=to_float(m.group("num")), unit=fig.unit, span=m.span("num"),
                                words=t[m.start("num"):m.end("num")]))
    for fig in list(found):
        # "分别为 217、83、45 tok/s": a list of numbers before one unit (after 分别, or two commas or more)
        m = _LIST_BEFORE.search(masked, max(0, fig.span[0] - 60), fig.span[0])
        if m and m.end() == fig.span[0] and (m.group("lead") or len(re.findall(r"[,、]", m.group("list"))) >= 2
                                             or re.match(r",?\s*(?:[\w.]+\s+){0,4}?respectively", masked[fig.span[1]:fig.span[1] + 50], re.I)):
            for n in re.finditer(NUMBER, m.group("list")):
                start = m.start("list") + n.start()
                if any(f.span[0] <= start < f.span[1] for f in found):
                    continue
                found.append(Figure(value=to_float(n.group(0)), unit=fig.unit, span=(start, start + len(n.group(0))),
                                    words=t[start:start + len(n.group(0))]))
    for fig in list(found):
        # "264.6 / 484.3 / 1003.8 tok/s": three or more numbers joined by slashes before one unit
        m = _SLASH_LIST_BEFORE.search(masked, max(0, fig.span[0] - 60), fig.span[0])
        if m and m.end() == fig.span[0] and not isinstance(fig.value, tuple):
            for n in re.finditer(NUMBER, m.group("list")):
                start = m.start("list") + n.start()
                if not any(f.span[0] <= start < f.span[1] for f in found):
                    found.append(Figure(value=to_float(n.group(0)), unit=fig.unit, span=(start, start + len(n.group(0))),
                                        words=t[start:start + len(n.group(0))]))
    # "… from 13.0 to 15.6 tokens per second, and to 16.4 with row split": a bare number that
    # continues a change takes the unit of the figure before it
    for fig in sorted(found, key=lambda f: f.span[0]):
        m = _CONTINUES.match(masked, fig.span[1])
        if m and not any(f.span[0] <= m.start("num") < f.span[1] for f in found):
            if not re.search(r"vs|versus|against|compared|than", m.group(0), re.I):
                fig.before_change = True
            span = (m.start("num"), m.end("num"))
            found.append(Figure(value=to_float(m.group("num")), unit=fig.unit, span=span, words=t[span[0]:span[1]]))
    # "5.28 tokens/s at concurrency 1, 5.30 at 2 and 5.31 at 4", "22.1–24.3 tok/s at Q2_K, 20.0–21.6 at
    # Q4_K_M": bare numbers listed after a figure, each at its own setting, take its unit
    for fig in sorted(found, key=lambda f: f.span[0]):
        if not fig.is_rate:
            continue
        tail = _SETTING_TAIL.match(masked, fig.span[1])
        by_concurrency = bool(tail and re.search(r"concurrency|batch|\bbs", tail.group(0), re.I))
        pos = tail.end() if tail else fig.span[1]
        while (m := _LISTED_AT.match(masked, pos)) and not any(f.span[0] <= m.start("num") < f.span[1] for f in found):
            hi = m.group("num2")
            span = (m.start("num"), m.end("num2") if hi else m.end("num"))
            lo = to_float(m.group("num"))
            listed = Figure(value=(lo, to_float(hi)) if hi and to_float(hi) > lo else lo, unit=fig.unit, span=span,
                            words=t[span[0]:span[1]])
            tail = _SETTING_TAIL.match(masked, span[1])
            setting = re.fullmatch(r"\s+at\s+(\d+)", tail.group(0)) if tail else None
            if by_concurrency and setting:
                # ("… at concurrency 1, 5.30 at 2": the list's settings are concurrencies too)
                listed.concurrency, listed.why["concurrency"] = int(setting.group(1)), tail.group(0).strip()
            found.append(listed)
            pos = tail.end() if tail else span[1]
    # "… from 1593.237 to 1731.991 tok/sec for Qwen3 30B, and from 1344.136 to 1588.662 for GPT OSS
    # 20B", "从 16.92s 降到 4.67s，Qwen3-14B 从 35.15s 降到 8.66s": a second change of the same
    # quantity in the same sentence, its unit written once or again
    for fig in sorted(found, key=lambda f: f.span[0]):
        if not fig.before_change and not re.search(r"(?:\bfrom|从|由|\bto|到|至)\s*(?:~|about\s+|约)?$",
                                                   masked[max(0, fig.span[0] - 12):fig.span[0]], re.I) \
                and not _CHANGE_WORDY.search(masked[max(0, fig.span[0] - 16):fig.span[0]]):
            continue  # the figure must itself be an end of a change
        end = next((b.start() for b in _BOUNDARY.finditer(masked, fig.span[1])), len(masked))
        unit_rx = _UNIT_AGAIN.get(fig.unit)
        for m in _FROM_TO.finditer(masked, fig.span[1], end):
            if _SETTING_CHANGED.search(masked[max(0, m.start() - 40):m.start()]):
                continue  # "… as concurrency went from 4 to 64": a setting's change, not a speed's
            spans = [m.span("a"), m.span("b")]
            if any(f.span[0] <= s0 < f.span[1] for s0, _ in spans for f in found):
                continue
            tails = [m.group("ua"), m.group("ub")]
            if any(tl and not (unit_rx and re.fullmatch(unit_rx, tl.strip(), re.I)) for tl in tails):
                continue
            scale = 1000 if fig.unit == "ms/tok" and any(tl and tl.strip().lower() in ("s", "秒") for tl in tails) else 1
            pair = []
            for (s0, e0), g in zip(spans, ("a", "b")):
                tail = m.group("u" + g)
                e1 = e0 + (len(tail) if tail else 0)
                pair.append(Figure(value=to_float(m.group(g)) * scale, unit=fig.unit, span=(s0, e1), words=t[s0:e1]))
            pair[0].before_change = True
            for p_ in pair:
                p_.why["same_as"] = fig.words
            found.extend(pair)
    # "吞吐量从35提升到81 tokens/s": the change's start, written bare before the change word
    for fig in list(found):
        m = _FROM_WORDY.search(masked, max(0, fig.span[0] - 30), fig.span[0])
        if m and not any(f.span[0] <= m.start("a") < f.span[1] for f in found):
            first = Figure(value=to_float(m.group("a")), unit=fig.unit, span=m.span("a"), words=t[m.start():m.end("a")],
                           before_change=True)
            first.why["change_to"] = fig.words
            found.append(first)
    # "20tokens/s-30tokens/s": one range written with the unit twice
    found.sort(key=lambda f: f.span[0])
    merged: list[Figure] = []
    for fig in found:
        if merged and merged[-1].unit == fig.unit and not isinstance(merged[-1].value, tuple) \
                and not isinstance(fig.value, tuple) and re.fullmatch(r"\s*(?:-|~|至)\s*", t[merged[-1].span[1]:fig.span[0]]) \
                and fig.value > merged[-1].value and not merged[-1].before_change:
            prev = merged[-1]
            prev.value, prev.span = (prev.value, fig.value), (prev.span[0], fig.span[1])
            prev.words = t[prev.span[0]:prev.span[1]]
            continue
        merged.append(fig)
    for fig in merged:
        after = t[fig.span[1]:fig.span[1] + 24]
        if fig.qualifier in (None, "approx") and re.match(r"\s*(?:(?:as\s+)?(?:the|its)\s+|at\s+)(?:maximum|max|peak)\b|\s*peak\b",
                                                         after, re.I):
            fig.qualifier = "up_to"  # "~155 tokens/s the maximum": stressed as "up to 155" is
        if fig.qualifier == "under" and not isinstance(fig.value, tuple):
            # "more than 800 and under 1000 milliseconds per token": one range
            m = re.search(rf"(?:more\s+than|over|above|at\s+least)\s+(?P<num>{NUMBER})\s*(?:,|and|but)?\s*"
                          r"(?:under|below|less\s+than)\s*$", masked[max(0, fig.span[0] - 60):fig.span[0]], re.I)
            if m and to_float(m.group("num")) < fig.value:
                start = max(0, fig.span[0] - 60) + m.start()
                fig.value, fig.qualifier = (to_float(m.group("num")), fig.value), None
                fig.span = (start, fig.span[1])
                fig.words = t[start:fig.span[1]]
    for m in _EVERY.finditer(masked):
        # "one token every 30-50ms": a time per output token written the other way round
        if any(f.span[0] < m.end() and m.start() < f.span[1] for f in merged):
            continue
        lo, hi = to_float(m.group("num")), to_float(m.group("num2")) if m.group("num2") else None
        scale = 1000 if m.group("u").lower() in ("s", "sec", "second", "seconds", "秒") else 1
        value = (lo * scale, hi * scale) if hi else lo * scale
        merged.append(Figure(value=value, unit="ms/tok", span=m.span(), words=t[m.start():m.end()]))
    if not merged and re.search(r"\btokens?\b|词元|令牌", masked, re.I):
        for m in _TIMES_PER_SECOND.finditer(masked):
            # "read a 70 GB model approximately 48 times per second": one decode step per read
            fig = Figure(value=to_float(m.group("num")), unit="tok/s", span=m.span("num"), words=t[m.start():m.end()])
            fig.why["unit"] = "the weights read N times per second: N decode steps, one token each"
            merged.append(fig)
    for m in list(_UNIT_IN_BRACKETS.finditer(masked)) + list(_UNIT_THEN_NUMBER.finditer(masked)) \
            + list(_LOG_KEY_NUMBER.finditer(masked)):
        # "gen throughput (token/s): 324.86": the unit in brackets before the number, as logs print it
        if not any(f.span[0] <= m.start("num") < f.span[1] for f in merged):
            span = m.span("num")
            fig = Figure(value=to_float(m.group("num")), unit="tok/s", span=span, words=t[m.start():m.end()])
            if m.groupdict().get("what"):
                fig.why["gap"] = m.group("what")
            key = m.groupdict().get("key") or ""
            if re.match(r"(?:max|peak)_", key, re.I):
                fig.qualifier = "up_to"
            if re.search(r"(?:output|total)_", key, re.I):
                # a serving benchmark's output or total tokens per second: all requests' together
                fig.why["gap"] = key.replace("_", " ") + "throughput"
            merged.append(fig)
    merged.sort(key=lambda f: f.span[0])
    found = merged
    # a heading only where no rate is written with its unit (a latency may be: "首次Token延迟为 8.7 ms")
    header = None if any(f.unit == "tok/s" for f in found) else _UNIT_HEADER.search(masked)
    if header:
        # "Output tokens/s on an H100: vanilla did 133, EAGLE did 201.69 (1.51x)": the unit
        # written once, as a heading, for the bare numbers that follow
        taken = [f.span for f in found]
        pos = header.end()
        while (m := _HEADED_NUMBER.search(masked, pos)):
            pos = m.end()
            if _SETTING_BEFORE.search(masked[max(0, m.start() - 24):m.start()]) \
                    or any(a <= m.start("num") < b for a, b in taken):
                continue
            for n in [m, *_list_after(masked, m.end())]:
                hi = n.groupdict().get("num2")
                span = (n.start("num"), n.end("num2") if hi else n.end("num"))
                lo = to_float(n.group("num"))
                fig = Figure(value=(lo, to_float(hi)) if hi and to_float(hi) > lo else lo, unit="tok/s", span=span,
                             words=t[span[0]:span[1]])
                fig.why["unit"] = f"no unit stated with it; {t[header.start():header.end()].strip()!r} heads the text"
                found.append(fig)
                pos = max(pos, n.end())
    if not found:
        # no unit anywhere: a number right after a decode/prefill word is read as tok/s, and says so
        for m in _BARE_SPEED.finditer(masked):
            span = (m.start("num"), m.end("num"))
            fig = Figure(value=to_float(m.group("num")), unit="tok/s", span=span, words=t[span[0]:span[1]])
            fig.why["unit"] = f"no unit stated; {m.group('word')!r} read as a speed in tok/s"
            found.append(fig)
    found.sort(key=lambda f: f.span[0])
    return found


def _list_after(masked: str, pos: int) -> list[re.Match]:
    """The numbers listed after a headed number ("为 2919、7871、10209"), in order."""
    out = []
    while (m := _HEADED_MORE.match(masked, pos)):
        out.append(m)
        pos = m.end()
    return out


_OTHER_TIME = re.compile(rf"[,;，；]\s*(?:~|about\s+|约)?(?:{NUMBER})\s*(?:s|sec|secs|seconds?|ms|毫秒|秒)(?![\w/])", re.I)


def _cuts(between: str, side: str) -> list[int]:
    """Where the text between two figures may be split: at a comma, semicolon or conjunction;
    at "with" only where there is none ("38.37 tokens/s with prompt eval at 162" splits there,
    "133, EAGLE with K=2 did 201.69" at the comma)."""
    found = list(_SPLIT.finditer(between))
    strong = [m for m in found if m.group(0).lower() != "with"]
    return [getattr(m, side)() for m in (strong or found)]


_OWN_BRACKETS = re.compile(r"\s*\([^()]{1,80}\)")


def _windows(t: str, figs: list[Figure]) -> list[tuple[int, int, int, int]]:
    """For each figure: (left_start, left_end, right_start, right_end) character ranges."""
    out = []
    bounds = [m.end() for m in _BOUNDARY.finditer(t)]
    # "172.5 tok/s (Chatbot, single user) down to 13.2 tok/s (…, 32 concurrent)": brackets right
    # after a figure hold its own setting
    paren = [m.end() if (m := _OWN_BRACKETS.match(t, f.span[1])) else f.span[1] for f in figs]
    for i, f in enumerate(figs):
        s, e = f.span
        sent_start = max([b for b in bounds if b <= s], default=0)
        sent_end = min([b for b in bounds if b > e], default=len(t))
        left_start = max([sent_start, s - 80] + [m.end() for m in _CONTRAST.finditer(t, max(sent_start, s - 80), s)])
        if i > 0 and re.fullmatch(r"\s*(?:=|≈|i\.e\.,?|即)\s*", t[figs[i - 1].span[1]:s]):
            # "Generate:59.05s (152.6ms/T = 6.55T/s)": a figure restated in another unit shares
            # its words
            left_start = out[i - 1][0]
        elif i > 0 and figs[i - 1].span[1] > left_start:
            prev_end = paren[i - 1] if paren[i - 1] <= s else figs[i - 1].span[1]
            between = t[prev_end:s]
            cut = _cuts(between, "end")
            left_start = prev_end + (cut[-1] if cut else 0)
        contrast = [m.start() for m in _CONTRAST.finditer(t, e, min(sent_end, e + 80))]
        # "~0.21 tokens/second, ~37.7s end to end": words after a time that is not read as a
        # figure of its own are that time's
        timed = [m.start() for m in _OTHER_TIME.finditer(t, e, min(sent_end, e + 80))]
        right_end = min([sent_end, e + 80] + contrast + timed)
        if i + 1 < len(figs) and figs[i + 1].span[0] < right_end:
            nxt = figs[i + 1].span[0]
            own = paren[i] if paren[i] <= nxt else e
            between = t[own:nxt]
            cut = _cuts(between, "start")
            right_end = own + (cut[-1] if cut else len(between))
        out.append((left_start, s, e, right_end))
    return out


def compared_baseline(rules, value: str, t: str, at: int) -> bool:
    """Whether words saying no speculative decoding, at ``at``, name what a figure is compared
    against ("a 4.32x speedup over autoregressive decoding"), not how it ran."""
    if rules is not _KEYWORD_RX["spec"]:
        return False
    if value == "true":
        # "比开了MTP的GLM快一倍多", "faster than with MTP": the draft is the compared run's
        return bool(re.search(r"(?:\bthan|\bvs\.?|\bversus|compared\s+(?:to|with)|相比|相较于?|比)\s*(?:the\s+)?"
                              r"(?:开了|开启了?|打开了?|用了|使用了?|with\s+|using\s+)$", t[max(0, at - 20):at], re.I))
    return value == "false" and bool(
        re.search(r"(?:\bover|\bthan|\bvs\.?|\bversus|compared\s+(?:to|with)|相比|相较于?|比)\s*(?:the\s+)?$",
                  t[max(0, at - 20):at], re.I))


def _nearest(rules, t: str, f: Figure, win: tuple[int, int, int, int]) -> tuple[str, str] | None:
    """The value of the nearest keyword in the figure's gap words and windows, and its words."""
    ls, le, rs, re_ = win
    best: tuple[int, str, str] | None = None
    gap = f.why.get("gap", "")
    pre = t[max(0, f.span[0] - 24):f.span[0]]
    if rules in (_KEYWORD_RX["metric"], _KEYWORD_RX["scope"]) and re.search(r"(?<![单\d一二两三四五六七八九十])\s*并发\s*(?:可达|达到?|约)?\s*$", pre):
        # "单路可达27+tps，并发40+tps": 并发 written right before a rate is the rate under load
        return ("aggregate_throughput" if rules is _KEYWORD_RX["metric"] else "aggregate"), "并发"
    if rules is _KEYWORD_RX["metric"]:
        # the word right before the number: "输入 804 tok/s、输出 221 tok/s", "input 52.3k tok/s"
        # "纯 Prefill 吞吐 7360", "read a 7,624-token prompt at 779 tok/s"
        m = re.search(r"(?:输入|input|prompt|prefill|预填充|预处理)\s*(?:吞吐量?|throughput|速度|speed|\bat)?\s*[:：]?\s*$", pre, re.I)
        if m:
            return "prefill_tok_s", m.group(0).strip()
        if re.search(r"(?:输出|output|decode|解码)\s*[:：]?\s*$|\b(?:decod|generat)\w*\s+(?:at|of)\s+(?:~|about\s+)?(?:an?\s+)?(?:(?:median|mean|average|avg|peak)\s+)?$", pre, re.I):
            return "generation_tok_s", pre.strip()
    if gap and rules is _KEYWORD_RX["metric"]:
        if re.search(r"input|prompt|prefill|\bpp\b|输入|预填充|预处理", gap, re.I):
            return "prefill_tok_s", gap
        if re.search(r"output|generat|decod|\btg\b|completion|输出|生成", gap, re.I):
            return "generation_tok_s", gap
    for value, rx in rules:
        if gap and rx.search(gap):
            return value, gap
        for m in rx.finditer(t, ls, le):
            if compared_baseline(rules, value, t, m.start()):
                continue
            d = le - m.end()
            if best is None or d < best[0]:
                best = (d, value, m.group(0))
        for m in rx.finditer(t, rs, re_):
            if compared_baseline(rules, value, t, m.start()):
                continue
            d = m.start() - rs
            if best is None or d < best[0]:
                best = (d, value, m.group(0))
    return None if best is None else (best[1], best[2])


# Words that make a stated concurrency a capacity or a piece of advice rather than the setting
# the figure was measured at.
_CAPACITY = re.compile(r"(?:可开|可以开|可支持|能开|能支持|最多可|建议|推荐|(?:只能|能|可以?)处理|"
                       r"\bcan\s+(?:handle|serve|support|run|open|take)|\bsupports?|\bsuggest\w*|\brecommend\w*)"
                       r"[^.;,。]{0,12}$", re.I)


# The high end of a range of concurrencies: "1-4", "1 to 64", "1~32"
_RANGE_TOP = re.compile(rf"\s*{RANGE_JOIN}\s*(?P<hi>\d+)(?!\d|\.\d)(?!\s*(?:tok|token|t/s|ms|s\b|秒|%|gb))", re.I)


def concurrency_mentions(t: str, exclude: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Every stated number of concurrent requests: ``[(value, start, end)]``, never inside a
    figure's own span (the speed is not the concurrency)."""
    out = []
    for rx in _CONCURRENCY_RX:
        for m in rx.finditer(t):
            s, e = m.span("n")
            if any(a <= s < b for a, b in exclude):
                continue
            n = 1 if m.group("n").lower() == "one" else int(m.group("n").replace(",", ""))
            top = _RANGE_TOP.match(t, e)
            if top and re.fullmatch(r"\s+~", t[e:top.start("hi")]):
                top = None  # "at concurrency 6 ~1482 and ~1781 tok/s": "~" opens an approximate figure
            if top and int(top.group("hi")) > n:
                # "batch size 1-4", "concurrency 1 to 64": a sweep; its top end is where a peak was read
                n, e = int(top.group("hi")), top.end()
            if _CAPACITY.search(t[max(0, m.start() - 24):m.start()]):
                continue  # "可开 4 路并发", "suggesting a batch size of 20": advice, not the run's
            if n > 1 and re.match(r"max[\s_\-]num[\s_\-]seqs", m.group(0), re.I):
                continue  # "max_num_seqs 32" caps the server's batch; only a cap of 1 says one request
            if n > 0 and not any(o[1] <= s < o[2] for o in out):
                out.append((n, m.start(), max(m.end(), e)))
    return sorted(out, key=lambda o: o[1])


# A figure asked about, not reported: "能否超过 30 tok/s", "Can Llama 3 8B reach 100 tok/s?"
_ASKED_ZH = re.compile(r"(?:能否|是否(?:能|可以)?|可否|能不能|可不可以|有没有可能)[^，,;；。！？?!]{0,40}$")
_ASKED_EN = re.compile(r"^\s*(?:can|could|will|would|does|do|is\s+it\s+possible\s+to|is\s+there\s+a\s+way\s+to)\b", re.I)
# A speed someone wants, not one measured: "想优化到 15s/token", "hoping to reach 60 tok/s"
_WANTED = re.compile(r"(?:想|希望|期望|目标是?|打算)\s*(?:能)?\s*(?:优化|提升|提高|加速|达到|做到|跑到|到)[^，,;；。]{0,12}$|"
                     r"\b(?:hop(?:e|ed|ing)|want(?:ed|ing)?|aim(?:ed|ing)?|expect(?:ed|ing)?|goal\s+is|target(?:ed|ing)?)\s+(?:to\s+)?"
                     r"(?:reach|hit|get|achieve|see|be)?\s*(?:at\s+least\s+|around\s+|about\s+)?$|"
                     # "asks for ideas to reach more than 1 token/s"
                     r"\b(?:ideas?|ways?|tips?|how)\s+to\s+(?:reach|hit|get|achieve|go\s+beyond)\s*(?:more\s+than|over|above|beyond|at\s+least)?\s*$", re.I)
# A bound written as one ("< 50 ms", "> 50 tok/s") and named a target or requirement
_BOUND_WORD_AFTER = re.compile(r"\s*(?:的)?\s*(?:targets?|goals?|requirements?|slos?|slas?|budgets?|目标|要求|约束|限制)", re.I)
_BOUND_WORD_BEFORE = re.compile(r"(?:targets?|goals?|requirements?|require[sd]?|slos?|slas?|budgets?|目标|要求|约束|限制)"
                                r"[^，,;；。！？]{0,24}$", re.I)
# The per-user speed a throughput was read at: "每用户 75 tok/s 的交互性下", "at an interactivity of 50 tok/s"
_INTERACTIVITY_AFTER = re.compile(r"\s*(?:/\s*user\s*)?(?:的)?\s*(?:交互性|交互速度|interactivity)", re.I)
_INTERACTIVITY_BEFORE = re.compile(r"interactivity\s+(?:level\s+)?(?:of|at)\s*(?:about\s+|~)?$", re.I)


_SCOPED_THROUGHPUT = re.compile(
    r"(?P<w>per[\s\-](?:gpu|card|node|server|user)|每\s*(?:张|块|个)?\s*(?:gpu|卡|节点|用户))\s*(?:output\s+|输出)?"
    r"(?:throughput|吞吐量?)\s*(?:of|为|是|:|达到?)?\s*(?:约|about|~)?\s*$", re.I)


def _condition(t: str, f: Figure) -> str | None:
    """Why ``f`` is a condition of the measurement rather than its result, or None."""
    s, e = f.span
    if _ASKED_ZH.search(t[max(0, s - 48):s]):
        return "a question"
    sent_start = max([m.end() for m in _BOUNDARY.finditer(t, 0, s)], default=0)
    rest = re.search(r"[.;!?。；！？]", t[e:])
    if rest and rest.group(0) in "?？" and _ASKED_EN.search(t[sent_start:s]):
        return "a question"
    if _WANTED.search(t[max(0, s - 40):s]):
        return "a target"
    if re.search(r"(?:[<>≤≥＜＞]=?)\s*(?:~|about\s+)?$", t[max(0, s - 4):s]) and (
            _BOUND_WORD_AFTER.match(t, e) or _BOUND_WORD_BEFORE.search(t[max(0, s - 32):s])):
        return "a target"  # "with a > 50 tok/s target", "要求 TPOT<50ms(严格模式<15ms)": a bound asked for
    if re.search(r"\b(?:reproduc\w*|replicat\w*|复现|重现)\s+(?:\w+(?:'s)?\s+){0,3}$", t[max(0, s - 40):s], re.I):
        return "a target"  # "trying to reproduce NVIDIA's 253 tok/sec per user"
    if _INTERACTIVITY_AFTER.match(t, e) or _INTERACTIVITY_BEFORE.search(t[max(0, s - 40):s]):
        return "the per-user speed a throughput was read at"
    sent_end = (rest.start() + e) if rest else len(t)
    if (re.match(r"\s*(?:/\s*user|per\s+user)", t[e:e + 12], re.I) and re.search(r"\bat\s*(?:~|about\s+)?$", t[max(0, s - 12):s], re.I)
            or re.search(r"在\s*(?:单用户|每用户|每个用户)?\s*$", t[max(0, s - 8):s]) and re.match(r"\s*(?:的)?\s*(?:负载|条件|交互性)\s*下", t[e:e + 10])) \
            and re.search(r"\d[\d,.]*\s*(?:tok(?:en)?s?|t)\s*/\s*(?:s|秒|sec)|吞吐|throughput", t[e:sent_end], re.I) \
            and not re.search(r"\bor\b|或", t[e:sent_end], re.I):  # "250 … per user, or 30,000 … maximum": alternatives
        # "At 73 tok/s/user …, FP4 posts 9789 tok/s/GPU", "在单用户 20TPS 负载下实现 1920tokens/秒的吞吐量"
        return "the per-user speed a throughput was read at"
    return None


def find_figures(t: str, masked: str | None = None) -> list[Figure]:
    """All speed and latency figures of the normalised claim ``t``, in text order, each with its
    role. ``masked`` is ``t`` with model and GPU names blanked (so "RTX 4090" is never a number).
    """
    masked = t if masked is None else masked
    figs = _raw_figures(t, masked)
    spans = [f.span for f in figs]
    wins = _windows(t, figs)
    conc = concurrency_mentions(masked, spans)
    for i, (f, win) in enumerate(zip(figs, wins)):
        f.condition = _condition(t, f)
        if f.unit == "ms/tok":
            f.metric = "tpot"
        elif f.unit in ("ms", "s"):
            around = t[win[0]:f.span[0]] + " " + t[f.span[1]:win[3]]
            f.metric = ("e2e_latency" if re.search(r"/\s*req", f.words, re.I)
                        else "tpot" if re.search(r"tpot|\bitl\b|\btbt\b|\bdecode\s+(?:step|went|latency|time)|decode[\s\-]step|per[\s\-]step\s+(?:latency|time)|每步|(?:一|每)个?\s*step|inter[\s\-]token|(?:2nd|second|next)[\s\-]token\s+latency|time\s+between\s+tokens|per\s+(?:output\s+)?token|token\s*间|每\s*个?\s*token", around, re.I)
                        else "ttft" if re.search(r"ttft|\bftl\b|first|\b1st\b|首|吐出(?:第)?一个|第一个\s*(?:token|字|词)", around, re.I)
                        # ("分块 Prefill", "chunked prefill": an engine feature, not a time to the first token)
                        else "ttft" if re.search(r"(?<!分块\s)(?<!分块)(?<!chunked\s)prefill\w*|(?<!分块)预填充|process(?:es|ing)?\s+(?:the\s+)?prompts?", around, re.I)
                        else "e2e_latency" if re.search(r"e2e|end[\s\-]to[\s\-]end|整句|总时延|整体时延|request\s+latency|完整响应|完整的?回复|(?:一次|每次|一条)(?:回复|回答|响应|请求)|返回[^，,。；]{0,12}回答|完整(?:返回|回答)|"
                                                        r"takes?|took|需要|要|耗时|用时|花了|花费|用了|(?:推理|生成|响应)时间|"
                                                        r"单步(?:推理|操作)?|(?:推理|操作)体感|"
                                                        r"\blatency|延迟|时延", around, re.I)
                        else None)
            if f.metric == "tpot":  # a time per output token is kept in ms per token
                scale = 1000 if f.unit == "s" else 1
                f.value = tuple(v * scale for v in f.value) if isinstance(f.value, tuple) else f.value * scale
                f.unit = "ms/tok"
        elif f.unit == "s/1k tok":
            f.metric = None
        hit = _nearest(_KEYWORD_RX["scope"], t, f, win)
        if hit:
            f.scope, f.why["scope"] = hit
        own = _SCOPED_THROUGHPUT.search(t[max(win[0], f.span[0] - 50):f.span[0]])
        if hit and hit[0] == "aggregate" and own:
            # "per-GPU throughput 2558", "每 GPU 吞吐 2558": "throughput" names the metric; the word
            # fastened before it names the scope
            w = own.group("w").lower()
            f.scope = "gpu" if re.search(r"gpu|card|卡", w) else "node" if re.search(r"node|server|节点", w) else "user"
            f.why["scope"] = own.group(0).strip()
        if re.search(r"\btgs\b", f.words, re.I):
            f.scope, f.why["scope"] = "gpu", "TGS (tokens per GPU per second)"
        if f.metric is None and f.unit == "tok/s":
            hit = _nearest(_KEYWORD_RX["metric"], t, f, win)
            if hit:
                f.metric, f.why["metric"] = hit
            if f.metric == "generation_tok_s" and f.scope in ("aggregate", "gpu", "node"):
                f.metric = "aggregate_throughput"
            elif f.metric == "aggregate_throughput" and f.scope in ("request", "user"):
                f.metric = "generation_tok_s"  # "per-user speeds exceeding 250 tok/s" is one user's
            if f.metric is None and f.scope in ("aggregate", "gpu", "node"):
                f.metric = "aggregate_throughput"
            elif f.metric is None and f.scope in ("request", "user"):
                f.metric = "generation_tok_s"
        hit = _nearest(_KEYWORD_RX["spec"], t, f, win)
        if hit:
            f.spec_decoding, f.why["speculative_decoding"] = hit[0] == "true", hit[1]
        near = [c for c in conc if win[0] <= c[1] < win[3] or win[0] < c[2] <= win[3]]
        if near:
            def gap(c: tuple[int, int, int]) -> int:
                # a setting after a list mark opens the next item: "batch size 1时为153 Tokens/s、batch
                # 512时仍是153" gives the first figure batch 1
                if c[1] >= f.span[1]:
                    return c[1] - f.span[1] + (20 if re.match(r"\s*[、,，;；]", t[f.span[1]:c[1]]) else 0)
                if re.fullmatch(r"\s*(?:to|到|至)\s*", t[c[2]:f.span[0]], re.I):
                    return 1000  # "96 tok/s at concurrency 1 to 772 tok/s at …": the change's start's setting
                return abs(f.span[0] - c[2])
            c = min(near, key=gap)
            f.concurrency, f.why["concurrency"] = c[0], t[c[1]:c[2]]
        elif f.scope == "request" and re.fullmatch(r"单个请求|单次请求", str(f.why.get("scope", ""))) \
                and (under := [c for c in conc if c[0] > 1 and c[2] <= f.span[0]]):
            # "20个并发请求 … 单个请求平均每秒回复token数量40.23": each request's speed under that load
            f.concurrency, f.why["concurrency"] = under[-1][0], t[under[-1][1]:under[-1][2]]
        elif f.scope == "request" and not re.match(r"per[\s\-]", str(f.why.get("scope", "")), re.I):
            f.concurrency = 1  # "single stream", "batch 1"; "per request" under load says no count
        if f.concurrency and f.concurrency > 1 and f.scope == "request" and re.search(
                r"(?:concurrency|并发(?:数)?|\bbs|batch(?:[\s_]?size)?)\s*(?:=|:|of|为)?\s*1(?!\d)|\bc1\b|\b1\s*并发",
                str(f.why.get("scope", "")), re.I):
            # "from 96 tok/s at concurrency 1 to 772 tok/s at concurrency 16": the one-stream words are the
            # other figure's setting
            f.scope = None
            f.why.pop("scope", None)
            if f.metric == "generation_tok_s" and "metric" not in f.why:
                f.metric = None
        if f.concurrency and f.concurrency > 1 and f.scope is None and f.metric in ("aggregate_throughput",
                                                                                     "generation_tok_s"):
            # "32 并发 … 平均生成速度 1000 tokens/s": a generation rate at concurrency > 1 without a
            # per-user word is the server's total
            f.scope, f.metric = "aggregate", "aggregate_throughput"
        between = t[f.span[1]:figs[i + 1].span[0]] if i + 1 < len(figs) else ""
        if i + 1 < len(figs) and (figs[i + 1].unit == f.unit or (f.metric == "tpot" and figs[i + 1].unit == "ms")) and (_CHANGE_TO.search(between) or _CHANGE_WORDY.search(between)) \
                and not _SET_AGAINST.search(between) and not _OTHER_SPEAKER.search(between) \
                and not re.search(r"(?:从|由|\bfrom)\s*(?:约|~|about\s+)?\d", between[between.find(";") + 1:], re.I):
            # "只能达到 6-7 token/s，而 readme 里 … 就能到 8 token/s" sets two results side by side
            f.before_change = True
    _respectively(t, figs)
    for f in figs:
        # "peaked at 15,944 tok/s (3,673 output tok/s, p99 latency 11.78s) at 500 concurrent
        # requests": the setting after a figure's own brackets is that figure's
        br = _OWN_BRACKETS.match(t, f.span[1])
        if f.concurrency is None and br and any(br.start() < g.span[0] < br.end() for g in figs):
            c = next((c for c in conc if c[1] >= br.end() and re.fullmatch(r"\s*(?:,\s*)?(?:at|with|under|@|for)?\s*", t[br.end():c[1]], re.I)), None)
            if c:
                f.concurrency, f.why["concurrency"] = c[0], t[c[1]:c[2]]
                for g in figs:
                    if br.start() < g.span[0] < br.end() and g.concurrency is None and g.is_rate:
                        # the figures inside the brackets were read at it too ("3,673 output tok/s")
                        g.concurrency, g.why["concurrency"] = c[0], f.why["concurrency"]
                        if c[0] > 1 and g.scope is None and g.metric in ("generation_tok_s", None):
                            g.metric, g.scope = "aggregate_throughput", "aggregate"
    for a, b in zip(figs, figs[1:]):
        if not a.before_change and a.unit == b.unit and _SWITCH.search(t[a.span[1]:b.span[0]]) \
                and not _BOUNDARY.search(t[a.span[1]:b.span[0]].replace(";", ",")) \
                and not (b.before_change and re.search(r"(?:从|由|\bfrom)\s*(?:约|~|about\s+)?$", t[a.span[1]:b.span[0]], re.I)):
            # (the next figure starting a change of its own, "改用FP8后吞吐量从35提升到81", is no end of this one)
            a.before_change = True
    for i, a in enumerate(figs):
        # "4 tok/s at first and 7.3 tok/s after tuning", "起初 … 0.1 tok/s；调整后 … 2.9 tok/s"
        if a.before_change or not _BEFORE_WORDS.search(t[wins[i][0]:wins[i][3]]):
            continue
        for j in range(i + 1, len(figs)):
            b = figs[j]
            if b.unit == a.unit and _AFTER_WORDS.search(t[a.span[1]:wins[j][3]]):
                a.before_change = True
                break
    for i, a in enumerate(figs):
        # "标准 fp16 部署仅跑出约 40 tokens/s；经过几项轻量级优化后，实测稳定达到 120 tokens/s": the
        # next figure of its unit, written after an optimisation, is the change's end
        if a.before_change:
            continue
        b = next((b for b in figs[i + 1:] if b.unit == a.unit), None)
        if b is not None and b.metric == a.metric and _OPTIMISED_AFTER.search(t[a.span[1]:b.span[0]]) \
                and not _VERSUS.search(t[a.span[1]:b.span[0]]):
            a.before_change = True
    for i, a in enumerate(figs):
        # "rising from 68.3 tok/s (ITL 14.62 ms) on the upstream base to 118.3 tok/s (ITL 8.45 ms)":
        # a change whose ends have other figures or words between them
        if a.why.get("change_to") or not re.search(r"(?:\bfrom|从|由)\s*(?:~|about\s+|约)?$", t[max(0, a.span[0] - 10):a.span[0]], re.I):
            continue
        end = next((m.start() for m in _BOUNDARY.finditer(t, a.span[1])), len(t))
        b = next((b for b in figs[i + 1:] if b.unit == a.unit and b.span[0] < end), None)
        if b is not None and re.search(r"(?:\bto|到了?|至)\s*(?:~|about\s+|约)?$", t[max(0, b.span[0] - 10):b.span[0]], re.I):
            a.before_change = True
            a.why["change_to"] = b.words
    _bracketed_change(t, figs)
    for a, b in zip(figs, figs[1:]):
        # "from 68.3 tok/s (ITL 14.62 ms) … to 118.3 tok/s": what the change's start's brackets hold
        # is before the change too
        if a.before_change and a.is_rate and not b.is_rate and re.fullmatch(r"\s*[(（][^()（）]{0,24}", t[a.span[1]:b.span[0]]) \
                and re.match(r"[^()（）]{0,24}[)）]", t[b.span[1]:]):
            b.before_change = True
            b.why["with"] = a.words  # (a detail of the change's start, not a change of its own)
    for a, b in zip(figs, figs[1:]):
        # "prefill ran at ~70–111 t/s (typically ~95–105 t/s)": a figure in the brackets right after
        # another of its unit says more of the same quantity
        if b.metric is None and b.scope is None and a.metric is not None and b.unit == a.unit \
                and _REFINING_BRACKET.fullmatch(t[a.span[1]:b.span[0]]):
            b.metric, b.scope = a.metric, a.scope
            b.why["metric"] = b.why["scope"] = f"in the brackets of {a.words!r}"
    for f in figs:
        _settle(f)
    for a, b in zip(figs, figs[1:]):
        said = a.why.get("speculative_decoding")
        if a.before_change and a.spec_decoding and b.spec_decoding is None and said \
                and t.rfind(said, 0, a.span[0]) >= 0:
            # "speculative decoding takes it from 7-8 tok/s to 60-75 tok/s": the change is the
            # technique's; the figure before it is the baseline
            a.spec_decoding, b.spec_decoding, b.why["speculative_decoding"] = False, True, said
    # "at concurrency 1 … it measured 210 ms TTFT, 14.94 ms TPOT and 65 tok/s", "247 gen TPS/user
    # and 212 output TPS at concurrency 1": the figures of one list share the setting written once
    pairs = list(zip(figs, figs[1:]))
    for a, b in pairs + [(b, a) for a, b in reversed(pairs)]:
        between = t[min(a.span[1], b.span[1]):max(a.span[0], b.span[0])]
        if b.concurrency is None and a.concurrency and len(between) <= 18 and \
                re.fullmatch(r"[\s\w/]*?(?:,|\band\b|、|和)\s*(?:and\s+)?", between, re.I) and \
                not re.search(r"\b(?:at|with|while|versus|vs|but)\b|而|但", between, re.I):
            b.concurrency = a.concurrency
            b.why["concurrency"] = a.why.get("concurrency", "")
            if b.concurrency == 1 and b.is_rate and b.metric is None and b.scope is None:
                b.metric, b.scope = "generation_tok_s", "request"
    for prev, f in zip(figs, figs[1:]):
        between = t[prev.span[1]:f.span[0]]
        # "TPOT was 7.07 ms without speculation, 4.29 ms with EAGLE": a list of times per token
        same_unit = prev.unit == f.unit or (prev.metric == "tpot" and f.metric is None and {prev.unit, f.unit} == {"ms/tok", "ms"})
        parallel = same_unit and (
            re.fullmatch(r"\s*(?:,|and|or|vs\.?|versus|/|和|与|或)\s*", between, re.I)
            or (f.metric is None and prev.metric is not None and re.search(r"(?:\band|,|和)\s*$", between)
                and not re.search(r"[.;。；]", between)))
        if prev.before_change and len(between) <= 16 and not re.search(r"[,;.]", between) \
                and f.scope in ("gpu", "node", "user") and prev.scope in (None, "aggregate"):
            # "throughput rising from 260.5 to 2,106.9 tok/s per GPU": the words after the change
            # name what both of its ends measure
            prev.scope, prev.why["scope"] = f.scope, f.why.get("scope", "")
        if prev.before_change and str(f.why.get("scope", "")).startswith("inferred") and prev.scope in ("gpu", "node", "user") \
                and not str(prev.why.get("scope", "")).startswith(("inferred", "from the")):
            # "throughput per GPU from 311.65 tok/s to 331.22 tok/s at conc=64": the end of a change
            # measures what its start's words say, not what its setting alone would suggest
            f.scope, f.metric = prev.scope, prev.metric
            f.why["scope"], f.why["metric"] = prev.why["scope"], prev.why.get("metric", "")
        if prev.before_change or parallel:  # "from X to Y", "X vs. Y": the same quantity
            if prev.metric == "tpot" and f.metric is None and f.unit == "ms":
                f.unit = "ms/tok"
            for a, b in ((f, prev), (prev, f)):
                a.metric = a.metric or b.metric
                a.scope = a.scope or b.scope
                a.concurrency = a.concurrency or b.concurrency
                _settle(a)  # "each node achieves X input and Y output tok/s": Y is the node's total too
    for f in figs:
        end = next((a for a in figs if f.why.get("change_to") and a.words == f.why["change_to"]), None)
        if end is not None and f.scope is not None and not str(f.why.get("scope", "")).startswith(("inferred", "from the")) \
                and not _own_setting_after(t, end, f):
            # (not where the end states a setting of its own: "from 96 tok/s at concurrency 1 to 772 tok/s at concurrency 16")
            # "单并发速度从142提升到172 Tokens/s,50并发时…": the words before a change name both its ends
            end.metric, end.scope, end.concurrency = f.metric, f.scope, f.concurrency
            for k in ("metric", "scope", "concurrency"):
                if k in f.why:
                    end.why[k] = f.why[k]
                else:
                    end.why.pop(k, None)
        elif end is not None and re.fullmatch(r"(?:output\s+)?throughput|吞吐量?", str(f.why.get("metric", "")), re.I) \
                and str(end.why.get("metric", "")).startswith("inferred") and end.metric == "aggregate_throughput":
            end.why["metric"] = f.why["metric"]  # the throughput the change's words name, at the end's own setting
    for f in figs:
        anchor = next((a for a in figs if f.why.get("same_as") and a.words == f.why["same_as"]), None)
        if anchor is not None:  # a second change of the same quantity measures what the first does
            f.metric = f.metric or anchor.metric
            f.scope = f.scope or anchor.scope
            if f.metric == "tpot" and f.unit == "ms":
                f.unit = "ms/tok"
    for i in range(1, len(figs)):
        # "378.57 token/s …, versus 361.70 token/s … and 230.08 token/s for EAGLE-2": the figures
        # after "versus" in the sentence are what the first is set against
        a, b = figs[i - 1], figs[i]
        between = t[a.span[1]:b.span[0]]
        if a.unit == b.unit and _VERSUS.search(between) and not _BOUNDARY.search(between) and not a.why.get("against"):
            end = next((m.start() for m in _BOUNDARY.finditer(t, b.span[1])), len(t))
            for c in figs[i:]:
                if c.span[0] < end and c.unit == a.unit:
                    c.why["against"] = a.words
    for i in range(1, len(figs)):
        # "… about 170 tokens/s. That is far from the 564 tokens/s shown in the paper": a figure
        # quoted from elsewhere to measure a result against is no result of the run; with no
        # metric of its own it measures what the result does
        a, c = figs[i - 1], figs[i]
        if c.unit == a.unit and not c.why.get("against") and (
                _REFERENCE_BEFORE.search(t[max(a.span[1], c.span[0] - 40):c.span[0]])
                or _REFERENCE_AFTER.match(t, c.span[1])):
            c.why["against"] = c.why["quoted"] = a.words
            if (c.metric is None or str(c.why.get("metric", "")).startswith("inferred")) and a.metric:
                c.metric, c.scope = a.metric, a.scope
                c.why["metric"] = c.why["scope"] = f"measured against {a.words!r}"
    for f in figs:
        if f.concurrency == 1 and f.scope == "aggregate" and f.is_rate and \
                not re.search(r"total|aggregate|overall|combined|across|总|合计|整体", str(f.why.get("scope", "")), re.I):
            # "a BS=1 output throughput of 138 token/s": the throughput of one request in flight is
            # that request's (the metric stays as the words name it)
            f.scope = "request"
    served = re.search(r"request[\s\-_]rate|\bqps\b|num[\s\-_]prompts|\b\d+\s+prompts\b", t, re.I)
    for f in figs:
        if f.metric == "generation_tok_s" and f.scope is None and served \
                and re.fullmatch(r"output|输出", str(f.why.get("metric") or f.why.get("gap") or ""), re.I):
            # "1000 prompts at request rate 12 gave 1122.60 output tok/s": a serving benchmark's
            # output rate is the total over the requests it kept in flight
            f.metric, f.scope = "aggregate_throughput", "aggregate"
            f.why["scope"] = f"inferred: a serving benchmark ({served.group(0)}) reports totals"
        if f.metric == "generation_tok_s" and f.scope is None and f.high >= SINGLE_REQUEST_CEILING_TOK_S \
                and re.fullmatch(r"output|输出", str(f.why.get("metric") or f.why.get("gap") or ""), re.I):
            # "7404.72 output tok/s": "output" alone names no scope, and no single request runs
            # that fast, so it is the total of a many-request benchmark
            f.metric, f.scope = "aggregate_throughput", "aggregate"
            f.why["scope"] = f"inferred: output above {SINGLE_REQUEST_CEILING_TOK_S:,} tok/s is a total over many"
    return figs


# "Batch 64、256、512 下分别为 2919、7871、10209", "at batch sizes 1, 8 and 32 it reached 40, 200 and
# 600 tok/s respectively": a list of settings matched to a list of figures, one to one
_SETTING_LIST = re.compile(r"(?:batch(?:[\s_\-]?sizes?)?|\bbs|并发(?:数)?|concurrency(?:\s+levels?)?|(?:concurrent\s+)?users)"
                           r"\s*(?:=|:|：|为|of|at)?\s*(?P<list>\d{1,5}(?:\s*(?:[、,，/]|and|和|与)\s*\d{1,5}){1,7})(?!\s*(?:tok|t/s|ms|s\b|秒))", re.I)
_RESPECTIVELY = re.compile(r"分别|respectively", re.I)
_SLASH_SETTINGS = re.compile(r"(?<![a-z0-9])c\d{1,4}(?:\s*/\s*c\d{1,4}){1,7}(?![a-z0-9])", re.I)


def _respectively(t: str, figs: list[Figure]) -> None:
    """Give each figure of a "respectively" list its own setting (see :data:`_SETTING_LIST`):
    the N settings and the N figures after them in one sentence, with "分别"/"respectively" in it;
    or N settings and N figures each joined by slashes ("At C2/C4/C8 … 264.6 / 484.3 / 1003.8 tok/s")."""
    for m in _SLASH_SETTINGS.finditer(t):
        values = [int(v) for v in re.findall(r"\d+", m.group(0))]
        end = next((b.start() for b in _BOUNDARY.finditer(t, m.end())), len(t))
        after = [f for f in figs if m.end() <= f.span[0] < end and f.is_rate][:len(values)]
        if len(after) == len(values) and len({f.unit for f in after}) == 1 \
                and all(re.fullmatch(r"\s*/\s*", t[a.span[1]:b.span[0]]) for a, b in zip(after, after[1:])):
            for f, n in zip(after, values):
                f.concurrency, f.why["concurrency"] = n, m.group(0)
                if n > 1 and f.scope in (None, "request") and f.metric in (None, "generation_tok_s", "aggregate_throughput"):
                    f.scope, f.metric = "aggregate", "aggregate_throughput"
    for m in _SETTING_LIST.finditer(t):
        values = [int(v) for v in re.findall(r"\d+", m.group("list"))]
        end = next((b.start() for b in _BOUNDARY.finditer(t, m.end())), len(t))
        if not _RESPECTIVELY.search(t, m.start(), end) and not _RESPECTIVELY.search(t, end, min(len(t), end + 14)):
            continue
        after = [f for f in figs if m.end() <= f.span[0] < end and f.is_rate]
        if len(after) < len(values) or len({f.unit for f in after[:len(values)]}) != 1:
            continue
        for f, n in zip(after, values):
            f.concurrency, f.why["concurrency"] = n, m.group(0)
            if n > 1 and f.scope in (None, "request") and f.metric in (None, "generation_tok_s", "aggregate_throughput"):
                f.scope, f.metric = "aggregate", "aggregate_throughput"
            elif n == 1 and f.metric in (None, "aggregate_throughput") and not re.search(
                    r"total|aggregate|overall|combined|总|合计|整体", str(f.why.get("scope", "")) + str(f.why.get("metric", "")), re.I):
                f.scope, f.metric = "request", "generation_tok_s"  # one request in flight: its own speed


#: No published single-request decode speed reaches this (wafer-scale and dataflow chips serve
#: one request at about 1,000–3,000 tok/s): a bare figure above it is a total over many requests.
SINGLE_REQUEST_CEILING_TOK_S = 5000


_SETTING_WORD_BEFORE = re.compile(r"(?:concurrency|batch(?:[\s_\-]?size)?|\bbs|\busers?|并发(?:数)?|批大小)\s*(?:of|=|:|为)?\s*$", re.I)
_OPTIMISED_AFTER = re.compile(r"(?:优化|调优|改进|改造|升级|加速)(?:之)?后|\bafter\s+(?:the\s+|these\s+|our\s+|its\s+)?(?:\w+\s+){0,2}"
                              r"(?:optimi[sz]ations?|tuning|fix(?:es)?|patch(?:es)?)\b", re.I)
_REFINING_BRACKET = re.compile(r"\s*[(（]\s*(?:(?:typically|usually|mostly|median|mean|avg\.?|average|steady|sustained|"
                               r"通常|一般|多数|平均|中位数?|稳定)\s*(?:at\s+|of\s+|在|为)?)?\s*(?:~|about\s+|约)?\s*", re.I)


# "throughput rising from 3.89 requests/s (input 981.59 tokens/s, output 870.20 tokens/s) to 4.92
# requests/s (input 1242.21 …, output 1101.24 …)": a change whose ends carry their figures in brackets
_FROM_BRACKETS = re.compile(
    r"(?P<lead>(?:throughput|吞吐量?)[^()（）,;，；。]{0,30})?(?:\bfrom|从|由)\s*[\d.,]+\s*(?P<ua>[^\s()（）]{0,16})\s*[(（](?P<a>[^()（）]{1,160})[)）]"
    r"\s*(?:to|到|至|提升到|提升至|升至|升到|提高到)\s*[\d.,]+\s*[^\s()（）]{0,16}\s*[(（](?P<b>[^()（）]{1,160})[)）]", re.I)


def _own_setting_after(t: str, end: Figure, start: Figure) -> bool:
    """Whether the end of a change states a concurrency of its own right after it ("… to 772 tok/s
    at concurrency 16"), other than its start's — not one opening the next clause ("172 Tokens/s，50并发时")."""
    words = end.why.get("concurrency")
    if not words or words == start.why.get("concurrency"):
        return False
    at = t.find(words, end.span[1])
    return at >= 0 and bool(re.fullmatch(r"\s*(?:at|with|under|@|在)?\s*", t[end.span[1]:at], re.I))


def _bracketed_change(t: str, figs: list[Figure]) -> None:
    """Figures in the brackets of a change's start are before it; where the change is of a
    throughput or a request rate, a generation figure in either bracket with no scope of its own
    is the server's total."""
    for m in _FROM_BRACKETS.finditer(t):
        first = [f for f in figs if m.start("a") <= f.span[0] < m.end("a")]
        second = [f for f in figs if m.start("b") <= f.span[0] < m.end("b")]
        if not first or not second:
            continue
        for f in first:
            f.before_change = True
            end = next((g for g in second if (g.metric, g.unit) == (f.metric, f.unit)), None)
            if end is not None:
                f.why["change_to"] = end.words
        if m.group("lead") or re.search(r"req(?:uest)?s?/s|requests?\s+per\s+second", m.group("ua") or "", re.I):
            for f in first + second:
                if f.metric == "generation_tok_s" and "scope" not in f.why:
                    f.metric, f.scope = "aggregate_throughput", "aggregate"
                    f.why["scope"] = f.why["metric"] = (m.group("lead") or m.group("ua")).strip()


def _settle(f: Figure) -> None:
    """Make a figure's metric and scope agree: a generation rate of all requests, a GPU or a
    node is a total; a total of one request or user is its generation speed; a latency is one
    request's or, at a concurrency above one, each user's — never a total; a bare rate at its own
    concurrency above one is the total over those requests."""
    if f.metric == "generation_tok_s" and f.scope in ("aggregate", "gpu", "node"):
        f.metric = "aggregate_throughput"
    elif f.metric == "aggregate_throughput" and f.scope in ("request", "user"):
        f.metric = "generation_tok_s"
    if f.metric in ("ttft", "tpot", "e2e_latency") and f.scope in ("aggregate", "gpu", "node"):
        f.scope = "user" if (f.concurrency or 0) > 1 else "request"
    if f.is_rate and f.metric is None and f.scope is None and (f.concurrency or 0) > 1:
        f.metric, f.scope = "aggregate_throughput", "aggregate"
        f.why["metric"] = f.why["scope"] = f"inferred: a rate at {f.concurrency} requests in flight is their total"


def scope_from_metric(figs: list[Figure]) -> None:
    """A figure whose words give a metric but no scope takes the scope its metric implies: a
    total is `aggregate`, a generation, prefill or latency figure is one request's."""
    for f in figs:
        if f.scope is None and f.metric is not None:
            f.scope = "aggregate" if f.metric == "aggregate_throughput" else "request"
            f.why.setdefault("scope", f"from the metric ({f.metric})")


def infer_single_request(figs: list[Figure], text_says_concurrent: bool) -> None:
    """A tok/s figure with no word for its metric or scope, in a text that states no concurrency
    above one, is read as one request's generation speed (how such claims are meant); the figure
    says so in ``why`` and the field is marked inferred, not stated."""
    for f in figs:
        if f.is_rate and f.metric is None and f.scope is None and f.high >= SINGLE_REQUEST_CEILING_TOK_S:
            f.metric, f.scope = "aggregate_throughput", "aggregate"
            f.why["metric"] = f.why["scope"] = (f"inferred: above {SINGLE_REQUEST_CEILING_TOK_S:,} tok/s no single "
                                                "request runs; a total over many")
    if text_says_concurrent:
        return
    for f in figs:
        if f.is_rate and f.metric is None and f.scope is None:
            f.metric, f.scope = "generation_tok_s", "request"
            f.why["metric"] = f.why["scope"] = "inferred: no metric, scope or concurrency stated"
        elif not f.is_rate and f.scope is None:
            f.scope = "request"
            f.why["scope"] = "inferred: no scope or concurrency stated"


# another person's answer between two figures: "… 19.517 token/s。工程师回复 … 能跑到 43token/s" is
# no change of one run
_OTHER_SPEAKER = re.compile(r"回复|答复|回答|replied|responded|answered|另一(?:位|个)?(?:用户|人|网友)|其他人|有人说|"
                            r"another\s+user|someone\s+else|(?:the\s+)?maintainers?\s+(?:said|says|got|gets|reported)", re.I)


def choose_headline(figs: list[Figure]) -> Figure | None:
    """The claim's headline figure, by this rule (stated in the README):

    0. a figure that is a condition of the run (a target asked about, the per-user speed a
       throughput was read at) is the headline only when the claim has nothing else;
    1. decode speed over prefill speed, and a rate (tok/s) over a latency — a prefill figure or
       a TTFT is the headline only when the claim has nothing else;
    2. of a change of one measure ("from 35 s to 8.7 s", "245 tok/s, but the upgrade drops it
       to 135"), the better end: the higher rate or the lower latency (figures of another metric
       or scope — one stream, then a total at batch 8 — are no change);
    3. the figure the sentence stresses ("up to", "peak", "最高") over the others;
    4. the figure the others are set against over them ("378 tok/s, versus 362 and 230 tok/s"
       → 378), unless the text says which ran with speculative decoding and which without;
       then the figure with speculative decoding over the same figure without it ("158 tok/s
       plain, 373 tok/s with MTP" → 373): a claim states its best configuration;
    5. otherwise the first figure of the text.
    """
    if not figs:
        return None
    results = [f for f in figs if not f.condition] or list(figs)
    pool = [f for f in results if f.metric != "prefill_tok_s"] or results
    pool = [f for f in pool if f.is_rate] or pool
    # a change "from X to Y" keeps its better end: a higher rate, a lower latency
    drop = set()
    pairs = list(zip(figs, figs[1:]))
    for i, a in enumerate(figs):
        # (a change whose ends each carry several figures, "from … (input A, output B) to …
        # (input C, output D)": B's end is the next figure of its metric, not the next figure)
        if a.before_change and a.why.get("change_to") and i + 1 < len(figs) and figs[i + 1].words != a.why["change_to"]:
            b = next((b for b in figs[i + 2:] if b.words == a.why["change_to"]), None)
            if b is not None:
                pairs.append((a, b))
    for a, b in pairs:
        if a.before_change and a in pool and b in pool and a.value != b.value and (
                (a.metric, a.scope) == (b.metric, b.scope) or (a.why.get("change_to") == b.words and a.unit == b.unit)):
            worse = (a if a.high <= b.high else b) if a.is_rate else (a if a.high >= b.high else b)
            drop.add(id(worse))
    pool = [f for f in pool if id(f) not in drop] or pool
    stressed = [f for f in pool if f.qualifier == "up_to"]
    if stressed and len(stressed) < len(pool):
        pool = stressed
    changed = any(f.before_change for f in figs)
    against = [f for f in pool if f.why.get("against")]
    if against and len(against) < len(pool) and not (any(f.spec_decoding for f in pool)
                                                     and any(f.spec_decoding is False for f in pool)):
        # 4a. a figure over those it is set against ("X, versus Y and Z"), unless the text itself
        # says which ran with speculative decoding and which without
        pool = [f for f in pool if not f.why.get("against")]
    if any(f.spec_decoding for f in pool) and (any(f.spec_decoding is False for f in pool) or (
            not changed and not all(f.spec_decoding for f in pool))):
        # "32.49 tok/s with llama-cli, and 55.47 tok/s with a draft": a figure the text says
        # used speculative decoding, beside others it does not, is the configuration claimed
        pool = [f for f in pool if f.spec_decoding] or pool
    return pool[0]
