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
    "model": (98, 98), "gpu": (98, 98), "gpu_count": (96, 97), "value": (98, 98), "metric": (98, 97),
    "scope": (97, 97), "concurrency": (100, 100), "precision": (98, 99), "engine": (99, 97),
    "input_tokens": (100, 96), "output_tokens": (96, 100),
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
    assert result["figures"]["found"] >= 364, result["figures"]
