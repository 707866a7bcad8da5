"""The known traps of a claim made with another tool, read from its command line and the run."""

from __future__ import annotations

from rundirs import write_run_dir
from tokcheck.analysis.verify.traps import tool_traps, vllm_version
from tokcheck.record.store import load_run


def _traps(tmp_path, tool, text, **kw):
    run = load_run(write_run_dir(tmp_path / "r", levels={1: {"ttft_ms": 10, "gen_tok_s": 300}}, **kw))
    return {t.name: t for t in tool_traps(tool, text, {}, run, run.levels[0])}


def test_vllm_bench_command_with_every_flag_passes(tmp_path):
    t = _traps(tmp_path, "vllm-bench", "vllm bench serve --ignore-eos --num-warmups 5 --max-concurrency 1 "
                                         "--random-range-ratio 0.0 on vLLM 0.9.1")
    assert {n: x.status for n, x in t.items()} == {
        "output length forced": "pass", "warm-up counted": "pass", "closed vs open loop": "pass",
        "--random-range-ratio meaning": "pass", "usage-based vs tokenizer counts": "pass"}


def test_the_random_range_ratio_changed_meaning(tmp_path):
    # 1.0 meant fixed lengths up to vLLM 0.8.3; since PR #16126 0.0 does, and 1.0 is not allowed
    assert _traps(tmp_path, "vllm-bench", "--random-range-ratio 1.0 vllm 0.8.3")["--random-range-ratio meaning"].status == "pass"
    old = _traps(tmp_path, "vllm-bench", "--random-range-ratio 0.5 vLLM 0.8.2")["--random-range-ratio meaning"]
    assert old.status == "warn" and "[0.5·L, L] (mean 0.75·L)" in old.evidence[0]
    new = _traps(tmp_path, "vllm-bench", "--random-range-ratio 0.5 vLLM 0.9.0")["--random-range-ratio meaning"]
    assert new.status == "warn" and "[0.50·L, 1.50·L]" in new.evidence[0]
    unknown = _traps(tmp_path, "vllm-bench", "--random-range-ratio 0.0")["--random-range-ratio meaning"]
    assert unknown.status == "warn" and "no vLLM version" in unknown.evidence[0]
    assert "--random-range-ratio meaning" not in _traps(tmp_path, "vllm-bench", "vllm bench serve")
    assert vllm_version("vllm==0.10.1", {}) == (0, 10, 1) and vllm_version("x", {"engine": "vLLM",
                                                                               "engine_version": "0.8.4"}) == (0, 8, 4)


def test_open_loop_and_burst_claims_against_a_closed_loop_run(tmp_path):
    assert _traps(tmp_path, "vllm-bench", "--request-rate 4")["closed vs open loop"].status == "warn"
    burst = _traps(tmp_path, "vllm-bench", "vllm bench serve --num-prompts 1000")["closed vs open loop"]
    assert burst.status == "warn" and "every prompt is sent at once" in burst.evidence[0]
    assert _traps(tmp_path, "guidellm", "--rate-type poisson")["closed vs open loop"].status == "warn"
    assert _traps(tmp_path, "guidellm", "--rate-type synchronous")["closed vs open loop"].status == "pass"
    assert _traps(tmp_path, "aiperf", "aiperf profile --concurrency 4")["closed vs open loop"].status == "pass"


def test_aiperf_counts_with_its_tokenizer(tmp_path):
    # the run's usage counts are off by 3 from the tokenizer's: AIPerf's number would differ
    t = _traps(tmp_path, "aiperf", "aiperf profile --concurrency 1", usage_off_by=3)
    assert t["usage-based vs tokenizer counts"].status == "warn"
    assert "differ for 12 of 12" in t["usage-based vs tokenizer counts"].evidence[1]
    assert t["output length forced"].status == "warn" and t["warm-up counted"].status == "warn"
    assert _traps(tmp_path, "aiperf", "--extra-inputs ignore_eos:true --warmup-request-count 10")[
        "output length forced"].status == "pass"
    assert tool_traps("tokcheck", "", {}, load_run(tmp_path / "r"), None) == []
