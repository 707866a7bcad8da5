"""The tests' reader of a child's output sees every line, also when several arrive in one write
(the selector-and-readline reader it replaced waited 400 s for the second of two lines that
came together, e.g. "Precision: …" and "Serving …" from `tokcheck serve`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from procs import Output

TWO_LINES_THEN_WAIT = (
    "import os, time\n"
    "os.write(1, b'Precision: full precision (BF16)\\nServing tiny at http://127.0.0.1:1/v1\\n')\n"
    "time.sleep(30)\n"
)


def test_two_lines_in_one_write_are_both_seen():
    proc = subprocess.Popen([sys.executable, "-c", TWO_LINES_THEN_WAIT], stdout=subprocess.PIPE,
                            text=True)
    try:
        out = Output(proc)
        assert out.wait_for(r"^Precision:", 20).startswith("Precision")
        # The second line came in the same read; it must not wait for more output.
        assert "127.0.0.1:1" in out.wait_for(r"^Serving", 5)
    finally:
        proc.kill()
        proc.wait()


def test_a_closed_output_ends_the_wait_with_what_was_seen():
    proc = subprocess.Popen([sys.executable, "-c", "print('only line')"], stdout=subprocess.PIPE,
                            text=True)
    out = Output(proc)
    with pytest.raises(AssertionError, match="only line"):
        out.wait_for(r"^never", 20)
    proc.wait()
