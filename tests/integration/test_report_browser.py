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


def _judge_by_slo(run_dir: Path, spec: str) -> None:
    """Add the SLO result of each level to summary.json, as bench --slo writes it."""
    import json

    from tokcheck.core.slo import parse_slo
    from tokcheck.record.slo import evaluate_level

    run = load_run(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    for lv, raw in zip(run.levels, summary["levels"]):
        raw["slo"] = evaluate_level(run.requests_at(lv.level), parse_slo(spec)).model_dump(mode="json")
    (run_dir / "summary.json").write_text(json.dumps(summary))


@pytest.fixture
def report_html(tmp_path) -> Path:
    from tokcheck.record.receipt import make_receipt

    t0 = 1_000_000_000
    samples = [{"t_ns": t0 + i * 50_000_000, "index": 0, "memory_used_bytes": 2**30 * (20 + i / 10),
                "utilization_gpu_pct": 40 + (i % 50)} for i in range(60)]
    tel = {"gpu": {"available": True, "samples_file": "gpu_samples.jsonl"}}
    run_dir = write_run_dir(tmp_path / "run", levels={1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
                                                      4: {"ttft_ms": 25, "gen_tok_s": 240, "agg_tok_s": 880},
                                                      16: {"ttft_ms": 70, "gen_tok_s": 150, "agg_tok_s": 2200}},
                            engine_report=VLLM_CPU_ENGINE_REPORT, precision_report=FULL_PRECISION_REPORT,
                            telemetry=tel, gpu_samples=samples)
    _judge_by_slo(run_dir, "ttft_ms=50,tpot_ms=5")
    make_receipt(run_dir)
    run = load_run(run_dir)
    bound = {"hard_tok_s": 500.0, "realistic_tok_s": 350.0, "bytes_per_token": 6.8e6, "context_tokens": 160}
    v = verify({"model": "tiny-llama", "metric": "generation_tok_s", "value": 900, "concurrency": 1},
               run, bound=bound)
    page = tmp_path / "report.html"
    page.write_text(render_html([run], v, bound))
    return page


def test_plots_render_in_chromium(report_html, tmp_path):
    page = report_html.read_text()
    n_img = page.count("<img ")
    assert n_img == 7      # throughput, interactivity, TTFT, ITL, timeline, GPU, bound

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
    shot = _run_chromium("--window-size=1100,9000", f"--screenshot={png}", report_html.as_uri())
    assert shot.returncode == 0 and png.exists(), shot.stderr[-500:]
    import matplotlib.image as mpimg

    img = (mpimg.imread(str(png))[..., :3] * 255).astype(np.int16)
    assert img.shape[0] == 9000 and img.shape[1] == 1100
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


def test_curve_intervals_definitions_and_receipt_in_chromium(report_html):
    """The browser's own DOM holds the new sections with their values: the interactivity curve
    (decoded), the 95 % intervals, the SLO table, each tool's reading and the receipt digest."""
    import json

    dom = _run_chromium("--virtual-time-budget=5000", "--dump-dom", report_html.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    html = dom.stdout
    assert 'alt="Interactivity: tok/s per user vs throughput per GPU"' in html
    assert "GPUs serving: no GPU (the engine ran on the CPU)" in html
    assert "95 % confidence intervals across rounds" in html
    # identical synthetic rounds: zero-width intervals at the medians (10 ms TTFT at concurrency 1)
    assert '<td class="num">10–10</td>' in html
    # the SLO: TTFT ≤ 50 ms met at concurrency 1 and 4 (10, 25 ms), not at 16 (70 ms)
    assert "ttft_ms p99 ≤ 50 ms" in html and html.count('<td class="fail">no</td>') == 1
    for tool in ("vllm bench serve", "GuideLLM", "AIPerf"):
        assert f"<th>{tool}</th>" in html
    assert "vLLM 0.32.0" in html and "GuideLLM v0.7.3" in html and "AIPerf 0.1.1" in html
    receipt = json.loads((report_html.parent / "run" / "receipt.json").read_text())
    assert f"<code>{receipt['digest']}</code>" in html and "verified: every file matches" in html


# ---------------------------------------------------------------------------------------------
# The page as a person sees it: a real run record (bench against the scripted server, with the
# engine report of a real vLLM-for-the-CPU start-up log), a bound for a GPU the run never used,
# a claim; rendered by chromium at a laptop's viewport.

VIEWPORT = (1280, 800)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# Writes where the headline block sits and the text of every table cell into the DOM.
_LAYOUT_PROBE = ('<script>window.addEventListener("load",()=>{const h=document.getElementById("headline");'
                 'const r=h?h.getBoundingClientRect():null;document.body.setAttribute("data-headline",'
                 'r?[r.top,r.bottom].join(","):"none");document.body.setAttribute("data-cells",JSON.stringify('
                 '[...document.querySelectorAll("td,th")].map(c=>c.innerText)))})</script>')


@pytest.fixture
def cpu_run_page(server, tiny_tokenizer, tmp_path) -> Path:
    import json

    from tokcheck.analysis.verify.claim_bound import claim_fields
    from tokcheck.engines.vllm_log import parse_startup_log
    from tokcheck.loadgen.bench import BenchConfig, run_bench
    from tokcheck.machine.doctor import environment_report
    from tokcheck.machine.weights import audit_server_log
    from tokcheck.report.bound import bound_for_run

    log = (FIXTURES / "vllm_logs" / "start-ok-eager.log").read_text()
    engine_report = parse_startup_log(log)
    engine_report.version = engine_report.version or "0.32.0"
    serve = {"engine": "vllm", "dtype": "bfloat16", "max_model_len": 2048, "gpu_memory_utilization": None,
             "tensor_parallel_size": None, "quantization": "none", "enforce_eager": True, "extra_args": [],
             "argv": ["-m", "vllm.entrypoints.openai.api_server", "--dtype", "bfloat16"], "startup_s": 31.4}
    extra = {"engine_report": engine_report.to_dict(), "serve": serve,
             "precision_report": audit_server_log(log, "server.log").to_dict(),
             "environment": environment_report()}
    server.script(ttft_ms=30, itl_ms=6)
    # one level only: its single point is where a legend inside the axes would sit
    run_bench(BenchConfig(url=server.url, model="scripted", tokenizer=str(tiny_tokenizer), input_len=32,
                          output_len=16, concurrency=[1], rounds=3, warmup=0, requests_per_round=3,
                          out=str(tmp_path / "cpu-run"), timeout_s=10), conditions_extra=extra)
    run = load_run(tmp_path / "cpu-run")
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
        "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 4096, "max_position_embeddings": 2048,
        "torch_dtype": "bfloat16", "tie_word_embeddings": True}))
    bound = bound_for_run(run, gpu="H100", model_dir=model)   # a GPU this CPU run never used
    assert bound.get("hard_tok_s") and bound["gpu"] == "H100 SXM"
    fields = claim_fields("scripted on vLLM 0.32.0, BF16, single request, input 32 output 16: 900 tok/s")
    verdict = verify(fields, run, bound=bound)
    page = tmp_path / "report.html"
    page.write_text(render_html([run], verdict, bound))
    return page


def test_the_answer_is_above_the_fold_and_no_cell_speaks_python(cpu_run_page, tmp_path):
    """Rendered at 1280×800: a screenshot is saved, the headline block (the verdict and the
    headline numbers) lies wholly within the first screen, and no table cell holds Python's
    None, True or False."""
    import json

    shot = tmp_path / "report-first-screen.png"
    out = _run_chromium(f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}", f"--screenshot={shot}", cpu_run_page.as_uri())
    assert out.returncode == 0 and shot.exists(), out.stderr[-500:]
    import matplotlib.image as mpimg

    img = mpimg.imread(str(shot))
    assert img.shape[:2] == (VIEWPORT[1], VIEWPORT[0])
    assert (img[..., :3].min(axis=2) < 0.8).mean() > 0.02, "the first screen looks blank"

    probe = tmp_path / "probe.html"
    probe.write_text(cpu_run_page.read_text().replace("</body>", _LAYOUT_PROBE + "</body>"))
    dom = _run_chromium(f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}", "--virtual-time-budget=5000",
                        "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    top, bottom = map(float, re.search(r'data-headline="([^"]*)"', dom.stdout).group(1).split(","))
    assert 0 <= top < bottom <= VIEWPORT[1], (top, bottom)
    import html as html_lib

    cells = json.loads(html_lib.unescape(re.search(r'data-cells="([^"]*)"', dom.stdout).group(1)))
    assert len(cells) > 50
    python_words = [c for c in cells if re.search(r"\b(None|True|False)\b", c)]
    assert python_words == []
    # the answer's parts, in the first block
    head = dom.stdout[dom.stdout.index('id="headline"'):dom.stdout.index("</section>")]
    assert "NOT REPRODUCED" in head
    assert "one request: generation" in head and "tok/s" in head and "the CPU (no GPU)" in head
    assert "at the load it had then" in head
    # the bound for a GPU this CPU run never used says so, beside its plot
    assert ("The bound is for H100 SXM, not the machine this run used (the CPU (no GPU))" in dom.stdout)
    # readable conditions: yes / no / not stated
    assert "prefix caching yes" in dom.stdout and "eager mode, no CUDA graphs yes" in dom.stdout


def test_page_order_answer_then_plots_then_conditions(cpu_run_page):
    page = cpu_run_page.read_text()
    order = [page.index(s) for s in ('id="headline"', "<h2>Plots</h2>", "<h2>Results per level</h2>",
                                      "<h2>The claim against the run</h2>", "<h2>Conditions</h2>")]
    assert order == sorted(order)
