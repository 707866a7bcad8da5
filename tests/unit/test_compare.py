"""compare (M1, M2) and quality (M3) on run directories with known contents."""

from __future__ import annotations

import json

import pytest

from rundirs import VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.cli import main
from tokcheck.analysis.compare import comparability, comparison_markdown, samples_jsonl, side_by_side, text_samples
from tokcheck.analysis.quality import quality_from_runs, summarize, token_agreement, PromptQuality
from tokcheck.record.store import load_run

SERVE = {"dtype": "bfloat16", "max_model_len": 2048, "gpu_memory_utilization": 0.9,
         "tensor_parallel_size": 1, "quantization": None}


def _run(tmp_path, name, *, serve=SERVE, levels=None, **kw):
    levels = levels or {1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
                        4: {"ttft_ms": 20, "gen_tok_s": 250, "agg_tok_s": 900}}
    return load_run(write_run_dir(tmp_path / name, levels=levels, serve=serve,
                                  engine_report=VLLM_CPU_ENGINE_REPORT, **kw))


def test_same_conditions_are_comparable(tmp_path):
    a, b = _run(tmp_path, "a"), _run(tmp_path, "b")
    c = comparability([a, b])
    assert c.comparable and c.differ == {}
    assert c.verdict().startswith("COMPARABLE")


def test_differences_are_named(tmp_path):
    a = _run(tmp_path, "a")
    b = _run(tmp_path, "b", serve=SERVE | {"max_model_len": 4096, "dtype": "float16"},
             levels={1: {"ttft_ms": 10, "gen_tok_s": 300}, 8: {"ttft_ms": 30, "gen_tok_s": 200}},
             output_len=32)
    c = comparability([a, b])
    assert not c.comparable
    assert set(c.differ) == {"dtype", "max_model_len", "output_len", "concurrency"}
    v = c.verdict()
    assert v.startswith("NOT COMPARABLE") and "max_model_len (2048 vs 4096)" in v
    assert c.to_dict()["differ"]["concurrency"] == ["1,4", "1,8"]


def test_side_by_side_values_and_spread(tmp_path):
    a = _run(tmp_path, "a")
    b = _run(tmp_path, "b", levels={1: {"ttft_ms": 40, "gen_tok_s": 100, "agg_tok_s": 95}})
    rows = side_by_side([a, b])
    assert {r.level for r in rows} == {"concurrency 1"}      # only levels in both
    by = {r.metric: r for r in rows}
    assert by["median TTFT"].values == pytest.approx([10.0, 40.0])
    assert by["generation tok/s per request"].values == pytest.approx([300.0, 100.0], rel=1e-3)
    assert by["aggregate output throughput"].values == [290, 95]
    assert by["median TTFT"].spreads == pytest.approx([0.0, 0.0])
    assert by["peak GPU memory"].values == [None, None]      # no telemetry: n/a, never 0
    assert by["early stops"].values == [0, 0]
    md = comparison_markdown([a, b])
    # identical rounds: zero-width 95 % intervals, 10 and 40 ms apart
    assert "| concurrency 1 | median TTFT (ms) | 10 [10–10] CI 10–10 | 40 [40–40] CI 40–40 | apart |" in md
    assert by["median TTFT"].ci95 == [[10.0, 10.0], [40.0, 40.0]] and by["median TTFT"].overlap is False


def test_peak_gpu_memory_from_telemetry(tmp_path):
    # the shape the GPU sampler writes (tokcheck.machine.telemetry.GpuSampler.summary)
    tel = {"gpu": {"available": True, "gpus": {"0": {"memory_used_peak_bytes": 40 * 2**30}}}}
    a = _run(tmp_path, "a", telemetry=tel)
    b = _run(tmp_path, "b", telemetry={"gpu": {"available": True, "gpus": {"0": {"memory_used_peak_bytes": 20 * 2**30}}}})
    by = {r.metric: r for r in side_by_side([a, b]) if r.level == "concurrency 1"}
    assert by["peak GPU memory"].values == [40 * 2**30 / 1e9, 20 * 2**30 / 1e9]  # GB


def test_text_samples_side_by_side(tmp_path):
    a = _run(tmp_path, "a", text_prefix="alpha")
    b = _run(tmp_path, "b", text_prefix="beta")
    s = text_samples([a, b])
    assert [x["prompt_index"] for x in s] == [0, 1, 2, 3]
    assert s[0]["texts"][0].startswith("alpha 0") and s[0]["texts"][1].startswith("beta 0")
    lines = [json.loads(x) for x in samples_jsonl(["a", "b"], s).splitlines()]
    assert lines[1] == {"prompt_index": 1, "a": s[1]["texts"][0], "b": s[1]["texts"][1]}


def test_token_agreement():
    assert token_agreement([1, 2, 3], [1, 2, 3]) == (None, 1.0)
    assert token_agreement([1, 2, 3, 4], [1, 2, 9, 4]) == (2, 0.75)
    assert token_agreement([1, 2], [1, 2, 3, 4]) == (2, 0.5)
    assert token_agreement([], []) == (None, 1.0)
    s = summarize([PromptQuality(0, 4, 4, None, 1.0, 0.0), PromptQuality(1, 4, 4, 2, 0.5, 0.2)])
    assert s["identical"] == 1 and s["mean_token_agreement"] == 0.75
    assert s["median_first_divergence"] == 2 and s["mean_logprob_diff"] == pytest.approx(0.1)


def test_quality_from_runs_with_the_tokenizer(tmp_path, tiny_tokenizer):
    a = _run(tmp_path, "a", text_prefix="def measure(x): return x")
    b = _run(tmp_path, "b", text_prefix="def measure(x): return y")
    q = quality_from_runs(a, b, tokenizer=tiny_tokenizer)
    assert q["prompts"] == 4 and q["identical"] == 0
    assert all(p["first_divergence"] is not None and p["first_divergence"] > 3 for p in q["per_prompt"])
    assert 0.5 < q["mean_token_agreement"] < 1.0
    same = quality_from_runs(a, a, tokenizer=tiny_tokenizer)
    assert same["identical"] == 4 and same["mean_token_agreement"] == 1.0
    warm = _run(tmp_path, "c", temperature=0.7)
    assert "not greedy" in quality_from_runs(a, warm, tokenizer=tiny_tokenizer)["warnings"][0]


def test_compare_cli_writes_files(tmp_path, capsys, tiny_tokenizer):
    a = _run(tmp_path, "a", text_prefix="x = 1")
    b = _run(tmp_path, "b", serve=SERVE | {"max_model_len": 4096}, text_prefix="x = 2")
    md, tmd, tjl = tmp_path / "c.md", tmp_path / "t.md", tmp_path / "t.jsonl"
    rc = main(["compare", str(a.path), str(b.path), "--md", str(md), "--texts-md", str(tmd),
               "--texts-jsonl", str(tjl), "--quality", "--tokenizer", str(tiny_tokenizer)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "NOT COMPARABLE" in out and "max_model_len" in out
    assert "mean token agreement" in out
    assert "## prompt 0" in tmd.read_text()
    assert len(tjl.read_text().splitlines()) == 4
    rc = main(["compare", str(a.path), str(b.path), "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["comparable"] is False and d["differ"]["max_model_len"] == [2048, 4096]


def test_compare_cli_bad_input(tmp_path, capsys):
    assert main(["compare", str(tmp_path)]) == 1
    assert "at least two run directories" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "nope"), str(tmp_path)]) == 1
    assert "no run directory" in capsys.readouterr().err


def test_beyond_tok_s_rows(tmp_path):
    a = _run(tmp_path, "a")
    b = _run(tmp_path, "b", text_prefix="bad \ufffd")
    by = {r.metric: r for r in side_by_side([a, b]) if r.level == "concurrency 1"}
    assert by["broken outputs, empty or undecodable"].values == [0, 12]
    assert by["TTFT p99"].values == pytest.approx([10.0, 10.0])


def test_cell_shows_value_spread_and_range():
    from tokcheck.analysis.compare import format_cell

    assert format_cell(250.0, 22.0, [240.0, 250.0, 262.0]) == "250 [240–262]"
    assert format_cell(250.0, 22.0, None) == "250 ±22"
    assert format_cell(250.0, None, [240.0, None]) == "250"
    assert format_cell(None, 1.0, [1.0, 2.0]) == "n/a"


def test_an_engine_silent_on_speculative_decoding_is_unknown_and_flags_read_yes_no(tmp_path, capsys):
    """llama.cpp's report holds speculative_config and speculative_decoding as null: not stated,
    never "on" (it read True before); the table prints yes / no, JSON keeps booleans."""
    from tokcheck.analysis.compare import run_settings

    silent = {**VLLM_CPU_ENGINE_REPORT, "speculative_config": None, "speculative_decoding": None}
    a = load_run(write_run_dir(tmp_path / "a", levels={1: {"ttft_ms": 10, "gen_tok_s": 300}}, serve=SERVE,
                               engine_report=silent))
    assert run_settings(a)["speculative_decoding"] is None
    b = _run(tmp_path, "b")
    assert run_settings(b)["prefix_cache"] in (True, False)
    assert main(["compare", str(a.path), str(b.path)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("│ prefix_cache"))
    assert "True" not in row and "False" not in row and ("yes" in row or "no" in row)
    assert main(["compare", "--json", str(a.path), str(b.path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"][1]["prefix_cache"] in (True, False)


def test_comparable_runs_of_two_quantizations_say_what_differs_by_design(tmp_path):
    """F16 against Q4_K_M: every condition agrees, the quantization differs (it is what is
    compared); the verdict names it rather than reading as if everything agreed."""
    import copy

    a = _run(tmp_path, "a")
    q4_report = copy.deepcopy(VLLM_CPU_ENGINE_REPORT) | {"quantization": "Q4_K_M"}
    b = load_run(write_run_dir(tmp_path / "b", levels={1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
                                                       4: {"ttft_ms": 20, "gen_tok_s": 250, "agg_tok_s": 900}},
                               serve=SERVE, engine_report=q4_report))
    c = comparability([a, b])
    assert c.comparable
    assert c.verdict().endswith("what is compared differs: quantization (none vs Q4_K_M)"), c.verdict()
