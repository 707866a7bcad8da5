"""The reader and the judge over the whole corpus of real claims (tests/data/claims/corpus.jsonl,
docs/claims-corpus.md), scored by benchmarks/claims_corpus.py's own scoring.

Floors are the figures reached when this test was written, rounded down to the whole percent, so
a regression in any field fails; where a field meets the issue's target (recall ≥ 95 %,
precision ≥ 97 %) the floor is at least the target. Verdict agreement must stay ≥ 90 % with no
contradiction (expert plausible vs tool implausible or the reverse).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "claims" / "corpus.jsonl"

# field → (recall floor, precision floor) in percent: achieved, rounded down
FLOORS = {
    "model": (98, 98), "gpu": (98, 98), "gpu_count": (97, 97), "value": (98, 98), "metric": (98, 97),
    "scope": (97, 97), "concurrency": (100, 100), "precision": (98, 99), "engine": (99, 97),
    "input_tokens": (100, 100), "output_tokens": (96, 100),
}
TARGET_RECALL, TARGET_PRECISION = 95, 97


def _bench():
    spec = importlib.util.spec_from_file_location("claims_corpus", ROOT / "benchmarks" / "claims_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def result():
    bench = _bench()
    return bench.evaluate(bench.load([CORPUS]))


def test_every_claim_is_read_without_error(result):
    assert result["claims"] == 174
    assert result["errors"] == []


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_field_recall_and_precision_hold_their_floor(result, field):
    got = result["fields"][field]
    recall_floor, precision_floor = FLOORS[field]
    recall, precision = 100 * got["recall"], 100 * got["precision"]
    assert recall >= recall_floor, (field, "recall", recall, result["misses"][field])
    assert precision >= precision_floor, (field, "precision", precision, result["misses"][field])
    # a target once met must stay met
    if recall_floor >= TARGET_RECALL:
        assert recall >= TARGET_RECALL
    if precision_floor >= TARGET_PRECISION:
        assert precision >= TARGET_PRECISION


def test_verdicts_agree_with_the_expert_and_never_contradict(result):
    assert result["verdict_agreement"] >= 0.90, result["misses"]["verdict"]
    assert result["contradictions"] == 0, result["confusion"]


def test_figures_found_hold_their_floor(result):
    assert result["figures"]["found"] >= 386, result["figures"]


@pytest.mark.parametrize("name", ["heldout.jsonl", "heldout2.jsonl", "heldout3.jsonl", "heldout4.jsonl",
                                  "heldout5.jsonl", "heldout6.jsonl", "heldout7.jsonl", "heldout8.jsonl",
                                  "heldout9.jsonl", "heldout10.jsonl", "heldout11.jsonl", "heldout12.jsonl",
                                  "heldout13.jsonl", "heldout14.jsonl", "heldout15.jsonl", "heldout16.jsonl",
                                  "heldout17.jsonl", "heldout18.jsonl", "heldout19.jsonl",
                                  "heldout20.jsonl", "heldout21.jsonl",
                                  "heldout22.jsonl", "heldout23.jsonl", "heldout24.jsonl", "heldout25.jsonl"])
def test_the_sets_kept_aside_are_well_formed_and_new(name):
    """The sets kept aside are read by the same benchmark, so each line must be a complete answer
    (one headline figure, matching the fields' value and unit), and none may repeat a corpus
    claim (the same source and headline figure): that would not be unseen text. Their scores are
    not asserted."""
    import json

    corpus = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    seen = {(d["source"], json.dumps(d["fields"]["value"])) for d in corpus}
    for other in sorted((ROOT / "benchmarks" / "claims").glob("heldout*.jsonl")):
        if other.name < name:  # nor a claim of a set kept aside before it
            seen |= {(d["source"], json.dumps(d["fields"]["value"]))
                     for d in (json.loads(x) for x in other.read_text().splitlines() if x.strip())}
    lines = [json.loads(line) for line in (ROOT / "benchmarks" / "claims" / name).read_text().splitlines()
             if line.strip()]
    assert lines and len({d["id"] for d in lines}) == len(lines)
    for d in lines:
        assert {"id", "text", "lang", "source", "fields", "figures", "verdict", "expert_note"} <= set(d), d["id"]
        heads = [f for f in d["figures"] if f["headline"]]
        assert len(heads) == 1, d["id"]
        assert (heads[0]["value"], heads[0]["unit"]) == (d["fields"]["value"], d["fields"]["unit"]), d["id"]
        assert d["verdict"] in {"plausible", "needs_explanation", "implausible", "unknown"}, d["id"]
        assert (d["source"], json.dumps(d["fields"]["value"])) not in seen, d["id"]
