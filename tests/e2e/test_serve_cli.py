"""`tokcheck serve` as a user runs it (a child process in a session of its own, as in a
terminal): it serves until Ctrl-C, then stops the engine's whole process group and exits 0;
a Ctrl-C during start-up stops it at once, saying so; and a tokcheck killed outright
(SIGKILL: no chance to clean up) still takes the engine with it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from procs import Output, engine_children, group_members, kill_group, wait_gone

pytestmark = pytest.mark.e2e


def start_serve(tiny_llama, vllm_python, log_dir) -> tuple[subprocess.Popen, Output]:
    argv = [sys.executable, "-m", "tokcheck", "serve", "--engine", "vllm", "--model",
            str(tiny_llama), "--python", str(vllm_python), "--enforce-eager", "--port", "0",
            "--served-model-name", "tiny", "--log-dir", str(log_dir)]
    env = {**os.environ, "COLUMNS": "200"}
    # A session of its own, so that SIGINT to its group is what Ctrl-C in a terminal does.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    return proc, Output(proc)


def the_engine(proc: subprocess.Popen, timeout_s: float = 60) -> int:
    """Pid of the vLLM API server that tokcheck started (also its process group id)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = engine_children(proc.pid)
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError("tokcheck started no engine")


def cleanup(proc: subprocess.Popen, engine: int | None) -> None:
    """After a failure: kill tokcheck's group and the engine's own (it is in another session,
    out of reach of the first)."""
    if proc.poll() is None:
        kill_group(proc.pid)
        proc.wait()
    if engine is not None:
        kill_group(engine)


def test_serve_runs_until_ctrl_c(tiny_llama, vllm_python, tmp_path, engine_processes):
    proc, out = start_serve(tiny_llama, vllm_python, tmp_path)
    url = engine = None
    try:
        engine = the_engine(proc)
        line = out.wait_for(r"^Serving .* at (http://\S+)/v1", 400)
        url = re.search(r"at (http://\S+)/v1", line).group(1)
        assert engine_processes(int(url.rsplit(":", 1)[1]))
        assert "bfloat16" in out.text() and "0.32.0" in out.text()
        assert httpx.get(f"{url}/v1/models", trust_env=False).json()["data"][0]["id"] == "tiny"
        os.killpg(proc.pid, signal.SIGINT)
        out.wait_for(r"Stopping the server", 10)
        out.wait_for(r"^Stopped\.", 60)
        proc.wait(timeout=30)
    finally:
        cleanup(proc, engine)
    assert proc.returncode == 0, out.text()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", trust_env=False, timeout=2)
    assert engine_processes(int(url.rsplit(":", 1)[1])) == []
    assert group_members(engine) == []
    assert (tmp_path / "server.log").is_file()


def wait_for_engine_core(engine: int, out: Output, timeout_s: float = 200) -> list[int]:
    """Wait until the engine's API server has started its engine core (a second process in
    its group): the part of vLLM's start-up where it ignores SIGTERM. Its group's pids."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        members = group_members(engine)
        if len(members) >= 2:
            return members
        assert members, "the engine died during start-up:\n" + out.text()
        time.sleep(0.2)
    raise AssertionError("no engine core after %.0f s:\n%s" % (timeout_s, out.text()))


@pytest.mark.parametrize("phase", ["serving", "starting"])
def test_killed_tokcheck_takes_the_engine_with_it(tiny_llama, vllm_python, tmp_path, phase):
    proc, out = start_serve(tiny_llama, vllm_python, tmp_path)
    engine = None
    try:
        engine = the_engine(proc)
        if phase == "serving":
            out.wait_for(r"^Serving .* at (http://\S+)/v1", 400)
        wait_for_engine_core(engine, out)
        members = group_members(engine)  # API server, engine core, …
        assert engine in members
        os.kill(proc.pid, signal.SIGKILL)  # tokcheck alone: no finally, no atexit runs
        proc.wait(timeout=10)
        t0 = time.monotonic()
        left = wait_gone(members, 30)
        gone_s = time.monotonic() - t0
        assert left == [], f"engine processes {left} outlived tokcheck"
        assert gone_s < 10, f"the engine took {gone_s:.1f} s to follow tokcheck"
        print(f"\nSIGKILL of tokcheck while {phase}: {len(members)} engine processes gone "
              f"after {gone_s:.1f} s")
    finally:
        cleanup(proc, engine)


def test_ctrl_c_during_start_up_stops_at_once(tiny_llama, vllm_python, tmp_path):
    proc, out = start_serve(tiny_llama, vllm_python, tmp_path)
    engine = None
    try:
        engine = the_engine(proc)
        # Interrupt where vLLM ignores SIGTERM: its engine core is up, it does not serve yet.
        members = wait_for_engine_core(engine, out)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out.wait_for(r"Stopping the server", 5)
        said_s = time.monotonic() - t0
        proc.wait(timeout=30)
        exit_s = time.monotonic() - t0
    finally:
        cleanup(proc, engine)
    assert "Serving" not in out.text()
    assert said_s < 3, f"no word for {said_s:.1f} s after Ctrl-C"
    assert exit_s < 12, f"tokcheck took {exit_s:.1f} s to stop a starting server"
    assert wait_gone(members, 5) == []
    print(f"\nCtrl-C during start-up: message after {said_s:.2f} s, exit after {exit_s:.1f} s "
          f"(code {proc.returncode})")
