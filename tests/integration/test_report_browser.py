"""The HTML report in a real browser: Debian's headless chromium renders it to a PNG and loads
every embedded plot. Fails (never skips) when chromium is missing: `scripts/test.sh` installs it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rundirs import FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.report import render_html
from tokcheck.record.store import load_run
from tokcheck.analysis.verify import verify

# Load-time probe: writes each image's decoded size into the DOM, so --dump-dom can show
# that every plot was really decoded (a broken base64 image has naturalWidth 0).
_PROBE = ('<script>window.addEventListener("load",()=>{const i=[...document.images];'
          'document.body.setAttribute("data-plots",i.map(x=>x.complete?x.naturalWidth+"x"+x.naturalHeight:"0x0")'
          '.join(","))})</script>')


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is not installed: the report's browser check needs it "
                "(scripts/test.sh installs Debian's chromium with apt)")


def _run_chromium(*args: str) -> subprocess.CompletedProcess:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def report_html(tmp_path) -> Path:
    t0 = 1_000_000_000
    samples = [{"t_ns": t0 + i * 50_000_000, "index": 0, "memory_used_bytes": 2**30 * (20 + i / 10),
                "utilization_gpu_pct": 40 + (i % 50)} for i in range(60)]
    tel = {"gpu": {"available": True, "samples_file": "gpu_samples.jsonl"}}
    run = load_run(write_run_dir(tmp_path / "run", levels={1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
                                                           4: {"ttft_ms": 25, "gen_tok_s": 240, "agg_tok_s": 880},
                                                           16: {"ttft_ms": 70, "gen_tok_s": 150, "agg_tok_s": 2200}},
                                 engine_report=VLLM_CPU_ENGINE_REPORT, precision_report=FULL_PRECISION_REPORT,
                                 telemetry=tel, gpu_samples=samples))
    bound = {"hard_tok_s": 500.0, "realistic_tok_s": 350.0, "bytes_per_token": 6.8e6, "context_tokens": 160}
    v = verify({"model": "tiny-llama", "metric": "generation_tok_s", "value": 900, "concurrency": 1},
               run, bound=bound)
    page = tmp_path / "report.html"
    page.write_text(render_html([run], v, bound))
    return page


def test_plots_render_in_chromium(report_html, tmp_path):
    page = report_html.read_text()
    n_img = page.count("<img ")
    assert n_img == 6      # throughput, TTFT, ITL, timeline, GPU, bound

    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", _PROBE + "</body>"))
    dom = _run_chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    m = re.search(r'data-plots="([^"]*)"', dom.stdout)
    assert m, "the page's load event never ran"
    sizes = [tuple(map(int, s.split("x"))) for s in m.group(1).split(",")]
    assert len(sizes) == n_img
    assert all(w >= 500 and h >= 250 for w, h in sizes), sizes

    png = tmp_path / "shot.png"
    shot = _run_chromium("--window-size=1100,5200", f"--screenshot={png}", report_html.as_uri())
    assert shot.returncode == 0 and png.exists(), shot.stderr[-500:]
    import matplotlib.image as mpimg

    img = (mpimg.imread(str(png))[..., :3] * 255).astype(np.int16)
    assert img.shape[0] == 5200 and img.shape[1] == 1100
    non_white = (img.min(axis=2) < 235).mean()
    assert non_white > 0.03, f"page looks blank ({non_white:.1%} non-white)"

    def near(rgb, tol=30):
        return (np.abs(img - np.array(rgb)).max(axis=2) < tol)

    # matplotlib's default line colours must appear in quantity: the plots were painted
    blue, orange, green = near((31, 119, 180)), near((255, 127, 14)), near((44, 160, 44))
    assert blue.sum() > 2000 and orange.sum() > 1000 and green.sum() > 1000
    # and in several separate bands down the page (one per plot), not in one spot
    rows_with_blue = np.flatnonzero(blue.any(axis=1))
    bands = 1 + int((np.diff(rows_with_blue) > 40).sum())
    assert bands >= 5, f"plot colour found in only {bands} vertical bands"
