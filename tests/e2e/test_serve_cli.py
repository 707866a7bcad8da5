"""`tokcheck serve` as a user runs it: it serves until Ctrl-C, then stops the engine's whole
process group and exits 0."""

from __future__ import annotations

import os
import re
import queue
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

pytestmark = pytest.mark.e2e


class Output:
    """The lines a process prints, read by a thread (a selector on the pipe would miss lines
    already in Python's buffer)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()

    def _pump(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str, timeout_s: float) -> str:
        """The first new line matching ``pattern``."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            self.seen.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r}; output:\n{''.join(self.seen)}")


def test_serve_runs_until_ctrl_c(tiny_llama, vllm_python, tmp_path, engine_processes,
                                 kill_engines_on_port):
    argv = [sys.executable, "-m", "tokcheck", "serve", "--engine", "vllm", "--model",
            str(tiny_llama), "--python", str(vllm_python), "--enforce-eager", "--port", "0",
            "--served-model-name", "tiny", "--log-dir", str(tmp_path)]
    env = {**os.environ, "COLUMNS": "200"}
    # A session of its own, so that SIGINT to its group is what Ctrl-C in a terminal does.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    out = Output(proc)
    url = None
    try:
        line = out.wait_for(r"^Serving .* at (http://\S+)/v1", 400)
        url = re.search(r"at (http://\S+)/v1", line).group(1)
        assert engine_processes(int(url.rsplit(":", 1)[1]))
        assert "bfloat16" in "".join(out.seen) and "0.32.0" in "".join(out.seen)
        assert httpx.get(f"{url}/v1/models", trust_env=False).json()["data"][0]["id"] == "tiny"
        os.killpg(proc.pid, signal.SIGINT)
        out.wait_for(r"^Stopped\.", 60)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if url:
                kill_engines_on_port(int(url.rsplit(":", 1)[1]))
    assert proc.returncode == 0, "".join(out.seen)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", trust_env=False, timeout=2)
    assert engine_processes(int(url.rsplit(":", 1)[1])) == []
    assert (tmp_path / "server.log").is_file()
