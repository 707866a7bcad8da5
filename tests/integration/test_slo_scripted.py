"""Goodput under SLOs against the scripted-timing server: the script's TTFT and inter-token
time are the true values, so which requests meet an SLO is known before the run."""

from __future__ import annotations

import json

import pytest

from tokcheck.cli import main
from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.record.store import load_run


def _bench(server, tokenizer, out, slo, **kw):
    cfg = dict(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32, output_len=16,
               concurrency=[1], rounds=2, warmup=0, requests_per_round=3, out=str(out), timeout_s=5, slo=slo)
    cfg.update(kw)
    return run_bench(BenchConfig(**cfg))


def test_goodput_equals_throughput_when_every_request_meets_the_slo(server, tiny_tokenizer, tmp_path):
    # TTFT 50 ms, 5 ms per token: TTFT ≤ 60 ms and TPOT ≤ 6 ms hold for every request
    server.script(ttft_ms=50, itl_ms=5)
    summary = _bench(server, tiny_tokenizer, tmp_path / "run", "ttft_ms=60,tpot_ms=6")
    lv = summary.levels[0]
    run = load_run(tmp_path / "run")
    recs = run.measured_requests()
    assert all(r.ttft_ms <= 60 and r.tpot_ms <= 6 for r in recs)  # the true values of the script
    assert lv.slo is not None and lv.slo.share_met_all == 1.0 and lv.slo.met is True
    assert [o.met for o in lv.slo.objectives] == [True, True]
    assert lv.slo.goodput_tok_s == lv.output_throughput_tok_s  # same requests, same window: exactly
    assert lv.slo.goodput_rps == lv.request_throughput_rps
    assert lv.slo.goodput_tok_s_rounds == lv.output_throughput_tok_s_rounds
    assert lv.figure("goodput_tok_s").value == lv.output_throughput_tok_s
    assert run.conditions.slo["text"] == "ttft_ms<=60@p99,tpot_ms<=6@p99"
    # the objectives' values at p99 lie just above the script's
    ttft = lv.slo.objectives[0].value_ms
    assert 50 <= ttft <= 60


def test_goodput_is_zero_when_no_request_meets_the_slo(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=50, itl_ms=5)
    summary = _bench(server, tiny_tokenizer, tmp_path / "run", "ttft_ms=40")
    lv = summary.levels[0]
    assert lv.output_throughput_tok_s > 0
    assert lv.slo.goodput_tok_s == 0.0 and lv.slo.goodput_rps == 0.0
    assert lv.slo.share_met_all == 0.0 and lv.slo.met is False
    assert lv.slo.objectives[0].share_met == 0.0 and lv.slo.objectives[0].value_ms >= 50


def test_mlperf_preset_and_json_through_the_cli(server, tiny_tokenizer, tmp_path, capsys):
    server.script(ttft_ms=20, itl_ms=2)
    rc = main(["bench", "--url", server.url, "--model", "scripted", "--tokenizer", str(tiny_tokenizer),
               "--input-len", "32", "--output-len", "16", "--rounds", "2", "--warmup", "0",
               "--requests-per-round", "3", "--no-telemetry", "--out", str(tmp_path / "run"),
               "--slo", "mlperf:llama3.1-8b-interactive", "--json"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    slo = data["levels"][0]["slo"]
    # MLPerf's Llama 3.1 8B interactive limits: TTFT 500 ms, TPOT 30 ms, at p99
    assert slo["text"] == "ttft_ms<=500@p99,tpot_ms<=30@p99" and "mlperf.conf" in slo["source"]
    assert slo["met"] is True and slo["share_met_all"] == 1.0
    assert data["levels"][0]["ci95"]["ttft_ms"][0] <= data["levels"][0]["ttft_ms"]["median"] + 5


def test_a_bad_slo_is_one_line(tiny_tokenizer, capsys):
    rc = main(["bench", "--url", "http://127.0.0.1:9", "--model", "m", "--tokenizer", str(tiny_tokenizer),
               "--slo", "ttft_ms=fast"])
    err = capsys.readouterr().err
    assert rc == 1 and "bad SLO item" in err and err.count("\n") == 1


@pytest.mark.parametrize("spec", ["itl_ms=3@p90", "e2e_ms=10"])
def test_itl_and_e2e_objectives(server, tiny_tokenizer, tmp_path, spec):
    # 16 tokens at 5 ms: per-token ITL 5 ms > 3 ms; E2E ≈ 20 + 75 ms > 10 ms — nobody meets them
    server.script(ttft_ms=20, itl_ms=5)
    lv = _bench(server, tiny_tokenizer, tmp_path / "run", spec).levels[0]
    assert lv.slo.share_met_all == 0.0 and lv.slo.met is False and lv.slo.goodput_rps == 0.0
