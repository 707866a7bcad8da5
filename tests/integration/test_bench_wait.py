"""`tokcheck bench --wait-for-server`: a server started just before (`tokcheck serve … &`) is
waited for, on real sockets: a server that comes up after 2 s, and a port where none does."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokcheck.cli.bench import wait_for_server
from tokcheck.errors import TokcheckError

SERVER = Path(__file__).resolve().parents[1] / "scripted_server.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_waits_for_a_server_that_comes_up_later(tiny_tokenizer):
    port = _free_port()
    # the process becomes the server 2 s from now (exec), as an engine still loading would answer late
    server = subprocess.Popen(
        [sys.executable, "-c", f"import os, sys, time; time.sleep(2); os.execv(sys.executable, "
         f"[sys.executable, {str(SERVER)!r}, '--tokenizer', {str(tiny_tokenizer)!r}, '--port', '{port}'])"],
        stdout=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        waited = wait_for_server(f"http://127.0.0.1:{port}", 60, poll_s=0.2)
        assert 1.5 < waited < 60 and time.monotonic() - t0 >= 1.5
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_no_server_is_one_line_after_the_wait():
    port = _free_port()
    with pytest.raises(TokcheckError) as err:
        wait_for_server(f"http://127.0.0.1:{port}", 1.0, poll_s=0.2)
    assert str(err.value) == (f"the server at http://127.0.0.1:{port} did not answer GET /v1/models within "
                              "1 s (last: ConnectError)")
