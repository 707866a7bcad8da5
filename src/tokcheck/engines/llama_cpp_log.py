"""Reading llama.cpp's start-up log (pure): what it loaded (:class:`EngineReport`), its
end-of-generation tokens, and why a start failed (:func:`diagnose_failure`, one line).

Two generations of llama.cpp's log lines are read (``docs/engines.md``, "llama.cpp"):

- current (llama-cpp-python 0.3.36's vendored llama.cpp; ``llama-server`` of 2025): ``print_info:
  file type   = Q4_K - Medium``, ``print_info: file size   = 2.18 MiB (5.35 BPW)``,
  ``llama_context: n_ctx = 2048``, ``llama_kv_cache: size = … K (f16): …, V (f16): …``,
  ``load_tensors: layer   N assigned to device CPU`` (tested on real logs,
  ``tests/fixtures/llama_cpp_logs``);
- older (``llama-server``/``llama-cli`` of 2024, ``llm_load_print_meta`` in llama.cpp's
  ``src/llama.cpp``): ``llm_load_print_meta: model ftype      = Q4_K - Medium``, ``… model size
  = 4.58 GiB (4.89 BPW)``, ``llm_load_tensors: offloaded 33/33 layers to GPU``,
  ``llama_new_context_with_model: n_ctx      = 8192``, ``… KV self size  = … K (f16): …``.

Both print ``llama_model_loader: - type q4_K:   24 tensors`` (the tensor types in the file) and
the llama.cpp programs print ``system_info: n_threads = 8 (n_threads_batch = 8) / 16 | …``;
llama-cpp-python does not print its threads, nor its own version (the lifecycle fills both from
the command line and the installed package: :meth:`tokcheck.engines.base.Engine.complete_report`).
"""

from __future__ import annotations

import re

from tokcheck.core.precision import LLAMA_FTYPE_NAMES, canonical_precision
from tokcheck.engines.base import EngineReport
from tokcheck.errors import TokcheckError

# A line only llama.cpp prints (the model loader's first line, the file type): tells its logs apart.
LOG_MARKER = re.compile(r"^llama_model_loader: loaded meta data with|"
                        r"^(?:print_info: file type|llm_load_print_meta: model ftype)\s*=", re.M)

_LOADED = re.compile(r"^llama_model_loader: loaded meta data with \d+ key-value pairs and "
                     r"(\d+) tensors from (.+?) \(version", re.M)
_FILE_TYPE = re.compile(r"^(?:print_info: file type|llm_load_print_meta: model ftype)\s*=\s*"
                        r"(.+?)\s*$", re.M)
_SIZE = re.compile(r"^(?:print_info: file size|llm_load_print_meta: model size)\s*=\s*"
                   r"([\d.]+) (KiB|MiB|GiB) \(([\d.]+) BPW\)", re.M)
_TENSOR_TYPE = re.compile(r"^llama_model_loader: - type\s+(\w+):\s+(\d+) tensors", re.M)
_ARCH = re.compile(r"^(?:print_info|llm_load_print_meta): arch\s*=\s*(\S+)", re.M)
_N_LAYER = re.compile(r"^(?:print_info|llm_load_print_meta): n_layer\s*=\s*(\d+)", re.M)
_N_CTX = re.compile(r"^(?:llama_context|llama_new_context_with_model): n_ctx\s*=\s*(\d+)", re.M)
_N_BATCH = re.compile(r"^(?:llama_context|llama_new_context_with_model): n_batch\s*=\s*(\d+)",
                      re.M)
# current: `llama_kv_cache: size =    4.00 MiB (  2048 cells,   4 layers,  1/1 seqs), K (f16): …`
# older:   `llama_new_context_with_model: KV self size  = 1024.00 MiB, K (f16):  512.00 MiB, …`
_KV = re.compile(r"^(?:llama_kv_cache|llama_kv_cache_unified|llama_new_context_with_model): "
                 r"(?:KV self )?size\s*=\s*([\d.]+) MiB(?: \(\s*(\d+) cells)?.*?K \((\w+)\)",
                 re.M)
_ASSIGNED = re.compile(r"^load_tensors: layer\s+\d+ assigned to device (\S+?),", re.M)
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_THREADS = re.compile(r"^system_info: n_threads = (\d+)", re.M)
_BUILD = re.compile(r"^build: (\d+ \([0-9a-f]+\))", re.M)
_EOG_HEADER = "load: printing all EOG tokens:"
_EOG_LINE = re.compile(r"^load:\s+- (\d+) \(")
_EOG_OLD = re.compile(r"^(?:print_info|llm_load_print_meta): (?:EOG|EOS|EOT|EOM) token\s*=\s*(\d+)",
                      re.M)

#: llama.cpp's float file types: the weights are not quantized (``llama_model_ftype_name``).
FLOAT_FILE_TYPES = {"all F32": "float32", "F16": "float16", "BF16": "bfloat16"}


def file_type_precision(file_type: str) -> str | None:
    """The precision vocabulary's name for a file type llama.cpp prints (``Q4_K - Medium`` →
    ``Q4_K_M``, ``F16`` → ``FP16``; ``(guessed)`` marks are dropped); None when unknown."""
    ft = file_type.replace("(guessed)", "").strip()
    try:
        return canonical_precision(LLAMA_FTYPE_NAMES.get(ft, ft))
    except TokcheckError:
        return None


def tensor_types(text: str) -> dict[str, int]:
    """``{ggml tensor type: count}`` from ``llama_model_loader: - type q4_K:   24 tensors``
    lines (type names upper-cased as in GGUF: ``Q4_K``, ``F32``)."""
    return {t.upper(): int(n) for t, n in _TENSOR_TYPE.findall(text)}


def eog_token_ids(text: str) -> list[int]:
    """The end-of-generation token ids llama.cpp lists at load (``load: printing all EOG
    tokens:`` then ``load:   - 2 ('<|eos|>')``); older logs: the ``EOG/EOS/EOT/EOM token = N``
    lines. Sorted, without duplicates; empty when the log lists none."""
    ids: set[int] = set()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == _EOG_HEADER:
            for nxt in lines[i + 1:]:
                m = _EOG_LINE.match(nxt)
                if not m:
                    break
                ids.add(int(m.group(1)))
            break
    if not ids:
        ids.update(int(x) for x in _EOG_OLD.findall(text))
    return sorted(ids)


def parse_startup_log(text: str) -> EngineReport:
    """Read a llama.cpp log (llama-cpp-python's server or llama.cpp's own programs) into an
    :class:`EngineReport` (``engine="llama.cpp"``).

    ``file_type`` is llama.cpp's own words (``Q4_K - Medium``); ``quantization`` the
    vocabulary's name (``Q4_K_M``) or ``"none"`` for F32/F16/BF16 files, whose ``dtype`` is then
    ``float32``/``float16``/``bfloat16`` (None for quantized files: their tensors mix types, see
    ``tensor_types``). ``bits_per_weight`` is the file's size over its parameters as llama.cpp
    prints it; ``layers_offloaded``/``layers_total`` count the layers on a GPU (0 on a CPU build)
    out of all (the output layer included, as llama.cpp counts). Never raises on odd text.
    """
    rep = EngineReport(engine="llama.cpp")
    if m := _LOADED.search(text):
        rep.model = m.group(2).strip()
    if m := _FILE_TYPE.search(text):
        ft = m.group(1).replace("(guessed)", "").strip()
        rep.file_type = ft
        if ft in FLOAT_FILE_TYPES:
            rep.quantization, rep.dtype = "none", FLOAT_FILE_TYPES[ft]
        else:
            rep.quantization = file_type_precision(ft) or ft
    if m := _SIZE.search(text):
        rep.bits_per_weight = float(m.group(3))
    types = tensor_types(text)
    rep.tensor_types = types or None
    if m := _ARCH.search(text):
        rep.architecture = m.group(1)
    if m := _N_CTX.search(text):
        rep.max_seq_len = int(m.group(1))
    if m := _N_BATCH.search(text):
        rep.batch_size = int(m.group(1))
    if m := _KV.search(text):
        rep.kv_cache_memory_gib = float(m.group(1)) / 1024
        if m.group(2):
            rep.kv_cache_tokens = int(m.group(2))
        rep.kv_cache_dtype = m.group(3)
    if rep.kv_cache_tokens is None and rep.max_seq_len is not None and _KV.search(text):
        rep.kv_cache_tokens = rep.max_seq_len  # one sequence: the cache holds n_ctx tokens
    devices = _ASSIGNED.findall(text)
    if m := _OFFLOADED.search(text):
        rep.layers_offloaded, rep.layers_total = int(m.group(1)), int(m.group(2))
    elif devices:
        rep.layers_total = len(devices)
        rep.layers_offloaded = sum(1 for d in devices if d.upper() != "CPU")
    if devices or _FILE_TYPE.search(text):
        gpu = [d for d in devices if d.upper() != "CPU"]
        if gpu:
            rep.device = re.sub(r"\d+$", "", gpu[0]).lower()  # CUDA0 → cuda
        elif rep.layers_offloaded:
            rep.device = "gpu"
        else:
            rep.device = "cpu"
    if m := _THREADS.search(text):
        rep.threads = int(m.group(1))
    if m := _BUILD.search(text):
        rep.version = f"build {m.group(1)}"
    return rep


_MODEL_BUFFER = re.compile(r"^(?:load_tensors|llm_load_tensors):\s+(\S+) model buffer size =\s+([\d.]+) MiB",
                           re.M)


def model_buffer_bytes(text: str) -> int | None:
    """Bytes of the weights as llama.cpp holds them in memory: the sum of its ``model buffer
    size`` lines (MiB, 2**20 bytes) over every buffer type — on a CPU build the plain ``CPU``
    buffer and, for types it re-lays out for the CPU's vector units (Q4_K, Q4_0, IQ4_NL),
    ``CPU_REPACK``; with a GPU, ``CUDA0`` etc. too. None when the log has no such line.
    Unlike a process's peak resident memory, this does not move with the Python server's heap
    or with the transient copy a repack makes while loading."""
    sizes = _MODEL_BUFFER.findall(text)
    if not sizes:
        return None
    return round(sum(float(mib) for _, mib in sizes) * 2**20)


_EVAL = re.compile(r"^llama_perf_context_print:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs", re.M)


def decode_timings(text: str) -> list[tuple[float, int]]:
    """``(milliseconds, tokens)`` of each request's decode as llama.cpp itself timed it
    (``llama_perf_context_print:        eval time =   106.40 ms /   256 runs   (0.42 ms per
    token, …)``, printed after each request with ``--verbose True``): the engine's own decode
    time, without the HTTP server and Python around it. Prompt-eval lines are not included."""
    return [(float(ms), int(n)) for ms, n in _EVAL.findall(text)]


_PREFIX = re.compile(r"^Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
_PROMPT_EVAL = re.compile(r"^llama_perf_context_print: prompt eval time =\s+[\d.]+ ms /\s+(\d+) "
                          r"tokens")


def prompt_token_counts(text: str) -> list[int]:
    """The prompt length of each request, as llama.cpp counted it: ``prompt eval time = … / N
    tokens``, plus the tokens a ``Llama.generate: A prefix-match hit, remaining N prompt tokens
    to eval`` line says were reused from the previous prompt (llama-cpp-python 0.3.36, with
    ``--verbose True``), in log order."""
    out, reused = [], 0
    for line in text.splitlines():
        if m := _PREFIX.match(line):
            reused = int(m.group(1))
        elif m := _PROMPT_EVAL.match(line):
            out.append(reused + int(m.group(1)))
            reused = 0
    return out


# ---------------------------------------------------------------------------------------------
# Failed starts


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def diagnose_failure(log_text: str, *, model: str = "", port: int | None = None) -> str | None:
    """One line that says why llama.cpp failed to start, from its log (the failed starts of
    ``docs/engines.md``, each a real log in ``tests/fixtures/llama_cpp_logs``): a missing model
    file, a file that is not GGUF, a file llama.cpp cannot load (truncated, an unknown
    pre-tokenizer or architecture — its ``error loading model:`` line), a port in use (seen only
    after the model loaded), a command line it rejects, out of memory; else the last
    ``…Error: …`` line; None when the log shows no cause."""
    where = model or "the model"
    if m := re.search(r"^\w*Error: Model path does not exist: (.+)$", log_text, re.M):
        return f"model file {m.group(1).strip()} does not exist"
    if "invalid magic characters" in log_text:
        return f"{where} is not a GGUF file (it does not start with the bytes 'GGUF')"
    if "address already in use" in log_text.lower():
        p = f"port {port}" if port is not None else "the port"
        return f"{p} is already in use: choose another --port or stop the process that holds it"
    if m := re.search(r"^\S*: error: (argument .+|unrecognized arguments: .+)$", log_text, re.M):
        return f"llama.cpp's server rejected its command line: {_short(m.group(1))}"
    low = log_text.lower()
    if re.search(r"failed to allocate|unable to allocate|cannot allocate memory|out of memory",
                 low):
        line = next((ln for ln in log_text.splitlines()
                     if re.search(r"alloc|out of memory", ln, re.I)), "")
        return (f"out of memory loading {where} ({_short(line, 140)}); try in order: 1) end "
                "processes holding memory; 2) a smaller context (--max-model-len, llama.cpp's "
                "n_ctx); 3) a smaller quantization of the model (e.g. Q4_K_M); 4) a machine "
                "with more memory")
    causes = re.findall(r"llama_model_load: error loading model: (.+)$", log_text, re.M)
    if causes:
        cause = causes[-1].strip()
        if cause.startswith("llama_model_loader: failed to load model"):
            cause = "the file could not be read as a model"
        return f"llama.cpp could not load {where}: {_short(cause)}"
    errors = re.findall(r"^(\w*(?:Error|Exception)): (.+)$", log_text, re.M)
    if errors:
        name, msg = errors[-1]
        return f"llama.cpp failed to start: {name}: {_short(msg)}"
    return None
