"""Do telemetry hook threads in the bench process disturb the stamps? (not a test)

Against the scripted-timing server (5 ms per token; ITL's true value is 5 ms) at concurrency 8,
runs :func:`tokcheck.loadgen.bench.run_bench` with a ``/metrics`` scraper hook polling a separate
process that serves vLLM's captured ~50 kB ``/metrics`` text
(``tests/fixtures/metrics/vllm_cpu_0.32.0_ngram_during.prom``) every 0.2 s (5× the default rate,
to make any effect visible), in these modes:

- ``none``: no hook;
- ``parse_in_thread``: the old scraper (fetch *and parse* in the thread while the level runs);
- ``raw_in_thread``: the current :class:`tokcheck.machine.telemetry.MetricsScraper` (fetch only; parse
  after the level);

each with the GIL switch interval at CPython's 5 ms and at 0.5 ms (set here; bench leaves it), and reports the
level's ITL median and p99 (ms) per run.

    .venv/bin/python benchmarks/hook_threads.py [--repeat 2] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
PROM = ROOT / "tests/fixtures/metrics/vllm_cpu_0.32.0_ngram_during.prom"


def serve_metrics_forever(port_file: str) -> None:  # runs in its own process
    body = PROM.read_bytes()

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    Path(port_file).write_text(str(srv.server_address[1]))
    srv.serve_forever()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--json-out", type=Path, default=None)
    a = ap.parse_args()

    import time

    from client_accuracy import start_server

    from tokcheck.machine import telemetry
    from tokcheck.loadgen.bench import BenchConfig, run_bench
    from tokcheck.engines.tinymodel import train_tokenizer

    class ParsingScraper(telemetry.MetricsScraper):
        """The scraper as it was: fetch and parse in the thread during the level."""

        def _poll(self, label: str) -> None:
            while not self._stop.wait(self.interval_s):
                p = telemetry.scrape_metrics(self.url)
                self.scrapes[label].append(telemetry.RawScrape(p.t_ns, None, p.error))

    work = Path(tempfile.mkdtemp(prefix="tokcheck-hooks-"))
    tok = train_tokenizer(work / "tok").parent
    proc, url = start_server(tok)
    port_file = work / "metrics.port"
    mproc = subprocess.Popen([sys.executable, __file__, "--_serve-metrics", str(port_file)])
    while not port_file.exists() or not port_file.read_text():
        time.sleep(0.05)
    murl = f"http://127.0.0.1:{port_file.read_text()}"
    httpx_script = {"ttft_ms": 50, "itl_ms": 5}
    import httpx

    httpx.post(url + "/_script", json=httpx_script).raise_for_status()
    rows = []
    try:
        for rep in range(a.repeat):
            for mode in ("none", "parse_in_thread", "raw_in_thread"):
                for switch_s in (0.005, 0.0005):
                    sys.setswitchinterval(switch_s)
                    hooks = []
                    if mode == "parse_in_thread":
                        hooks = [ParsingScraper(murl, interval_s=0.2)]
                    elif mode == "raw_in_thread":
                        hooks = [telemetry.MetricsScraper(murl, interval_s=0.2)]
                    out = work / f"r{rep}-{mode}-{switch_s}"
                    s = run_bench(BenchConfig(url=url, model="scripted", tokenizer=str(tok), input_len=128,
                                              output_len=256, concurrency=[a.concurrency], rounds=1, warmup=0,
                                              requests_per_round=a.requests, out=str(out)), hooks=hooks)
                    lv = s.levels[0]
                    row = {"repeat": rep, "mode": mode, "switch_interval_ms": switch_s * 1000,
                           "itl_ms_median": lv.itl_ms.median, "itl_ms_p99": lv.itl_ms.p99,
                           "load_1min": os.getloadavg()[0]}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    finally:
        proc.terminate()
        mproc.terminate()
    if a.json_out:
        a.json_out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--_serve-metrics":
        serve_metrics_forever(sys.argv[2])
    else:
        main()
