"""What a new user met from a fresh clone: the README's own claims (a model outside the
catalog), runs labelled by hash, units printed twice, 0 ms ITLs dropped from the histogram, a
doubled percent sign in --help, bursty token delivery passed off as a measured speed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rundirs import CPU_ENVIRONMENT, FULL_PRECISION_REPORT, VLLM_CPU_ENGINE_REPORT, write_run_dir
from tokcheck.cli import COMMANDS, build_parser, main
from tokcheck.analysis.verify.claim_bound import claim_fields
from tokcheck.analysis.compare import comparison_markdown, side_by_side
from tokcheck.report import render_csv, render_html, render_markdown
from tokcheck.report import plots
from tokcheck.record.store import load_run, load_runs, run_labels
from tokcheck.analysis.verify import verify
from tokcheck.analysis.verify.bursts import burst_stats
from tokcheck.analysis.verify.lookup import leading_model_name

README = Path(__file__).resolve().parents[2] / "README.md"
README_CLAIM = "tiny-llama on vLLM 0.32.0, BF16, single request: 300 tok/s"
LEVELS = {1: {"ttft_ms": 10.0, "gen_tok_s": 300.0, "agg_tok_s": 290.0},
          4: {"ttft_ms": 20.0, "gen_tok_s": 250.0, "agg_tok_s": 900.0}}
# tinymodel's shape (tokcheck.engines.tinymodel): a 3.4 M-parameter Llama
TINY_CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
               "intermediate_size": 688, "num_hidden_layers": 4, "num_attention_heads": 4,
               "num_key_value_heads": 2, "vocab_size": 4096, "max_position_embeddings": 2048,
               "torch_dtype": "bfloat16", "tie_word_embeddings": True}


def _model_dir(tmp_path: Path) -> Path:
    d = tmp_path / "models" / "tiny-llama-341117c394bd"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(TINY_CONFIG))
    return d


def _served_run(tmp_path: Path, served: str, mdir: Path, name: str = "run", env=CPU_ENVIRONMENT) -> Path:
    return write_run_dir(tmp_path / name, levels=LEVELS, model=served, environment=env,
                         engine_report=VLLM_CPU_ENGINE_REPORT, input_len=64, output_len=32,
                         precision_report=FULL_PRECISION_REPORT | {"path": str(mdir)},
                         serve={"dtype": "bfloat16", "max_model_len": 2048,
                                "argv": ["-m", "vllm.entrypoints.openai.api_server", "--model", str(mdir)]})


def _set_run_id(run_dir: Path, run_id: str) -> None:
    p = run_dir / "run.json"
    r = json.loads(p.read_text())
    r["run_id"] = run_id
    p.write_text(json.dumps(r))


def _coalesce(run_dir: Path, level: str, one_read: int, tpot_null: bool = True) -> None:
    """Rewrite the first ``one_read`` measured requests of ``level`` as bench records a
    response whose SSE events all came in one socket read: one arrival time for every token
    (``tpot_ms`` null, or 0 as bench wrote before its fix; ``generation_tok_s`` null)."""
    p = run_dir / "requests.jsonl"
    reqs = [json.loads(line) for line in p.read_text().splitlines()]
    done = 0
    for q in reqs:
        if q["level"] == level and not q["warmup"] and done < one_read:
            t = q["chunks"][-1][0]
            q["chunks"] = [[t, c[1]] for c in q["chunks"]]
            q["t_first_ns"] = q["t_last_ns"] = t
            q["tpot_ms"] = None if tpot_null else 0.0
            q["generation_tok_s"] = None
            done += 1
    p.write_text("".join(json.dumps(q) + "\n" for q in reqs))


# ------------------------------------------------------------------ 1. the README's own claims

def _readme_claims() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r'tokcheck (?:verify|report [^"\n]*--claim|reproduce) "([^"]+)"', text)


def test_readme_claims_all_name_a_model():
    claims = _readme_claims()
    assert any(c.startswith("tiny-llama") for c in claims), claims
    for c in claims:
        if c.strip() != "...":
            assert claim_fields(c).get("model"), c


@pytest.mark.parametrize("text,name", [
    (README_CLAIM, "tiny-llama"),
    ("Llama 3.1 8B Instruct on H100: 100 tok/s", "Llama 3.1 8B Instruct"),
    ("my-model: 300 tok/s", "my-model"),
    ("single request on an H100: 300 tok/s", None),
    ("300 tok/s on H100", None),
    ("vLLM 0.32.0 serves tiny-llama at 300 tok/s", None),
])
def test_leading_model_name(text, name):
    assert leading_model_name(text) == name


def test_readme_claim_matches_the_served_model_and_says_why_there_is_no_bound(tmp_path, capsys):
    mdir = _model_dir(tmp_path)
    run_dir = _served_run(tmp_path, str(mdir), mdir)
    assert main(["verify", README_CLAIM, "--run", str(run_dir), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["conditions"]["model"] == "match"
    reason = v["bound"]["reason"]
    assert "no model to bound" not in reason
    assert "needs a GPU or a bandwidth" in reason and "CPU" in reason
    # with a GPU named, the bound comes from the served directory's config.json
    assert main(["verify", README_CLAIM, "--run", str(run_dir), "--gpu", "H100", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)["bound"]
    assert b["hard_tok_s"] > 0 and "config.json" in b["source"]
    # the report --claim example of the README: its Decode bound says why, not "no model"
    md = tmp_path / "r.md"
    assert main(["report", str(run_dir), "--claim", README_CLAIM, "--md", str(md)]) == 0
    text = md.read_text()
    assert "no model to bound" not in text
    assert "| model | tiny-llama |" in text and "| match |" in text.split("| model | tiny-llama |")[1].splitlines()[0]
    assert "needs a GPU or a bandwidth" in text


def test_served_alias_matches_through_the_model_directory(tmp_path, capsys):
    mdir = _model_dir(tmp_path)
    run_dir = _served_run(tmp_path, "tiny", mdir)  # --served-model-name tiny
    run = load_run(run_dir)
    fields = claim_fields(README_CLAIM)
    assert verify(fields, run).conditions[0].status == "match"
    other = claim_fields("mistral-7b on vLLM 0.32.0, BF16, single request: 300 tok/s")
    v = verify(other, run)
    assert v.conditions[0].status == "differ" and v.reproduced is None


# ------------------------------------------------------------------ 2. labels by directory

def test_labels_are_directory_names_with_parents_on_clashes(tmp_path):
    a = write_run_dir(tmp_path / "sweep" / "mml-1024", levels=LEVELS)
    b = write_run_dir(tmp_path / "sweep" / "mml-2048", levels=LEVELS)
    assert run_labels([a, b]) == ["mml-1024", "mml-2048"]
    x = write_run_dir(tmp_path / "x" / "run", levels=LEVELS)
    y = write_run_dir(tmp_path / "y" / "run", levels=LEVELS)
    assert run_labels([x, y]) == ["x/run", "y/run"]
    assert run_labels([x, y, a]) == ["x/run", "y/run", "mml-1024"]


def test_reports_and_compare_label_runs_by_directory_not_hash(tmp_path, capsys):
    hashes = ["3c728cf56648", "79cca5c6ca44"]
    dirs = [write_run_dir(tmp_path / "sweep" / f"mml-{n}", levels=LEVELS) for n in (1024, 2048)]
    for d, h in zip(dirs, hashes):
        _set_run_id(d, h)
    runs = load_runs(dirs)
    md = render_markdown(runs)
    assert "## mml-1024" in md and "## mml-2048" in md
    assert all(md.count(h) == 1 for h in hashes)  # only in the conditions' "run id" row
    html = render_html(runs)
    assert "Per-request timeline (mml-1024)" in html and "<b>mml-2048</b>" in html
    csv_rows = render_csv(runs).splitlines()[1:]
    assert {row.split(",")[0] for row in csv_rows} == {"mml-1024", "mml-2048"}
    cmp_md = comparison_markdown(runs)
    assert "mml-1024 vs mml-2048" in cmp_md and not any(h in cmp_md for h in hashes)
    # two runs both called "run": the parent tells them apart everywhere
    same = [write_run_dir(tmp_path / p / "run", levels=LEVELS) for p in ("bf16", "fp8")]
    assert main(["compare", *map(str, same)]) == 0
    out = capsys.readouterr().out
    assert "bf16/run" in out and "fp8/run" in out


# ------------------------------------------------------------------ 3. units once

def test_compare_row_labels_name_their_unit_once(tmp_path, capsys):
    dirs = [write_run_dir(tmp_path / n, levels=LEVELS) for n in ("a", "b")]
    rows = side_by_side(load_runs(dirs))
    for row in rows:
        assert row.label.count(row.unit) == 1, row.label
        assert not re.search(r"\(([^)]+)\).*\(\1\)", row.label), row.label
    labels = {r.label for r in rows}
    assert "generation tok/s per request" in labels and "median TTFT (ms)" in labels
    assert main(["compare", *map(str, dirs)]) == 0
    out = capsys.readouterr().out
    assert "(tok/s) (tok/s)" not in out and "(per request) (tok/s)" not in out.replace("\n", " ")


def test_sweep_table_names_units_once(tmp_path):
    from tokcheck.flows.sweep import find_swings, sweep_cells, sweep_markdown

    runs = {n: load_run(write_run_dir(tmp_path / f"mml-{n}", levels=LEVELS)) for n in (1024, 2048)}
    cells = sweep_cells(runs)
    header = sweep_markdown(cells, find_swings(cells)).splitlines()[0]
    assert "generation tok/s per request |" in header and "(tok/s) (tok/s)" not in header
    for col in header.strip("|").split("|"):
        assert col.count("tok/s") <= 1 and col.count("(ms)") <= 1, col


# ------------------------------------------------------------------ 4. ITL of 0 ms

def test_itl_histogram_keeps_zero_gaps_and_says_so(tmp_path):
    d = write_run_dir(tmp_path / "burst", levels={1: LEVELS[1]}, per_round=4)
    # every request: tokens arrive in pairs, so every second gap is 0 ms
    p = d / "requests.jsonl"
    reqs = [json.loads(line) for line in p.read_text().splitlines()]
    for q in reqs:
        ch = q["chunks"]
        q["chunks"] = [[ch[i - (i % 2)][0], c[1]] for i, c in enumerate(ch)]
    p.write_text("".join(json.dumps(q) + "\n" for q in reqs))
    run = load_run(d)
    b = burst_stats(run.measured_requests())
    # 64 tokens → 63 gaps per request, the 32 odd ones 0 ms; no request arrived in one read
    assert (b.requests, b.zero_gaps, b.gaps, b.one_read) == (12, 32 * 12, 63 * 12, 0)
    html = render_html([run])
    assert "51 % of inter-token gaps were 0 ms: tokens arrived together" in html
    assert "Inter-token latency" in render_markdown([run])


def test_itl_histogram_drawn_when_every_gap_is_zero(tmp_path):
    d = write_run_dir(tmp_path / "allzero", levels={1: LEVELS[1]}, per_round=4)
    _coalesce(d, "c1", one_read=12)
    run = load_run(d)
    # ITL is per read (tokcheck.core.metrics.itl_ms): a request whose every token came in one
    # read has no inter-token gap, so the plot is n/a and the page says why, and why the gaps
    # are missing (they were 0 ms: every token arrived together)
    assert plots.distribution([run], "itl") is None
    html = render_html([run])
    assert "n/a: no request with two or more token chunks" in html
    assert "100 % of inter-token gaps were 0 ms" in html
    assert "12 of 12 requests had every token in one read" in html


# ------------------------------------------------------------------ 5. --help text

def test_no_doubled_percent_sign_in_any_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert {c.replace("_", "-") for c in COMMANDS} <= set(sub.choices)
    for name, p in sub.choices.items():
        text = p.format_help()
        assert "%%" not in text, name
    assert "%%" not in parser.format_help()


# ------------------------------------------------------------------ 6. bursty delivery in check 1

@pytest.mark.parametrize("tpot_null", [True, False])
def test_check_1_warns_on_bursty_delivery_and_verdict_refuses_generation_speed(tmp_path, tpot_null):
    d = write_run_dir(tmp_path / "b", levels=LEVELS, engine_report=VLLM_CPU_ENGINE_REPORT,
                      precision_report=FULL_PRECISION_REPORT, environment=CPU_ENVIRONMENT)
    _coalesce(d, "c1", one_read=8, tpot_null=tpot_null)
    run = load_run(d)
    fields = {"model": "tiny-llama", "metric": "generation_tok_s", "value": 300.0, "unit": "tok/s",
              "concurrency": 1, "input_tokens": 128, "output_tokens": 64}
    v = verify(fields, run)
    c1 = v.checks[0]
    assert c1.status in ("warn", "fail")
    assert any("8 of 12 requests had every token in one read: per-request speed is not measurable there" in e
               for e in c1.evidence)
    assert v.reproduced is None and v.measured is None
    assert any("one read" in r for r in v.incomparable_reasons)
    # E2E tok/s needs no TPOT: still compared
    e2e = verify(fields | {"metric": "e2e_tok_s", "value": 100.0}, run)
    assert e2e.measured is not None
    # concurrency 4 was untouched: measured as before
    assert verify(fields | {"concurrency": 4, "value": 250.0}, run).reproduced is True


def test_check_1_passes_spread_out_delivery(tmp_path):
    d = write_run_dir(tmp_path / "s", levels=LEVELS, engine_report=VLLM_CPU_ENGINE_REPORT,
                      precision_report=FULL_PRECISION_REPORT, environment=CPU_ENVIRONMENT)
    run = load_run(d)
    fields = {"model": "tiny-llama", "metric": "generation_tok_s", "value": 900.0, "unit": "tok/s",
              "concurrency": 1, "input_tokens": 128, "output_tokens": 64}
    c1 = verify(fields, run).checks[0]
    assert not any("one read" in e and "of 12 requests had" in e for e in c1.evidence)
    assert any("0 of 12 requests in one read" in e for e in c1.evidence)


# ------------------------------------------------------------------ 7. README sweep example

def test_readme_sweep_example_uses_enforce_eager_and_says_why():
    text = README.read_text(encoding="utf-8")
    section = text.split("## `tokcheck sweep`", 1)[1].split("\n## ", 1)[0]
    example = section.split("```bash", 1)[1].split("```", 1)[0]
    assert "--enforce-eager" in example
    assert "--enforce-eager" in section.split("```", 2)[2] and "s " in section
