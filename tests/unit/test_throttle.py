"""NVML clock-event (throttle) reason decoding: bit values from the NVML API Reference."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokcheck.machine.throttle import (
    REASONS,
    THROTTLING_REASONS,
    decode_clock_event_reasons,
    is_throttling,
    throttling_reasons,
)


def test_bits_match_pynvml_constants() -> None:
    """Our table must agree with the constants nvidia-ml-py ships (both come from nvml.h)."""
    import pynvml

    for r in REASONS:
        assert getattr(pynvml, r.nvml_name) == r.bit, r.nvml_name


@pytest.mark.parametrize(
    ("mask", "names", "throttled"),
    [
        (0x0, [], False),
        (0x1, ["gpu_idle"], False),
        (0x4, ["sw_power_cap"], True),
        (0x4 | 0x20, ["sw_power_cap", "sw_thermal_slowdown"], True),
        (0x1 | 0x2 | 0x100, ["gpu_idle", "applications_clocks_setting",
                             "display_clock_setting"], False),
        (0x8 | 0x40 | 0x80, ["hw_slowdown", "hw_thermal_slowdown",
                             "hw_power_brake_slowdown"], True),
        (0x10, ["sync_boost"], False),
        (0x800 | 0x1, ["gpu_idle", "unknown_0x800"], False),
        (0x200, ["board_limit"], True),
    ],
)
def test_decode(mask: int, names: list[str], throttled: bool) -> None:
    assert decode_clock_event_reasons(mask) == names
    assert is_throttling(mask) is throttled
    assert bool(throttling_reasons(mask)) is throttled


def test_negative_mask_is_an_error() -> None:
    with pytest.raises(ValueError):
        decode_clock_event_reasons(-1)


_BY_NAME = {r.name: r.bit for r in REASONS}


@given(st.integers(min_value=0, max_value=2**20))
def test_decoded_names_rebuild_the_mask(mask: int) -> None:
    rebuilt = 0
    for name in decode_clock_event_reasons(mask):
        rebuilt |= _BY_NAME[name] if name in _BY_NAME else int(name.split("_")[1], 16)
    assert rebuilt == mask
    assert set(throttling_reasons(mask)) <= THROTTLING_REASONS
