"""The scripted-timing server (tests/scripted_server.py) as a session fixture: a real HTTP
server on loopback in its own process (so its timing does not share the test's GIL)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

SERVER = Path(__file__).resolve().parents[1] / "scripted_server.py"


class ScriptedServer:
    def __init__(self, proc: subprocess.Popen, port: int) -> None:
        self.proc = proc
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.client = httpx.Client(base_url=self.url, trust_env=False, timeout=10)

    def script(self, **script) -> dict:
        """Set the script for the next requests (unset keys: the server's defaults)."""
        self.client.post("/_reset")
        r = self.client.post("/_script", json=script)
        r.raise_for_status()
        return r.json()

    def take_one_request(self) -> None:
        """Send one short streaming request and ignore whatever happens to it."""
        try:
            self.client.post("/v1/completions", timeout=2,
                             json={"model": "scripted", "prompt": "x", "stream": True, "max_tokens": 1})
        except httpx.HTTPError:
            pass

    def stats(self) -> list[dict]:
        """The server's own per-request stamps (perf_counter_ns), in arrival order."""
        return self.client.get("/_stats").json()


@pytest.fixture(scope="session")
def scripted_server(tiny_tokenizer):
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--tokenizer", str(tiny_tokenizer), "--model", "scripted"],
        stdout=subprocess.PIPE, text=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    server = ScriptedServer(proc, int(line.split()[1]))
    yield server
    server.client.close()
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def server(scripted_server):
    """The session's scripted server, reset to its default script."""
    scripted_server.script()
    return scripted_server
