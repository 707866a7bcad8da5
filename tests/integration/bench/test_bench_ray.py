"""``tokcheck bench --ray``: the load workers as Ray actors on a local Ray cluster (started on
this machine by the test, kept minimal: 2 CPUs, no dashboard, a 100 MB object store; stopped
after), against the scripted server. scripts/test.sh installs Ray (the ``ray`` extra), so these
run in CI; only a checkout without Ray skips them."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray")

from tokcheck.loadgen.bench import BenchConfig  # noqa: E402
from tokcheck.loadgen.workers import RayWorker, _clock_offset, run_bench_workers  # noqa: E402
from tokcheck.record.store import read_requests  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """A one-node Ray cluster on this machine; yields its GCS address (``host:port``)."""
    t0 = time.monotonic()
    ctx = ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024,
                   logging_level="ERROR", log_to_driver=False, _node_ip_address="127.0.0.1")
    started_s = time.monotonic() - t0
    print(f"\nRay {ray.__version__} local cluster started in {started_s:.1f} s")
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()


def config(server, tokenizer, out, **kw) -> BenchConfig:
    cfg = dict(url=server.url, model="scripted", tokenizer=str(tokenizer), input_len=32, output_len=40,
               concurrency=[4], rounds=3, warmup=2, requests_per_round=8, out=str(out), timeout_s=10)
    cfg.update(kw)
    return BenchConfig(**cfg)


def test_two_actors_from_the_command_line_equal_the_server(ray_cluster, server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=40, itl_ms=4)
    out = tmp_path / "ray"
    proc = subprocess.run([sys.executable, "-m", "tokcheck", "bench", "--url", server.url, "--model", "scripted",
                           "--tokenizer", str(tiny_tokenizer), "--input-len", "32", "--output-len", "40",
                           "--concurrency", "4", "--rounds", "3", "--warmup", "2", "--requests-per-round", "8",
                           "--workers", "2", "--ray", ray_cluster, "--no-telemetry", "--json", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    recs = read_requests(out)
    stats = {s["id"]: s for s in server.stats()}
    assert len(recs) == 2 + 3 * 8 and len({r.response_id for r in recs}) == len(recs)
    assert set(stats) - {r.response_id for r in recs} == {"cmpl-0"}  # the probe
    assert sum(r.n_out for r in recs) == sum(stats[r.response_id]["chunks"] for r in recs) == 40 * len(recs)
    assert {r.worker for r in recs if not r.warmup} == {0, 1}
    run = json.loads((out / "run.json").read_text())
    d = run["distributed"]
    assert d["backend"] == "ray" and d["ray"]["ray_version"] == ray.__version__
    assert len({w["pid"] for w in d["workers"]}) == 2 and all(w["node_id"] for w in d["workers"])
    assert "clock_offset_error_bound_ns" in d and d["lost"] == []
    summary = json.loads(proc.stdout)
    lv = summary["levels"][0]
    measured = [r for r in recs if not r.warmup]
    srv_ttft = statistics.median((stats[r.response_id]["first_ns"] - stats[r.response_id]["recv_ns"]) / 1e6
                                 for r in measured)
    srv_tpot = statistics.median((stats[r.response_id]["last_ns"] - stats[r.response_id]["first_ns"]) / 1e6 / 39
                                 for r in measured)
    assert srv_ttft <= lv["ttft_ms"]["median"] < srv_ttft + 10
    assert lv["tpot_ms"]["median"] == pytest.approx(srv_tpot, abs=0.2)


def test_clock_offset_estimate_holds_the_true_offset(ray_cluster, tiny_tokenizer, tmp_path, server):
    """Forced to estimate (as for a worker on another host), the offset found between two
    processes that share one clock is 0 within the stated bound."""
    from tokcheck.loadgen.shard import ShardSpec

    spec = ShardSpec(index=0, url=server.url, api="completions", model="scripted", input_len=8, output_len=8,
                     temperature=0.0, extra_body={}, timeout_s=5, connections="reuse", include_usage=True,
                     output_forcing="max_tokens", tokenizer=str(tiny_tokenizer),
                     requests_path=str(tmp_path / "w" / "requests.jsonl"))
    h = RayWorker(0, spec, None)
    try:
        h.info = h.started(120)
        _clock_offset(h, None)
        assert 0 < h.offset_error_ns < 50e6
        assert abs(h.offset_ns) <= h.offset_error_ns
    finally:
        h.close()


def test_a_killed_actor_loses_nothing_it_completed(ray_cluster, server, tiny_tokenizer, tmp_path):
    server.script(ttft_ms=20, itl_ms=10)
    killed_at: list[int] = []

    def kill_actor_1(label, round_no, handles):
        if round_no == 2:
            def later():
                time.sleep(0.9)
                killed_at.append(time.perf_counter_ns())
                handles[1].kill()  # ray.kill: the actor's process dies at once
            threading.Thread(target=later, daemon=True).start()

    t0 = time.monotonic()
    summary = run_bench_workers(config(server, tiny_tokenizer, tmp_path / "k", warmup=0), workers=2,
                                ray_address=ray_cluster, on_round=kill_actor_1)
    assert time.monotonic() - t0 < 90
    assert summary.interrupted
    recs = read_requests(tmp_path / "k")
    run = json.loads((tmp_path / "k" / "run.json").read_text())
    assert [x["worker"] for x in run["distributed"]["lost"]] == [1]
    done_before = {s["id"] for s in server.stats() if s["end_ns"] and s["end_ns"] < killed_at[0] - 50e6}
    assert done_before - {r.response_id for r in recs} == {"cmpl-0"}
    assert any(r.worker == 1 and r.round == 2 for r in recs)
    assert os.path.exists(tmp_path / "k" / "summary.json")
