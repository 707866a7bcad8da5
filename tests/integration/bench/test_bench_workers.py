"""``tokcheck bench --workers N`` against the scripted server (known true TTFT/TPOT and token
counts): the merged run equals what the server served, the timing is as good as one process's,
and every other command reads the merged run unchanged."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

import pytest

from tokcheck.loadgen.bench import BenchConfig, run_bench
from tokcheck.loadgen.schedule import poisson_offsets_ns
from tokcheck.loadgen.workers import plan_round, run_bench_workers, split, split_by
from tokcheck.loadgen.shard import Item
from tokcheck.record.level import Level
from tokcheck.record.store import load_run, read_requests


def config(server, tokenizer, out, **kw) -> BenchConfig:
    cfg = dict(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32, output_len=40,
               concurrency=[4], rounds=3, warmup=2, requests_per_round=8, out=str(out), timeout_s=10)
    cfg.update(kw)
    return BenchConfig(**cfg)


def check_against_server(server, recs, output_len: int) -> list[dict]:
    """The merged records are exactly the server's requests (less the one probe request), with
    exactly its token counts; returns the server's stamps of each record, in record order."""
    stats = {s["id"]: s for s in server.stats()}
    mine = {r.response_id for r in recs}
    assert len(mine) == len(recs)  # no request merged twice
    extra = [s for i, s in stats.items() if i not in mine]
    assert len(extra) == 1 and extra[0]["chunks"] == 4  # the probe (max_tokens 4), made by the coordinator
    assert sum(r.n_out for r in recs) == sum(stats[r.response_id]["chunks"] for r in recs) == output_len * len(recs)
    return [stats[r.response_id] for r in recs]


def test_split_shares():
    assert split(5, 2) == [3, 2] and split(1, 3) == [1, 0, 0]
    assert split_by(8, [3, 1]) == [6, 2] and split_by(5, [1, 0, 1]) == [3, 0, 2]
    items = [Item(1, i, False, i, "p", None) for i in range(8)]
    parts = plan_round(Level.closed(3), 2, items, warmup=False, label="c=3")
    assert [p.concurrency for p in parts] == [2, 1] and [len(p.items) for p in parts] == [5, 3]
    assert sorted(it.index for p in parts for it in p.items) == list(range(8))
    parts = plan_round(Level.closed(1), 2, items, warmup=False, label="c=1")
    assert [len(p.items) for p in parts] == [8, 0]  # one in flight: one worker sends it all


def test_closed_loop_two_workers_equal_the_server_and_one_process(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=40, itl_ms=4)
    summary = run_bench_workers(config(server, tiny_tokenizer, tmp_path / "w2"), workers=2)
    recs = read_requests(tmp_path / "w2")
    assert len(recs) == 2 + 3 * 8
    srv = check_against_server(server, recs, 40)
    # every request says which worker sent it; both sent measured ones, concurrency 4 split 2 + 2
    assert {r.worker for r in recs if not r.warmup} == {0, 1}
    assert [sum(1 for r in recs if r.worker == w and not r.warmup) for w in (0, 1)] == [12, 12]
    run = json.loads((tmp_path / "w2" / "run.json").read_text())
    d = run["distributed"]
    assert d["backend"] == "processes" and [w["worker"] for w in d["workers"]] == [0, 1]
    assert len({w["pid"] for w in d["workers"]}) == 2 and d["lost"] == []
    assert d["clock_offset_error_bound_ns"] == 0  # one host: one CLOCK_MONOTONIC
    # timing: the same tolerance as a single-process run (test_bench_scripted), against the
    # server's own stamps
    lv = summary.levels[0]
    assert lv.requests_ok == 24 and lv.requests_failed == 0
    measured = [(r, s) for r, s in zip(recs, srv) if not r.warmup]
    srv_ttft = statistics.median((s["first_ns"] - s["recv_ns"]) / 1e6 for _, s in measured)
    srv_tpot = statistics.median((s["last_ns"] - s["first_ns"]) / 1e6 / 39 for _, s in measured)
    assert srv_ttft <= lv.ttft_ms.median < srv_ttft + 10
    assert lv.tpot_ms.median == pytest.approx(srv_tpot, abs=0.2)
    # the level's window is the union of the workers' windows: first send to last end, any worker
    for n, value in zip((1, 2, 3), lv.output_throughput_tok_s_rounds):
        rr = [r for r in recs if r.round == n]
        assert {r.worker for r in rr} == {0, 1}
        union = max(r.t_end_ns for r in rr) - min(r.t_send_ns for r in rr)
        assert value == pytest.approx(40 * len(rr) * 1e9 / union, rel=1e-6)
    # a round's requests start together: the workers' first sends within a few ms of each other
    for n in (1, 2, 3):
        firsts = [min(r.t_send_ns for r in recs if r.round == n and r.worker == w) for w in (0, 1)]
        assert abs(firsts[0] - firsts[1]) < 20e6

    # the same workload from one process, for the side by side
    server.script(ttft_ms=40, itl_ms=4)
    one = run_bench(config(server, tiny_tokenizer, tmp_path / "w1"))
    assert one.levels[0].ttft_ms.median == pytest.approx(lv.ttft_ms.median, abs=10)
    assert one.levels[0].tpot_ms.median == pytest.approx(lv.tpot_ms.median, abs=0.2)

    # every other command reads the merged run unchanged
    assert load_run(tmp_path / "w2").summary.levels[0].requests_ok == 24
    env = {**os.environ, "NO_COLOR": "1"}
    for args in (["report", str(tmp_path / "w2"), "--html", str(tmp_path / "r.html")],
                 ["compare", str(tmp_path / "w1"), str(tmp_path / "w2"), "--json"],
                 ["verify", "scripted at 240 tok/s single request", "--run", str(tmp_path / "w2"),
                  "--metric", "generation_tok_s", "--json"]):
        proc = subprocess.run([sys.executable, "-m", "tokcheck", *args], capture_output=True, text=True,
                              timeout=120, env=env)
        assert proc.returncode in (0, 1), proc.stderr  # verify exits 1 on a failed claim
        assert "Traceback" not in proc.stderr
    assert (tmp_path / "r.html").stat().st_size > 1000


def test_open_loop_merged_schedule_is_the_one_asked_for(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=10, itl_ms=1)
    cfg = config(server, tiny_tokenizer, tmp_path / "open", concurrency=[1], request_rate=[40.0], rounds=2,
                 requests_per_round=12, output_len=8, warmup=0, seed=7)
    run_bench_workers(cfg, workers=3)
    recs = read_requests(tmp_path / "open")
    check_against_server(server, recs, 8)
    for n in (1, 2):
        rr = sorted((r for r in recs if r.round == n), key=lambda r: r.index)
        assert [r.worker for r in rr] == [j % 3 for j in range(12)]
        t0 = min(r.t_due_ns for r in rr)
        # the merged due times are one Poisson schedule, the single process's (same seed)
        assert [r.t_due_ns - t0 for r in rr] == poisson_offsets_ns(40.0, 12, 7 + n)
        # and each was sent when due (queue delay small: nothing capped the in-flight count)
        assert statistics.median((r.t_send_ns - r.t_due_ns) / 1e6 for r in rr) < 10


def test_a_killed_worker_loses_nothing_it_completed(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=10)  # 0.4 s a request: the kill lands mid-round
    killed_at: list[int] = []

    def kill_worker_1(label, round_no, handles):
        if round_no == 2:
            def later():
                time.sleep(0.9)
                killed_at.append(time.perf_counter_ns())
                os.kill(handles[1].pid, signal.SIGKILL)
            threading.Thread(target=later, daemon=True).start()

    t0 = time.monotonic()
    summary = run_bench_workers(config(server, tiny_tokenizer, tmp_path / "k", rounds=3, warmup=0),
                                workers=2, on_round=kill_worker_1)
    assert time.monotonic() - t0 < 60  # ended, never hung
    assert summary.interrupted
    recs = read_requests(tmp_path / "k")
    run = json.loads((tmp_path / "k" / "run.json").read_text())
    assert [x["worker"] for x in run["distributed"]["lost"]] == [1]
    assert any("load worker 1 was lost" in w for w in summary.levels[0].warnings)
    # Every request the server had finished well before the kill (its stream ended 50 ms
    # earlier: time for the last bytes to arrive) is in the merged run, worker 1's included.
    done_before = {s["id"] for s in server.stats() if s["end_ns"] and s["end_ns"] < killed_at[0] - 50e6}
    merged = {r.response_id for r in recs}
    assert done_before - merged == {"cmpl-0"}  # only the coordinator's probe
    assert any(r.worker == 1 and r.round == 2 for r in recs)
    assert not any(r.round == 3 for r in recs)  # the run stopped after the round it lost a worker in


def test_ctrl_c_with_workers_keeps_every_completed_request(server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=10)  # ~0.2 s per request
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "tokcheck", "bench", "--url", server.url, "--model", "scripted",
                             "--tokenizer", str(tiny_tokenizer), "--input-len", "20", "--output-len", "20",
                             "--rounds", "1", "--requests-per-round", "200", "--concurrency", "4", "--workers", "2",
                             "--no-telemetry", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the workers have finished some requests
        if sum(1 for s in server.stats() if s["end_ns"]) >= 10:
            break
        time.sleep(0.1)
    interrupted_at = time.perf_counter_ns()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=90)
    assert proc.returncode == 130, stderr
    assert "Interrupted." in stderr and "Traceback" not in stderr
    recs = read_requests(out)
    assert 9 <= len(recs) < 201  # the server finished 10, one of them the probe
    done_before = {s["id"] for s in server.stats() if s["end_ns"] and s["end_ns"] < interrupted_at - 50e6}
    assert done_before - {r.response_id for r in recs} == {"cmpl-0"}
    assert {r.worker for r in recs} == {0, 1}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    assert summary["levels"][0]["requests_ok"] == len([r for r in recs if not r.warmup])
    assert json.loads((out / "run.json").read_text())["interrupted"] is True
