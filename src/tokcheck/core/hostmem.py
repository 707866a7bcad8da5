"""Host memory for weights offloaded to CPU RAM: which memory system a claim ran on, and its
bandwidth.

When a claim keeps part of the weights in system RAM (llama.cpp ``--n-cpu-moe``, "16 of 80
layers on the GPU", KTransformers, a CPU-only run), those bytes are read at the host memory's
bandwidth every token. This module finds that memory in the claim's words, in this order:

1. a bandwidth stated for the RAM ("64GB dual-channel DDR5-5600 (89.6 GB/s)", "~186 GB/s
   triad") — the claim's own figure;
2. a stated DDR kind with its channel count ("8x DDR5-4800 per socket", "8 通道 DDR4 2666",
   "DDR5 5600MHz 64GB x 12"): channels × 8 bytes × MT/s (JEDEC), named after the catalog row
   when one matches;
3. a CPU named in the text (``cpus.csv``: "EPYC 9654" → 12-channel DDR5-4800), with the DDR
   speed the text states if any;
4. nothing stated: a desktop's dual-channel DDR5-5600 beside a consumer GPU, one server socket
   of 12-channel DDR5-4800 beside a datacenter GPU — an assumption, said so.

Two sockets ("dual-socket", "双路", "2x Xeon") double the bandwidth (weights replicated per
NUMA node, as KTransformers does). Pure: text in, :class:`HostMemory` out.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from tokcheck.core.names import find_all_in_text


@dataclass(frozen=True)
class HostMemory:
    """The host memory system offloaded weights are read from.

    Attributes:
        name: e.g. ``8-channel DDR5-4800`` (``× 2 sockets`` when two).
        bandwidth_bytes_per_s: peak bandwidth (all sockets counted).
        achievable_fraction: the share a CPU decode loop reaches (the catalog row's, else 0.65).
        why: where it came from ("stated", the words, the CPU, or the assumption).
        stated: True when the text names the memory, its bandwidth or the CPU.
        capacity_bytes: RAM stated in the text ("256GB RAM"), None when not stated.
    """

    name: str
    bandwidth_bytes_per_s: float
    achievable_fraction: float
    why: str
    stated: bool
    capacity_bytes: float | None = None


@lru_cache(maxsize=1)
def cpus() -> tuple[dict, ...]:
    """CPU → memory platform rows of ``cpus.csv``: ``{name, aliases, channels, ddr, speed, source}``."""
    text = resources.files("tokcheck.core.catalog").joinpath("cpus.csv").read_text(encoding="utf-8")
    return tuple({"name": r["name"], "aliases": tuple(a for a in r["aliases"].split("|") if a),
                  "channels": int(r["channels"]), "ddr": r["ddr"], "speed": int(r["speed"]),
                  "kind": r["kind"], "source": r["source"]} for r in csv.DictReader(text.splitlines()))


def _catalog_row(channels: int, ddr: str, speed: int):
    from tokcheck.core.catalog import gpus

    for g in gpus():
        if g.kind != "host_memory":
            continue
        m = re.match(r"(\d+|Dual|Quad)-channel (DDR\d)-(\d+)$", g.name)
        if not m:
            continue
        ch = {"Dual": 2, "Quad": 4}.get(m.group(1)) or int(m.group(1))
        if ch == channels and m.group(2) == ddr and int(m.group(3)) == speed:
            return g
    return None


def _row_for(channels: int, ddr: str, speed: int, sockets: int, why: str, stated: bool, cap) -> HostMemory:
    row = _catalog_row(channels, ddr, speed)
    bw = channels * 8 * speed * 1e6 * sockets
    base = row.name if row else f"{channels}-channel {ddr}-{speed}"
    name = base + (f" × {sockets} sockets" if sockets > 1 else "")
    frac = row.achievable_fraction if row else (0.65 if channels <= 2 else 0.70)
    formula = f"{channels} channels × 8 B × {speed} MT/s" + (f" × {sockets} sockets" if sockets > 1 else "")
    return HostMemory(name, bw, frac, f"{why}: {formula} = {bw / 1e9:,.1f} GB/s"
                      + ("" if row else " (no catalog row; JEDEC formula)"), stated, cap)


_DDR = re.compile(r"(?:LP)?DDR(?P<gen>[45])X?[\s\-_]*(?P<speed>\d{4})(?:\s*(?:MT/s|MHz|mhz))?|"
                  r"(?P<speed2>[3-9]\d{3})\s*(?:MT/s|MHz|M)\s*(?:的\s*)?(?:DDR[45]\s*)?(?:内存|記憶體|RAM|memory)", re.I)
_CHANNELS = [re.compile(rx, re.I) for rx in (
    r"(?P<n>\d+)\s*(?:条|根|條)\s*\d*\s*G",
    r"(?P<n>\d+)[\s\-]*(?:channels?|ch\b|通道)",
    # "24路DDR5 6400": 路 before a DDR kind counts channels (双路 alone counts sockets)
    r"(?P<n>(?:[4-9]|[1-9]\d))\s*路\s*(?=(?:LP)?DDR)",
    r"(?P<word>dual|quad|octa|single)[\s\-]*channel",
    r"(?P<n>\d+)\s*[x×\*]\s*(?:\d+\s*GB\s*)?(?:LP)?DDR",
    r"(?:LP)?DDR[45]X?[\s\-_]*\d{4}\s*(?:MT/s|MHz)?\s*\d+\s*GB?\s*[x×\*]\s*(?P<n>\d+)",
    # "64GB×8 内存", "DDR5 32GB x 12": DIMMs (not a GPU's memory: "two RTX PRO 6000 cards (96GB×2)")
    r"\d+\s*GB\s*[x×\*]\s*(?P<n>\d+)(?=\s*(?:条|根|sticks?|dimms?|modules?)?\s*(?:of\s+)?[(（]?\s*(?:(?:LP)?DDR|RAM|DRAM|内存|記憶體|DIMM))",
    r"(?:(?:LP)?DDR\d\w*|RAM|内存|記憶體)[^,;，；。]{0,12}?\d+\s*GB\s*[x×\*]\s*(?P<n>\d+)",
)]
# (not a GPU's "VRAM"/"GPU memory": "VRAM with 1008 GB/s against 89 GB/s for DDR5-5600 system RAM")
_RAM_WORDS = r"(?:(?<![a-z])(?:ram|dram|ddr\d?|triad|stream)|(?<!gpu\s)(?<!video\s)(?<![a-z])memory|内存|記憶體|system\s+ram)"
_STATED_BW = re.compile(rf"(?:{_RAM_WORDS}[^.;。]{{0,40}}?\(?~?\s*(?P<a>\d+(?:\.\d+)?)\s*GB/s)|"
                        rf"(?:~?(?P<b>\d+(?:\.\d+)?)\s*GB/s\s*\)?\s*(?:\w+\s+){{0,2}}{_RAM_WORDS})", re.I)
_TWO_SOCKETS = re.compile(r"dual[\s\-]socket|two\s+(?:intel\s+|amd\s+)?(?:xeon|epyc|sockets?)|2\s*[x×\*]\s*(?:intel\s+|amd\s+)?(?:xeon|epyc)|双路|雙路|"
                          r"2\s*sockets?|(?:per|each)\s+socket.*(?:two|2)\s+(?:sockets|cpus)|two\s+\w+\s+\w+\s+\d+\w*\s+with", re.I)
# "64GB RAM", "128GB of DDR5-6000 RAM", "64GB DDR4 3200MHz" (a DDR generation is host memory too),
# "4x 48GB DDR5" (192 GB)
_CAPACITY = re.compile(r"(?:(?<![\w.])(?P<k>[1-9]|1[0-6])\s*[x×\*]\s*)?(?P<n>\d+(?:\.\d+)?)\s*(?P<u>GB|TB|G|T)\s*(?:of\s+)?"
                       r"(?:(?:LP)?DDR\d(?:\w*[\s\-]*\d*\s*(?:system\s+)?(?:RAM|DRAM|内存|記憶體))?|(?:system\s+)?(?:RAM|DRAM|内存|記憶體))"
                       r"(?![^,;。，]{0,25}?(?:used|usage|in\s+use|占用))", re.I)


def _stated_capacity(text: str) -> float | None:
    m = _CAPACITY.search(text)
    if not m:
        return None
    n = float(m.group("n")) * int(m.group("k") or 1)
    return n * (1e12 if m.group("u").upper().startswith("T") else 1e9)


#: The Raspberry Pi 5's memory: one 32-bit LPDDR4X channel at 4267 MT/s (circuitdigest.com, "The new
#: Raspberry Pi 5 is here", 2023; the 4267 MT/s also in Raspberry Pi's product brief).
_RASPBERRY_PI_5 = re.compile(r"raspberry\s*pi\s*5|树莓派\s*5|\bpi\s*5\b", re.I)
RASPBERRY_PI_5_SOURCE = ("one 32-bit LPDDR4X channel at 4267 MT/s (circuitdigest.com/news/"
                         "the-new-raspberry-pi-5-is-here-faster-than-ever)")

_SERVER = re.compile(r"\bxeon\b|\bepyc\b|至强|服务器|server\s+(?:cpu|board|motherboard)|threadripper", re.I)
_DDR_NO_SPEED = re.compile(r"(?:LP)?DDR(?P<gen>[45])X?(?![\s\-_]*\d{4})", re.I)
_CJK = re.compile(r"[\u3000-\u9fff]")


def _find_cpu(text: str) -> dict | None:
    """The first CPU of ``cpus.csv`` named in ``text`` (Latin names as whole words, Chinese ones
    as substrings)."""
    rows = cpus()
    best = None
    for name, s, e in find_all_in_text(text, [(c["name"], tuple(a for a in c["aliases"] if not _CJK.search(a)))
                                              for c in rows], min_len=4):
        best = (s, next(c for c in rows if c["name"] == name))
        break
    for c in rows:
        for a in c["aliases"]:
            if _CJK.search(a):
                i = text.find(a)
                if i >= 0 and (best is None or i < best[0]):
                    best = (i, c)
    return best[1] if best else None


#: The most memory a desktop board takes: 4 DIMMs × 64 GB of DDR5 (the largest consumer DIMM as
#: of 2025; AMD and Intel desktop platforms list 256 GB as their maximum).
DESKTOP_MAX_RAM_BYTES = 256e9


def find_host_memory(text: str, gpu_kind: str | None = None) -> HostMemory:
    """The host memory a claim's offloaded weights are read from (see the module docstring).

    Args:
        text: the claim's text.
        gpu_kind: the catalog ``kind`` of the claim's GPU (picks the default when nothing is stated).
    """
    t = text or ""
    cap = _stated_capacity(t)
    sockets = 2 if _TWO_SOCKETS.search(t) else 1
    m = _STATED_BW.search(t)
    if m:
        gbs = float(m.group("a") or m.group("b"))
        if 10 <= gbs <= 2000:
            return HostMemory(f"host memory at {gbs:g} GB/s", gbs * 1e9, 0.75,
                              f"stated in the claim: {m.group(0).strip()!r}", True, cap)
    pi = _RASPBERRY_PI_5.search(t)
    if pi:
        return HostMemory("Raspberry Pi 5's LPDDR4X-4267 (32-bit)", 4 * 4267e6, 0.65,
                          f"{pi.group(0)!r}: {RASPBERRY_PI_5_SOURCE}: 4 B × 4267 MT/s = 17.1 GB/s", True, cap)
    ddr = _DDR.search(t)
    cpu = _find_cpu(t)
    channels = None
    for rx in _CHANNELS:
        cm = rx.search(t)
        if cm:
            word = (cm.groupdict().get("word") or "").lower()
            channels = {"single": 1, "dual": 2, "quad": 4, "octa": 8}.get(word) or int(cm.group("n"))
            if 1 <= channels <= 24:
                break
            channels = None
    if ddr:
        gen = f"DDR{ddr.group('gen')}" if ddr.group("gen") else (cpu["ddr"] if cpu else "DDR5")
        speed = int(ddr.group("speed") or ddr.group("speed2"))
        if channels is None and cpu is not None:
            channels = cpu["channels"]
        if cpu is not None and cpu["kind"] == "desktop":
            channels = 2  # a desktop CPU has two channels whatever the number of DIMMs
        elif channels is None:
            channels = 8 if sockets > 1 or _SERVER.search(t) else 2
        elif cpu is not None and channels > cpu["channels"] * sockets:
            channels = cpu["channels"] * sockets  # DIMMs beyond the channels add capacity, not bandwidth
        if sockets > 1 and cpu is not None and channels == cpu["channels"] * sockets:
            channels = cpu["channels"]
        return _row_for(channels, gen, speed, sockets, f"stated {ddr.group(0).strip()!r}"
                        + (f" with {cpu['name']}" if cpu else ""), True, cap)
    bare = _DDR_NO_SPEED.search(t)
    if bare and cpu is None:
        gen = f"DDR{bare.group('gen')}"
        speed = 3200 if gen == "DDR4" else 5600
        ch = channels or (8 if sockets > 1 or _SERVER.search(t) else 2)
        return _row_for(ch, gen, speed, sockets, f"stated {bare.group(0)!r} without a speed: its common "
                        f"{speed} MT/s assumed", True, cap)
    if cpu is not None:
        return _row_for(cpu["channels"], cpu["ddr"], cpu["speed"], sockets,
                        f"{cpu['name']}'s memory platform ({cpu['source']})", True, cap)
    if sockets > 1 or _SERVER.search(t):
        return _row_for(8, "DDR5", 4800, sockets, "not stated; assumed a server socket of 8-channel DDR5-4800 "
                        "(Xeon Sapphire Rapids)", False, cap)
    if cap and cap > DESKTOP_MAX_RAM_BYTES:
        # "单张 RTX 4090D 搭配 382GB 内存": more memory than a desktop board holds is a server's
        return _row_for(8, "DDR5", 4800, 1, f"not stated; {cap / 1e9:,.0f} GB is more than a desktop holds: assumed a "
                        "server socket of 8-channel DDR5-4800 (Xeon Sapphire Rapids)", False, cap)
    if gpu_kind in ("datacenter", "amd_datacenter"):
        return _row_for(12, "DDR5", 4800, 1, "not stated; assumed one server socket beside a datacenter GPU", False, cap)
    return _row_for(2, "DDR5", 5600, 1, "not stated; assumed a desktop's dual-channel DDR5", False, cap)


__all__ = ["HostMemory", "cpus", "find_host_memory"]
