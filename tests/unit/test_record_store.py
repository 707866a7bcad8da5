"""The run record's one writer and one reader: typed access, a torn last line, run directories
of the previous format, sections that survive a round trip."""

from __future__ import annotations

import json

import pytest

from rundirs import CPU_ENVIRONMENT, FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, as_open_loop_v1, write_run_dir
from tokcheck.errors import TokcheckError
from tokcheck.record.level import Level
from tokcheck.record.schema import (GpuSample, LevelSummary, RequestRecord, RunConditions, Summary,
                                    Telemetry)
from tokcheck.record.store import RunDirectory, load_run, read_requests

LEVELS = {1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
          4: {"ttft_ms": 20, "gen_tok_s": 250, "agg_tok_s": 900}}


def test_typed_access_to_every_file(tmp_path):
    samples = [{"t_ns": 1_000_000_000 + i, "index": 0, "memory_used_bytes": 2**30, "utilization_gpu_pct": 50}
               for i in range(3)]
    tel = {"gpu": {"available": True, "samples_file": "gpu_samples.jsonl",
                   "gpus": {"0": {"memory_used_peak_bytes": 2**30, "utilization_mean_pct": 50.0}}}}
    run = load_run(write_run_dir(tmp_path / "r", levels=LEVELS, engine_report=VLLM_CPU_ENGINE_REPORT,
                                 precision_report=FULL_PRECISION_REPORT, environment=CPU_ENVIRONMENT,
                                 telemetry=tel, gpu_samples=samples, server_log="INFO started\n"))
    c = run.conditions
    assert isinstance(c, RunConditions)
    assert c.endpoint.model == "tiny-llama" and c.workload.input_len == 128 and c.load.concurrency == [1, 4]
    assert c.engine_report.kv_cache_tokens == 524288 and c.precision_report.full_precision is True
    assert c.environment.gpu_list() == [] and c.telemetry.gpu_figures.memory_used_peak_bytes == 2**30
    assert isinstance(run.summary, Summary) and [lv.level for lv in run.levels] == [Level.closed(1), Level.closed(4)]
    lv = run.levels[0]
    assert isinstance(lv, LevelSummary) and lv.ttft_ms.median == 10.0 and lv.output_throughput_tok_s == 290
    assert lv.figure("output_throughput_tok_s").value == 290 and lv.figure("ttft_ms").p99 == 10.0
    assert all(isinstance(q, RequestRecord) for q in run.requests) and len(run.requests) == 24
    assert run.gpu_samples == [GpuSample(t_ns=1_000_000_000 + i, index=0, memory_used_bytes=2**30,
                                         utilization_gpu_pct=50) for i in range(3)]
    assert run.server_log == "INFO started\n"
    assert len(run.requests_at(Level.closed(4))) == 12


def test_a_torn_last_line_is_skipped_once_in_one_place(tmp_path):
    d = write_run_dir(tmp_path / "torn", levels=LEVELS)
    whole = (d / "requests.jsonl").read_text()
    (d / "requests.jsonl").write_text(whole + whole.splitlines()[0][:57])   # the writer died mid-line
    (d / "gpu_samples.jsonl").write_text('{"t_ns": 1, "index": 0}\n{"t_ns": 2, "ind')
    run = load_run(d)
    assert len(run.requests) == 24 and len(read_requests(d)) == 24
    assert [s.t_ns for s in run.gpu_samples] == [1]


def test_a_broken_line_before_the_last_is_an_error(tmp_path):
    d = write_run_dir(tmp_path / "bad", levels=LEVELS)
    lines = (d / "requests.jsonl").read_text().splitlines()
    lines[3] = lines[3][:40]
    (d / "requests.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(TokcheckError, match=r"requests.jsonl, line 4: not JSON"):
        load_run(d)
    lines[3] = json.dumps({"level": "c1", "round": "first"})
    (d / "requests.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(TokcheckError, match=r"line 4 is not a tokcheck record \(round: "):
        load_run(d)


def test_a_directory_of_the_previous_format_loads(tmp_path):
    # schema 1 as tests/rundirs.py writes it: labels "c1", bare per-round values, no
    # max_in_flight, requests without n_out, chunk_events or defects; plus an open-loop level
    d = write_run_dir(tmp_path / "v1", levels=LEVELS)
    run = load_run(as_open_loop_v1(d, {"c4": 0.5}, max_in_flight=2))
    assert run.summary.schema_version == 1
    closed, opened = run.levels
    assert (closed.label, closed.concurrency, closed.max_in_flight) == ("c1", 1, None)
    assert (opened.label, opened.concurrency, opened.request_rate, opened.max_in_flight) == ("rate=0.5", None, 0.5, 2)
    assert opened.output_throughput_tok_s == 900 and opened.output_throughput_tok_s_rounds == []
    q = run.requests_at(Level.open(0.5, 2))[0]
    assert q.n_out is None and q.defects == [] and q.chunk_events is None and q.ttft_ms == 20.0


def test_per_round_metrics_written_as_objects_and_levels_named_by_number(tmp_path):
    d = write_run_dir(tmp_path / "obj", levels={2: LEVELS[1]})
    summary = json.loads((d / "summary.json").read_text())
    lv = summary["levels"][0]
    lv["output_throughput_tok_s"] = {"median": 290.0, "spread": 4.0, "rounds": [288.0, 290.0, 292.0]}
    del lv["concurrency"]
    lv["label"] = "c=2"
    (d / "summary.json").write_text(json.dumps(summary))
    reqs = [json.loads(x) for x in (d / "requests.jsonl").read_text().splitlines()]
    (d / "requests.jsonl").write_text("".join(json.dumps(r | {"level": "2"}) + "\n" for r in reqs))
    run = load_run(d)
    (lv,) = run.levels
    assert lv.level == Level.closed(2)
    assert lv.figure("output_throughput_tok_s").value == 290.0 and lv.output_throughput_tok_s_spread == 4.0
    assert {q.level for q in run.requests} == {"c=2"} and len(run.requests_at(Level.closed(2))) == 12


def test_the_writer_round_trips_unknown_sections_and_writes_no_new_nulls(tmp_path):
    rd = RunDirectory(tmp_path / "w")
    written = {"run_id": "abc", "endpoint": {"url": "http://x", "api": "chat", "model": "m", "new_key": 1},
               "engine_report": {"engine": "other", "speculative_config": {"method": "ngram"}},
               "telemetry": {"gpu": {"available": False, "reason": "no GPU"}, "custom_hook": {"x": [1, 2]}},
               "a_new_section": {"k": "v"}, "server": None}
    conditions = RunConditions.model_validate(written)
    rd.write_run(conditions)
    assert json.loads((tmp_path / "w" / "run.json").read_text()) == written
    conditions.finished_at = "2026-01-01T00:00:00+00:00"
    conditions.telemetry = {"server_metrics": {"url": "http://x/metrics"}}
    rd.write_run(conditions)
    again = json.loads((tmp_path / "w" / "run.json").read_text())
    assert again["finished_at"] == "2026-01-01T00:00:00+00:00"
    assert again["telemetry"] == {"server_metrics": {"url": "http://x/metrics"}}
    assert load_run(tmp_path / "w").conditions.a_new_section == {"k": "v"}
    with pytest.raises(TokcheckError, match="already holds a run"):
        RunDirectory(tmp_path / "w")


def test_level_telemetry_is_typed_and_keeps_other_hooks_keys():
    tele = Telemetry.model_validate({"gpu": {"available": True, "gpus": {"0": {"throttling_seen": ["hw_slowdown"]},
                                                                         "1": {"throttling_seen": []}}},
                                     "server_metrics": {"counters": {"preemptions": 3.0},
                                                        "during": {"kv_cache_usage_fraction_max": 0.5}},
                                     "gpu_util_pct": 50.0})
    assert tele.gpu_figures.throttling_seen == ["hw_slowdown"]
    assert tele.metrics.counters.preemptions == 3.0 and tele.during.kv_cache_usage_fraction_max == 0.5
    assert tele.model_dump()["gpu_util_pct"] == 50.0


def test_missing_or_broken_run_json(tmp_path):
    with pytest.raises(TokcheckError, match="no run directory"):
        load_run(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TokcheckError, match="has no run.json"):
        load_run(tmp_path / "empty")
    (tmp_path / "empty" / "run.json").write_text("{")
    with pytest.raises(TokcheckError, match="is not valid JSON"):
        load_run(tmp_path / "empty")
