"""Terminal view of the telemetry in a bench summary (GPU sampler and server /metrics)."""

from __future__ import annotations

from typing import Any


def _fmt(value: Any, spec: str = "", unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value) or "none"
    return f"{value:{spec}}{unit}"


def render_telemetry(levels: list[tuple[str, Any]], console: Any = None) -> None:
    """One row per level: peak GPU memory, mean utilization, throttling, the server's
    generation tokens vs tokcheck's count, speculative decoding and KV cache figures.
    ``levels``: (label, the level's :class:`~tokcheck.record.schema.Telemetry`, or the dict
    the hooks returned, or ``None``)."""
    from rich.console import Console
    from rich.table import Table

    from tokcheck.core.units import fmt_bytes, fmt_count
    from tokcheck.machine.telemetry import level_headline
    from tokcheck.record.schema import Telemetry

    levels = [(label, Telemetry.model_validate(t) if isinstance(t, dict) else t) for label, t in levels]
    if not any(t for _, t in levels):
        return
    heads = [(label, level_headline(tele)) for label, tele in levels]
    rows = (
        ("GPU memory peak", lambda h: fmt_bytes(h["gpu_memory_used_peak_bytes"])),
        ("GPU utilization mean", lambda h: _fmt(h["gpu_utilization_mean_pct"], ".0f", " %")),
        ("GPU throttling seen", lambda h: _fmt(h["gpu_throttling_seen"])),
        ("server generation tokens", lambda h: fmt_count(h["server_generation_tokens"])),
        ("tokens tokcheck counted", lambda h: fmt_count(h["counted_tokens"])),
        ("counts agree", lambda h: _fmt(h["tokens_match"])),
        ("spec decode acceptance rate", lambda h: _fmt(h["spec_decode_acceptance_rate"], ".2f")),
        ("spec decode mean accepted length",
         lambda h: _fmt(h["spec_decode_mean_accepted_length"], ".2f")),
        ("KV cache usage max", lambda h: _fmt(h["kv_cache_usage_max"], ".1%")),
        ("prefix cache hit rate", lambda h: _fmt(h["prefix_cache_hit_rate"], ".1%")),
    )
    gpus = [t.gpu if t is not None else None for _, t in levels]
    no_gpu = [g for g in gpus if g is not None and not g.available]
    if len(no_gpu) == len(gpus) or all(g is None for g in gpus):
        rows = rows[3:]  # one line below says why there are no GPU figures
    table = Table("telemetry", *(label for label, _ in heads))
    for name, cell in rows:
        table.add_row(name, *(cell(h) for _, h in heads))
    con = console or Console()
    con.print(table)
    if no_gpu and len(no_gpu) == len(gpus):
        con.print(f"GPU telemetry: none — {no_gpu[0].reason}")
