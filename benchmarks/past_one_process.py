"""One load process against ``--workers 2`` against ``--ray`` with two actors, side by side in one
run, against the scripted-timing server (tests/scripted_server.py: TTFT and per-token time are
known). Not a test; benchmarks/README.md, "Past one process".

For each mode and concurrency level: the aggregate output throughput tokcheck measured against
the server's own (its stamps, same monotonic clock), the median TTFT and TPOT errors against the
server's own per-request values, and whether tokcheck called the client the limit. The Ray
cluster is a local one started here (2 CPUs, no dashboard, 100 MB object store) and its start-up
time is reported. Every row carries the 1-minute load average.

    .venv/bin/python benchmarks/past_one_process.py [--levels 16,64,128] [--itl-ms 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tokcheck.engines.tinymodel import train_tokenizer  # noqa: E402
from tokcheck.loadgen.bench import BenchConfig, run_bench  # noqa: E402
from tokcheck.loadgen.workers import run_bench_workers  # noqa: E402
from tokcheck.record.store import read_requests  # noqa: E402


def start_server(tok: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/scripted_server.py"), "--tokenizer", str(tok),
                             "--model", "scripted"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def one(mode: str, url: str, tok: Path, out: Path, level: int, args, ray_address: str | None) -> dict:
    client = httpx.Client(base_url=url, trust_env=False, timeout=10)
    client.post("/_reset")
    client.post("/_script", json={"ttft_ms": args.ttft_ms, "itl_ms": args.itl_ms}).raise_for_status()
    cfg = BenchConfig(url=url, model="scripted", tokenizer=str(tok), input_len=64, output_len=args.output_len,
                      concurrency=[level], rounds=3, warmup=level, requests_per_round=2 * level, out=str(out),
                      timeout_s=120, use_client_ceiling=False)
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    if mode == "one process":
        summary = run_bench(cfg)
    elif mode == "--workers 2":
        summary = run_bench_workers(cfg, workers=2)
    else:
        summary = run_bench_workers(cfg, workers=2, ray_address=ray_address)
    wall = time.monotonic() - t0
    lv = summary.levels[0]
    stats = {s["id"]: s for s in client.get("/_stats").json()}
    recs = [r for r in read_requests(out) if not r.warmup and r.error is None]
    srv = [stats[r.response_id] for r in recs]
    # the server's own aggregate throughput over its own window, per round, median
    per_round = []
    for n in sorted({r.round for r in recs}):
        ss = [stats[r.response_id] for r in recs if r.round == n]
        per_round.append(args.output_len * len(ss) * 1e9 / (max(s["last_ns"] for s in ss) - min(s["recv_ns"] for s in ss)))
    true_tput = statistics.median(per_round)
    true_ttft = statistics.median((s["first_ns"] - s["recv_ns"]) / 1e6 for s in srv)
    true_tpot = statistics.median((s["last_ns"] - s["first_ns"]) / 1e6 / (args.output_len - 1) for s in srv)
    return {"mode": mode, "concurrency": level, "requests_ok": lv.requests_ok, "wall_s": round(wall, 1),
            "throughput_tok_s": round(lv.output_throughput_tok_s, 1), "server_throughput_tok_s": round(true_tput, 1),
            "throughput_error_pct": round(100 * (lv.output_throughput_tok_s - true_tput) / true_tput, 2),
            "ttft_ms": round(lv.ttft_ms.median, 2), "ttft_error_ms": round(lv.ttft_ms.median - true_ttft, 2),
            "tpot_ms": round(lv.tpot_ms.median, 3), "tpot_error_ms": round(lv.tpot_ms.median - true_tpot, 3),
            "client_bound": bool(lv.client and lv.client.bound),
            "client_cpu_percent": lv.client.cpu_percent if lv.client else None,
            "loadavg_1m_before": round(load, 2), "loadavg_1m_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", default="16,64,128")
    ap.add_argument("--ttft-ms", type=float, default=20.0)
    ap.add_argument("--itl-ms", type=float, default=2.0)
    ap.add_argument("--output-len", type=int, default=128)
    ap.add_argument("--out", default=None, help="JSON results file")
    args = ap.parse_args()
    import ray

    work = Path(tempfile.mkdtemp(prefix="tokcheck-past-one-"))
    tok = train_tokenizer(work)
    server, url = start_server(tok)
    t0 = time.monotonic()
    ctx = ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024,
                   logging_level="ERROR", log_to_driver=False, _node_ip_address="127.0.0.1")
    ray_start_s = time.monotonic() - t0
    print(f"Ray {ray.__version__}: local cluster started in {ray_start_s:.1f} s", flush=True)
    rows = []
    try:
        for level in [int(x) for x in args.levels.split(",")]:
            for i, mode in enumerate(("one process", "--workers 2", "--ray, 2 actors")):
                row = one(mode, url, tok, work / f"run-{level}-{i}", level, args, ctx.address_info["gcs_address"])
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        ray.shutdown()
        server.terminate()
        server.wait(10)
    result = {"ray_version": ray.__version__, "ray_start_s": round(ray_start_s, 2), "cpus": os.cpu_count(),
              "script": {"ttft_ms": args.ttft_ms, "itl_ms": args.itl_ms, "output_len": args.output_len}, "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    print("| mode | c | tok/s measured | tok/s server | error | TTFT err ms | TPOT err ms | client bound | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['concurrency']} | {r['throughput_tok_s']:,.0f} | {r['server_throughput_tok_s']:,.0f} | "
              f"{r['throughput_error_pct']:+.1f}% | {r['ttft_error_ms']:+.2f} | {r['tpot_error_ms']:+.3f} | "
              f"{'yes' if r['client_bound'] else 'no'} | {r['loadavg_1m_before']}–{r['loadavg_1m_after']} |")


if __name__ == "__main__":
    main()
