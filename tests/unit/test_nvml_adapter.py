"""The NVML adapter's own rules: errors become data, NVML's integer CUDA version."""

from __future__ import annotations

import pynvml
import pytest

from tokcheck.machine.nvml import GpuInfo, NvmlReport, _Calls, cuda_version_string


@pytest.mark.parametrize(("raw", "text"), [(12040, "12.4"), (12080, "12.8"), (13000, "13.0"),
                                           (11020, "11.2")])
def test_cuda_driver_version(raw: int, text: str) -> None:
    # nvmlSystemGetCudaDriverVersion documents 1000 * major + 10 * minor.
    assert cuda_version_string(raw) == text


def test_nvml_errors_become_data() -> None:
    call = _Calls(pynvml)

    def not_supported() -> int:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)

    assert call("ecc_mode", not_supported) is None
    assert call("ok", lambda: 7) == 7
    assert list(call.errors) == ["ecc_mode"]
    # With libnvidia-ml present NVML names the error; without it pynvml gives the code.
    assert call.errors["ecc_mode"] in (
        "Not Supported", f"NVML Error with code {pynvml.NVML_ERROR_NOT_SUPPORTED}")


def test_other_exceptions_are_not_swallowed() -> None:
    call = _Calls(pynvml)
    with pytest.raises(ZeroDivisionError):
        call("bug", lambda: 1 / 0)


def test_report_dict_round_trip_keeps_processes_and_errors() -> None:
    report = NvmlReport(available=True, driver_version="570.1", cuda_driver_version="12.8",
                        gpus=(GpuInfo(index=0, name="X", errors={"ecc_mode": "Not Supported"},
                                      processes=()),))
    data = report.to_dict()
    data["gpus"][0]["processes"] = [{"pid": 1, "name": "python", "used_memory_bytes": 10,
                                     "kind": "compute"}]
    back = NvmlReport.from_dict(data)
    assert back.gpus[0].processes[0].used_memory_bytes == 10
    assert back.gpus[0].errors == {"ecc_mode": "Not Supported"}
