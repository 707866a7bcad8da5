"""Engines tokcheck measures and reads but does not start: their data only.

SGLang's Prometheus ``/metrics`` names (its production-metrics reference,
https://docs.sglang.ai/references/production_metrics.html; ``sglang/srt/metrics/collector.py``):
counters ``sglang:prompt_tokens_total``, ``sglang:generation_tokens_total``,
``sglang:cached_tokens_total`` (prompt tokens served from the radix/prefix cache),
``sglang:num_requests_total``; gauges ``sglang:num_running_reqs``, ``sglang:num_queue_reqs``,
``sglang:token_usage`` (the share of the KV-cache pool in use). The token counters advance when
a request finishes, so they compare with tokcheck's counts at the end of a level, never while
requests stream. Its start-up line (``server_args=ServerArgs(…)``) is read by
:func:`tokcheck.machine.weights.sglang_server_args`.
"""

from __future__ import annotations

from tokcheck.engines.base import MetricNames

SGLANG_METRICS = MetricNames(
    counters={
        "generation_tokens": ("sglang:generation_tokens",),
        "prompt_tokens": ("sglang:prompt_tokens",),
        # vLLM's prefix-cache queries are the prompt tokens looked up; SGLang's hit counter is
        # the prompt tokens found in its radix cache.
        "prefix_cache_queries": ("sglang:prompt_tokens",),
        "prefix_cache_hits": ("sglang:cached_tokens",),
        "requests_finished": ("sglang:num_requests",),
    },
    gauges={
        "requests_running": ("sglang:num_running_reqs",),
        "requests_waiting": ("sglang:num_queue_reqs",),
        "kv_cache_usage_fraction": ("sglang:token_usage",),
    },
)

#: engine name → its /metrics names, for engines tokcheck does not start
METRICS: dict[str, MetricNames] = {"sglang": SGLANG_METRICS}
