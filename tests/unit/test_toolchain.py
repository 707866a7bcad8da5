"""Toolchain probes, run for real on this machine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tokcheck.machine.toolchain import parse_nvcc_version, probe_python, toolchain_report

# `nvcc --version` as CUDA 13.0 prints it (this machine's /usr/local/bin/nvcc).
NVCC_13 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
"""


def test_parse_nvcc() -> None:
    assert parse_nvcc_version(NVCC_13) == {"release": "13.0", "version": "13.0.88"}
    assert parse_nvcc_version("command not found") is None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_real_nvcc_matches_its_own_output() -> None:
    text = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    report = toolchain_report()["nvcc"]
    assert report["found"] and report["release"] == parse_nvcc_version(text)["release"]


def test_probe_own_python() -> None:
    out = probe_python(sys.executable)
    assert out["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert "error" not in out
    assert out["marker_environment"]["sys_platform"] == sys.platform


def test_probe_missing_python_is_data(tmp_path: Path) -> None:
    out = probe_python(tmp_path / "no-python")
    assert out["error"].startswith("FileNotFoundError")


def test_engine_venvs_found_under_tokcheck_cache(tmp_path: Path, monkeypatch) -> None:
    from tokcheck.machine.toolchain import cached_engine_pythons

    py = tmp_path / "venvs" / "vllm-cpu-9.9" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.symlink_to(sys.executable)
    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    assert cached_engine_pythons() == [py]
    envs = toolchain_report()["environments"]
    assert [e["python"] for e in envs] == [sys.executable, str(py)]
    assert envs[1]["python_version"] == envs[0]["python_version"]
