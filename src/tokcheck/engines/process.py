"""Processes and ports for engines tokcheck starts: a free port, whether one is taken, and a
clean stop of a whole process group (the engine's API server, engine core and workers)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_process_group(proc: subprocess.Popen, timeout_s: float = 20.0) -> None:
    """Stop an engine started with ``start_new_session=True``: SIGTERM to its whole process
    group (vLLM shuts its engine core and workers down, ~2.5 s on the CPU), then SIGKILL
    whatever is left after ``timeout_s``. Safe to call twice."""
    pgid = proc.pid  # a new session's leader: its pid is the group id
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            proc.wait(10)
    # Children (engine core, workers) may outlive the leader for a moment; never leave them.
    deadline = time.monotonic() + 5
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
