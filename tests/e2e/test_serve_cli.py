"""`tokcheck serve` as a user runs it: it serves until Ctrl-C, then stops the engine's whole
process group and exits 0."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.e2e


def _lines_until(proc: subprocess.Popen, pattern: str, timeout_s: float) -> tuple[str, str]:
    """Read the process's stdout until a line matches ``pattern``; return (match line, all)."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    seen = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not sel.select(timeout=1):
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if re.search(pattern, line):
            return line, "".join(seen)
    raise AssertionError(f"no line matching {pattern!r}; output so far:\n{''.join(seen)}")


def test_serve_runs_until_ctrl_c(tiny_llama, vllm_python, tmp_path):
    argv = [sys.executable, "-m", "tokcheck", "serve", "--engine", "vllm", "--model",
            str(tiny_llama), "--python", str(vllm_python), "--enforce-eager", "--port", "0",
            "--served-model-name", "tiny", "--log-dir", str(tmp_path)]
    env = {**os.environ, "COLUMNS": "200"}
    # A session of its own, so that SIGINT to its group is what Ctrl-C in a terminal does.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    try:
        line, out = _lines_until(proc, r"^Serving .* at (http://\S+)/v1", 400)
        url = re.search(r"at (http://\S+)/v1", line).group(1)
        assert "bfloat16" in out and "0.32.0" in out
        assert httpx.get(f"{url}/v1/models", trust_env=False).json()["data"][0]["id"] == "tiny"
        os.killpg(proc.pid, signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, rest
    assert "Stopped." in rest
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", trust_env=False, timeout=2)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        assert "vllm.entrypoints" not in cmd or str(tiny_llama) not in cmd
    assert (tmp_path / "server.log").is_file()
