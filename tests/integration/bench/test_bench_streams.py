"""Real-world stream shapes and a starved client, against the scripted-timing server (its script
is the true value): usage that disagrees, output on other channels than ``content``, chunks that
carry no token, servers that ignore the asked length, open-loop queueing, a client that cannot
keep up, keep-alive connections, the server's max_model_len, and readable errors."""

from __future__ import annotations

import statistics
import threading

import pytest

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.loadgen.tokens import load_tokenizer
from tokcheck.record.store import read_requests


def bench(server, tokenizer, tmp_path, **kw):
    cfg = dict(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32, output_len=16,
               concurrency=[1], rounds=1, warmup=0, requests_per_round=3, out=str(tmp_path / "run"),
               timeout_s=10)
    cfg.update(kw)
    summary = run_bench(BenchConfig(**cfg), hooks=kw.pop("hooks", None) if "hooks" in kw else None)
    return summary, read_requests(tmp_path / "run")


def test_usage_that_reports_more_tokens_is_a_cross_check_not_the_count(server, tiny_tokenizer, tmp_path):
    # the server says 10 more completion tokens than it streamed; the truth is 40 tokens, 5 ms apart
    server.script(ttft_ms=20, itl_ms=5, usage="wrong", usage_off_by=10)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, output_len=40, requests_per_round=4)
    lv = summary.levels[0]
    for r in recs:
        assert r.n_out == r.n_out_tokenizer == 40 and r.n_out_source == "tokenizer"
        assert r.n_out_usage == 50 and r.usage_difference == 10 and "usage_mismatch" in r.defects
        assert not r.early_stop  # each produced exactly what was asked
    assert lv.tpot_ms.median == pytest.approx(5.0, abs=0.15)  # not 4.5 (usage's 50 tokens)
    assert lv.generation_tok_s.median == pytest.approx(200, rel=0.03)
    assert lv.early_stops == 0 and lv.usage_mismatches == 4
    assert lv.usage_difference_tokens.median == 10
    assert lv.output_tokens.mean == 40
    assert any("usage.completion_tokens differs" in w and "+10" in w for w in lv.warnings)


def test_reasoning_then_answer_gives_ttft_and_ttfo(server, tiny_tokenizer, tmp_path):
    # 32 of 128 tokens are reasoning; first token at 50 ms, then 5 ms per token: the answer's
    # first token comes at 50 + 32 × 5 = 210 ms
    server.script(ttft_ms=50, itl_ms=5, reasoning_tokens=32)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, api="chat", output_len=128, requests_per_round=3)
    lv = summary.levels[0]
    for r in recs:
        assert r.error is None and r.tokens_by_channel == {"reasoning": 32, "content": 96}
        assert r.reasoning_tokens == 32 and r.reasoning_tokens_usage == 32 and r.n_out == 128
        assert r.ttfo_ms - r.ttft_ms == pytest.approx(32 * 5, abs=8)  # (a late first write shortens it)
    assert lv.ttft_ms.median == pytest.approx(50, abs=5)
    assert lv.ttfo_ms.median == pytest.approx(210, abs=5)
    assert lv.tpot_ms.median == pytest.approx(5.0, abs=0.15)


def test_tool_call_output_is_output(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=5, tool_call=True)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, api="chat", output_len=40, requests_per_round=3)
    lv = summary.levels[0]
    name_tokens = load_tokenizer(tiny_tokenizer).count("lookup")
    assert lv.requests_ok == 3 and lv.requests_failed == 0  # not "no_output"
    for r in recs:
        assert r.error is None and r.finish_reason == "tool_calls"
        assert r.tokens_by_channel == {"tool_calls": 40 + name_tokens}  # the name and 40 argument tokens
        assert r.n_first == 1 + name_tokens
    assert lv.tpot_ms.median == pytest.approx(5.0, abs=0.15)
    assert lv.generation_tok_s.median == pytest.approx(200, rel=0.03)


def test_chunks_without_tokens_never_stop_a_run(server, tiny_tokenizer, tmp_path):
    # a first chunk with choices [] and only content-filter metadata (as one cloud provider sends),
    # a usage-only chunk, SSE comments before and during the stream
    server.script(ttft_ms=20, itl_ms=5, preamble=["empty_choices", "usage_only", "ping"], ping_every=3)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, api="chat", output_len=20, requests_per_round=3)
    lv = summary.levels[0]
    assert lv.requests_ok == 3 and lv.requests_failed == 0
    for r in recs:
        assert r.n_out == 20 and r.no_token_chunks == 3  # the two metadata chunks and the final usage
        assert r.ttft_ms == pytest.approx(20, abs=5)  # the metadata chunks are not the first token
        # TPOT divides by the tokens after the first read (19 unless a busy machine coalesced
        # reads): the 3 metadata chunks are not counted (that would give about 4.3 ms)
        assert r.tpot_ms == pytest.approx((r.t_last_ns - r.t_first_ns) / 1e6 / (20 - r.n_first))
    # the server sleeps 5 ms a token; a busy machine only makes that later, never sooner
    assert 4.9 <= lv.tpot_ms.median <= 5.6


def test_actual_lengths_are_reported_and_forcing_is_judged_by_what_arrived(server, tiny_tokenizer, tmp_path):
    # the server ignores the asked 100 tokens and stops after 40
    server.script(ttft_ms=5, itl_ms=1, eos_after=40)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, output_len=100, input_len=50)
    lv = summary.levels[0]
    assert lv.output_tokens.model_dump() == {"mean": 40, "median": 40, "min": 40, "max": 40, "n": 3,
                                             "requested": 100, "source": "tokenizer"}
    assert lv.input_tokens.median == 50 and lv.input_tokens.source == "usage"
    assert lv.early_stops == 3 and any("40 tokens on average" in w for w in lv.warnings)
    from tokcheck.record.store import load_run

    run = load_run(tmp_path / "run")
    assert run.conditions.workload.output_forcing == "max_tokens+min_tokens+ignore_eos"  # what was sent
    assert run.conditions.workload.output_forcing_held is False  # what arrived
    assert run.conditions.workload.output_tokens_delivered == {"mean": 40, "min": 40, "max": 40}

    from tokcheck.analysis.verify import verify

    v = verify({"metric": "generation_tok_s", "value": 100.0, "output_tokens": 100, "concurrency": 1}, run)
    out = next(c for c in v.conditions if c.name == "output_tokens")
    assert out.status == "differ" and out.run == 40
    assert v.reproduced is None and any("output_tokens differs" in r for r in v.incomparable_reasons)


def test_open_loop_ttft_from_due_time_includes_the_queue(server, tiny_tokenizer, tmp_path):
    # 20 req/s offered, at most 2 in flight, each request 50 + 15 × 2 = 80 ms: about 25 req/s
    # could be served were it not for the cap; with it about 2 / 0.08 = 25 … the backlog grows
    server.script(ttft_ms=50, itl_ms=10)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, request_rate=[20.0], max_in_flight=2,
                          requests_per_round=20)
    lv = summary.levels[0]
    waited = [r for r in recs if r.queue_delay_ms > 50]
    assert waited, "some requests must have waited for a free slot"
    for r in recs:
        # the headline TTFT includes the queue; the one from the real send stays beside it
        assert r.ttft_ms == pytest.approx(r.queue_delay_ms + r.ttft_from_send_ms)
    assert lv.ttft_ms.median > lv.ttft_from_send_ms.median + 50
    assert lv.ttft_from_send_ms.median == pytest.approx(50, abs=15)
    assert lv.achieved_rate_rps < 0.95 * lv.offered_rate_rps
    assert any("offered" in w for w in lv.warnings)


class GilHog:
    """A hook whose thread holds the GIL for tens of ms at a time while the level runs (a C call
    that never lets go of it: sorting a long list of ints), as a busy library thread would."""

    def __init__(self) -> None:
        self.data = list(range(2_000_000, 0, -1))
        self.stop = threading.Event()

    def _run(self) -> None:
        while not self.stop.is_set():
            sorted(self.data)

    def before_level(self, label):
        self.stop.clear()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def after_level(self, label):
        self.stop.set()
        self.thread.join()


def test_a_starved_client_is_flagged_as_bound(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=50, itl_ms=5)
    cfg = BenchConfig(url=server.url, model="scripted", tokenizer=str(tiny_tokenizer), input_len=16, output_len=64,
                      concurrency=[4], rounds=1, warmup=0, requests_per_round=12, out=str(tmp_path / "run"))
    summary = run_bench(cfg, hooks=[GilHog()])
    lv = summary.levels[0]
    assert lv.client.bound is True
    assert lv.client.stalls > 0 and lv.client.loop_lag_ms.max > 10  # a sort holds the GIL ~25–150 ms
    assert lv.client.untrusted_requests > 0 and lv.client.reasons
    recs = read_requests(tmp_path / "run")
    marked = [r for r in recs if "ttft" in r.client_marks]
    assert marked and all(r.stamp_uncertainty_ms > 2 for r in marked)
    # marked requests are not averaged into the headline TTFT
    trusted = [r.ttft_ms for r in recs if "ttft" not in r.client_marks]
    if lv.ttft_ms is not None:
        assert lv.ttft_ms.n == len(trusted)
    else:
        assert "could not vouch" in lv.ttft_ms_reason
    assert any("the client, not the server" in w for w in lv.warnings)

    from tokcheck.analysis.verify import verify
    from tokcheck.record.store import load_run

    v = verify({"metric": "aggregate_throughput", "value": 1000.0, "concurrency": 4}, load_run(tmp_path / "run"))
    check = v.checks[0]
    assert check.status == "fail" and any("client" in e and "limited" in e for e in check.evidence)
    assert not any("the server (or a proxy) delivers" in a for a in check.advice)


def test_keep_alive_reuses_connections(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=5, itl_ms=1)
    _, recs = bench(server, tiny_tokenizer, tmp_path / "a", concurrency=[2], requests_per_round=8)
    conns = {s["conn"] for s in server.stats() if "conn" in s}
    assert len(recs) == 8 and len(conns) <= 3  # the probe's connection and two for the level
    server.script(ttft_ms=5, itl_ms=1)
    _, recs = bench(server, tiny_tokenizer, tmp_path / "b", concurrency=[2], requests_per_round=8,
                    connections="new")
    conns = {s["conn"] for s in server.stats() if "conn" in s}
    assert len(conns) == 9  # one per request, the probe's included
    assert all(r.error is None for r in recs)


def test_peak_output_throughput_is_at_least_the_mean(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=5)
    summary, _ = bench(server, tiny_tokenizer, tmp_path, output_len=100, concurrency=[4], requests_per_round=12)
    lv = summary.levels[0]
    assert lv.peak_output_throughput_tok_s >= lv.output_throughput_tok_s
    # 4 streams × 200 tok/s: the peak second cannot exceed it by much (the server keeps time)
    assert lv.peak_output_throughput_tok_s < 4 * 200 * 1.2


def test_lengths_above_max_model_len_are_refused_before_any_request(server, tiny_tokenizer, tmp_path):
    server.script(max_model_len=100)
    with pytest.raises(TokcheckError, match=r"60 \+ --output-len 50 = 110 tokens is more than the server's "
                                            r"max_model_len 100"):
        bench(server, tiny_tokenizer, tmp_path, input_len=60, output_len=50)
    assert not (tmp_path / "run").exists() and server.stats() == []


def test_a_refused_request_shows_the_servers_whole_message(server, tiny_tokenizer, tmp_path):
    long = ("This model's maximum context length is 2048 tokens. However, you requested 5000 tokens "
            "(4000 in the messages, 1000 in the completion). Please reduce the length of the messages "
            "or completion, and note that your prompt contains at least that many tokens.")
    server.script(fault="http_400", error_message=long)
    with pytest.raises(TokcheckError) as err:
        bench(server, tiny_tokenizer, tmp_path)
    assert long in str(err.value)


def test_a_dead_port_is_said_in_words(tiny_tokenizer, tmp_path):
    cfg = BenchConfig(url="http://127.0.0.1:9", model="m", tokenizer=str(tiny_tokenizer), out=str(tmp_path / "r"))
    with pytest.raises(TokcheckError, match=r"nothing is listening on 127\.0\.0\.1:9$"):
        run_bench(cfg)


def test_stamp_delay_from_the_servers_own_write_stamps(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=10, itl_ms=2, write_stamps=True)
    summary, recs = bench(server, tiny_tokenizer, tmp_path, output_len=32)
    assert all(r.stamp_delay_ms is not None and 0 <= r.stamp_delay_ms < 50 for r in recs)
    assert summary.levels[0].client.stamp_delay_ms.p50 == pytest.approx(
        statistics.median(r.stamp_delay_ms for r in recs))
