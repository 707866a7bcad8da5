"""One run read under every tool's definitions, against the scripted-timing server whose chunks
(tokens per event, time per token, role-only delta) are known, so each tool's reading is too."""

from __future__ import annotations

import json
import statistics

import pytest

from tokcheck.analysis.definitions import TOOLS, definitions, read_level
from tokcheck.cli import main
from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.record.store import load_run


def _run(server, tokenizer, out, **kw):
    cfg = dict(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32, output_len=30,
               concurrency=[1], rounds=3, warmup=0, requests_per_round=3, out=str(out), timeout_s=5)
    cfg.update(kw)
    run_bench(BenchConfig(**cfg))
    return load_run(out)


def test_three_tokens_per_chunk_vllm_itl_is_per_chunk_and_tokchecks_per_token(server, tiny_tokenizer, tmp_path):
    # every 15 ms one SSE event with 3 tokens (5 ms per token)
    server.script(ttft_ms=20, itl_ms=5, tokens_per_chunk=3)
    run = _run(server, tiny_tokenizer, tmp_path / "run")
    d = definitions(run)
    assert set(d) == {"tokcheck", "vllm-bench", "guidellm", "aiperf"}
    assert d["vllm-bench"]["itl_ms"] == pytest.approx(15, abs=1.0)   # one value per event
    assert d["tokcheck"]["itl_ms"] == pytest.approx(5, abs=0.5)      # per token
    # TPOT: 9 gaps of 15 ms after the first read. tokcheck divides by the 27 tokens that came
    # after the first read; vLLM's TPOT, GuideLLM's and AIPerf's ITL by 30 − 1 = 29.
    recs = run.measured_requests()
    # every reading leaves out the spans the client could not vouch for (a loop stall on a busy
    # machine), as tokcheck's summary does
    spans = [(r.t_last_ns - r.t_first_ns) / 1e6 for r in recs if "tpot" not in r.client_marks]
    assert d["tokcheck"]["tpot_ms"] == pytest.approx(statistics.median(s / 27 for s in spans), rel=0.02)
    for tool, key in (("vllm-bench", "tpot_ms"), ("guidellm", "itl_ms"), ("aiperf", "itl_ms")):
        assert d[tool][key] == pytest.approx(statistics.median(s / 29 for s in spans), rel=0.02), tool
    assert d["tokcheck"]["tpot_ms"] / d["vllm-bench"]["tpot_ms"] == pytest.approx(29 / 27, rel=0.01)
    # GuideLLM's "time per output token" includes the TTFT: (last token − start) ÷ 30
    ttft_plus = statistics.median((r.t_last_ns - r.t_send_ns) / 1e6 / 30 for r in recs)
    assert d["guidellm"]["tpot_ms"] == pytest.approx(ttft_plus, rel=0.02) and d["guidellm"]["tpot_ms"] > 5
    assert d["aiperf"]["tpot_ms"] is None  # AIPerf has no TPOT
    # every tool counts 30 tokens per request here (usage = tokenizer = 30; 10 events of 3)
    assert {d[t]["output_tokens"] for t in d} == {30.0}
    # throughput windows: vLLM's equals tokcheck's (first send → last end); GuideLLM's opens at
    # the first token (a TTFT of 20 ms later) and closes at the last one; AIPerf's closes at the
    # last token (the same read as the end of the stream, when [DONE] came with it)
    assert d["vllm-bench"]["output_throughput_tok_s"] == pytest.approx(d["tokcheck"]["output_throughput_tok_s"])
    assert d["guidellm"]["output_throughput_tok_s"] > d["aiperf"]["output_throughput_tok_s"] \
        >= d["tokcheck"]["output_throughput_tok_s"]
    rnd = [r for r in recs if r.round == 2]
    gl = 90 * 1e9 / (max(r.t_last_ns for r in rnd) - min(r.t_first_ns for r in rnd))
    per_round = read_level(run.requests, TOOLS["guidellm"])
    assert per_round["output_throughput_tok_s"] == pytest.approx(gl, rel=0.05)


def test_chat_role_only_delta_is_vllms_first_token(server, tiny_tokenizer, tmp_path):
    # the role-only delta comes at once, the first token 60 ms later
    server.script(ttft_ms=60, itl_ms=2, role_first=True)
    run = _run(server, tiny_tokenizer, tmp_path / "run", api="chat", output_len=16)
    rec = run.measured_requests()[0]
    assert rec.empty_choice_ns and rec.empty_choice_ns[0] < rec.t_first_ns
    assert rec.t_last_event_ns >= rec.t_last_ns
    d = definitions(run)
    assert d["vllm-bench"]["ttft_ms"] < 10          # the role-only delta
    assert d["tokcheck"]["ttft_ms"] > 55 and d["guidellm"]["ttft_ms"] > 55 and d["aiperf"]["ttft_ms"] > 55


def test_coalesced_events_give_vllm_zero_gaps(server, tiny_tokenizer, tmp_path):
    # 4 one-token events per write: vLLM stamps each event, so a read of 4 gives one gap and three ~0
    server.script(ttft_ms=20, itl_ms=4, events_per_write=4)
    run = _run(server, tiny_tokenizer, tmp_path / "run", output_len=16)
    d = definitions(run)
    assert d["vllm-bench"]["itl_ms"] == pytest.approx(0, abs=0.5)   # the median gap is a zero
    assert d["tokcheck"]["itl_ms"] == pytest.approx(4, abs=1.0)


def test_verify_with_claim_tool_reads_the_run_as_the_tool_does(server, tiny_tokenizer, tmp_path, capsys):
    server.script(ttft_ms=20, itl_ms=5, tokens_per_chunk=3)
    _run(server, tiny_tokenizer, tmp_path / "run")
    run = load_run(tmp_path / "run")
    tool_ttft = definitions(run)["vllm-bench"]["ttft_ms"]
    claim = f"scripted, single request, TTFT {tool_ttft:.1f} ms, vllm bench serve --max-concurrency 1"
    rc = main(["verify", claim, "--run", str(tmp_path / "run"), "--metric", "ttft",
               "--claim-tool", "vllm-bench", "--json"])
    assert rc == 0
    v = json.loads(capsys.readouterr().out)
    assert v["claim_tool"] == "vllm-bench" and v["measured"] == pytest.approx(tool_ttft)
    assert "vllm bench serve" in v["summary"] and v["measured_tokcheck"] is not None
    traps = {t["name"]: t["status"] for t in v["traps"]}
    assert traps["output length forced"] == "warn"            # no --ignore-eos in the claim
    assert traps["warm-up counted"] == "warn"                 # no --num-warmups
    assert traps["closed vs open loop"] == "pass"             # --max-concurrency 1, closed like the run
    assert traps["usage-based vs tokenizer counts"] == "pass"
    assert set(v["definitions"]) == {"tokcheck", "vllm-bench", "guidellm", "aiperf"}


def test_whose_token_counts(server, tiny_tokenizer, tmp_path):
    # no usage sent, 3 tokens per event: GuideLLM counts one token per streamed line (10), the
    # others the tokenizer's 30
    server.script(ttft_ms=20, itl_ms=2, tokens_per_chunk=3, usage="absent")
    d = definitions(_run(server, tiny_tokenizer, tmp_path / "absent"))
    assert d["guidellm"]["output_tokens"] == 10 and d["tokcheck"]["output_tokens"] == 30
    assert d["vllm-bench"]["output_tokens"] == 30 and d["aiperf"]["output_tokens"] == 30
    # usage off by 5: vLLM and GuideLLM take the server's 35; AIPerf and tokcheck count what was
    # streamed with the tokenizer (30: usage is a cross-check only)
    server.script(ttft_ms=20, itl_ms=2, usage="wrong", usage_off_by=5)
    d = definitions(_run(server, tiny_tokenizer, tmp_path / "wrong"))
    assert d["vllm-bench"]["output_tokens"] == 35 and d["guidellm"]["output_tokens"] == 35
    assert d["aiperf"]["output_tokens"] == 30 and d["tokcheck"]["output_tokens"] == 30
