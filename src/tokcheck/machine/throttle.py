"""Decode NVML's clock-event (throttle) reason bitmask into names, pure.

Source of the bit values: NVIDIA NVML API Reference, "Clocks Event Reasons"
(``nvmlClocksEventReason*`` in ``nvml.h``, called ``nvmlClocksThrottleReason*`` before CUDA
12.2), the same values that ``nvidia-ml-py``'s ``pynvml`` exports:
https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html

Not every set bit means the GPU is slowed by a limit: ``gpu_idle`` is set whenever nothing runs,
``applications_clocks_setting`` and ``display_clock_setting`` reflect configuration. The bits
that mean "held below what the workload asked for" (power cap, thermal or hardware slowdown,
power brake) are the throttling ones (:data:`THROTTLING_REASONS`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClockEventReason:
    """One bit of the mask: its value, tokcheck's name, NVML's name, and whether it throttles."""

    bit: int
    name: str
    nvml_name: str
    throttling: bool
    meaning: str


# (bit, name, nvml.h name, throttling, meaning) — from the NVML API Reference cited above.
REASONS: tuple[ClockEventReason, ...] = (
    ClockEventReason(0x1, "gpu_idle", "nvmlClocksEventReasonGpuIdle", False,
                     "nothing is running on the GPU, clocks are lowered"),
    ClockEventReason(0x2, "applications_clocks_setting",
                     "nvmlClocksEventReasonApplicationsClocksSetting", False,
                     "clocks are limited by the applications clocks setting"),
    ClockEventReason(0x4, "sw_power_cap", "nvmlClocksEventReasonSwPowerCap", True,
                     "the power draw reached the power limit (software power cap)"),
    ClockEventReason(0x8, "hw_slowdown", "nvmlClocksEventReasonHwSlowdown", True,
                     "hardware slowdown (thermal or power brake) by a factor of two or more"),
    ClockEventReason(0x10, "sync_boost", "nvmlClocksEventReasonSyncBoost", False,
                     "clocks held to match other GPUs of a sync-boost group"),
    ClockEventReason(0x20, "sw_thermal_slowdown", "nvmlClocksEventReasonSwThermalSlowdown", True,
                     "GPU or memory temperature above its software limit"),
    ClockEventReason(0x40, "hw_thermal_slowdown", "nvmlClocksEventReasonHwThermalSlowdown", True,
                     "hardware thermal slowdown: temperature too high"),
    ClockEventReason(0x80, "hw_power_brake_slowdown",
                     "nvmlClocksEventReasonHwPowerBrakeSlowdown", True,
                     "external power brake assertion (e.g. the power supply)"),
    ClockEventReason(0x100, "display_clock_setting", "nvmlClocksEventReasonDisplayClockSetting",
                     False, "clocks limited by the display clock setting"),
    # Added in newer NVML (nvidia-ml-py 13 exports them as nvmlClocksThrottleReason*); both
    # hold clocks below what the workload asked for.
    ClockEventReason(0x200, "board_limit", "nvmlClocksThrottleReasonBoardLimit", True,
                     "clocks limited by a board limit"),
    ClockEventReason(0x400, "reliability", "nvmlClocksThrottleReasonReliability", True,
                     "clocks limited for reliability"),
)

THROTTLING_REASONS: frozenset[str] = frozenset(r.name for r in REASONS if r.throttling)
_THROTTLING_MASK = sum(r.bit for r in REASONS if r.throttling)
_KNOWN_MASK = sum(r.bit for r in REASONS)


def decode_clock_event_reasons(mask: int) -> list[str]:
    """Names of the bits set in an NVML clock-event reasons mask, lowest bit first.

    Bits NVML may add later are kept as ``unknown_0x…`` rather than dropped.

    Raises:
        ValueError: for a negative mask.
    """
    if mask < 0:
        raise ValueError(f"clock event reasons mask must be >= 0, got {mask}")
    names = [r.name for r in REASONS if mask & r.bit]
    rest = mask & ~_KNOWN_MASK
    bit = 1
    while rest:
        if rest & bit:
            names.append(f"unknown_{bit:#x}")
            rest &= ~bit
        bit <<= 1
    return names


def throttling_reasons(mask: int) -> list[str]:
    """Only the reasons in ``mask`` that mean the GPU is held below its clocks by a limit."""
    return [name for name in decode_clock_event_reasons(mask) if name in THROTTLING_REASONS]


def is_throttling(mask: int) -> bool:
    """True when any power, thermal or hardware slowdown bit is set."""
    return bool(mask & _THROTTLING_MASK)
