"""Helpers for the end-to-end tests. Other programs on this machine may serve the same cached
tiny model at the same time, so an engine is recognised by its port, never by the model path."""

from __future__ import annotations

import os
import signal

import pytest

from procs import servers_on_port


def vllm_processes_on_port(port: int, *, pids: bool = False) -> list:
    """Command lines (or pids) of live vLLM servers started with ``--port port``."""
    return servers_on_port(port, b"vllm.entrypoints.openai.api_server", pids=pids)


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
