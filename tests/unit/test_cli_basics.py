import subprocess
import sys

from tokcheck import __version__
from tokcheck.cli import main
from tokcheck.errors import TokcheckError


def test_version_flag_prints_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert __version__ in capsys.readouterr().out


def test_errors_are_one_line():
    err = TokcheckError("unknown GPU 'H2000'\n did you mean H200?")
    assert "\n" not in str(err)
    assert str(err) == "unknown GPU 'H2000' did you mean H200?"


def test_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "tokcheck", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "tokcheck" in out.stdout


def test_tiny_tokenizer_round_trips(tiny_tokenizer):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tiny_tokenizer))
    assert tok.get_vocab_size() == 4096
    text = "def measure(ttft_ms): return ttft_ms * 2\n"
    ids = tok.encode(text).ids
    assert tok.decode(ids) == text
    assert 0 < len(ids) < len(text)


def test_usage_errors_are_one_line_and_exit_1():
    out = subprocess.run([sys.executable, "-m", "tokcheck", "bound", "--weights"],
                         capture_output=True, text=True)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")


def test_comma_lists_of_counts_share_one_parser():
    import pytest

    from tokcheck.core.units import parse_count_list

    assert parse_count_list("1, 4,16", "--concurrency") == [1, 4, 16]
    assert parse_count_list("2k,4096", "--max-model-len", "tokens") == [2048, 4096]
    for bad in ("", "0", "1,-2", "a,b"):
        with pytest.raises(TokcheckError):
            parse_count_list(bad, "--concurrency")


def test_an_option_type_error_is_one_line_and_exit_1():
    out = subprocess.run([sys.executable, "-m", "tokcheck", "demo", "--concurrency", "2,0"],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr == "Error: --concurrency must be a positive whole number of requests, got '0'\n"


def _with_closed_stdout(argv: list[str]) -> subprocess.CompletedProcess:
    """Run tokcheck with stdout a pipe whose reader is already gone (what `| head -1` leaves once
    head has its line): every write fails with EPIPE, deterministically."""
    import os

    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, "-m", "tokcheck", *argv], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)


def test_a_closed_pipe_ends_every_command_quietly(tiny_tokenizer, tmp_path):
    """`tokcheck bound … --json | head -1`, `inspect --json | head`: no BrokenPipeError traceback
    and no "Exception ignored" line, for plain prints (JSON) and rich tables alike; exit 141, as
    a shell reports for other tools cut off by head."""
    import json

    import numpy as np
    from safetensors.numpy import save_file

    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"torch_dtype": "bfloat16"}))
    save_file({"w": np.zeros((8, 8), dtype=np.float16)}, str(d / "model.safetensors"))
    for argv in (["bound", "--model", "Qwen3-30B-A3B", "--gpu", "H100", "--json"],
                 ["bound", "--model", "Qwen3-30B-A3B", "--gpu", "H100"],
                 ["inspect", str(d), "--json"], ["inspect", str(d)],
                 ["claim", "Qwen3-8B on one H100 at 95 tok/s, single request", "--json"],
                 ["doctor", "--json"], ["doctor"]):
        out = _with_closed_stdout(argv)
        assert out.stderr == "", (argv, out.stderr[-400:])
        assert out.returncode == 141, argv
