"""The inspect and serve commands' user errors: one line, exit 1, before anything starts."""

from __future__ import annotations

import socket
import sys

from tokcheck.cli import main


def test_inspect_without_config_is_a_one_line_error(tmp_path, capsys):
    assert main(["inspect", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: no config.json") and err.count("\n") == 1


def test_inspect_needs_something_to_read(capsys):
    assert main(["inspect"]) == 1
    assert "give a model directory" in capsys.readouterr().err


def test_serve_with_a_missing_model_directory(tmp_path, capsys):
    assert main(["serve", "--model", str(tmp_path / "nope")]) == 1
    assert capsys.readouterr().err == f"Error: model directory {tmp_path / 'nope'} does not exist\n"


def test_serve_on_a_port_in_use(tmp_path, capsys):
    (tmp_path / "config.json").write_text("{}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        rc = main(["serve", "--model", str(tmp_path), "--python", sys.executable,
                   "--port", str(port), "--log-dir", str(tmp_path / "run")])
    assert rc == 1
    assert f"port {port} on 127.0.0.1 is already in use" in capsys.readouterr().err


def test_serve_with_a_python_that_has_no_vllm(tmp_path, capsys):
    (tmp_path / "config.json").write_text("{}")
    rc = main(["serve", "--model", str(tmp_path), "--python", sys.executable, "--port", "0",
               "--log-dir", str(tmp_path / "run")])
    assert rc == 1
    assert "no vLLM in the environment of" in capsys.readouterr().err


def test_inspect_server_log_on_a_claim_output_is_unknown(capsys):
    """A saved `tokcheck claim` output mentions FP8; it says nothing of what a server loaded."""
    from pathlib import Path

    text = Path(__file__).parent.parent / "fixtures" / "not_server_logs" / "claim-fp8.txt"
    assert main(["inspect", "--server-log", str(text)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("UNKNOWN") and "QUANTIZED" not in out
    assert "no engine start-up lines found" in " ".join(out.split())
