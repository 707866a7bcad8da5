"""verify, compare and report on real run directories written by `tokcheck bench` against the
scripted-timing server, whose true values the script sets: 5 ms per output token is
200 tok/s generation, TTFT 30 ms."""

from __future__ import annotations

import json

import pytest

from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.cli import main
from tokcheck.analysis.verify.claim_bound import claim_fields
from tokcheck.analysis.compare import comparability, side_by_side
from tokcheck.report import render_csv, render_html
from tokcheck.record.store import load_run
from tokcheck.analysis.verify import verify

CLAIM = "scripted model, single request, {v} tok/s generation, input 32 output 40"


def _bench(server, tokenizer, out, **script):
    server.script(**({"ttft_ms": 30, "itl_ms": 5} | script))   # unset keys: the server's defaults
    run_bench(BenchConfig(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32,
                          output_len=40, concurrency=[1, 2], rounds=3, warmup=1, requests_per_round=4,
                          out=str(out), timeout_s=10))
    return load_run(out)


def _client_bound(run, concurrency: int) -> bool:
    """Whether the client was the limit at that level (summary.json client.bound)."""
    lv = next(lv for lv in run.levels if lv.concurrency == concurrency)
    return bool(lv.client and lv.client.bound)


@pytest.fixture(scope="module")
def scripted_run(scripted_server, tiny_tokenizer, tmp_path_factory):
    return _bench(scripted_server, tiny_tokenizer, tmp_path_factory.mktemp("scripted") / "run")


def test_true_claim_reproduced_and_three_times_higher_not(scripted_run):
    ok = verify(claim_fields(CLAIM.format(v=200)), scripted_run)
    assert ok.reproduced is True
    assert ok.measured == pytest.approx(200, rel=0.1)          # the script's 5 ms per token

    bad = verify(claim_fields(CLAIM.format(v=600)), scripted_run)
    assert bad.reproduced is False and bad.ratio == pytest.approx(1 / 3, rel=0.1)
    c1, c5 = bad.checks[0], bad.checks[4]
    # on a machine so busy that the client itself was the limit, check 1 must say so instead
    assert c1.status == ("fail" if _client_bound(scripted_run, 1) else "pass")
    assert _client_bound(scripted_run, 1) == any("the client, not the server" in e for e in c1.evidence)
    assert "tokenizer count equals usage.completion_tokens on all 12 requests" in " ".join(c1.evidence)
    assert "median tokens per chunk 1" in " ".join(c5.evidence)
    # the scripted server has no engine report, no environment: those checks say unknown
    assert [c.status for c in bad.checks[1:4]] == ["unknown", "unknown", "unknown"]


def test_another_definition_is_pointed_out(scripted_run):
    # A "per request" claim of what two concurrent requests deliver together here (about
    # 2 × 200 tok/s less TTFT) is not what one request does: check 1 names the likelier definition
    together = scripted_run.levels[1].output_throughput_tok_s
    assert together > 1.5 * 200 * 0.9
    v = verify(claim_fields(CLAIM.format(v=round(together))), scripted_run)
    assert v.reproduced is False
    assert v.checks[0].status == ("fail" if _client_bound(scripted_run, 1) else "warn")
    assert "aggregate_throughput at concurrency 2" in " ".join(v.checks[0].evidence)


def test_ttft_claim(scripted_run):
    v = verify(claim_fields("TTFT 30 ms for a single request, input 32 output 40"), scripted_run)
    assert v.metric == "ttft" and v.reproduced is True and v.measured >= 30


def test_usage_off_by_five_fails_check_one(server, tiny_tokenizer, tmp_path):
    run = _bench(server, tiny_tokenizer, tmp_path / "wrong", usage="wrong", usage_off_by=5)
    v = verify(claim_fields(CLAIM.format(v=600)), run)
    assert v.checks[0].status == "fail"
    assert "tokenizer count differs from usage" in " ".join(v.checks[0].evidence)


def test_multi_token_chunks_show_in_check_five(server, tiny_tokenizer, tmp_path):
    # 3 tokens per chunk every 15 ms, as speculative decoding would deliver them: still 200 tok/s
    run = _bench(server, tiny_tokenizer, tmp_path / "spec", tokens_per_chunk=3)
    v = verify(claim_fields(CLAIM.format(v=200)), run)
    assert v.reproduced is True
    assert "median tokens per chunk 3" in " ".join(v.checks[4].evidence)


def test_compare_and_report_on_real_runs(server, tiny_tokenizer, tmp_path, scripted_run, capsys):
    slow = _bench(server, tiny_tokenizer, tmp_path / "slow", ttft_ms=90, itl_ms=10)
    assert comparability([scripted_run, slow]).comparable     # same workload, prompts, levels
    rows = {(r.level, r.metric): r for r in side_by_side([scripted_run, slow])}
    ttft = rows[("concurrency 1", "median TTFT")].values
    gen = rows[("concurrency 1", "generation tok/s per request")].values
    # the script is a floor (a busy machine only delays delivery); its difference shows
    assert 30 <= ttft[0] < ttft[1] and ttft[1] >= 90 and ttft[1] - ttft[0] > 40
    assert gen[0] == pytest.approx(200, rel=0.1) and gen[1] == pytest.approx(100, rel=0.1)

    page = render_html([scripted_run, slow])
    assert page.count('src="data:image/png;base64,') == 6       # + the interactivity curve; no GPU plot, no bound: said why
    csv_rows = render_csv([scripted_run]).splitlines()
    assert len(csv_rows) == 1 + len(scripted_run.requests)
    assert main(["report", str(scripted_run.path), "--claim", CLAIM.format(v=600),
                 "--md", str(tmp_path / "r.md")]) == 0
    assert "NOT REPRODUCED" in (tmp_path / "r.md").read_text()
    capsys.readouterr()
    assert main(["verify", CLAIM.format(v=200), "--run", str(scripted_run.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reproduced"] is True
