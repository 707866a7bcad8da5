"""The metric table: each metric defined once, and every view iterating over it."""

from __future__ import annotations

import pytest

from rundirs import write_run_dir
from tokcheck.core import metrics
from tokcheck.core.metric_table import BY_CLAIM_NAME, METRIC, METRICS, VIEWS, shown_in, with_unit
from tokcheck.record.level import Level
from tokcheck.record.schema import LEVEL_METRICS, LevelSummary, RequestRecord
from tokcheck.record.store import load_run
from tokcheck.record.summarize import summarize_level
from tokcheck.report.data import CSV_COLUMNS

MS = 1_000_000


def test_itl_is_computed_once_per_read():
    # a record written before per-read merging: two SSE events share one read's stamp (10 ms).
    # Per token, per read: the 2-token read after 10 ms gives 5, 5; then 10, 10. The report's
    # own function used to give [10, 0, 10, 10] (a zero gap inside one read); it is gone.
    chunks = [(0, 1), (10 * MS, 1), (10 * MS, 1), (20 * MS, 1), (30 * MS, 1)]
    assert metrics.itl_ms(chunks) == [5.0, 5.0, 10.0, 10.0]
    assert METRIC["itl_ms"].values(RequestRecord(level="c=1", chunks=chunks)) == [5.0, 5.0, 10.0, 10.0]
    import tokcheck.report.data as report_data

    assert not hasattr(report_data, "itl_values_ms")


def test_every_metric_is_complete():
    for m in METRICS:
        assert m.name.endswith(("_ms", "_tok_s", "_rps", "_per_token", "_w")) or m.unit == "tokens", m.name
        assert m.label and m.unit and m.null_reason and m.definition
        assert (m.values is None) == (m.kind in ("round", "level")) and (m.per_round is None) == (m.kind != "round")
        assert (m.from_level is None) == (m.kind != "level")
        assert m.shown_in <= set(VIEWS)
        assert set(m.extras) <= {"p99", "spread"}
    assert len({m.name for m in METRICS}) == len(METRICS)
    assert set(BY_CLAIM_NAME) == {"ttft", "generation_tok_s", "e2e_tok_s", "aggregate_throughput"}


def test_the_summary_has_a_field_for_every_metric():
    fields = set(LevelSummary.model_fields)
    for m in METRICS:
        if m.kind == "level":  # held elsewhere in the level (the SLO result, the GPU telemetry)
            assert m.name not in fields
            continue
        assert {m.name, f"{m.name}_reason"} <= fields
        if m.kind == "round":
            assert {f"{m.name}_rounds", f"{m.name}_spread"} <= fields
    assert set(LEVEL_METRICS) == {m.name for m in METRICS if m.kind not in ("round", "level")}
    assert "LevelSummary" in LevelSummary.__name__ and LevelSummary.model_fields["ttft_ms"].description


def test_summarize_fills_every_metric_of_the_table(tmp_path):
    run = load_run(write_run_dir(tmp_path / "r", levels={2: {"ttft_ms": 10, "gen_tok_s": 200}}))
    lv = summarize_level(run.requests, Level.closed(2))
    for m in METRICS:
        f = lv.figure(m.name)
        assert (f.value is None) == (f.reason is not None), m.name
    assert lv.ttft_ms.median == pytest.approx(10.0) and lv.generation_tok_s.median == pytest.approx(200.0, rel=1e-3)
    assert lv.ttft_from_due_ms is None and "due time" in lv.ttft_from_due_ms_reason
    # these synthetic records carry no n_out (older records): 0 tokens, never a missing round
    assert lv.output_throughput_tok_s == 0.0 and len(lv.output_throughput_tok_s_rounds) == 3
    assert lv.request_throughput_rps > 0 and lv.request_throughput_rps == lv.figure("request_throughput_rps").value


def test_views_take_their_metrics_from_the_table():
    from tokcheck.analysis.verify import METRIC_LABELS, METRICS as CLAIM_METRICS
    from tokcheck.flows.sweep import SWEEP_METRICS
    from tokcheck.report import LEVEL_COLUMNS

    assert [c for c in CSV_COLUMNS if c in METRIC] == [m.name for m in shown_in("csv")]
    assert set(CLAIM_METRICS) == set(BY_CLAIM_NAME)
    assert METRIC_LABELS["ttft"] == METRIC["ttft_ms"].definition
    assert [lbl for _, lbl, _ in SWEEP_METRICS] == ["median TTFT", "generation tok/s per request",
                                                    "aggregate output throughput"]
    titles = [t for t, _ in LEVEL_COLUMNS]
    assert titles[:5] == ["requests ok", "failed", "early stops", "TTFT median (ms)", "TTFT p99 (ms)"]
    assert with_unit("median TTFT", "ms") == "median TTFT (ms)" and with_unit("E2E tok/s", "tok/s") == "E2E tok/s"
