"""Processes and ports for engines tokcheck starts: a free port, whether one is taken, an engine
that dies with tokcheck, and a clean stop of a whole process group (the engine's API server,
engine core and workers)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

# linux/prctl.h: PR_SET_PDEATHSIG = 1 — the signal a process gets when its parent (the thread
# that forked it) exits, however it exits (SIGKILL included).
PR_SET_PDEATHSIG = 1


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_taken(host: str, port: int) -> bool:
    """Whether another socket listens on ``host:port``. Bound with ``SO_REUSEADDR``, as the
    engines' servers bind: the TIME_WAIT connections a just-stopped server leaves on its port
    (for about a minute) do not count, a listener does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for :class:`subprocess.Popen` that makes the child get SIGTERM when
    tokcheck exits, even by SIGKILL (Linux ``prctl(PR_SET_PDEATHSIG)``); None elsewhere.

    The engine runs in a session of its own (``start_new_session=True``) so that a Ctrl-C in
    the terminal reaches tokcheck alone, which then stops the engine in order; without this a
    killed tokcheck would leave the engine serving (and holding its memory) as an orphan. The
    signal goes to the engine's API server, which stops its engine core and workers.

    The function must be created in the thread that starts the child (the kernel ties the
    signal to that thread) and does only async-signal-safe work: ``prctl``, ``getppid``,
    ``kill``.
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, timeout_s: float) -> bool:
    """SIGTERM to process group ``pgid``, SIGKILL to what is left after ``timeout_s``.
    Returns False when the group was already gone."""
    if not _group_alive(pgid):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
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
    deadline = time.monotonic() + min(5.0, max(timeout_s, 1.0))
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


def group_peak_rss_bytes(pgid: int) -> int | None:
    """Σ peak resident memory (``VmHWM`` of ``/proc/<pid>/status``, bytes) of the live
    processes in process group ``pgid`` — for a one-process engine (llama.cpp's server) its own
    peak; for several, an upper bound of their peak together. None where ``/proc`` has none
    (not Linux, or the group is gone)."""
    total, found = 0, False
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:  # field 5: process group
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1]) * 1024
                        found = True
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total if found else None


class GroupReaper:
    """Starts :mod:`tokcheck.engines.reaper` for process group ``pgid``: it stops the group
    (SIGTERM, SIGKILL after ``grace_s``) when this process dies without doing so. Call
    :meth:`close` after stopping the group yourself; the reaper then finds it gone and exits.

    ``log`` (an open binary file, e.g. the server log) receives the reaper's one line."""

    def __init__(self, pgid: int, grace_s: float, log=None) -> None:
        read_end, self._write_end = os.pipe()  # not inherited by other children (PEP 446)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tokcheck.engines.reaper", str(pgid), f"{grace_s:g}"],
                stdin=read_end, stdout=subprocess.DEVNULL,
                stderr=log if log is not None else subprocess.DEVNULL, start_new_session=True)
        except BaseException:
            os.close(self._write_end)
            raise
        finally:
            os.close(read_end)

    def close(self) -> None:
        """Let the reaper go (idempotent)."""
        if self._write_end is not None:
            os.close(self._write_end)
            self._write_end = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)
