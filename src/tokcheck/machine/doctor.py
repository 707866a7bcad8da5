"""know the machine (GPUs, driver, CUDA, Python, PyTorch, engines) and check a
planned deployment against the guide's pre-deployment checklist (``docs/guide.md``).

I/O sits at the edges — :func:`environment_report` (NVML, subprocesses) and
:func:`gather_checklist_inputs` (the model directory, the disk) — and the judgements are pure:
:func:`find_mismatches` and :func:`evaluate_checklist` take values and return values.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tokcheck import __version__
from tokcheck.core.precision import torch_dtype
from tokcheck.core.units import fmt_bytes, fmt_count
from tokcheck.machine.throttle import decode_clock_event_reasons, throttling_reasons

PASS, FAIL, UNKNOWN = "pass", "fail", "unknown"
GIB = 1024**3

# Weight files an engine loads (safetensors, PyTorch pickles, GGUF).
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
# Files a Hugging Face tokenizer can be loaded from (tokenizers' JSON, SentencePiece, BPE pair).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "tiktoken.model", "vocab.json")
# Largest gpu_memory_utilization that still leaves a margin: the guide's first choice is 0.9,
# lowered to 0.8 on OOM (docs/guide.md, symptom guides); vLLM's own default is 0.9.
GPU_MEMORY_UTILIZATION_MAX_WITH_MARGIN = 0.9
# max_model_len above this multiple of the planned need reserves KV cache for contexts the
# workload never uses (the guide's example: 32768 → 8192 when requests are short).
MAX_MODEL_LEN_SLACK = 4
MIN_ROUNDS = 3  # the guide: 3–5 rounds, drop highest and lowest, report the median


# ---------------------------------------------------------------------------------------------
# Environment


def _version(text: str | None):
    from packaging.version import InvalidVersion, Version

    if text is None:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _major_minor(text: str | None) -> tuple[int, int] | None:
    v = _version(text)
    return (v.major, v.minor) if v is not None else None


def find_mismatches(gpu: dict[str, Any], toolchain: dict[str, Any]) -> list[str]:
    """Named incompatibilities between driver, CUDA toolkit, PyTorch, engines and Python.

    Args:
        gpu: :meth:`tokcheck.machine.nvml.NvmlReport.to_dict` output.
        toolchain: :func:`tokcheck.machine.toolchain.toolchain_report` output.

    Returns:
        One sentence per mismatch (empty when none is seen). Rules: a PyTorch CUDA build or an
        ``nvcc`` newer than the newest CUDA the driver supports (the driver's CUDA version is
        what ``nvmlSystemGetCudaDriverVersion`` reports; CUDA's compatibility guide: a toolkit
        needs a driver at least as new, minor-version compatibility aside); a CPU-only PyTorch
        or one that sees no GPU on a machine with a GPU; an ``nvcc`` whose major version differs
        from PyTorch's CUDA build (extensions compiled with it will not load); an engine's
        pinned PyTorch or Requires-Python not met in its environment.
    """
    from packaging.markers import InvalidMarker
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    out: list[str] = []
    has_gpu = bool(gpu.get("available"))
    driver_cuda = _major_minor(gpu.get("cuda_driver_version")) if has_gpu else None
    nvcc = toolchain.get("nvcc") or {}
    nvcc_release = _major_minor(nvcc.get("release"))
    if driver_cuda and nvcc_release and nvcc_release > driver_cuda:
        out.append(f"nvcc is CUDA {nvcc.get('release')} but the driver "
                   f"{gpu.get('driver_version')} supports CUDA up to "
                   f"{gpu.get('cuda_driver_version')}")
    for env in toolchain.get("environments") or []:
        where = env.get("python", "?")
        if env.get("error"):
            continue
        torch = env.get("torch") or None
        if torch and not torch.get("import_error"):
            build = torch.get("cuda_build")
            build_mm = _major_minor(build)
            if has_gpu and build is None:
                out.append(f"PyTorch {torch.get('version')} in {where} is a CPU-only build; "
                           "it cannot use the GPU")
            elif has_gpu and not torch.get("cuda_available"):
                out.append(f"PyTorch {torch.get('version')} in {where} (CUDA {build}) "
                           "does not see the GPU")
            if driver_cuda and build_mm and build_mm > driver_cuda:
                out.append(f"PyTorch {torch.get('version')} in {where} is built for CUDA {build}, "
                           f"newer than the driver's CUDA {gpu.get('cuda_driver_version')}")
            if build_mm and nvcc_release and build_mm[0] != nvcc_release[0]:
                out.append(f"nvcc is CUDA {nvcc.get('release')} but PyTorch in {where} is built "
                           f"for CUDA {build}: extensions compiled with this nvcc will not load")
        elif torch and torch.get("import_error"):
            out.append(f"PyTorch {torch.get('version')} in {where} fails to import: "
                       f"{torch['import_error']}")
        marker_env = env.get("marker_environment") or None
        for engine, info in (env.get("engines") or {}).items():
            name = f"{info.get('distribution', engine)} {info.get('version')}"
            requires_python = info.get("requires_python")
            if requires_python and env.get("python_version"):
                try:
                    if not SpecifierSet(requires_python).contains(env["python_version"],
                                                                  prereleases=True):
                        out.append(f"{name} requires Python {requires_python} but {where} is "
                                   f"Python {env['python_version']}")
                except InvalidSpecifier:
                    pass
            for text in info.get("torch_requirements") or []:
                try:
                    req = Requirement(text)
                    if req.marker is not None and not req.marker.evaluate(marker_env):
                        continue
                except (InvalidRequirement, InvalidMarker):
                    continue
                if torch is None:
                    out.append(f"{name} requires {req.name}{req.specifier} but {where} has no "
                               "PyTorch")
                elif not req.specifier.contains(torch.get("version", ""), prereleases=True):
                    out.append(f"{name} requires {req.name}{req.specifier} but {where} has "
                               f"PyTorch {torch.get('version')}")
    return out


def _decorate_gpus(gpu: dict[str, Any]) -> dict[str, Any]:
    for g in gpu.get("gpus") or []:
        mask = g.get("clock_event_reasons_mask")
        g["clock_event_reasons"] = decode_clock_event_reasons(mask) if mask is not None else None
        g["throttling"] = throttling_reasons(mask) if mask is not None else None
    return gpu


def environment_report(gpu: dict[str, Any] | None = None,
                       toolchain: dict[str, Any] | None = None) -> dict[str, Any]:
    """The machine, for the doctor and for run.json ``environment``.

    Reads NVML (:func:`tokcheck.machine.nvml.read_report`) and probes the toolchain
    (:func:`tokcheck.machine.toolchain.toolchain_report`) unless given. Never raises for a missing GPU:
    ``gpu.available`` is then ``False`` with ``gpu.reason``.

    Returns:
        ``{"tokcheck_version", "created_at", "gpu", "toolchain", "mismatches"}``; every GPU in
        ``gpu.gpus`` also has ``clock_event_reasons`` and ``throttling`` decoded.
    """
    if gpu is None:
        from tokcheck.machine.nvml import read_report

        gpu = read_report().to_dict()
    if toolchain is None:
        from tokcheck.machine.toolchain import toolchain_report

        toolchain = toolchain_report()
    gpu = _decorate_gpus(gpu)
    return {
        "tokcheck_version": __version__,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "gpu": gpu,
        "toolchain": toolchain,
        "mismatches": find_mismatches(gpu, toolchain),
    }


# ---------------------------------------------------------------------------------------------
# The pre-deployment checklist


@dataclass(frozen=True)
class CheckItem:
    """One checklist line: ``status`` is ``"pass"``, ``"fail"`` or ``"unknown"``; ``evidence``
    says what it rests on (one sentence)."""

    key: str
    title: str
    status: str
    evidence: str


@dataclass
class ChecklistInputs:
    """What the checklist judges. ``None`` means not known (never a silent default).

    Byte counts are bytes; ``budget`` is ``tokcheck.core.roofline.MemoryBudget`` as a dict
    (``required_bytes``, ``available_bytes``, ``fits``, ``weights_bytes``,
    ``kv_bytes_per_token``, ``max_concurrent_seqs``, ``min_tensor_parallel``) or ``None`` with
    ``budget_reason``; ``precision`` is ``PrecisionReport.to_dict()`` or ``None`` with
    ``precision_reason``.
    """

    model_dir: str | None = None
    weights_bytes_on_disk: int | None = None
    disk_free_bytes: int | None = None
    budget: dict[str, Any] | None = None
    budget_reason: str | None = None
    precision: dict[str, Any] | None = None
    precision_reason: str | None = None
    config_dtype: str | None = None
    model_max_position: int | None = None
    tokenizer_files: list[str] = field(default_factory=list)
    gpu_present: bool = False
    gpu_memory_total_bytes: int | None = None
    gpu_memory_used_bytes: int | None = None
    mismatches: list[str] = field(default_factory=list)
    toolchain_summary: str | None = None
    dtype: str | None = None
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    concurrency: int | None = None
    input_len: int | None = None
    output_len: int | None = None
    rounds: int | None = None


def _gib(n: float | None) -> str:
    """Bytes as every tokcheck message prints them (decimal units,
    :func:`tokcheck.core.units.fmt_bytes`)."""
    return fmt_bytes(n)


def _engine_dtype(text: str | None) -> str | None:
    """An engine ``--dtype`` value in the engine's spelling (``bf16`` → ``bfloat16``), ``auto``
    as it is, None for what is not a full-precision dtype (the vocabulary:
    :func:`tokcheck.core.precision.torch_dtype`)."""
    if text is not None and str(text).strip().lower() == "auto":
        return "auto"
    return torch_dtype(text) if text else None


# The evidence of every item that needs the model directory when there is none.
NO_MODEL = "no --model given"


def _check_disk(i: ChecklistInputs) -> CheckItem:
    title = "disk space for the weights"
    if i.model_dir is None:
        return CheckItem("disk_space", title, UNKNOWN, NO_MODEL)
    expected = (i.budget or {}).get("weights_bytes")
    on_disk = i.weights_bytes_on_disk or 0
    free = i.disk_free_bytes
    if expected and on_disk >= 0.98 * expected:
        return CheckItem("disk_space", title, PASS,
                         f"weights on disk: {_gib(on_disk)} (expected {_gib(expected)}); "
                         f"{_gib(free)} free")
    if expected and free is not None:
        missing = expected - on_disk
        status = PASS if free >= missing else FAIL
        return CheckItem("disk_space", title, status,
                         f"{_gib(missing)} of {_gib(expected)} weights still to store; "
                         f"{_gib(free)} free")
    if on_disk > 0:
        return CheckItem("disk_space", title, PASS,
                         f"weights on disk: {_gib(on_disk)}; {_gib(free)} free "
                         "(expected size unknown: no memory budget)")
    return CheckItem("disk_space", title, UNKNOWN,
                     f"no weight files in {i.model_dir} and no expected size; {_gib(free)} free")


def _check_fit(i: ChecklistInputs) -> CheckItem:
    title = "weights + KV cache + overhead fit"
    b = i.budget
    if b is None:
        why = NO_MODEL if i.model_dir is None else i.budget_reason or "no memory budget"
        return CheckItem("memory_fit", title, UNKNOWN, why)
    extra = ""
    if b.get("max_concurrent_seqs") is not None:
        extra += f"; {fmt_count(b['max_concurrent_seqs'], 'sequences')} of max_model_len fit"
    if not b.get("fits") and b.get("min_tensor_parallel"):
        extra += f"; needs tensor parallel {b['min_tensor_parallel']}"
    evidence = (f"required {_gib(b.get('required_bytes'))} (weights {_gib(b.get('weights_bytes'))}"
                f", KV cache {fmt_bytes(b.get('kv_bytes_per_token'))} per token) vs available "
                f"{_gib(b.get('available_bytes'))}{extra}")
    if b.get("fits") is None:
        why = f" ({b['reason']})" if b.get("reason") else ""
        return CheckItem("memory_fit", title, UNKNOWN, evidence + why)
    return CheckItem("memory_fit", title, PASS if b["fits"] else FAIL, evidence)


def _check_compat(i: ChecklistInputs) -> CheckItem:
    title = "driver / CUDA / Python / engine compatible"
    if i.mismatches:
        return CheckItem("compatibility", title, FAIL, "; ".join(i.mismatches))
    summary = i.toolchain_summary or "no engine environment found"
    if not i.gpu_present:
        return CheckItem("compatibility", title, UNKNOWN,
                         f"no NVIDIA driver to check CUDA against; otherwise consistent: {summary}")
    return CheckItem("compatibility", title, PASS, f"no mismatch found: {summary}")


def _check_precision(i: ChecklistInputs) -> CheckItem:
    title = "only unquantized weights in the directory"
    p = i.precision
    if p is None:
        why = NO_MODEL if i.model_dir is None else i.precision_reason or "weights audit gave no result"
        return CheckItem("unquantized", title, UNKNOWN, why)
    reasons = "; ".join(p.get("reasons") or []) or "no reasons given"
    full = p.get("full_precision")
    status = UNKNOWN if full is None else PASS if full else FAIL
    return CheckItem("unquantized", title, status, reasons)


def _check_dtype(i: ChecklistInputs) -> CheckItem:
    title = "dtype explicit"
    if i.model_dir is None:
        cfg = NO_MODEL + " to compare with"
    else:
        cfg = f"config.json says {i.config_dtype}" if i.config_dtype else "config.json has no dtype"
    if i.dtype is None:
        return CheckItem("dtype", title, UNKNOWN, f"not given (--dtype); {cfg}")
    d = _engine_dtype(i.dtype)
    if d == "auto" or d is None:
        return CheckItem("dtype", title, FAIL,
                         f"dtype {i.dtype!r} is not explicit: the engine picks it ({cfg})")
    want = _engine_dtype(i.config_dtype)
    if want and want != d and want != "float32":
        return CheckItem("dtype", title, FAIL, f"{d} differs from the weights' dtype ({cfg})")
    return CheckItem("dtype", title, PASS, f"{d}; {cfg}")


def _check_max_model_len(i: ChecklistInputs) -> CheckItem:
    title = "max_model_len set from need"
    mml = i.max_model_len
    if mml is None:
        return CheckItem("max_model_len", title, UNKNOWN,
                         "not given (--max-model-len); engines default to the model's maximum"
                         + (f" ({i.model_max_position})" if i.model_max_position else ""))
    if i.model_max_position and mml > i.model_max_position:
        return CheckItem("max_model_len", title, FAIL,
                         f"{mml} exceeds the model's max_position_embeddings "
                         f"{i.model_max_position}")
    if i.input_len is None or i.output_len is None:
        if i.model_max_position and mml == i.model_max_position:
            return CheckItem("max_model_len", title, FAIL,
                             f"{mml} is the model's maximum, not a need; give --input-len and "
                             "--output-len to size it")
        return CheckItem("max_model_len", title, UNKNOWN,
                         f"{mml}; no planned lengths to compare (--input-len, --output-len)")
    need = i.input_len + i.output_len
    if mml < need:
        return CheckItem("max_model_len", title, FAIL,
                         f"{mml} < input {i.input_len} + output {i.output_len} = {need}")
    if mml > MAX_MODEL_LEN_SLACK * need and mml > 4096:
        return CheckItem("max_model_len", title, FAIL,
                         f"{mml} is over {MAX_MODEL_LEN_SLACK}× the need of {need} tokens: KV "
                         "cache reserved for contexts the workload never uses")
    return CheckItem("max_model_len", title, PASS, f"{mml} for a need of {need} tokens")


def _check_gmu(i: ChecklistInputs) -> CheckItem:
    title = "gpu_memory_utilization with margin"
    u = i.gpu_memory_utilization
    if u is None:
        return CheckItem("gpu_memory_utilization", title, UNKNOWN,
                         "not given (--gpu-memory-utilization); vLLM's default is 0.9")
    if not 0 < u <= 1:
        return CheckItem("gpu_memory_utilization", title, FAIL, f"{u} is outside (0, 1]")
    if u > GPU_MEMORY_UTILIZATION_MAX_WITH_MARGIN:
        return CheckItem("gpu_memory_utilization", title, FAIL,
                         f"{u} leaves under {1 - GPU_MEMORY_UTILIZATION_MAX_WITH_MARGIN:.0%} for "
                         "the CUDA context and other processes (the guide uses 0.9, then 0.8)")
    total, used = i.gpu_memory_total_bytes, i.gpu_memory_used_bytes
    if total and used is not None and used > (1 - u) * total:
        return CheckItem("gpu_memory_utilization", title, FAIL,
                         f"{u}, but {_gib(used)} of {_gib(total)} is already in use: the engine "
                         f"needs {_gib(u * total)} free at start-up")
    held = f"; {_gib(used)} of {_gib(total)} in use now" if total and used is not None else ""
    return CheckItem("gpu_memory_utilization", title, PASS, f"{u}{held}")


def _check_tokenizer(i: ChecklistInputs) -> CheckItem:
    title = "tokenizer present"
    if i.model_dir is None:
        return CheckItem("tokenizer", title, UNKNOWN, NO_MODEL)
    if i.tokenizer_files:
        return CheckItem("tokenizer", title, PASS, ", ".join(i.tokenizer_files))
    return CheckItem("tokenizer", title, FAIL,
                     f"none of {', '.join(TOKENIZER_FILES)} in {i.model_dir}")


def _check_plan(i: ChecklistInputs) -> CheckItem:
    title = "fixed input/output lengths and concurrency"
    given = {"--input-len": i.input_len, "--output-len": i.output_len,
             "--concurrency": i.concurrency}
    missing = [k for k, v in given.items() if v is None]
    if missing:
        return CheckItem("fixed_workload", title, UNKNOWN, f"not given: {', '.join(missing)}")
    bad = [k for k, v in given.items() if v <= 0]
    if bad:
        return CheckItem("fixed_workload", title, FAIL, f"must be positive: {', '.join(bad)}")
    return CheckItem("fixed_workload", title, PASS,
                     f"input {i.input_len}, output {i.output_len}, concurrency {i.concurrency}")


def _check_rounds(i: ChecklistInputs) -> CheckItem:
    title = f"at least {MIN_ROUNDS} rounds, median not maximum"
    if i.rounds is None:
        return CheckItem("rounds", title, UNKNOWN, "not given (--rounds)")
    status = PASS if i.rounds >= MIN_ROUNDS else FAIL
    return CheckItem("rounds", title, status,
                     f"{i.rounds} rounds; tokcheck bench reports the trimmed median")


_CHECKS = (_check_disk, _check_fit, _check_compat, _check_precision, _check_dtype,
           _check_max_model_len, _check_gmu, _check_tokenizer, _check_plan, _check_rounds)


def evaluate_checklist(inputs: ChecklistInputs) -> list[CheckItem]:
    """The guide's pre-deployment checklist (``docs/guide.md``), one :class:`CheckItem` per item, in order:
    disk space, memory fit, compatibility, unquantized weights, explicit dtype, max_model_len
    from need, gpu_memory_utilization margin, tokenizer, fixed workload, rounds. Pure."""
    return [check(inputs) for check in _CHECKS]


# ---------------------------------------------------------------------------------------------
# Gathering the checklist's inputs (I/O)


def _toolchain_summary(toolchain: dict[str, Any]) -> str:
    parts = [f"Python {toolchain.get('python', {}).get('version')}"]
    for env in toolchain.get("environments") or []:
        for engine, info in (env.get("engines") or {}).items():
            torch = (env.get("torch") or {}).get("version")
            with_torch = f"with PyTorch {torch}" if torch else "without PyTorch"
            parts.append(f"{info.get('distribution', engine)} {info.get('version')} {with_torch} "
                         f"on Python {env.get('python_version')}")
    return "; ".join(parts)


def _config(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "config.json"
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def _memory_budget(model_dir: Path, gpu_name: str | None, dtype: str | None,
                   max_model_len: int | None, concurrency: int | None,
                   gpu_memory_utilization: float | None) -> tuple[dict | None, str | None]:
    """``tokcheck.core.roofline.memory_budget`` for this model and plan, or why not."""
    if gpu_name is None:
        return None, "no GPU detected and no --gpu given: nothing to fit into"
    if max_model_len is None:
        return None, "no --max-model-len: the KV cache size is undefined"
    try:
        from tokcheck.core import catalog
        from tokcheck.core import roofline
    except ImportError:
        return None, "the memory budget (tokcheck.core.roofline) is not in this build"
    from tokcheck.errors import TokcheckError

    try:
        model = catalog.model_from_config(model_dir)
        gpu = catalog.find_gpu(gpu_name)
        budget = roofline.memory_budget(
            model, gpu, dtype or "bfloat16", max_model_len, concurrency or 1,
            gpu_memory_utilization=gpu_memory_utilization if gpu_memory_utilization else 0.9)
    except TokcheckError as err:
        return None, f"memory budget: {err}"
    data = budget.to_dict() if hasattr(budget, "to_dict") else (
        budget.model_dump() if hasattr(budget, "model_dump") else asdict(budget))
    return data, None


def _precision(model_dir: Path) -> tuple[dict | None, str | None]:
    try:
        from tokcheck.machine.weights import audit_model_dir
    except ImportError:
        return None, "the weights audit (tokcheck.machine.weights) is not in this build"
    from tokcheck.errors import TokcheckError

    try:
        return audit_model_dir(model_dir).to_dict(), None
    except TokcheckError as err:
        return None, f"weights audit: {err}"


def gather_checklist_inputs(environment: dict[str, Any], *, model_dir: str | Path | None = None,
                            gpu_name: str | None = None, dtype: str | None = None,
                            max_model_len: int | None = None, concurrency: int | None = None,
                            gpu_memory_utilization: float | None = None,
                            input_len: int | None = None, output_len: int | None = None,
                            rounds: int | None = None) -> ChecklistInputs:
    """Read what the checklist needs from the model directory, the disk and ``environment``.

    Raises:
        TokcheckError: when ``model_dir`` is given but is not a directory.
    """
    from tokcheck.errors import TokcheckError

    gpu = environment.get("gpu") or {}
    first = (gpu.get("gpus") or [{}])[0] if gpu.get("available") else {}
    inputs = ChecklistInputs(
        gpu_present=bool(gpu.get("available")),
        gpu_memory_total_bytes=first.get("memory_total_bytes"),
        gpu_memory_used_bytes=first.get("memory_used_bytes"),
        mismatches=list(environment.get("mismatches") or []),
        toolchain_summary=_toolchain_summary(environment.get("toolchain") or {}),
        dtype=dtype, max_model_len=max_model_len, concurrency=concurrency,
        gpu_memory_utilization=gpu_memory_utilization, input_len=input_len,
        output_len=output_len, rounds=rounds,
    )
    if model_dir is None:
        inputs.budget_reason = NO_MODEL
        inputs.precision_reason = NO_MODEL
        return inputs
    path = Path(model_dir)
    if not path.is_dir():
        raise TokcheckError(f"model directory not found: {path}")
    inputs.model_dir = str(path)
    inputs.weights_bytes_on_disk = sum(
        p.stat().st_size for p in path.rglob("*")
        if p.is_file() and p.suffix in WEIGHT_SUFFIXES and not p.name.startswith("."))
    inputs.disk_free_bytes = shutil.disk_usage(path).free
    cfg = _config(path)
    inputs.config_dtype = cfg.get("torch_dtype") or cfg.get("dtype")
    inputs.model_max_position = cfg.get("max_position_embeddings")
    inputs.tokenizer_files = [n for n in TOKENIZER_FILES if (path / n).exists()]
    inputs.budget, inputs.budget_reason = _memory_budget(
        path, gpu_name or first.get("name"), dtype or inputs.config_dtype, max_model_len,
        concurrency, gpu_memory_utilization)
    inputs.precision, inputs.precision_reason = _precision(path)
    return inputs


def doctor(*, model_dir: str | Path | None = None, gpu_name: str | None = None,
           dtype: str | None = None, max_model_len: int | None = None,
           concurrency: int | None = None, gpu_memory_utilization: float | None = None,
           input_len: int | None = None, output_len: int | None = None,
           rounds: int | None = None,
           environment: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole doctor: the environment, and the checklist for a model and plan.

    Returns:
        ``{"environment": …, "checklist": [CheckItem as dict, …]}``; the checklist is
        evaluated always (items without their inputs are ``unknown``).

    Raises:
        TokcheckError: for a model directory that does not exist.
    """
    from tokcheck.errors import TokcheckError

    if model_dir is not None and not Path(model_dir).is_dir():
        raise TokcheckError(f"model directory not found: {model_dir}")
    env = environment if environment is not None else environment_report()
    inputs = gather_checklist_inputs(
        env, model_dir=model_dir, gpu_name=gpu_name, dtype=dtype, max_model_len=max_model_len,
        concurrency=concurrency, gpu_memory_utilization=gpu_memory_utilization,
        input_len=input_len, output_len=output_len, rounds=rounds)
    return {"environment": env,
            "checklist": [asdict(c) for c in evaluate_checklist(inputs)],
            "checklist_inputs": asdict(inputs)}
