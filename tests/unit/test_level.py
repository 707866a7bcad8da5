"""The Level type: closed loop (concurrency) and open loop (request rate, max in flight) are
separate fields, and levels are selected by the type — the open-loop level at 2 req/s with at
most 4 in flight is not "the level at concurrency 4"."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rundirs import as_open_loop_v1, write_run_dir
from tokcheck.analysis.compare import side_by_side
from tokcheck.analysis.verify import verify
from tokcheck.flows.sweep import sweep_cells
from tokcheck.loadgen.bench import BenchConfig
from tokcheck.record.level import Level
from tokcheck.record.store import load_run
from tokcheck.report import render_markdown

CLAIM_AT_4 = {"model": "tiny-llama", "metric": "generation_tok_s", "value": 250, "concurrency": 4,
              "input_tokens": 128, "output_tokens": 64}


def test_labels_are_todays():
    assert Level.closed(4).label == "c=4"
    assert Level.open(2.0).label == "rate=2" and Level.open(0.5, 4).label == "rate=0.5"
    assert Level.closed(4).name == "concurrency 4"
    assert Level.open(2.0, 4).name == "rate 2 req/s, at most 4 in flight"


def test_fields_are_separate_and_checked():
    lv = Level.open(2.0, max_in_flight=4)
    assert (lv.concurrency, lv.request_rate, lv.max_in_flight) == (None, 2.0, 4)
    assert lv != Level.closed(4) and Level.closed(4) == Level(concurrency=4)
    with pytest.raises(ValidationError):
        Level(concurrency=4, request_rate=2.0)
    with pytest.raises(ValidationError):
        Level()
    with pytest.raises(ValidationError):
        Level(concurrency=4, max_in_flight=4)
    assert {Level.closed(1), Level.closed(1), Level.open(2.0)} == {Level.closed(1), Level.open(2.0)}


def test_bench_config_levels():
    assert BenchConfig(url="u", model="m", tokenizer="t", concurrency=[1, 4]).levels() == [
        Level.closed(1), Level.closed(4)]
    cfg = BenchConfig(url="u", model="m", tokenizer="t", request_rate=[2.0, 8.0], max_in_flight=4)
    assert cfg.levels() == [Level.open(2.0, 4), Level.open(8.0, 4)]
    assert [lv.label for lv in cfg.levels()] == ["rate=2", "rate=8"]


@pytest.fixture
def open_loop_run(tmp_path):
    """Schema 1: one closed level at concurrency 1 and one open-loop level at 2 req/s with at
    most 4 in flight, whose cap was written under ``concurrency``."""
    d = write_run_dir(tmp_path / "open", levels={1: {"ttft_ms": 10, "gen_tok_s": 300},
                                                 4: {"ttft_ms": 20, "gen_tok_s": 250}})
    return load_run(as_open_loop_v1(d, {"c4": 2.0}, max_in_flight=4))


def test_the_open_loop_level_is_not_the_level_at_concurrency_4(open_loop_run):
    # The bug: selecting "the level at concurrency 4" returned the open-loop level at 2 req/s
    # with 4 in flight, and verify compared a concurrency-4 claim with it.
    v = verify(CLAIM_AT_4, open_loop_run)
    assert v.level is None and v.reproduced is None
    assert "no level at the claimed concurrency 4 (levels: 1)" in v.summary


def test_old_open_loop_levels_are_migrated_on_read(open_loop_run):
    closed, opened = open_loop_run.levels
    assert closed.level == Level.closed(1)
    assert (opened.concurrency, opened.request_rate, opened.max_in_flight) == (None, 2.0, 4)
    assert opened.level == Level.open(2.0, 4) and opened.label == "rate=2"
    assert open_loop_run.level_summary(Level.closed(4)) is None
    assert open_loop_run.level_summary(Level.open(2.0, 4)) is opened
    assert len(open_loop_run.requests_at(Level.open(2.0, 4))) == 12
    assert all(open_loop_run.level_of(q) == Level.open(2.0, 4) for q in open_loop_run.requests_at(opened.level))


def test_open_loop_levels_stay_out_of_concurrency_views(open_loop_run, tmp_path):
    # compare keys levels by the type; sweep and the throughput plot take closed-loop levels only
    assert {r.level for r in side_by_side([open_loop_run, open_loop_run])} == {
        "concurrency 1", "rate 2 req/s, at most 4 in flight"}
    assert [c.concurrency for c in sweep_cells({2048: open_loop_run})] == [1]
    assert "| rate 2 req/s, at most 4 in flight |" in render_markdown([open_loop_run])
