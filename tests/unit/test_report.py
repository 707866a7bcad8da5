"""report (K2): the per-request CSV, ITL identities, the Markdown summary and the HTML's parts."""

from __future__ import annotations

import re

import csv
import io

import pytest

from rundirs import FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.cli import main
from tokcheck.report import render_csv, render_html, render_markdown
from tokcheck.core.metrics import itl_ms
from tokcheck.report.data import CSV_COLUMNS, gpu_series, timeline
from tokcheck.record.store import load_run
from tokcheck.analysis.verify import verify

LEVELS = {1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
          4: {"ttft_ms": 20, "gen_tok_s": 250, "agg_tok_s": 900}}


@pytest.fixture
def run(tmp_path):
    return load_run(write_run_dir(tmp_path / "r", levels=LEVELS, engine_report=VLLM_CPU_ENGINE_REPORT,
                                  precision_report=FULL_PRECISION_REPORT))


def test_itl_values_sum_to_decode_time():
    # chunks of 1, 3 and 2 tokens: the 3-token chunk after 9 ms gives three 3 ms values
    req = {"chunks": [[0, 1], [9_000_000, 3], [13_000_000, 2]], "t_first_ns": 0, "t_last_ns": 13_000_000}
    vals = itl_ms(req["chunks"])
    assert vals == [3.0, 3.0, 3.0, 2.0, 2.0]
    assert sum(vals) == pytest.approx((req["t_last_ns"] - req["t_first_ns"]) / 1e6)


def test_itl_of_recorded_requests(run):
    for q in run.measured_requests():
        assert sum(itl_ms(q.chunks)) == pytest.approx((q.t_last_ns - q.t_first_ns) / 1e6)


def test_csv_has_every_request(run):
    rows = list(csv.DictReader(io.StringIO(render_csv([run]))))
    assert len(rows) == len(run.requests) == 24
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert float(rows[0]["ttft_ms"]) == 10.0 and rows[0]["t_send_ms"] == "0.0"
    assert {r["level"] for r in rows} == {"c1", "c4"}


def test_timeline_is_relative_and_ordered(run):
    tl = timeline(run)
    assert tl[0]["send"] == 0.0
    assert all(a["send"] <= b["send"] for a, b in zip(tl, tl[1:]))
    assert all(t["send"] < t["first"] < t["end"] for t in tl)


def test_gpu_series_from_samples(tmp_path):
    t0 = 1_000_000_000
    samples = [{"t_ns": t0 + i * 100_000_000, "index": 0, "memory_used_bytes": 2**30 * (10 + i),
                "utilization_gpu_pct": 90} for i in range(5)]
    tel = {"gpu": {"available": True, "samples_file": "gpu_samples.jsonl"}}
    r = load_run(write_run_dir(tmp_path / "g", levels=LEVELS, telemetry=tel, gpu_samples=samples))
    (s,) = gpu_series(r)
    assert s["t_s"] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert s["memory_gb"] == pytest.approx([x * 2**30 / 1e9 for x in (10, 11, 12, 13, 14)])
    assert gpu_series(load_run(write_run_dir(tmp_path / "n", levels=LEVELS))) == []


def test_markdown_summary(run):
    v = verify({"model": "tiny-llama", "metric": "generation_tok_s", "value": 900, "concurrency": 1}, run)
    md = render_markdown([run], v)
    assert "**NOT REPRODUCED: measured 300 tok/s is 0.33× the claimed 900 tok/s" in md
    # TTFO n/a: these records predate it; the columns after the metrics: output tokens, client-bound
    assert "| concurrency 1 | 12 | 0 | 0 | 10 | 10 | n/a | 3.33 | 300 |" in md
    assert "| 7 | bandwidth bound | unknown |" in md
    assert not re.search(r"\b(None|True|False)\b", md)   # flags read yes / no / not stated


def test_html_is_self_contained(run):
    page = render_html([run], bound={"hard_tok_s": 500.0, "realistic_tok_s": 350.0,
                                     "bytes_per_token": 6.8e6, "context_tokens": 160})
    assert page.count('src="data:image/png;base64,') == 6   # throughput, interactivity, TTFT, ITL, timeline, bound
    assert "http://" not in page.replace("http://127.0.0.1:8000", "")   # nothing to fetch
    assert "no GPU telemetry in this run" in page


def test_report_cli(tmp_path, run, capsys):
    out = tmp_path / "o"
    out.mkdir()
    rc = main(["report", str(run.path), "--html", str(out / "r.html"), "--md", str(out / "r.md"),
               "--csv", str(out / "r.csv")])
    assert rc == 0
    assert (out / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / "r.md").read_text().startswith("# tokcheck report")
    assert main(["report", str(tmp_path / "missing")]) == 1
    assert "no run directory" in capsys.readouterr().err


def test_bound_for_the_runs_own_model_and_gpu(tmp_path):
    import json

    from tokcheck.report.bound import bound_for_run

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
        "torch_dtype": "bfloat16", "tie_word_embeddings": False}))
    env = {"gpu": {"available": True, "gpus": [{"index": 0, "name": "NVIDIA H200", "processes": []}]}}
    run = load_run(write_run_dir(tmp_path / "g", levels=LEVELS, environment=env,
                                 engine_report=VLLM_CPU_ENGINE_REPORT | {"device": "cuda"},
                                 precision_report=FULL_PRECISION_REPORT | {"path": str(model)}))
    b = bound_for_run(run)
    # Llama-3.1-8B-shaped, BF16: ~16 GB read per token → 4.8 TB/s gives about 300 tok/s
    assert 250 < b["hard_tok_s"] < 330 and b["realistic_tok_s"] < b["hard_tok_s"]
    assert "on H200 at BF16" in b["source"] and b["gpu"] == "H200"
    cpu = load_run(write_run_dir(tmp_path / "c", levels=LEVELS, environment={"gpu": {"available": False, "gpus": []}},
                                 precision_report=FULL_PRECISION_REPORT | {"path": str(model)}))
    assert "a CPU run" in bound_for_run(cpu)["reason"]
    assert bound_for_run(cpu, gpu="H100 SXM")["hard_tok_s"] > 0


def test_throughput_chart_keeps_a_single_runs_point_clear_of_the_legend(tmp_path):
    """One run of one level: its point sat under the legend inside the axes. The legend is now
    outside, under the axes, and every point lies inside the frame, away from it; the two series'
    points at the same concurrency are drawn at different heights."""
    from tokcheck.report.plots import throughput_figure

    run = load_run(write_run_dir(tmp_path / "one", levels={1: {"ttft_ms": 30, "gen_tok_s": 141, "agg_tok_s": 138}}))
    plt, fig, ax, ax2 = throughput_figure([run])
    fig.tight_layout()
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    frame = ax.get_window_extent()
    assert legend.y1 <= frame.y0  # wholly below the axes
    points = [a.transData.transform(xy) for a in (ax, ax2) for xy in a.lines[0].get_xydata()]
    for x, y in points:
        assert frame.x0 < x < frame.x1 and frame.y0 < y < frame.y1 - 5
        assert not legend.contains(x, y)
    (x1, y1), (x2, y2) = points
    assert x1 == x2 and abs(y1 - y2) > 20   # not one marker hiding the other
    plt.close(fig)
