"""GPUs, how many, and how much memory a claim states.

Counts are written many ways: "2x H100", "H100 x2", "H100*2", "two H100s", "dual RTX 5090s",
"eight Blackwell GPUs", "8-way", "TP=8", "-tp 2", "8 卡", "双卡"; systems and cloud shapes imply
one ("an HGX B200" is 8 × B200, "GB200 NVL72" is 72, "p5.48xlarge" is 8 × H100 SXM: the
catalog's ``systems.csv``). Pure: names come in as (canonical name, aliases) pairs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokcheck.core.claim.numbers import CN_COUNT, COUNT_WORDS, count_value
from tokcheck.core.names import find_all_in_text

Hit = tuple[object, int, int]


@dataclass(frozen=True)
class NameHit:
    """A catalog name found in the text: canonical name, the range it was read from."""

    name: str
    start: int
    end: int


def find_names(text: str, entries: list[tuple[str, tuple[str, ...]]], min_len: int = 2) -> list[NameHit]:
    """Every catalog name or alias in ``text`` (:func:`tokcheck.core.names.find_all_in_text`)."""
    return [NameHit(*h) for h in find_all_in_text(text, entries, min_len=min_len)]


_COUNT = rf"(?<![\d.])(?P<n>\d+|(?:{COUNT_WORDS})(?![a-z]))"
_VENDOR = (r"(?:nvidia\s+|amd\s+|geforce\s+|instinct\s+|tesla\s+|radeon\s+|huawei\s+|英伟达\s*|[昇升]腾\s*|华为\s*|"
           # "two Mac Studio M3 Ultra": each Mac is one device
           r"(?:apple\s+)?(?:mac\s*(?:studio|mini|pro)|macbook\s+(?:pro|air))(?:s|es)?\s*(?:\(\s*|with\s+(?:an?\s+)?)?)?")
_BEFORE = [re.compile(rx, re.I) for rx in (
    # "四台四卡 A100", "2台8卡 H20": machines of N cards each
    rf"(?P<m>\d+|{CN_COUNT})\s*台\s*(?P<n>\d+|{CN_COUNT})\s*(?:张|块)?\s*卡\s*{_VENDOR}$",
    rf"(?<![~\-])(?:(?P<m>\d+)\s*[x*]\s*)?{_COUNT}\s*(?:x|\*)\s*(?:张|块|卡)?\s*{_VENDOR}(?:the\s+)?$",
    rf"(?<![~\-A-Za-z]){_COUNT}\s+(?:used\s+|new\s+|identical\s+|older\s+|modded\s+|[a-z]+-[a-z]+\s+)?{_VENDOR}(?:rtx\s+)?$",
    rf"(?:(?P<m>\d+)\s*[x*]\s*)?(?P<n>\d+|{CN_COUNT})\s*(?:张|块|片|卡|颗|个)\s*{_VENDOR}$",
    # "双 4090", "两 3090": a Chinese count written straight before a card's number
    rf"(?P<n>双|两)\s*{_VENDOR}(?:rtx\s*)?$",
)]
_AFTER = [re.compile(rx, re.I) for rx in (
    r"^\s*(?:gpus?|cards?)?\s*(?:x|\*|×)\s*(?P<n>\d+)(?![\d.])",
    # "H200 80GB 显存 × 8台": the memory, then the count
    r"^\s*\d{2,3}\s*(?:gb|g)\s*(?:显存|vram)?\s*(?:x|\*|×)\s*(?P<n>\d+)(?![\d.])",
    rf"^\s*(?:显卡)?\s*(?P<n>\d+|{CN_COUNT})\s*(?:张|块|卡|片)",
    r"^\s*\(\s*(?P<n>\d+)\s*(?:x|gpus?)\s*\)",
)]
_GENERIC = [re.compile(rx, re.I) for rx in (
    # "每个节点 8 个 npu、共 16 个 npu": the total written as such first
    rf"(?:共|总共|一共|合计|\ba\s+total\s+of|\bin\s+total)\s*(?P<n>\d+|{CN_COUNT})\s*(?:张|块|片|个)?\s*(?:卡|显卡|gpus?|npus?|加速卡)",
    rf"(?<![\w.~\-]){_COUNT}(?!\s*(?:gb|gib|g|tb|mb)\b)\s*(?:x\s*)?(?:[a-z]+[\s\-]){{0,2}}(?:gpus|cards|accelerators|hpus|npus|xpus)\b",
    r"(?<![\w.~\-])(?P<n>\d+)\s*(?:x\s*)?(?:gpu|card)\b",
    r"(?<![\w.~\-])(?P<n>\d+)[\s\-]gpu\b",
    rf"(?P<n>\d+|{CN_COUNT})\s*(?:张|块|片|个)\s*(?:卡|显卡|gpu|npu|加速卡)",
    rf"(?<![\d一二两三四五六七八九十/、])(?P<n>\d+|{CN_COUNT})\s*卡(?!顿|片|住)",
    r"(?:(?<![a-z0-9])tp|tensor[\s\-_]parallel(?:ism|[\s\-_]size)?)\s*(?:=|:|of|size)?\s*(?P<n>\d+)(?![\d.])",
    r"(?:^|\s)(?:-tp|--tp|--tensor-parallel-size|--tp-size)\s*[= ]\s*(?P<n>\d+)",
    r"(?<![\w.])(?P<n>\d+)[\s\-]way\s+(?:tensor[\s\-]parallel\w*|tp|parallel)?",
    r"\((?P<n>\d+)\s+(?:gpus\s+)?total\)",
    rf"(?<![a-z]){_COUNT}\s+(?:of\s+(?:them|these)|gpus?)\b",
)]
_SINGLE = re.compile(r"单卡|单张(?:卡|显卡)?|一张(?:卡|显卡)|single[\s\-]gpu|one\s+gpu|a\s+single\s+(?:\w+\s+){0,2}(?:gpu|card)|"
                     r"\bon\s+(?:one|a\s+single)\s", re.I)


#: The lower end of a range of counts, written just before a count ("1~4x", "one to eight").
_RANGE_BEFORE = re.compile(rf"(?:\d+|\b(?:{COUNT_WORDS}))\s*(?:~|-|–|to|或|到|至)\s*$", re.I)


def count_range_before(t: str, start: int) -> bool:
    """Whether the words before ``start`` state a range of counts ("on 1~4x 4090D", "one to
    eight Arc A770s"): then neither end is the count, and no singular reading applies."""
    before = t[max(0, start - 24):start]
    if re.search(rf"(?<![\d.])(?:\d+|{CN_COUNT})\s*[/、]\s*(?:\d+|{CN_COUNT})\s*(?:张|块)?\s*卡?\s*{_VENDOR}$", before, re.I):
        return True  # "单/双卡 RTX 4090": one or two cards, compared
    return bool(re.search(rf"(?:\d+|\b(?:{COUNT_WORDS}))\s*(?:~|-|–|to|或|到|至)\s*(?:\d+|(?:{COUNT_WORDS}))\s*[x*]?\s*"
                          rf"{_VENDOR}$", before, re.I))


def gpu_row(name: str):
    """The catalog's GPU row of canonical name ``name`` (a :class:`GpuSpec`), else None."""
    from tokcheck.core.catalog import gpus

    return next((g for g in gpus() if g.name == name), None)


def _one_device_machine(name: str) -> bool:
    """Whether catalog GPU ``name`` is a machine with one device (a DGX Spark, a Mac, a Jetson)."""
    row = gpu_row(name)
    return row is not None and row.kind in ("soc", "apple")


def gpu_count_near(t: str, hit: NameHit, *, system: bool = False) -> Hit | None:
    """The count written right before or after a GPU name ("2x H100", "H100 x2", "两张 4090");
    with ``system``, the count of a system ("four GB300 NVL72 systems"), where a unit word after
    the name is expected. A range of counts ("1~4x 4090D") is no count."""
    before, after = t[max(0, hit.start - 24):hit.start], t[hit.end:hit.end + 24]
    mem = re.search(r"(?<=[\sx*×])\d{1,3}\s*(?:gb|gib)\s*$", before, re.I)
    if mem:  # "two 24GB RTX 3090s": the count before the card's memory (blanked, so places keep)
        before = before[:mem.start()] + " " * (len(before) - mem.start())
    times = _BEFORE[1].search(before)  # ("2x", "4 x": after the machines-of-N pattern)
    if not system and _one_device_machine(hit.name):
        system = True  # "two DGX Spark nodes", "four Mac Studios": each machine is one device
    if not system and re.match(r"\s*(?:node|server|box|machine|system|host|instance|pod|rack)s?\b", after, re.I) \
            and not (times and re.search(r"\d\s*[x*]\s*$", before[:times.end()].rstrip() + " ")):
        return None  # "a single H200 node" counts nodes; "the 8x H200 machine" counts its GPUs
    if count_range_before(t, hit.start):
        return None
    if re.search(r"(?:over|more\s+than|nearly|almost|up\s+to|about|faster\s+than|~)\s*\d+(?:\.\d+)?\s*[x×]\s*$", before, re.I) \
            or re.match(r"'s\b", after):
        return None  # "over 6x Groq's previous endpoint": a ratio, not six devices
    if system and _one_device_machine(hit.name):
        m = re.search(rf"(?P<n>\d+|{CN_COUNT})\s*台\s*{_VENDOR}$", before, re.I)
        if m and count_value(m.group("n")):  # "两台 Mac Studio M4 Max": each Mac is one device
            return count_value(m.group("n")), hit.start - len(before) + m.start(), hit.start
    for rx in _BEFORE:
        m = rx.search(before)
        if m and re.search(r"\bnot\s*$", before[:m.start()], re.I):
            return None  # "it is not one H200"
        if m:
            n = count_value(m.group("n"))
            if n and (rx is not _BEFORE[2] or not re.fullmatch(r"\d{3,}", m.group("n"))):
                if "m" in m.groupdict() and m.group("m"):  # "2*8 张 H800": two nodes of eight
                    n *= count_value(m.group("m")) or 1
                start = hit.start - len(before) + m.start()
                return n, start, hit.start
    for rx in _AFTER:
        m = rx.search(after)
        if m:
            n = count_value(m.group("n"))
            if n:
                return n, hit.end, hit.end + m.end()
    if not system and re.match(r"\s*(?:node|server|box|machine|system|host|instance|pod|rack)s?\b", after, re.I):
        return None  # "a single H200 node" counts nodes, not GPUs
    if (one := re.search(r"\b(?:an?|one|a\s+single|single)\s+(?:[a-z]+[\-][a-z]+\s+|[a-z]+\s+)?(?:nvidia\s+|amd\s+|geforce\s+)?$",
                         before, re.I)) and not re.search(r"\b(?:an?|one)\s+(?:of|more|other)\s+|\bnot\s+(?:an?|one)\s+\S*\s*$", before, re.I):
        return 1, hit.start - len(before) + one.start(), hit.start  # from the article: "an RTX 4090"
    return None


_MACHINES_BEFORE = re.compile(rf"(?<![\w.]){_COUNT}\s+(?:[a-z]+\s+)?(?:machines|nodes|servers|hosts|boxes|systems)\s+"
                              r"(?:with|of|each\s+with|carrying|holding)\s*$", re.I)
_EACH_AFTER = re.compile(r"[\w\-\s]{0,16}?(?:\beach\b|\bapiece\b|\bper\s+(?:machine|node|server|host|box))", re.I)


def machines_of(t: str, count_start: int, name_end: int) -> Hit | None:
    """The machines a GPU count is per: "two machines with 8 Ascend 910B-64GB each" → 2; the
    count is written between ``count_start`` and ``name_end`` (the GPU name's end). Returns
    ``(machines, start, end)`` of the words, else None."""
    m = _MACHINES_BEFORE.search(t[max(0, count_start - 40):count_start])
    each = _EACH_AFTER.match(t, name_end)
    if not m or not each:
        return None
    n = count_value(m.group("n"))
    return (n, count_start - len(t[max(0, count_start - 40):count_start]) + m.start(), each.end()) if n and n > 1 else None


_COMPARED = re.compile(r"(?:\bthan|\bvs\.?|\bversus|\bover\s+(?:the|an?)|compared\s+(?:to|with)|\bagainst|"
                       r"\btwice|\bhalf|\d+(?:\.\d+)?\s*times|"
                       r"\d+\.\d+\s*[x×]\s*(?:the|an?)?|\d+\s*[x×]\s+(?:the|an?)\s|"
                       r"比|相比|对比|接近|相当于|堪比|媲美|超过|超越|不如|优于)\s*(?:the\s+|an?\s+|nvidia\s+|amd\s+)?(?:\d+\s*[x×]?\s*)?$", re.I)


# "吞吐量是 H200 的 5 倍", "H200 的 2 倍": the name is the baseline of a ratio
_COMPARED_AFTER = re.compile(r"\s*(?:gpus?|显卡)?\s*的\s*(?:\d+(?:\.\d+)?|[一二两三四五六七八九十]+)\s*(?:多)?倍|\s*(?:的)?\s*水平", re.I)


def is_comparison(t: str, hit: NameHit) -> bool:
    """Whether a GPU name is what the claim compares against ("30% more than H200 GPUs",
    "up to 3.1x the MI325X", "是 H200 的 5 倍"), not the hardware it ran on."""
    return bool(_COMPARED.search(t[max(0, hit.start - 24):hit.start]) or _COMPARED_AFTER.match(t[hit.end:hit.end + 16]))


def gpu_count_anywhere(t: str, exclude: list[tuple[int, int]]) -> Hit | None:
    """A GPU count stated away from a GPU name ("8 GPUs", "TP=8", "-tp 2", "双卡", "单卡")."""
    for rx in _GENERIC:
        for m in rx.finditer(t):
            if any(a <= m.start("n") < b for a, b in exclude):
                continue
            n = count_value(m.group("n"))
            if n:
                return n, m.start(), m.end()
    m = _SINGLE.search(t)
    if m and not re.match(r"[§\w\s\-]{0,30}?\b(?:node|server|machine|box|system|host|cluster)s?\b|[§\w\s\-]{0,30}?(?:节点|服务器|机器|集群)",
                          t[m.end():], re.I):
        return 1, m.start(), m.end()  # "on a single H200 node" counts the node, not its GPUs
    return None


# "8 卡服务器只用前 4 张卡", "an 8x H100 box, using only 4 of the GPUs": the run used part of the machine
_SUBSET = [re.compile(rx, re.I) for rx in (
    rf"(?:只|仅|仅仅)\s*(?:使)?用\s*(?:了)?\s*(?:其中|其)?\s*(?:的)?\s*(?:前|后)?\s*(?P<n>\d+|{CN_COUNT})\s*(?:张|块|个|片)",
    rf"\b(?:using|used|uses|with)\s+only\s+{_COUNT}\s+of\s+(?:the|its|their|them|those|these)\b",
    rf"\bonly\s+{_COUNT}\s+of\s+(?:the|its|their)\s+(?:\d+|{COUNT_WORDS})?\s*(?:gpus|cards|npus)\b",
)]


def used_subset(t: str, start: int) -> Hit | None:
    """A count of the machine's GPUs the run used, written within 40 characters after ``start``
    (the GPU or system name): "只用前 4 张卡" → 4. Overrides the machine's own count."""
    window = t[start:start + 40]
    for rx in _SUBSET:
        m = rx.search(window)
        if m:
            n = count_value(m.group("n"))
            if n:
                return n, start + m.start(), start + m.end()
    return None


def plural_after(t: str, hit: NameHit) -> bool:
    """Whether a GPU name is written in the plural ("H100s", "H200 Tensor Core GPUs", "4090 们")."""
    words = t[hit.start:hit.end]
    return words.lower().endswith("s") and not re.search(r"\d\s*s$|max$|plus$", words.lower()) \
        or bool(re.match(r"[\w\-]*\s*(?:[a-z]+\s+){0,3}(?:gpus|cards|accelerators)\b", t[hit.end:hit.end + 40], re.I))


def gpu_memory_near(t: str, hit: NameHit) -> Hit | None:
    """Memory written with the GPU ("RTX 3090 24GB", "A100-80G", "24 GB 显存")."""
    after = t[hit.end:hit.end + 16]
    after = t[hit.end:hit.end + 28]
    # ("V100-SXM2-32G": the form factor may come between the name and its memory)
    m = re.match(r"\s*[\-_(（]?\s*(?:(?:sxm\d?|pcie|pci-e|nvl)[\s\-_]*)?(?P<gb>\d{1,3})\s*(?:gb|g|gib)(?![a-z0-9])(?!\s*/\s*s\b|ps\b)", after, re.I)
    if m:
        return float(m.group("gb")), hit.end, hit.end + m.end()
    m = re.search(r"(?P<gb>\d{1,3})\s*(?:gb|g)\b", t[hit.start:hit.end], re.I)
    if m:
        return float(m.group("gb")), hit.start, hit.end
    # "a 512gb m3": the memory written just before the name
    # ("在32G V100上": a bare G with the name right after it is the card's memory too)
    before = re.search(r"(?<![\d.])(?P<gb>\d{1,3})\s*(?:gb|gib|g)\s*(?:的\s*)?$", t[max(0, hit.start - 10):hit.start], re.I)
    if before:
        return float(before.group("gb")), hit.start - (len(t[max(0, hit.start - 10):hit.start]) - before.start()), hit.end
    return None


def gpu_memory_anywhere(t: str) -> Hit | None:
    """GPU memory stated on its own ("显存 24G", "48GB of VRAM", "VRAM: 96 GB")."""
    m = (re.search(r"(?:显存|vram|gpu\s+memory)\s*(?:of|=|:|为|是)?\s*(?P<gb>\d{1,3})\s*(?:gb|g|gib)\b(?!\s*(?:占用|used))", t, re.I)
         or re.search(r"(?<![\d.])(?<![\d.][\-–~])(?P<gb>\d{1,3})\s*(?:gb|g|gib)\s*(?:of\s+)?(?:vram|显存|unified(?:[\s\-]+memory)?|统一内存|统一记忆体)"
                      r"(?!\s*(?:占用|used|usage))(?![\s\-]*(?:memory[\s\-]+)?(?:boxes|machines|systems|devices|mini[\s\-]?pcs))", t, re.I)
         # "runs on a 16GB GPU", "一张 24G 显卡"
         or re.search(r"(?<![\d.])(?<![\d.][\-–~])(?P<gb>\d{1,3})\s*(?:gb|g|gib)\s*(?:gpus?|cards?|graphics\s+cards?|显卡)(?![a-z])", t, re.I))
    if m and re.search(r"(?:using|uses|used|use|consum\w*|tak(?:es|ing)|took|occup\w+|占用?|用了|吃了?|about|~|"
                       r"需要?|约需|requires?|needs?)\s*(?:about|约|至少|at\s+least)?\s*$", t[max(0, m.start() - 12):m.start()], re.I):
        return None  # "using 4.3 GB of VRAM", "占 14 GB 显存": what the run took, not the card's memory
    if m and re.search(r"(?:(?:fp|bf|int|f)\d{1,2}|\d[\s\-]?bit|q\d(?:_k)?(?:_[msl0])?|量化后?|全精度|半精度)\s*(?:下|时|的)?\s*$",
                       t[max(0, m.start() - 12):m.start()], re.I):
        return None  # "FP16显存14GB", "INT4 量化后显存 6G": what the weights take at that precision
    if m:
        return float(m.group("gb")), m.start(), m.end()
    return None


#: Shapes of GPU names, to recognise one the catalog does not know (and suggest the nearest).
GPU_LIKE = re.compile(
    r"(?<![a-z0-9])(?:(?:geforce\s+)?(?:rtx|gtx)\s*(?:pro\s*)?[a-z]?\d{3,4}\s*(?:ti|super|d|ada)?(?:\s+(?:ti|super))?|"
    r"(?:instinct\s+)?mi\d{3}[a-z]?|radeon\s+(?:rx\s+)?\d{4}\s*(?:xtx|xt)?|rx\s*\d{4}\s*(?:xtx|xt)?|"
    r"[abhlv]\d{2,3}[a-z]?(?:\s*(?:sxm|pcie|nvl)\d?)?|gb\d{3}|gh\d{3}|b\d{3}a?|"
    r"(?:apple\s+)?m[1-5]\s*(?:pro|max|ultra)?|t4|l4|l40s?|ascend\s*\d{3}[a-z]?|910[bc]|"
    r"(?:apple\s*|苹果\s*)?a1[4-9](?:\s*(?:pro|bionic))?|cmp\s*\d{2,3}\s*hx|(?:hygon\s+|海光\s*)?dcu\s*[kz]\d{2,3}(?:[\-_]ai)?|"
    # "单机8卡GU120": a code written after a count of cards is a card's name
    r"(?:(?<=\d卡)|(?<=\d卡\s))[a-z]{1,4}\d{2,4}[a-z]?)(?=s?(?![a-z0-9]))", re.I)
