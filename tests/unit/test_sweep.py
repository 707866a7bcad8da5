"""sweep (R5): cells and swings over 30 % from run directories with known values."""

from __future__ import annotations

import pytest

from rundirs import write_run_dir
from tokcheck.record.store import load_run
from tokcheck.flows.sweep import find_swings, sweep_cells, sweep_markdown, sweep_result


@pytest.fixture
def runs(tmp_path):
    # max_model_len 2048: TTFT 10 → 12 ms from c=1 to c=4 (+20 %, no swing); generation
    # 300 → 250 (−17 %); aggregate 290 → 900 (+210 %, a swing).
    # max_model_len 8192: TTFT 10 → 20 ms at c=4 vs 2048 (+67 %, a swing); generation at c=4
    # 250 → 150 (−40 %, a swing).
    a = write_run_dir(tmp_path / "mml-2048", levels={1: {"ttft_ms": 10, "gen_tok_s": 300, "agg_tok_s": 290},
                                                     4: {"ttft_ms": 12, "gen_tok_s": 250, "agg_tok_s": 900}})
    b = write_run_dir(tmp_path / "mml-8192", levels={1: {"ttft_ms": 10, "gen_tok_s": 280, "agg_tok_s": 270},
                                                     4: {"ttft_ms": 20, "gen_tok_s": 150, "agg_tok_s": 560}})
    return {2048: load_run(a), 8192: load_run(b)}


def test_cells(runs):
    cells = sweep_cells(runs)
    assert [(c.max_model_len, c.concurrency) for c in cells] == [(2048, 1), (2048, 4), (8192, 1), (8192, 4)]
    assert cells[1].ttft_ms == pytest.approx(12.0)
    assert cells[1].generation_tok_s == pytest.approx(250.0, rel=1e-3)
    assert cells[1].aggregate_tok_s == 900


def test_swings_over_thirty_percent(runs):
    sw = find_swings(sweep_cells(runs))
    got = {(s.metric, s.axis, tuple(s.held.items()), s.from_setting, s.to_setting): round(s.change, 2) for s in sw}
    assert got[("ttft_ms", "max_model_len", (("concurrency", 4),), 2048, 8192)] == pytest.approx(0.67, abs=0.01)
    assert got[("generation_tok_s", "max_model_len", (("concurrency", 4),), 2048, 8192)] == pytest.approx(-0.40, abs=0.01)
    assert got[("aggregate_tok_s", "concurrency", (("max_model_len", 2048),), 1, 4)] == pytest.approx(2.10, abs=0.01)
    assert got[("generation_tok_s", "concurrency", (("max_model_len", 8192),), 1, 4)] == pytest.approx(-0.46, abs=0.01)
    # under the threshold: not marked
    assert ("ttft_ms", "concurrency", (("max_model_len", 2048),), 1, 4) not in got        # +20 %
    assert ("generation_tok_s", "max_model_len", (("concurrency", 1),), 2048, 8192) not in got  # −7 %
    assert find_swings(sweep_cells(runs), threshold=5.0) == []


def test_markdown_marks(runs):
    cells = sweep_cells(runs)
    md = sweep_markdown(cells, find_swings(cells))
    row = [line for line in md.splitlines() if line.startswith("| 8192 | 4 |")][0]
    assert "20 ⚠ +67% vs max_model_len 2048" in row
    assert "150 ⚠ -40% vs max_model_len 2048 ⚠ -46% vs concurrency 1" in row
    d = sweep_result(runs)
    assert d["threshold"] == 0.3 and len(d["cells"]) == 4 and len(d["swings"]) == len(find_swings(cells))


def test_a_swing_next_to_a_client_bound_level_says_so(runs, tmp_path):
    import json

    # the c=4 level of max_model_len 8192 was limited by the client
    path = runs[8192].path / "summary.json"
    data = json.loads(path.read_text())
    data["levels"][1]["client"] = {"bound": True, "reasons": ["the client's event loop used 97 % of a core"]}
    path.write_text(json.dumps(data))
    runs = {2048: runs[2048], 8192: load_run(runs[8192].path)}
    sw = find_swings(sweep_cells(runs))
    bound = [s for s in sw if s.client_bound]
    assert bound and all(8192 in (s.to_setting, s.held.get("max_model_len")) for s in bound)
    assert not [s for s in sw if s.axis == "concurrency" and s.held == {"max_model_len": 2048} and s.client_bound]
    assert "client-bound" in sweep_markdown(sweep_cells(runs), sw)
def test_an_na_cell_says_why_in_the_table_and_the_markdown(runs, tmp_path):
    """A level whose generation tok/s was withheld (most requests got every token in one read): the
    reason that summary.json holds is shown under the table, the cell points at it."""
    import json

    from rich.console import Console

    from tokcheck.cli.sweep import print_sweep_table

    why = ("9 of 12 requests (75%) got every token in one read: their TPOT is undefined, and a median "
           "over the rest would be biased")
    path = runs[8192].path / "summary.json"
    summary = json.loads(path.read_text())
    lv = summary["levels"][1]
    lv["generation_tok_s"] = lv["tpot_ms"] = None
    lv["generation_tok_s_reason"] = lv["tpot_ms_reason"] = why
    path.write_text(json.dumps(summary))
    runs = {2048: runs[2048], 8192: load_run(runs[8192].path)}
    cells = sweep_cells(runs)
    assert cells[3].reasons == {"generation_tok_s": why}
    md = sweep_markdown(cells, find_swings(cells))
    row = [line for line in md.splitlines() if line.startswith("| 8192 | 4 |")][0]
    assert "| n/a [1] |" in row
    assert f"[1] n/a: {why}" in md.splitlines()
    con = Console(record=True, width=160)
    print_sweep_table(cells, find_swings(cells), 0.3, "tiny", console=con)
    text = con.export_text()
    assert "n/a [1]" in text and f"[1] n/a: {why}" in text
