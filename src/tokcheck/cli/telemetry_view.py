"""Terminal view of the telemetry in a bench summary (GPU sampler and server /metrics)."""

from __future__ import annotations

from typing import Any


def _fmt(value: Any, spec: str = "", unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, list):
        return ", ".join(value) or "none"
    return f"{value:{spec}}{unit}"


def render_telemetry(levels: list[tuple[str, dict[str, Any] | None]], console: Any = None) -> None:
    """One row per level: peak GPU memory, mean utilization, throttling, the server's
    generation tokens vs tokcheck's count, speculative decoding and KV cache figures."""
    from rich.console import Console
    from rich.table import Table

    from tokcheck.telemetry import level_headline

    if not any(t for _, t in levels):
        return
    table = Table("level", "GPU mem peak", "GPU util", "throttling", "server gen tok",
                  "counted", "match", "accept rate", "accepted len", "KV max",
                  title="Telemetry")
    for label, tele in levels:
        h = level_headline(tele)
        peak = h["gpu_memory_used_peak_bytes"]
        table.add_row(
            label, _fmt(peak / 1024**3 if peak is not None else None, ".2f", " GiB"),
            _fmt(h["gpu_utilization_mean_pct"], ".0f", " %"), _fmt(h["gpu_throttling_seen"]),
            _fmt(h["server_generation_tokens"], ".0f"), _fmt(h["counted_tokens"]),
            _fmt(h["tokens_match"]), _fmt(h["spec_decode_acceptance_rate"], ".2f"),
            _fmt(h["spec_decode_mean_accepted_length"], ".2f"),
            _fmt(h["kv_cache_usage_max"], ".1%"))
    (console or Console()).print(table)
