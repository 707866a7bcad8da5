"""What a claim ran on and at which precision, as the judge reads it (:mod:`tokcheck.core.verdict`).

- :func:`read_words`: setup details the claim reader does not report as fields yet (one request,
  CPU only, experts on the CPU, offload, row split, a stated bits-per-weight, a share of experts
  offloaded, MLX, serving words) — plain regexes on the claim's text.
- :func:`read_setup` / :func:`sized`: the GPUs, their count and layout (tensor × pipeline
  parallel; llama.cpp's layer split is a pipeline), a stated unified-memory size, the host memory
  offloaded weights would be read from (:mod:`tokcheck.core.hostmem`), and an unstated count of
  datacenter GPUs or chip accelerators sized to the weights.
- :func:`read_precisions`: the precisions to judge at (stated, shipped vs BF16 for "full
  precision", inferred from a stated footprint, what fits, the usual quantized files of engines
  that run them) and the footprint findings (impossible ones included).

Pure: Claim (+ catalog) in, dataclasses out.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from tokcheck.core.architecture import ModelSpec, total_params
from tokcheck.core.catalog import GIB, GpuSpec, gpus
from tokcheck.core.claim import CPU_NAMED, IGPU, Claim
from tokcheck.core.claim.numbers import CN_COUNT, COUNT_WORDS, NOT_RANGE_START, count_value
from tokcheck.core.claim.words import engine_family
from tokcheck.core.hostmem import HostMemory, find_host_memory
from tokcheck.core.precision import (
    bpw_name,
    canonical_precision,
    describe_scheme,
    gguf_base,
    precision_info,
    scheme_for,
)
from tokcheck.core.roofline import weights_bytes
from tokcheck.core.units import plain_number as fmt
from tokcheck.errors import TokcheckError

#: Engines whose multi-GPU default splits the layers across GPUs (a pipeline: one stream gets
#: one GPU's bandwidth at a time) — llama.cpp's --split-mode layer, Ollama, LM Studio, exo.
LAYER_SPLIT_ENGINES = ("llama.cpp", "ik_llama.cpp", "Ollama", "LM Studio", "KTransformers", "MLX")
#: Engines that run quantized files by default: an unstated precision is judged down to the
#: usual 4-bit file (Ollama's default tags are Q4_K_M; distributed-llama runs its own Q40 files).
QUANTIZED_FILE_ENGINES = ("llama.cpp", "ik_llama.cpp", "Ollama", "LM Studio", "MLX", "ExLlamaV2", "KTransformers",
                          "distributed-llama")
#: The narrowest weights a format stores (IQ1_S: 50 bytes per 256 weights = 1.5625 bits); a
#: footprint that implies fewer bits per weight cannot hold the model.
MIN_BITS_PER_WEIGHT = 1.5
#: The share of the GPUs' memory unstated-precision weights may take and still be read as fitting
#: (the rest for the KV cache and activations; an assumption of this tool, not a measured figure).
WEIGHTS_FIT_FRACTION = 0.95


def _gb(x: float) -> str:
    return f"{x / 1e9:,.1f} GB"


# ------------------------------------------------------------------ words the judge reads itself
# (setup details the claim reader does not report as fields yet; each is a plain regex on the
# claim's text and stays here until the reader reports it)

_SINGLE = re.compile(r"single[\s\-](?:request|stream|user|sequence|query)|one\s+request|one\s+query|for\s+1\s+query|"
                     r"batch[\s_\-]?size\s*(?:of\s*)?1(?!\d)" + NOT_RANGE_START + r"|at\s+batch\s+1(?!\d)|\bbs\s*=?\s*1\b|"
                     r"单请求|单并发|单用户|单路|单流|concurrency\s*(?:of\s*|=\s*)?1(?!\d)" + NOT_RANGE_START, re.I)
_CPU_ONLY = re.compile(r"cpu[\s\-]only|only\s+(?:the\s+)?cpu|pure[\s\-]cpu|纯\s*cpu|純\s*cpu|没有\s*gpu|無\s*gpu|"
                       r"without\s+(?:a\s+)?gpu|no\s+gpu|cpu\s+fallback", re.I)
_ALL_EXPERTS_CPU = re.compile(r"--cpu-moe\b|(?<![\w-])-cmoe\b|exps\s*=\s*cpu|experts?\s+(?:weights?\s+|layers?\s+)?(?:on|to)\s+the\s+cpu|"
                              r"all\s+(?:\S+\s+){0,3}expert\s+layers\s+run\s+on|all\s+moe\s+(?:layers|blocks)\s+(?:on|to)|"
                              r"moe\s+层\s*卸载|专家层卸载到\s*cpu|experts?\s+on\s+(?:the\s+)?cpu|"
                              r"all\s+moe\s+layers\s+offloaded", re.I)
_OFFLOAD = re.compile(r"offload|卸载|system\s+ram|\bdram\b|host\s+memory|cpu\s+memory|-ngl\b|n-cpu-moe|cpu-moe|"
                      r"layers?\s+on\s+the\s+gpu|-ot\b|override-tensor|"
                      # Windows lends system RAM to a GPU that runs out of its own
                      r"共享\s*(?:gpu\s*)?(?:内存|显存)|shared\s+gpu\s+memory", re.I)
_ROW_SPLIT = re.compile(r"row\s+split|split[\s\-]mode\s+row|-sm\s+row|tensor[\s\-]parallel|\btp\s*=?\s*\d|-tp\b", re.I)
_SPEC_WORDS = re.compile(r"speculative|draft|\bmtp\b|eagle|medusa|投机|推测", re.I)
_BPW_WORDS = re.compile(r"(?<![\d.])(?P<b>[1-8](?:\.\d+)?)\s*(?:bpw\b|bits?\s+per\s+weight|-bit\b|bit\)|位\b)", re.I)
_EXPERT_SHARE = re.compile(r"(?P<p>\d{1,3})\s*%\s*of\s+(?:the\s+)?(?:moe\s+|expert\s+)?(?:experts?|expert\s+layers|moe\s+layers)"
                           r"\s+(?:offloaded|on\s+the\s+cpu|in\s+(?:system\s+)?ram|to)", re.I)
_MLX = re.compile(r"\bmlx\b", re.I)
_OUTPUT_WORDS = re.compile(r"output|generat|decode|decoding|输出|生成|出字|解码", re.I)
#: Words that put a bare figure in a serving or benchmark context, where a number no single
#: stream can reach is read as throughput (MLPerf results, prompt sets, batches, clusters).
_SERVING_CONTEXT = re.compile(r"mlperf|offline|server\s+scenario|throughput|\bprompts\b|requests|\bbatch|concurren|"
                              r"\bserv(?:e|es|ed|ing)\b|"
                              r"\busers\b|sharegpt|benchmark_serving|\bitl\b|inter-token|\bcluster|\brack\b|\bnodes?\b|"
                              r"批量|并发|吞吐|请求|集群|节点|qps", re.I)
#: Words of a serving benchmark that fires many requests at once (a request count, a serving
#: harness, MLPerf): its bare tok/s figures are totals over the requests in flight.
_BENCH_SERVING = re.compile(r"benchmark_serving|sharegpt|mlperf|\bgenai-perf|\bguidellm|"
                            r"\b\d[\d,]*\s+(?:concurrent\s+)?(?:requests|prompts|users)\b|"
                            r"\d+\s*个?(?:请求|并发)", re.I)
#: Engines people run on their own machines, which offload to CPU RAM when the GPU is too small.
# AirLLM loads one layer at a time: it runs models larger than the GPU; fastllm, like KTransformers,
# runs a MoE's experts from host memory beside one GPU; PowerInfer keeps its cold neurons on the CPU
LOCAL_ENGINES = ("llama.cpp", "ik_llama.cpp", "Ollama", "LM Studio", "KTransformers", "MLX", "ExLlamaV2",
                 "AirLLM", "fastllm", "PowerInfer")


@dataclass
class Words:
    single: bool = False
    cpu_only: bool = False
    all_experts_on_cpu: bool = False
    offload: bool = False
    row_split: bool = False
    bpw: float | None = None
    expert_share: float | None = None
    mlx: bool = False


def read_words(text: str, engine: str | None) -> Words:
    t = text or ""
    bpw = _BPW_WORDS.search(t)
    share = _EXPERT_SHARE.search(t)
    experts_on_cpu = bool(_ALL_EXPERTS_CPU.search(t))  # experts kept on the CPU are offloaded weights
    # KTransformers keeps the routed experts on the CPU, also when it runs as SGLang's backend
    # ("KTransformers' branch with kvcache-ai's SGLang", "kt-cpuinfer 28")
    kt = engine == "KTransformers" or bool(re.search(r"ktransformers|\bkt[\-_]cpuinfer|--kt-", t, re.I))
    return Words(single=bool(_SINGLE.search(t)), cpu_only=bool(_CPU_ONLY.search(t)),
                  all_experts_on_cpu=experts_on_cpu or kt,
                  offload=bool(_OFFLOAD.search(t)) or experts_on_cpu or kt or bool(share),
                  row_split=bool(_ROW_SPLIT.search(t)),
                  bpw=float(bpw.group("b")) if bpw else None,
                  expert_share=int(share.group("p")) / 100 if share and int(share.group("p")) <= 100 else None,
                  mlx=bool(_MLX.search(t)) or engine == "MLX")


# ------------------------------------------------------------------------------- the setup

@dataclass
class Setup:
    """The hardware a claim ran on, as the judge reads it."""

    gpu: GpuSpec | None
    count: int = 1
    tp: int = 1
    pp: int = 1
    replicas: int = 1
    why: str = ""
    memory_bytes: float | None = None  # per device (a stated unified-memory size overrides the row)
    host: HostMemory | None = None
    cpu_only: bool = False
    auto_count: bool = False   # the count is not stated: sized to hold the weights
    can_offload: bool = True   # a setup that would spill weights to host RAM (local engines, desktops)
    from_disk: bool = False    # weights said to stream from an SSD (mmap): a CPU-only run, or a unified-memory machine

    @property
    def capacity(self) -> float | None:
        m = self.memory_bytes if self.memory_bytes is not None else (self.gpu.memory_bytes if self.gpu else None)
        return None if m is None else m * self.count

    def to_json(self) -> dict:
        return {"gpu": self.gpu.name if self.gpu else None, "gpu_count": self.count, "tensor_parallel": self.tp,
                "pipeline_parallel": self.pp, "replicas": self.replicas, "why": self.why,
                "memory_bytes_per_device": self.memory_bytes if self.memory_bytes is not None else
                (self.gpu.memory_bytes if self.gpu else None), "cpu_only": self.cpu_only,
                "host_memory": None if self.host is None else {"name": self.host.name,
                                                               "bandwidth_bytes_per_s": self.host.bandwidth_bytes_per_s,
                                                               "why": self.host.why, "stated": self.host.stated}}


def _host_device(host: HostMemory) -> GpuSpec:
    """A host memory system as the device of a CPU-only run."""
    return GpuSpec(name=f"CPU with {host.name}", memory_bytes=int(host.capacity_bytes) if host.capacity_bytes else None,
                   peak_bandwidth_bytes_per_s=host.bandwidth_bytes_per_s, achievable_fraction=host.achievable_fraction,
                   achievable_source="host memory: STREAM-style tests reach ~65–78 % of the DDR wire rate",
                   source=host.why, checked="n/a", kind="host_memory")


# Machines of a CPU-only run: "four CPU-only Raspberry Pi 5 16GB boards", "4 台树莓派"
_BOARDS = re.compile(rf"(?<![\w.])(?P<n>\d{{1,2}}|{COUNT_WORDS})\s+(?:[\w\-]+\s+){{0,5}}?"
                     rf"(?:boards|nodes|machines|devices|units|servers|pis)\b|(?P<n2>\d{{1,2}}|{CN_COUNT})\s*台", re.I)
# weights read from storage rather than held in RAM: llama.cpp maps a file larger than memory
_FROM_DISK = re.compile(r"\bssd\b|nvme|\bmmap\b|\bdisk\b|swap|硬盘|固态|磁盘|硬碟", re.I)
# weights said to stream from storage on a unified-memory machine ("ds4's ROCm backend and SSD streaming")
_STREAMED = re.compile(r"(?:ssd|nvme|disk|storage)[\s\-]+(?:streaming|offload\w*)|stream\w*\s+(?:\w+\s+){0,4}from\s+(?:the\s+|an?\s+)?"
                       r"(?:ssd|nvme|disk|storage)|\bmmap\b|从\s*(?:ssd|硬盘|固态|磁盘)", re.I)
_NODES_OF_ONE = re.compile(r"(?<![\w.])(?P<n>\d{1,3})\s+(?:nodes|units|machines|boxes|systems)\b|"
                           r"cluster\s+of\s+(?P<n2>\d{1,3})\b", re.I)


def read_setup(claim: Claim, gpu: GpuSpec | None, words: Words, notes: list[str]) -> Setup:
    f, foot = claim.fields, claim.footprint
    count = int(f.get("gpu_count") or 1)
    engine = engine_family(f.get("engine"))
    if gpu is None:
        # the reader's device: a CPU, a Raspberry Pi, or an integrated GPU reading the system's memory
        cpu_device = str(f.get("gpu") or "").upper() == "CPU" or bool(IGPU.fullmatch(str(f.get("gpu") or "")))
        if words.cpu_only or cpu_device or (f.get("engine") and not words.offload and _mentions_cpu(claim.text)):
            host = find_host_memory(claim.text, None)
            # a server CPU the catalog does not know ("2×Intel Xeon Platinum 8380"): judged at an
            # assumed server socket, which the note says (generous: a figure above it is above any)
            # a desktop or laptop CPU the catalog does not know ("an Intel i7-12700H and 32GB RAM"):
            # judged at the assumed desktop memory, which the note says
            if host.stated or CPU_NAMED.search(claim.text or ""):
                boards = _BOARDS.search(claim.text or "")
                n = count_value(boards.group("n") or boards.group("n2")) or 1 if boards else 1
                if n > 1:
                    # "four Raspberry Pi 5 boards with distributed-llama": each board reads its own
                    # share of the weights, so the bandwidths add up (tensor parallel over the boards)
                    return Setup(gpu=_host_device(host), count=n, tp=n, why=f"CPU only, {n} machines "
                                 f"({boards.group(0)!r}), each with {host.why}", host=host, cpu_only=True)
                return Setup(gpu=_host_device(host), count=1, why=f"CPU only: {host.why}", host=host, cpu_only=True,
                             from_disk=bool(_FROM_DISK.search(claim.text or "")))
        return Setup(gpu=None, count=count)
    mem = None
    stated = f.get("gpu_memory_gb")
    if stated and gpu.kind in ("apple", "soc") and gpu.memory_bytes and stated * 1e9 < gpu.memory_bytes * 1.1:
        mem = float(stated) * GIB
        notes.append(f"{gpu.name} with {fmt(stated)} GB of unified memory, as stated")
    elif stated and gpu.memory_bytes and stated * GIB < gpu.memory_bytes * 0.9:
        # "8 卡 H200（单卡显存 80GB）": the text's own memory, though the card has more — judged as written
        mem = float(stated) * GIB
        notes.append(f"memory: {fmt(stated)} GB per card as stated, though a {gpu.name} has "
                     f"{gpu.memory_bytes / GIB:,.0f} GiB: the claim is judged as written")
    elif stated and gpu.memory_bytes and gpu.kind in ("consumer", "amd_consumer") \
            and gpu.memory_bytes * 1.1 < stated * GIB <= gpu.memory_bytes * 2.2 \
            and not (count > 1 and abs(stated * GIB - count * gpu.memory_bytes) < 0.1 * stated * GIB):
        # "1x RTX 4080S 32GB", "4090 48G": a card with its memory doubled by a modder (a stock
        # 4080 Super holds 16 GB) — the stated memory is judged as written, the bandwidth is the card's
        mem = float(stated) * GIB
        notes.append(f"memory: {fmt(stated)} GB per card as stated, more than a stock {gpu.name} "
                     f"({gpu.memory_bytes / GIB:,.0f} GiB): a card with its memory enlarged, judged as written")
    m_nodes = _NODES_OF_ONE.search(claim.text or "")
    if m_nodes and gpu.kind in ("soc", "apple") and not f.get("gpu_count", 0) > 1:
        # "a DGX Spark cluster using 4 nodes": each node of a one-chip machine is one device
        count = int(m_nodes.group("n") or m_nodes.group("n2"))
        notes.append(f"{count} × {gpu.name}: {m_nodes.group(0)!r}, one device per node")
    tp = foot.get("tensor_parallel")
    pp = foot.get("pipeline_parallel")
    if pp and (pp > 64 or pp > max(count, tp or 1) * 8):
        pp = None  # "pp 512" in a llama-bench line is a prompt length, not a pipeline
    if tp and tp > count and not f.get("gpu_count"):
        count = tp * (pp or 1)
    if tp and tp > 64:
        tp = None
    why = ""
    if tp or pp:
        tp, pp = int(tp or max(1, count // int(pp or 1))), int(pp or max(1, count // int(tp or 1)))
        if tp * pp > count:
            count = tp * pp
        why = f"tensor parallel {tp} × pipeline parallel {pp} as stated"
    elif count > 1 and engine in LAYER_SPLIT_ENGINES and not words.row_split:
        tp, pp = 1, count
        why = (f"{engine}'s default splits the layers across the {count} GPUs: they run one after another, "
               "so one stream gets one GPU's bandwidth at a time")
    else:
        tp, pp = count, 1
        if count > 1:
            why = f"tensor parallel over the {count} GPUs assumed (the most favourable reading)"
    replicas = max(1, count // (tp * pp))
    # unified memory (Apple, DGX Spark, Strix Halo, Jetson): no separate host memory to spill to
    host = find_host_memory(claim.text, gpu.kind) if gpu.kind not in ("host_memory", "accelerator", "apple", "soc") \
        else None
    auto = not f.get("gpu_count") and not (foot.get("tensor_parallel") or foot.get("pipeline_parallel")) \
        and gpu.kind in ("datacenter", "amd_datacenter", "accelerator")
    # tensor parallelism is a serving engine's layout (vLLM, SGLang), which keeps the weights on the GPUs
    tensor_parallel = bool(foot.get("tensor_parallel")) or bool(re.search(r"tensor[\s\-]parallel", claim.text or "", re.I))
    can_offload = host is not None and (words.offload or engine in LOCAL_ENGINES or (
        engine is None and gpu.kind not in ("datacenter", "amd_datacenter") and not tensor_parallel))
    return Setup(gpu=gpu, count=count, tp=tp, pp=pp, replicas=replicas, why=why, memory_bytes=mem, host=host,
                 auto_count=auto, can_offload=can_offload,
                 from_disk=gpu.kind in ("apple", "soc") and bool(_STREAMED.search(claim.text or "")))


def sized(setup: Setup, w: float) -> Setup:
    """The setup with its unstated GPU count sized to the weights: a chip accelerator gets the
    chips the weights need, run as a pipeline (Groq, Cerebras); a datacenter GPU the smallest of
    1, 2, 4, 8 (tensor parallel) or 16, 32, 64, 72 (8-way tensor parallel × pipeline) that holds them."""
    if setup.gpu is None or not setup.gpu.memory_bytes:
        return setup
    per = (setup.memory_bytes or setup.gpu.memory_bytes) * 0.9
    # "each LPU has 230 MB": one chip of a chip accelerator is never the serving system
    one_chip = setup.gpu.kind == "accelerator" and setup.count <= 1 and w > per
    if not setup.auto_count and not one_chip:
        return setup
    if setup.gpu.kind == "accelerator":
        n = max(1, math.ceil(w * 1.1 / per))
        said = "the count is not stated" if setup.auto_count else f"one {setup.gpu.name} holds {_gb(per / 0.9)}"
        return replace(setup, count=n, tp=1, pp=n, replicas=1, auto_count=True,
                       why=f"{said}: {n} × {setup.gpu.name} hold the weights ({_gb(w)}), run as a pipeline "
                           "(one stream visits them in turn)")
    if w <= per:
        return setup
    for n in (2, 4, 8, 16, 32, 64, 72):
        if w <= per * n:
            tp, pp = min(n, 8), max(1, n // 8)
            return replace(setup, count=n, tp=tp, pp=pp, replicas=1,
                           why=f"the GPU count is not stated: {n} × {setup.gpu.name} is the smallest that holds the "
                               f"weights ({_gb(w)}); tensor parallel {tp}" + (f" × pipeline {pp}" if pp > 1 else ""))
    return setup


def _mentions_cpu(text: str) -> bool:
    from tokcheck.core.hostmem import cpus
    from tokcheck.core.names import find_all_in_text

    return bool(find_all_in_text(text or "", [(c["name"], c["aliases"]) for c in cpus()], min_len=4))


# ------------------------------------------------------------------------------ precision readings

@dataclass
class Reading:
    """One precision the claim can be judged at."""

    label: str            # what the reports show: "FP8", "Q4_K_M", "released (FP8 …)", "4.84bpw"
    precision: str        # what the roofline takes: a canonical name or "released"
    model: ModelSpec      # with the per-part scheme the reading implies (released_weights)
    why: str
    stated: bool          # the claim pins this precision
    fallback: bool = False  # chosen because a wider one cannot fit


def _scheme_model(m: ModelSpec, scheme: dict) -> ModelSpec:
    return replace(m, released_weights=dict(scheme))


def _all_parts(name: str) -> dict:
    return {"default": name, "embedding": name, "lm_head": name, "router": name, "other": name}


def _released_names(m: ModelSpec) -> set[str]:
    return {canonical_precision(v) for v in m.released_weights.values()}


def _reading_for(name: str, m: ModelSpec, engine: str | None, why: str, stated: bool, gguf: bool = False,
                 mlx: bool = False) -> Reading:
    """The reading of a named format on ``m``: the shipped scheme when it is the released format;
    GGUF files (whole-file bits, every tensor) keep a model's shipped MXFP4 experts; MLX
    quantizes embeddings too (4-bit = 4.5 bits per weight with group 64)."""
    if gguf and name in ("INT8", "INT4"):  # llama.cpp has no INT8/INT4: its 8-bit type is Q8_0, its usual 4-bit Q4_K_M
        name = "Q8_0" if name == "INT8" else "Q4_K_M"
        why += f"; in llama.cpp that is {name}"
    p = precision_info(name)
    rel = m.released_weights
    if gguf and rel.get("experts") == "MXFP4" and m.is_moe and name == "MXFP4":
        scheme = {**_all_parts("Q8_0"), "experts": "MXFP4"}
        return Reading("MXFP4 GGUF (experts MXFP4, other tensors Q8_0)", "released", _scheme_model(m, scheme),
                       why + "; llama.cpp's MXFP4 GGUFs keep the non-expert tensors in Q8_0 (ggml-org's gpt-oss-120b "
                       "file: 59.02 GiB = 114.7 B experts × 4.25 bits + 2.1 B others × 8.5 bits)", stated)
    if gguf and rel.get("experts") == "MXFP4" and m.is_moe and name in ("FP16", "BF16"):
        # gpt-oss "F16" GGUFs: the 16-bit type is for the other tensors; the shipped MXFP4 experts
        # stay as they are (the 20b's F16 file is 12.83 GiB, not the ~42 GB of an all-16-bit one)
        scheme = {**_all_parts(name), "experts": "MXFP4"}
        return Reading(f"{name} GGUF (experts MXFP4, other tensors {name})", "released", _scheme_model(m, scheme),
                       why + "; llama.cpp's 16-bit GGUFs of a model shipped with MXFP4 experts keep those experts", stated)
    if name in _released_names(m) and not p.full_precision:
        return Reading(f"{name} as released ({describe_scheme(scheme_for('released', rel))})", "released", m, why, stated)
    if p.kind in ("gguf_tensor", "gguf_file") or p.kind == "bpw":
        scheme = _all_parts(name)
        if rel.get("experts") in ("MXFP4",) and m.is_moe and (
                m.model_type == "gpt_oss" or p.bytes_per_param >= precision_info("MXFP4").bytes_per_param):
            # llama.cpp leaves gpt-oss's MXFP4 experts as shipped whatever the file type; another
            # model's file narrower than FP4 ("IQ2XXS-w2Q2K" of DeepSeek V4 Flash) narrows its experts
            scheme["experts"] = "MXFP4"
            why += "; the GGUF keeps the shipped MXFP4 experts"
        return Reading(name, "released", _scheme_model(m, scheme), why, stated)
    if (engine == "MLX" or mlx) and name in ("INT4", "INT8"):
        bits = 4.5 if name == "INT4" else 8.5
        nm = bpw_name(bits)
        return Reading(f"MLX {name[3:]}-bit ({bits:g} bits per weight)", "released", _scheme_model(m, _all_parts(nm)),
                       why + f"; MLX {name[3:]}-bit stores one FP16 scale and bias per 64 weights: {bits:g} bits, "
                       "embeddings and lm_head included", stated)
    return Reading(name, name, m, why, stated)


#: An Ollama model tag ("llama3.2:3b", "qwen3:14b-fp8"): ollama.com/library names.
_OLLAMA_TAG = re.compile(r"[a-z][a-z0-9.\-]*:[a-z0-9][\w.\-]*", re.I)


_LLAMA_CPP_FLAGS = re.compile(r"--n-cpu-moe|--cpu-moe|(?<![\w-])-ngl\b|--n-gpu-layers|-ot\s+\S*exps|--override-tensor", re.I)


def read_precisions(claim: Claim, m: ModelSpec, setup: Setup, words: Words, notes: list[str]) -> tuple[list[Reading], list[dict]]:
    """The precisions to judge at, and footprint findings (impossible ones included)."""
    f, foot = claim.fields, claim.footprint
    engine = engine_family(f.get("engine"))
    if engine is None and _OLLAMA_TAG.fullmatch(str(claim.sources.get("model") or "")):
        engine = "Ollama"  # "llama3.2:3b": a model named by its Ollama tag is Ollama's file
    stated_p, quant = f.get("precision"), f.get("quantization")
    findings: list[dict] = []
    released_full = not (_released_names(m) - {"BF16", "FP16", "FP32"})
    rel_label = f"released ({describe_scheme(scheme_for('released', m.released_weights))})"
    tot = total_params(m)

    def full_readings(why_words: str) -> list[Reading]:
        bf16 = Reading("BF16", "BF16", m, f"{why_words}: BF16/FP16 weights (the guide's full precision)", True)
        if released_full:
            return [bf16]
        return [Reading(rel_label, "released", m, f"{why_words} of a model that ships "
                        f"{describe_scheme(scheme_for('released', m.released_weights))}: the shipped format", True), bf16]

    # --- stated footprints
    stated_mem = f.get("gpu_memory_gb")
    if stated_mem and setup.gpu is not None and setup.gpu.kind not in ("apple", "soc", "host_memory", "accelerator") \
            and setup.gpu.memory_bytes:
        card = setup.gpu.memory_bytes / GIB
        ratio = stated_mem / card
        family = setup.gpu.name.split()[0]
        variants = [g.memory_bytes / GIB for g in gpus() if g.memory_bytes and g.name.split()[0].startswith(family)]
        if ratio > 1.15 and abs(ratio - round(ratio)) > 0.05 and not any(abs(v - stated_mem) <= 0.05 * v for v in variants):
            # (said, not judged: a card with more memory than the catalog's has at least its
            # bandwidth and room, so the speed judged on the catalog's card stands — "H20-156G")
            findings.append({"check": "memory_stated_vs_card", "ok": False, "severity": "note",
                             "text": f"a {setup.gpu.name} has {card:g} GB, not {fmt(stated_mem)} GB"})
    weights_gb = foot.get("weights_gb")
    used, scope = foot.get("memory_used_gb"), foot.get("memory_used_scope")
    if used and setup.gpu is not None and setup.gpu.kind != "host_memory":
        per_dev = (setup.memory_bytes if setup.memory_bytes is not None else setup.gpu.memory_bytes) or 0
        per_used = used * 1e9 if scope == "per_gpu" or setup.count == 1 else used * 1e9 / setup.count
        if stated_mem:
            # both written in the text's own unit ("16GB unified memory", "spiking to 16.8 GB"):
            # compare them as written, not one in GiB and the other in GB
            per_dev = stated_mem * 1e9
        if per_dev and per_used > per_dev * 1.02:
            findings.append({"check": "memory_used_vs_capacity", "ok": False,
                             "text": f"{fmt(used)} GB used {'per card' if setup.count > 1 else ''} is more than the "
                                     f"{per_dev / 1e9:,.1f} GB a {setup.gpu.name} has"})
    if weights_gb:
        bits = weights_gb * 1e9 * 8 / tot
        findings.append({"check": "weights_footprint", "ok": bits >= MIN_BITS_PER_WEIGHT,
                         "text": f"{fmt(weights_gb)} GB of weights for {tot / 1e9:,.1f} B parameters is "
                                 f"{bits:.2f} bits per weight"})
        if bits < MIN_BITS_PER_WEIGHT:
            findings[-1]["text"] += f": below the {MIN_BITS_PER_WEIGHT:g} bits of the narrowest format (IQ1_S)"
    if used and not words.offload and (scope == "total" or setup.count == 1):
        bits = used * 1e9 * 8 / tot
        if bits < MIN_BITS_PER_WEIGHT:
            findings.append({"check": "memory_used_vs_weights", "ok": False,
                             "text": f"{fmt(used)} GB of memory cannot hold {tot / 1e9:,.1f} B parameters: "
                                     f"{bits:.2f} bits per weight, below the {MIN_BITS_PER_WEIGHT:g} of the narrowest format"})

    # --- stated precision
    name = None
    if stated_p and stated_p != "full":
        # "AWQ 3bit" is INT3: its width, not AWQ's usual 4 bits
        width = re.fullmatch(r"INT([3567])", str(stated_p), re.I)
        for cand in (stated_p, f"{width.group(1)}bpw" if width else None, quant):
            if not cand:
                continue
            try:
                name = canonical_precision(cand)
                break
            except TokcheckError:
                continue
        if name and gguf_base(stated_p):
            notes.append(gguf_base(stated_p)[1])
    if stated_p == "full" or (not stated_p and quant == "none"):
        return full_readings("'full precision' / 'no quantization'"), findings
    gguf = quant == "GGUF" or engine in ("llama.cpp", "ik_llama.cpp", "Ollama", "LM Studio", "KTransformers")
    if name:
        r = _reading_for(name, m, engine, f"{stated_p} as stated", True, gguf=gguf, mlx=words.mlx)
        if weights_gb and r.stated:
            w = weights_bytes(r.model, r.precision)
            bits = weights_gb * 1e9 * 8 / tot
            if weights_gb * 1e9 < 0.8 * w and bits >= MIN_BITS_PER_WEIGHT and _several_formats(claim.text or ""):
                # "GLM-5.1-MXFP4-Q8 (378GB)": the text names several formats and a real one that
                # narrow exists, so the stated size says which (a mixed quantization); with one
                # format named, a size too small for it is a contradiction (below)
                nm = bpw_name(min(16.0, bits))
                notes.append(f"precision: {fmt(weights_gb)} GB of weights is {bits:.3g} bits per weight, narrower than "
                             f"{r.label} ({_gb(w)}): judged at the stated size (a mixed quantization, most likely)")
                return [Reading(f"{bits:.3g} bits per weight", "released", _scheme_model(m, _all_parts(nm)),
                                f"{fmt(weights_gb)} GB of weights as stated", True)], findings
            if weights_gb * 1e9 < 0.8 * w:
                # a size too small for the stated format: where the devices hold the weights at that
                # format anyway, a slip in the text that does not bear on the speed ("~210 GB of FP8
                # weights" for Llama 3.1 405B on 8 × MI325X), judged at the format; where the setup
                # only fits at the stated size, the claim rests on an impossible size
                per = (setup.memory_bytes or (setup.gpu.memory_bytes if setup.gpu else 0) or 0)
                holds = per * max(1, setup.count) * 0.9 >= w
                findings.append({"check": "weights_vs_stated_precision", "ok": False,
                                 "severity": "note" if holds else "implausible",
                                 "text": f"{fmt(weights_gb)} GB of weights cannot be {tot / 1e9:,.1f} B parameters at "
                                         f"{r.label} ({_gb(w)})" + (f"; the speed is judged at {r.label}" if holds else "")})
        return [r], findings
    if quant and quant not in ("none", "yes") and not stated_p:
        try:
            return [_reading_for(canonical_precision(quant), m, engine, f"{quant} as stated", True, gguf=gguf,
                                 mlx=words.mlx)], findings
        except TokcheckError:
            pass
    if words.bpw and not stated_p:
        nm = bpw_name(words.bpw)
        return [Reading(f"{words.bpw:g} bits per weight", "released", _scheme_model(m, _all_parts(nm)),
                        f"{words.bpw:g} bits per weight as stated", True)], findings

    # --- unstated: a footprint says the bits
    if weights_gb and weights_gb * 1e9 * 8 / tot >= MIN_BITS_PER_WEIGHT:
        bits = min(16.0, weights_gb * 1e9 * 8 / tot)
        nm = bpw_name(bits)
        return [Reading(f"{bits:.3g} bits per weight", "released", _scheme_model(m, _all_parts(nm)),
                        f"inferred from {fmt(weights_gb)} GB of weights: {bits:.2f} bits per weight", False)], findings
    if used and not words.offload and setup.gpu is not None:
        total_used = used * 1e9 * (setup.count if scope == "per_gpu" else 1)
        bits = total_used * 8 / tot
        rel_bits = weights_bytes(m, "released") * 8 / tot
        if MIN_BITS_PER_WEIGHT <= bits < rel_bits:
            nm = bpw_name(bits)
            return [Reading(f"at most {bits:.3g} bits per weight", "released", _scheme_model(m, _all_parts(nm)),
                            f"the stated {fmt(used)} GB in use holds the weights: at most {bits:.2f} bits per weight",
                            False)], findings

    # --- unstated: the released weights, else what fits, else the usual quantized files
    out = [Reading(rel_label, "released", m, "precision not stated: the model's released weights", False)]
    # llama.cpp's own flags name its quantized files though the engine is not named ("--n-cpu-moe")
    quantized_engine = engine in QUANTIZED_FILE_ENGINES or (engine is None and bool(_LLAMA_CPP_FLAGS.search(claim.text or "")))
    cap = setup.capacity
    host_cap = setup.host.capacity_bytes if setup.host is not None else None
    fits = cap is None or weights_bytes(m, "released") <= cap * WEIGHTS_FIT_FRACTION or (
        words.offload and (host_cap is None or weights_bytes(m, "released") <= (cap + host_cap) * WEIGHTS_FIT_FRACTION))
    if quantized_engine or not fits:
        why = (f"precision not stated and {engine or 'llama.cpp (its flags are in the text)'} runs quantized files "
               "(Ollama's default tags are Q4_K_M)"
               if quantized_engine else "precision not stated and the released weights cannot fit the stated memory")
        ladder = ["FP8", "INT4"] if not quantized_engine else ["Q8_0", "Q6_K", "Q4_K_M"]
        for p in ladder:
            if p in _released_names(m):
                continue
            r = _reading_for(p, m, engine, why, False)
            r.fallback = True
            out.append(r)
        # (offloaded weights have the stated host memory as well)
        room = None if cap is None else cap + (host_cap if words.offload and host_cap else 0)
        if room is not None and (not words.offload or host_cap) and all(weights_bytes(r.model, r.precision) > room * WEIGHTS_FIT_FRACTION for r in out):
            # not even 4 bits fit: the widest of the narrower llama.cpp types that does ("DeepSeek V4
            # Flash on a single H200": 284 B parameters at ~3.9 bits is 138 GB)
            for p in ("Q3_K_M", "Q2_K"):
                # every tensor at that type, the experts too (a file made to fit requantizes them)
                r = Reading(p, "released", _scheme_model(m, _all_parts(p)), why + "; not even 4-bit weights fit", False)
                r.fallback = True
                out.append(r)
                if weights_bytes(r.model, r.precision) <= room * WEIGHTS_FIT_FRACTION:
                    break
    return out, findings


#: How far the GPU's share of a stated layer split may exceed its memory before the split is called
#: impossible: GB against GiB, and a file a little smaller than tokcheck's estimate of its type.
LAYER_SPLIT_MARGIN = 1.15


def layer_split_finding(claim: Claim, reading: Reading, setup: Setup) -> dict | None:
    """A stated layer split that the GPU cannot hold: "a 70B Llama in Q4_K_M (about 35.8 GB) on a
    16GB GPU by offloading 20-30 layers to CPU" leaves 50 of 80 layers, 22 GB, on the GPU.

    The weights are the claim's own figure when it states one (``weights_gb``), else the reading's;
    the GPU's memory is the stated size (GiB, as elsewhere), else the catalog's. Returns a failed
    consistency finding, or None when the split fits or is not stated."""
    f, foot = claim.fields, claim.footprint
    m = reading.model
    layers = foot.get("total_layers") or getattr(m, "num_layers", None)
    on_gpu = foot.get("gpu_layers")
    if on_gpu is None and foot.get("cpu_layers") is not None and layers:
        on_gpu = max(0, layers - foot["cpu_layers"])
    if on_gpu is None or not layers or on_gpu >= layers:
        return None
    count = setup.count if setup.gpu is not None else int(f.get("gpu_count") or 1)
    cap = float(f["gpu_memory_gb"]) * GIB * count if f.get("gpu_memory_gb") else setup.capacity
    if not cap:
        return None
    weights = foot["weights_gb"] * 1e9 if foot.get("weights_gb") else weights_bytes(m, reading.precision)
    held = weights * on_gpu / layers
    if held <= cap * LAYER_SPLIT_MARGIN:
        return None
    if not foot.get("weights_gb") and not reading.stated and \
            total_params(m) * MIN_BITS_PER_WEIGHT / 8 * on_gpu / layers <= cap * LAYER_SPLIT_MARGIN:
        # no precision stated: a file narrow enough for the split may be what ran (DeepSeek-R1's
        # 1.58-bit files put 13 of 61 layers in 32 GB)
        return None
    return {"check": "layer_split_vs_memory", "ok": False,
            "text": f"the stated split leaves {on_gpu} of {layers} layers on the GPU: {held / 1e9:,.1f} GB of "
                    f"{weights / 1e9:,.1f} GB of weights, more than "
                    + (f"the {fmt(f['gpu_memory_gb'])} GB stated" + (f" × {count}" if count > 1 else "")
                       if f.get("gpu_memory_gb") else f"its {cap / 1e9:,.1f} GB")}


__all__ = ["LAYER_SPLIT_ENGINES", "LAYER_SPLIT_MARGIN", "LOCAL_ENGINES", "MIN_BITS_PER_WEIGHT", "QUANTIZED_FILE_ENGINES", "WEIGHTS_FIT_FRACTION", "Reading", "Setup", "Words",
           "layer_split_finding", "read_precisions", "read_setup", "read_words", "sized"]


# ------------------------------------------------------------------------------ models named by size

#: "a 70B model", "7B Q4_0", "7b 模型": a parameter count standing for a model. An active-parameter
#: tag ("30B-A3B") or mixture-of-experts words make a dense stand-in wrong, so none is taken then.
_SIZE = re.compile(r"(?<![\w.])(?<!\d,)(\d{1,4}(?:\.\d+)?)\s?[bB](?![\w+])", re.A)  # ASCII word chars: "的7B模型" is 7B
_MOE_WORDS = re.compile(r"\bmoe\b|mixture|混合专家|专家|\bexperts?\b|(?<![\w.])A\d+(?:\.\d+)?B\b", re.I)
#: How far a stand-in's parameter count may be from the stated size.
STAND_IN_TOLERANCE = 0.12


_FORMAT_WORDS = re.compile(r"(?<![a-z0-9])(?:i?q[1-8](?:_[0-9a-z]+)*|(?:mx|nv)?fp(?:4|8|16|32)|bf16|f16|int[48]|"
                           r"[2-8][\s\-]?bits?|[2-8]\s*位)(?![a-z0-9])", re.I)


def _several_formats(text: str) -> bool:
    """Whether ``text`` names more than one weight format ("GLM-5.1-MXFP4-Q8", "FP16 … Q4")."""
    return len({re.sub(r"[\s\-_]", "", m.group(0).lower()) for m in _FORMAT_WORDS.finditer(text)}) > 1


_STATED_TOTAL_ACTIVE = re.compile(
    r"(?P<tot>\d+(?:\.\d+)?)\s*(?P<tu>B|亿)\s*(?:总参数|总参|total(?:\s+param\w*)?)[^。;.]{0,24}?"
    r"(?P<act>\d+(?:\.\d+)?)\s*(?P<au>B|亿)\s*(?:激活参数|激活|active(?:\s+param\w*)?)", re.I)


def stated_total_active(text: str) -> tuple[str, str] | None:
    """A mixture of experts' total and active parameters as the text states them, in billions
    ("盘古 Pro MoE(720 亿总参数、160 亿激活参数)" → ("72", "16"); "72B total and 16B active
    parameters" → ("72", "16")), else None. 亿 is 10⁸, a tenth of a billion."""
    m = _STATED_TOTAL_ACTIVE.search(text)
    if not m:
        return None

    def billions(n: str, unit: str) -> str:
        return fmt(float(n) / 10) if unit == "亿" else n
    return billions(m.group("tot"), m.group("tu")), billions(m.group("act"), m.group("au"))


def size_mentions(text: str) -> list[tuple[int, float]]:
    """``[(position, billions)]`` of the bare sizes in ``text`` ("a 70B model" → 70); none when
    the text speaks of a mixture of experts."""
    if not text or _MOE_WORDS.search(text):
        return []
    return [(m.start(), float(m.group(1))) for m in _SIZE.finditer(text) if 0.1 <= float(m.group(1)) <= 2000
            and not _DRAFT_AFTER.match(text, m.end())]


# "a 1B draft model": the size of the draft of speculative decoding, not of the claim's model
_DRAFT_AFTER = re.compile(r"[\s\-]*(?:[a-z0-9.\-]+\s+){0,2}draft\b", re.I)


def moe_stand_in(billions: float) -> ModelSpec | None:
    """A catalog mixture-of-experts model whose total parameters are within 2 % of ``billions``,
    for a size no dense catalog model is near and of at least 100B ("a 671B Q8 model" is
    DeepSeek-V3's shape): sizes that large, written exactly, name one of a few MoE models."""
    from tokcheck.core.catalog import models

    if billions < 100:
        return None
    near = [m for m in models() if m.is_moe and abs(total_params(m) / 1e9 - billions) / billions <= 0.02]
    return min(near, key=lambda m: (len(m.name), m.name)) if near else None


def model_family(name: str) -> str:
    """The family word of a model name: its first run of letters, lower case ("Llama 9 8B" →
    ``llama``, "Qwen3.5 9B" → ``qwen``)."""
    m = re.match(r"[^a-z]*([a-z]+)", (name or "").lower())
    return m.group(1) if m else ""


def dense_stand_in(billions: float, name: str | None = None) -> ModelSpec | None:
    """The catalog's dense model with 16-bit released weights whose total parameters are nearest
    ``billions`` (within 12 %): the architecture a model named only by its size is judged with —
    the bound depends on the bytes read per token, which the size and precision set. With
    ``name`` (the unknown model's name as written), a model of the same family ("Llama 9 8B" →
    a Llama) within the tolerance comes before a nearer size of another family. A model whose
    catalog file sets ``stand_in`` false is skipped: Falcon-7B (6.92 B) is nearest a bare 7 B, but
    its single KV head of 64 would put an unknown 7 B model's KV cache at a sixteenth of Mistral
    7B's (8 KV heads of 128)."""
    from tokcheck.core.catalog import _entry_named, models

    kin = model_family(name or "")
    best = None
    for m in models():
        if m.is_moe or any(canonical_precision(v) not in ("BF16", "FP16", "FP32") for v in m.released_weights.values()):
            continue
        if (_entry_named(m.name) or {}).get("stand_in") is False:
            continue  # the catalog file says its shape is no stand-in (Falcon-7B: one KV head)
        d = abs(total_params(m) / 1e9 - billions) / billions
        other_family = not kin or model_family(m.name) != kin
        # equal sizes: the plainest name (a base model)
        key = (other_family, round(d, 3), len(m.name), m.name)
        if d <= STAND_IN_TOLERANCE and (best is None or key < best[0]):
            best = (key, m)
    return best[1] if best else None
