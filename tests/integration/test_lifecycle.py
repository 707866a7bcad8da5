"""The generic engine lifecycle against real processes: an engine defined here starts the
scripted-timing server (tests/scripted_server.py) through :func:`tokcheck.engines.lifecycle.serve`
— start without a shell, readiness (``/v1/models``, as engines without ``/health`` have), log
capture, stop by process group — and nothing is left behind, also when the start fails, times
out or is interrupted."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from procs import alive, group_members, kill_group, wait_gone
from tokcheck.engines.base import Engine, EngineReport, Installed, ServeSettings
from tokcheck.engines.lifecycle import serve
from tokcheck.engines.process import port_taken
from tokcheck.errors import TokcheckError

SERVER = Path(__file__).resolve().parents[1] / "scripted_server.py"
# The engine's leader starts a helper child of its own (as vLLM starts its engine core), prints
# its pid, then becomes the scripted server: a stop must reach the whole group.
WITH_CHILD = r"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
print(f"CHILD {child.pid}", flush=True)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


class Scripted(Engine):
    """The scripted server as an engine (no registry entry needed: serve() takes the object)."""

    name = "scripted"
    display_name = "Scripted"
    readiness_path = "/v1/models"
    startup_stop_timeout_s = 2.0
    reaper_grace_s = 1.0

    def __init__(self, tokenizer: Path, mode: str = "ok") -> None:
        self.tokenizer, self.mode = tokenizer, mode

    def provision(self, progress=None) -> Path:
        return Path(sys.executable)

    def probe(self, python, settings) -> Installed:
        return Installed(version="scripted-1")

    def argv(self, settings, python, port, installed=Installed()) -> list[str]:
        if self.mode == "never_ready":  # runs, never listens
            return [python, "-c", "import os, time; print(f'LOADING {os.getpid()}', flush=True); "
                    "time.sleep(300)"]
        tok = self.tokenizer if self.mode == "ok" else "/nonexistent/tokenizer.json"
        return [python, "-c", WITH_CHILD, str(SERVER), "--tokenizer", str(tok),
                "--model", settings.served_model_name or "scripted", "--host", settings.host,
                "--port", str(port), *settings.extra_args]

    def environment(self, settings, inherited):
        return {**inherited, "SCRIPTED_ENGINE": "1", **settings.env}

    def parse_startup_log(self, text: str) -> EngineReport:
        return EngineReport(engine=self.name, version="scripted-1" if "PORT " in text else None)


def _settings(tmp_path: Path, **kw) -> ServeSettings:
    return ServeSettings(model=str(tmp_path), engine="scripted", python=sys.executable,
                         log_dir=str(tmp_path / "run"), startup_timeout_s=60, stop_timeout_s=5,
                         **kw)


def _child_pid(log: Path) -> int:
    for line in log.read_text().splitlines():
        if line.startswith("CHILD "):
            return int(line.split()[1])
    raise AssertionError(f"no CHILD line in {log.read_text()!r}")


def _reapers_of(pgid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()
            if "tokcheck.engines.reaper" in line and f" {pgid} " in f"{line} "]


def test_start_ready_log_stop_and_nothing_left(tiny_tokenizer, tmp_path):
    seen: list[str] = []
    settings = _settings(tmp_path, served_model_name="tiny")
    with serve(settings, engine=Scripted(tiny_tokenizer), progress=seen.append) as server:
        pgid = server.pid
        port = int(server.url.rsplit(":", 1)[1])
        # Ready means the engine's readiness check passes, and it serves.
        r = httpx.get(f"{server.url}/v1/models", trust_env=False)
        assert r.status_code == 200 and r.json()["data"][0]["id"] == "tiny"
        assert server.engine_report.version == "scripted-1"
        # The whole group runs: the leader and its child.
        child = _child_pid(server.log_path)
        assert sorted(group_members(pgid)) == sorted([pgid, child])
        assert _reapers_of(pgid)  # the watchdog is there while the engine runs
        serve_section = server.run_conditions()["serve"]
        assert serve_section["engine"] == "scripted" and serve_section["argv"] == server.argv[1:]
        assert server.argv[0] == sys.executable  # a list, no shell
        # The log is captured to a file; the engine's environment was the engine's.
        assert server.log_path == tmp_path / "run" / "server.log"
        assert f"PORT {port}" in server.log_path.read_text()
    assert seen[0].startswith("Starting Scripted: -c")
    assert any(s.startswith(f"Scripted scripted-1 ready at {server.url}") for s in seen)
    # Stopped by process group: leader and child gone, port free, watchdog gone.
    assert wait_gone([pgid, child], 5) == []
    assert group_members(pgid) == []
    assert not port_taken("127.0.0.1", port)
    deadline = time.monotonic() + 10
    while _reapers_of(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _reapers_of(pgid) == []


def test_engine_environment_reaches_the_process(tiny_tokenizer, tmp_path):
    settings = _settings(tmp_path, env={"EXTRA_VAR": "x"})
    with serve(settings, engine=Scripted(tiny_tokenizer), progress=lambda s: None) as server:
        environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
        assert b"SCRIPTED_ENGINE=1" in environ and b"EXTRA_VAR=x" in environ


def test_a_failed_start_is_one_line_and_leaves_nothing(tiny_tokenizer, tmp_path):
    with pytest.raises(TokcheckError) as err:
        with serve(_settings(tmp_path), engine=Scripted(tiny_tokenizer, "bad_tokenizer"),
                   progress=lambda s: None):
            pytest.fail("the engine should not have started")
    msg = str(err.value)
    assert msg.startswith("Scripted exited during start-up (exit code 1): ")
    assert "\n" not in msg and f"(log: {tmp_path / 'run' / 'server.log'})" in msg
    child = _child_pid(tmp_path / "run" / "server.log")
    try:
        assert wait_gone([child], 5) == []  # the leader's child went with the group
    finally:
        if alive(child):
            kill_group(child)


def test_no_readiness_in_time_stops_the_group(tiny_tokenizer, tmp_path):
    settings = _settings(tmp_path)
    settings.startup_timeout_s = 1.5
    t0 = time.monotonic()
    with pytest.raises(TokcheckError, match=r"Scripted did not answer http://127\.0\.0\.1:\d+"
                                            r"/v1/models within 2 s"):
        with serve(settings, engine=Scripted(tiny_tokenizer, "never_ready"),
                   progress=lambda s: None):
            pass
    assert time.monotonic() - t0 < 15
    line = (tmp_path / "run" / "server.log").read_text().splitlines()[0]
    leader = int(line.removeprefix("LOADING "))
    assert wait_gone([leader], 5) == [] and group_members(leader) == []


def test_ctrl_c_inside_the_block_stops_the_engine(tiny_tokenizer, tmp_path):
    seen: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with serve(_settings(tmp_path), engine=Scripted(tiny_tokenizer),
                   progress=seen.append) as server:
            pgid = server.pid
            raise KeyboardInterrupt
    assert seen[-1] == "Stopping the server …"
    assert wait_gone([pgid], 5) == [] and group_members(pgid) == []


def test_unknown_engine_starts_nothing(tmp_path):
    with pytest.raises(TokcheckError, match="unknown engine 'scripted': known engines are vllm"):
        with serve(_settings(tmp_path)):
            pass
    assert not (tmp_path / "run").exists()


def test_a_port_a_stopped_server_left_in_time_wait_is_free_a_listener_is_not():
    """After a server closes its connections and stops, the kernel keeps them in TIME_WAIT on the
    server's port for about a minute: `tokcheck serve --port` on that port right after must start
    (it said "already in use" before), while a port someone listens on is taken."""
    import socket as socket_

    srv = socket_.socket()
    srv.setsockopt(socket_.SOL_SOCKET, socket_.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    port = srv.getsockname()[1]
    assert port_taken("127.0.0.1", port)          # a listener
    cli = socket_.create_connection(("127.0.0.1", port))
    conn, _ = srv.accept()
    conn.close()                                  # the server side closes first: TIME_WAIT on `port`
    cli.recv(1)
    cli.close()
    srv.close()
    with socket_.socket() as plain:               # what a plain bind still sees
        try:
            plain.bind(("127.0.0.1", port))
            time_wait_blocks_plain_bind = False
        except OSError:
            time_wait_blocks_plain_bind = True
    assert time_wait_blocks_plain_bind            # the situation is real
    assert not port_taken("127.0.0.1", port)
