"""Helpers for the end-to-end tests. Other programs on this machine may serve the same cached
tiny model at the same time, so an engine is recognised by its port, never by the model path."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest


def vllm_processes_on_port(port: int, *, pids: bool = False) -> list:
    """Command lines (or pids) of live (not zombie) vLLM servers started with ``--port port``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z" or b"vllm.entrypoints.openai.api_server" not in argv:
            continue
        if b"--port" in argv and argv[argv.index(b"--port") + 1] == str(port).encode():
            found.append(int(pid) if pids else b" ".join(argv).decode(errors="replace"))
    return found


def kill_vllm_on_port(port: int) -> None:
    """Last-resort cleanup after a failed test: SIGKILL the process groups of such servers."""
    for pid in vllm_processes_on_port(port, pids=True):
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def engine_processes():
    """``engine_processes(port)`` → command lines of vLLM servers still running on that port."""
    return vllm_processes_on_port


@pytest.fixture
def kill_engines_on_port():
    """``kill_engines_on_port(port)``: last-resort cleanup when a test failed half-way."""
    return kill_vllm_on_port
