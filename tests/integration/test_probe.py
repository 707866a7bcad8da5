"""``tokcheck probe`` end to end: the real client against the built-in echo server; the ceiling
is stored for this machine and recorded by later runs, whose report says where numbers become
client-bound."""

from __future__ import annotations

import json
import subprocess
import sys

from tokcheck.loadgen.ceiling import load_ceiling, machine_key
from tokcheck.loadgen.probe import run_probe


def test_probe_stores_a_ceiling_that_later_runs_record(tmp_path, monkeypatch, server, tiny_tokenizer):
    store = tmp_path / "ceiling.json"
    monkeypatch.setenv("TOKCHECK_CEILING_FILE", str(store))
    result = run_probe([1, 4], output_len=64, itl_ms=2.0, ttft_ms=10.0)
    assert [r.concurrency for r in result.rungs] == [1, 4]
    for r in result.rungs:
        assert r.requests_ok == max(8, 2 * r.concurrency)
        # the client's throughput follows the echo server's own window (same requests)
        assert abs(r.output_tok_s / r.server_output_tok_s - 1) < 0.05
        assert r.server_ttft_ms >= 10 and r.ttft_error_ms is not None
        assert r.stamp_delay_p50_ms is not None and r.stamp_delay_p50_ms >= 0
    best = max(r.output_tok_s for r in result.rungs)
    c = load_ceiling()
    assert c is not None and c.tok_s == best and c.machine == machine_key() and c.ttft_floor_ms > 0
    assert json.loads(store.read_text())[machine_key()]["tok_s"] == best

    # a later run on this machine records the ceiling, and the report says it
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tokcheck", "bench", "--url", server.url, "--model", "scripted",
                           "--tokenizer", str(tiny_tokenizer), "--input-len", "8", "--output-len", "8",
                           "--rounds", "1", "--out", str(out), "--no-telemetry", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["client"]["ceiling"]["tok_s"] == best and run["client"]["connections"] == "reuse"
    assert json.loads(proc.stdout)["levels"][0]["client"]["ceiling_tok_s"] == best
    md = subprocess.run([sys.executable, "-m", "tokcheck", "report", str(out)],
                        capture_output=True, text=True, timeout=120)
    assert f"numbers above {best:,.0f} tok/s on this machine are client-bound" in md.stdout + md.stderr


def test_probe_command_prints_the_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKCHECK_CEILING_FILE", str(tmp_path / "c.json"))
    proc = subprocess.run([sys.executable, "-m", "tokcheck", "probe", "--concurrency", "1,2", "--output-len", "32",
                           "--no-save"], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "on this machine are client-bound" in text and not (tmp_path / "c.json").exists()
    # an 80-column terminal shows every header and figure whole (no rich ellipsis)
    assert "…" not in proc.stdout and max(len(line.rstrip()) for line in proc.stdout.splitlines()) <= 80
    assert "conc." in proc.stdout and "bound" in proc.stdout
