"""Helpers for tests that run tokcheck as a user does (a child process) and watch the engines it
starts. Other programs on this machine may serve the same cached tiny model at the same time,
so an engine is recognised by its parent pid or its port, never by the model path."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

ENGINE_MARK = b"vllm.entrypoints.openai.api_server"


class Output:
    """The lines a process prints, read by a thread that feeds a queue.

    A selector on the pipe plus ``readline()`` would miss a line that arrived in the same read
    as the one before it: it sits in Python's buffer and the selector never fires again."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()

    def _pump(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str, timeout_s: float) -> str:
        """The first new line matching ``pattern``; AssertionError with the output so far when
        none comes within ``timeout_s`` or the process closes its output."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=min(1.0, max(deadline - time.monotonic(), 0.01)))
            except queue.Empty:
                continue
            if line is None:
                self.lines.put(None)  # stays closed for the next caller
                break
            self.seen.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r}; output:\n{''.join(self.seen)}")

    def text(self) -> str:
        return "".join(self.seen)


def _proc_info(pid: int) -> tuple[list[bytes], str, int] | None:
    """(argv, state, ppid) of a process, None when it is gone."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return argv, fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    info = _proc_info(pid)
    return info is not None and info[1] != "Z"


def engine_children(parent_pid: int) -> list[int]:
    """Pids of live vLLM API servers whose parent is ``parent_pid``."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        info = _proc_info(int(name))
        if info and info[1] != "Z" and info[2] == parent_pid and ENGINE_MARK in info[0]:
            found.append(int(name))
    return found


def group_members(pgid: int) -> list[int]:
    """Live processes of process group ``pgid``."""
    members = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getpgid(int(name)) == pgid and alive(int(name)):
                members.append(int(name))
        except (ProcessLookupError, PermissionError):
            continue
    return members


def kill_group(pgid: int) -> None:
    """SIGKILL a process group (cleanup after a failed test); quiet when it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def wait_gone(pids: list[int], timeout_s: float) -> list[int]:
    """Wait until none of ``pids`` runs; return those still running after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def servers_on_port(port: int, module: bytes, *, pids: bool = False) -> list:
    """Command lines (or pids) of live (not zombie) servers run as ``python -m module`` (its
    name in argv) and started with ``--port port``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z" or module not in argv:
            continue
        if b"--port" in argv and argv[argv.index(b"--port") + 1] == str(port).encode():
            found.append(int(pid) if pids else b" ".join(argv).decode(errors="replace"))
    return found
