"""`tokcheck sweep` end to end on vLLM for the CPU: a server restart per max_model_len, each
concurrency benched, the table and its swings written (kept small for CI)."""

from __future__ import annotations

import json

import pytest

from tokcheck.cli import main
from tokcheck.record.store import load_run
from tokcheck.flows.sweep import find_swings, sweep_cells

pytestmark = pytest.mark.e2e


def test_sweep_restarts_per_max_model_len(tiny_llama, vllm_python, tmp_path, capsys):
    out = tmp_path / "sweep"
    rc = main(["sweep", "--engine", "vllm", "--model", str(tiny_llama), "--python", str(vllm_python),
               "--max-model-len", "256,512", "--concurrency", "1,2", "--input-len", "32", "--output-len", "48",
               "--rounds", "2", "--requests-per-round", "2", "--enforce-eager", "--out", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "max_model_len" in printed and "wrote" in printed

    runs = {}
    for mml in (256, 512):
        run = load_run(out / f"mml-{mml}")
        runs[mml] = run
        # a fresh server per setting, started with that max_model_len and saying so in its log
        assert run.conditions.serve.max_model_len == mml
        assert run.conditions.engine_report.max_seq_len == mml
        assert f"'max_model_len': {mml}" in run.server_log
        assert [lv.concurrency for lv in run.levels] == [1, 2]
        for lv in run.levels:
            assert lv.requests_failed == 0 and lv.ttft_ms.median > 0
            assert lv.output_throughput_tok_s > 0
    assert runs[256].conditions.serve.argv != runs[512].conditions.serve.argv

    data = json.loads((out / "sweep.json").read_text())
    assert [(c["max_model_len"], c["concurrency"]) for c in data["cells"]] == [(256, 1), (256, 2), (512, 1), (512, 2)]
    # TTFT and aggregate throughput always exist; generation tok/s is n/a (None, never 0) only
    # when every token of a level arrived in one read (a starved client on a shared CPU)
    assert all(c["ttft_ms"] and c["aggregate_tok_s"] for c in data["cells"])
    assert all(c["generation_tok_s"] is None or c["generation_tok_s"] > 0 for c in data["cells"])
    # the written swings are those over 30 % between neighbouring cells of these very runs
    cells = sweep_cells(runs)
    assert len(data["swings"]) == len(find_swings(cells, 0.30))
    for s in data["swings"]:
        assert abs(s["change"]) > 0.30
    md = (out / "sweep.md").read_text()
    assert md.count("\n| 256 |") == 2 and md.count("\n| 512 |") == 2

    # the README's next step: `tokcheck report runs/sweep/mml-*` labels each run by its directory
    assert main(["report", str(out / "mml-256"), str(out / "mml-512"), "--md", str(out / "r.md"),
                 "--html", str(out / "r.html"), "--csv", str(out / "r.csv")]) == 0
    rmd = (out / "r.md").read_text()
    assert "## mml-256" in rmd and "## mml-512" in rmd
    for run in runs.values():
        assert rmd.count(str(run.conditions.run_id)) == 1      # only in its conditions' run id row
    assert "Per-request timeline (mml-256)" in (out / "r.html").read_text()
    assert {line.split(",")[0] for line in (out / "r.csv").read_text().splitlines()[1:]} == {"mml-256", "mml-512"}
