"""The only module that calls NVML (through ``nvidia-ml-py``'s ``pynvml``): a thin adapter that
returns plain dataclasses.

Every ``NVMLError`` becomes data: a field NVML cannot answer is ``None`` and its error text is
kept in that GPU's ``errors`` (field name → NVML's message, e.g. ``"Not Supported"``). A machine
without an NVIDIA GPU or driver is one state, :attr:`NvmlReport.available` ``False`` with a
one-line :attr:`NvmlReport.reason`; nothing here raises for it.

Units follow NVML's documentation, converted where the name says so: NVML reports power in
milliwatts (``nvmlDeviceGetPowerUsage``, ``nvmlDeviceGetEnforcedPowerLimit``) — stored in watts;
memory in bytes; clocks in MHz; temperature in °C; utilization in percent over NVML's last
sample period (between 1/6 s and 1 s depending on the product); energy in millijoules since
the driver was last loaded (``nvmlDeviceGetTotalEnergyConsumption``, Volta and newer; "Not
Supported" on older GPUs), kept in mJ as NVML gives it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable

# The sample is a record of the run directory (gpu_samples.jsonl); its type lives there.
from tokcheck.record.schema import GpuSample

__all__ = ["GpuInfo", "GpuProcess", "GpuSample", "NvmlReport", "NvmlSession", "read_report"]


@dataclass(frozen=True)
class GpuProcess:
    """A process holding GPU memory (``nvmlDeviceGetComputeRunningProcesses`` /
    ``…GraphicsRunningProcesses``). ``used_memory_bytes`` is ``None`` where NVML cannot see it
    (e.g. inside a container without the host PID namespace)."""

    pid: int
    name: str | None
    used_memory_bytes: int | None
    kind: str  # "compute" or "graphics"


@dataclass(frozen=True)
class GpuInfo:
    """Everything the doctor shows about one GPU. ``None`` = NVML could not say (see ``errors``)."""

    index: int
    name: str | None = None
    uuid: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    memory_free_bytes: int | None = None
    utilization_gpu_pct: int | None = None
    utilization_memory_pct: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    temperature_c: int | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    memory_clock_mhz: int | None = None
    memory_clock_max_mhz: int | None = None
    clock_event_reasons_mask: int | None = None
    persistence_mode: bool | None = None
    ecc_enabled: bool | None = None
    ecc_errors_corrected_volatile: int | None = None
    ecc_errors_uncorrected_volatile: int | None = None
    processes: tuple[GpuProcess, ...] = ()
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GpuInfo:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["processes"] = tuple(GpuProcess(**p) for p in data.get("processes") or ())
        values["errors"] = dict(data.get("errors") or {})
        return cls(**values)


@dataclass(frozen=True)
class NvmlReport:
    """The machine as NVML sees it. ``available`` is ``False`` on a machine without an NVIDIA
    GPU or driver, with ``reason`` one line saying why."""

    available: bool
    reason: str | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # "12.4": the newest CUDA the driver supports
    nvml_version: str | None = None
    gpus: tuple[GpuInfo, ...] = ()
    errors: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NvmlReport:
        return cls(
            available=bool(data["available"]),
            reason=data.get("reason"),
            driver_version=data.get("driver_version"),
            cuda_driver_version=data.get("cuda_driver_version"),
            nvml_version=data.get("nvml_version"),
            gpus=tuple(GpuInfo.from_dict(g) for g in data.get("gpus") or ()),
            errors=dict(data.get("errors") or {}),
        )


def cuda_version_string(version: int) -> str:
    """NVML's integer CUDA driver version (``1000 * major + 10 * minor``, e.g. 12040, as
    ``nvmlSystemGetCudaDriverVersion`` documents) as ``"12.4"``."""
    return f"{version // 1000}.{(version % 1000) // 10}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class _Calls:
    """Runs NVML calls, turning each NVMLError into ``None`` plus an entry in ``errors``."""

    def __init__(self, pynvml: Any) -> None:
        self.pynvml = pynvml
        self.errors: dict[str, str] = {}

    def __call__(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except self.pynvml.NVMLError as err:
            self.errors[name] = str(err)
            return None


def _import_pynvml() -> tuple[Any | None, str | None]:
    try:
        import pynvml
    except ImportError as err:  # nvidia-ml-py is a dependency; an odd install can lack it.
        return None, f"nvidia-ml-py is not importable ({err})"
    return pynvml, None


def _init(pynvml: Any) -> str | None:
    """``nvmlInit``; the reason it failed as one line, or ``None``."""
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as err:
        return f"no NVIDIA GPU or driver (NVML: {err})"
    return None


def _processes(pynvml: Any, handle: Any, call: _Calls) -> tuple[GpuProcess, ...]:
    found: dict[tuple[int, str], GpuProcess] = {}
    for kind, fn_name in (("compute", "nvmlDeviceGetComputeRunningProcesses"),
                          ("graphics", "nvmlDeviceGetGraphicsRunningProcesses")):
        procs = call(f"{kind}_processes", getattr(pynvml, fn_name), handle) or []
        for proc in procs:
            used = getattr(proc, "usedGpuMemory", None)
            # NVML_VALUE_NOT_AVAILABLE ((unsigned long long)-1) arrives as None in pynvml.
            name = call(f"process_name_{proc.pid}", pynvml.nvmlSystemGetProcessName, proc.pid)
            found[(proc.pid, kind)] = GpuProcess(
                pid=int(proc.pid), name=_text(name) if name is not None else None,
                used_memory_bytes=int(used) if used is not None else None, kind=kind)
    return tuple(found.values())


def _gpu_info(pynvml: Any, index: int) -> GpuInfo:
    call = _Calls(pynvml)
    handle = call("handle", pynvml.nvmlDeviceGetHandleByIndex, index)
    if handle is None:
        return GpuInfo(index=index, errors=call.errors)
    name = call("name", pynvml.nvmlDeviceGetName, handle)
    uuid = call("uuid", pynvml.nvmlDeviceGetUUID, handle)
    mem = call("memory", pynvml.nvmlDeviceGetMemoryInfo, handle)
    util = call("utilization", pynvml.nvmlDeviceGetUtilizationRates, handle)
    power_mw = call("power_draw", pynvml.nvmlDeviceGetPowerUsage, handle)
    limit_mw = call("power_limit", pynvml.nvmlDeviceGetEnforcedPowerLimit, handle)
    ecc = call("ecc_mode", pynvml.nvmlDeviceGetEccMode, handle)
    ecc_on = bool(ecc[0]) if ecc is not None else None
    corrected = uncorrected = None
    if ecc_on:
        corrected = call("ecc_errors_corrected", pynvml.nvmlDeviceGetTotalEccErrors, handle,
                         pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_VOLATILE_ECC)
        uncorrected = call("ecc_errors_uncorrected", pynvml.nvmlDeviceGetTotalEccErrors, handle,
                           pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC)
    persistence = call("persistence_mode", pynvml.nvmlDeviceGetPersistenceMode, handle)
    return GpuInfo(
        index=index,
        name=_text(name) if name is not None else None,
        uuid=_text(uuid) if uuid is not None else None,
        memory_total_bytes=int(mem.total) if mem is not None else None,
        memory_used_bytes=int(mem.used) if mem is not None else None,
        memory_free_bytes=int(mem.free) if mem is not None else None,
        utilization_gpu_pct=int(util.gpu) if util is not None else None,
        utilization_memory_pct=int(util.memory) if util is not None else None,
        power_draw_w=power_mw / 1000 if power_mw is not None else None,
        power_limit_w=limit_mw / 1000 if limit_mw is not None else None,
        temperature_c=call("temperature", pynvml.nvmlDeviceGetTemperature, handle,
                           pynvml.NVML_TEMPERATURE_GPU),
        sm_clock_mhz=call("sm_clock", pynvml.nvmlDeviceGetClockInfo, handle, pynvml.NVML_CLOCK_SM),
        sm_clock_max_mhz=call("sm_clock_max", pynvml.nvmlDeviceGetMaxClockInfo, handle,
                              pynvml.NVML_CLOCK_SM),
        memory_clock_mhz=call("memory_clock", pynvml.nvmlDeviceGetClockInfo, handle,
                              pynvml.NVML_CLOCK_MEM),
        memory_clock_max_mhz=call("memory_clock_max", pynvml.nvmlDeviceGetMaxClockInfo, handle,
                                  pynvml.NVML_CLOCK_MEM),
        clock_event_reasons_mask=call("clock_event_reasons",
                                      pynvml.nvmlDeviceGetCurrentClocksEventReasons, handle),
        persistence_mode=(persistence == pynvml.NVML_FEATURE_ENABLED)
        if persistence is not None else None,
        ecc_enabled=ecc_on,
        ecc_errors_corrected_volatile=corrected,
        ecc_errors_uncorrected_volatile=uncorrected,
        processes=_processes(pynvml, handle, call),
        errors=call.errors,
    )


def read_report() -> NvmlReport:
    """Read every GPU once: NVML init, queries, shutdown. Never raises for NVML's errors."""
    pynvml, reason = _import_pynvml()
    if pynvml is None:
        return NvmlReport(available=False, reason=reason)
    reason = _init(pynvml)
    if reason is not None:
        return NvmlReport(available=False, reason=reason)
    try:
        call = _Calls(pynvml)
        driver = call("driver_version", pynvml.nvmlSystemGetDriverVersion)
        cuda = call("cuda_driver_version", pynvml.nvmlSystemGetCudaDriverVersion)
        nvml_version = call("nvml_version", pynvml.nvmlSystemGetNVMLVersion)
        count = call("device_count", pynvml.nvmlDeviceGetCount)
        gpus = tuple(_gpu_info(pynvml, i) for i in range(count or 0))
        available = bool(gpus)
        return NvmlReport(
            available=available,
            reason=None if available else "NVML is loaded but reports no GPU",
            driver_version=_text(driver) if driver is not None else None,
            cuda_driver_version=cuda_version_string(cuda) if cuda is not None else None,
            nvml_version=_text(nvml_version) if nvml_version is not None else None,
            gpus=gpus,
            errors=call.errors,
        )
    finally:
        _shutdown(pynvml)


def _shutdown(pynvml: Any) -> None:
    try:
        pynvml.nvmlShutdown()
    except pynvml.NVMLError:
        pass  # nothing to release if shutdown itself fails


class NvmlSession:
    """An open NVML session for repeated sampling (the telemetry thread).

    ``available`` is ``False`` (with ``reason``) when there is no GPU or driver; ``sample()``
    then returns an empty list. Use as a context manager, or call :meth:`close`.
    """

    def __init__(self) -> None:
        self._pynvml, self.reason = _import_pynvml()
        self._handles: list[Any] = []
        self.errors: dict[str, str] = {}
        if self._pynvml is None:
            return
        self.reason = _init(self._pynvml)
        if self.reason is not None:
            self._pynvml = None
            return
        call = _Calls(self._pynvml)
        count = call("device_count", self._pynvml.nvmlDeviceGetCount) or 0
        for i in range(count):
            handle = call(f"handle_{i}", self._pynvml.nvmlDeviceGetHandleByIndex, i)
            if handle is not None:
                self._handles.append((i, handle))
        self.errors = call.errors
        if not self._handles:
            self.reason = "NVML is loaded but reports no GPU"

    @property
    def available(self) -> bool:
        return self._pynvml is not None and bool(self._handles)

    def sample(self) -> list[GpuSample]:
        """One sample per GPU, each stamped with ``time.perf_counter_ns()`` just before its
        queries. Failing fields are ``None`` (their errors accumulate in ``errors``)."""
        if not self.available:
            return []
        p = self._pynvml
        call = _Calls(p)
        out = []
        for index, handle in self._handles:
            t_ns = time.perf_counter_ns()
            mem = call("memory", p.nvmlDeviceGetMemoryInfo, handle)
            util = call("utilization", p.nvmlDeviceGetUtilizationRates, handle)
            power_mw = call("power_draw", p.nvmlDeviceGetPowerUsage, handle)
            out.append(GpuSample(
                t_ns=t_ns,
                index=index,
                memory_used_bytes=int(mem.used) if mem is not None else None,
                utilization_gpu_pct=int(util.gpu) if util is not None else None,
                power_draw_w=power_mw / 1000 if power_mw is not None else None,
                sm_clock_mhz=call("sm_clock", p.nvmlDeviceGetClockInfo, handle, p.NVML_CLOCK_SM),
                temperature_c=call("temperature", p.nvmlDeviceGetTemperature, handle,
                                   p.NVML_TEMPERATURE_GPU),
                clock_event_reasons_mask=call("clock_event_reasons",
                                              p.nvmlDeviceGetCurrentClocksEventReasons, handle),
            ))
        self.errors.update(call.errors)
        return out

    def energy_mj(self) -> dict[int, int | None]:
        """NVML's total-energy counter of every GPU (``nvmlDeviceGetTotalEnergyConsumption``),
        millijoules since the driver was loaded, by NVML index; ``None`` for a GPU that cannot
        say (its error is kept in ``errors`` under ``energy``). ``{}`` without GPUs."""
        if not self.available:
            return {}
        call = _Calls(self._pynvml)
        out = {index: call("energy", self._pynvml.nvmlDeviceGetTotalEnergyConsumption, handle)
               for index, handle in self._handles}
        self.errors.update(call.errors)
        return {i: int(v) if v is not None else None for i, v in out.items()}

    def compute_gpus(self) -> list[int] | None:
        """NVML indices of the GPUs that hold a compute process (an inference server's GPUs);
        ``None`` when NVML could not list the processes of any GPU."""
        if not self.available:
            return None
        call = _Calls(self._pynvml)
        found: list[int] = []
        listed = False
        for index, handle in self._handles:
            procs = call("compute_processes", self._pynvml.nvmlDeviceGetComputeRunningProcesses, handle)
            if procs is not None:
                listed = True
                if len(procs) > 0:
                    found.append(index)
        return found if listed else None

    def close(self) -> None:
        if self._pynvml is not None:
            _shutdown(self._pynvml)
            self._pynvml = None

    def __enter__(self) -> NvmlSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
