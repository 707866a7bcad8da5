"""How well `tokcheck claim` reads and judges real claims: field recall and precision, figure
recall, and verdict agreement with an expert's answer, over a corpus of real public claims.

    python benchmarks/claims_corpus.py [CORPUS.jsonl ...] [--show FIELD] [--json]

Default corpus: tests/data/claims/corpus.jsonl (the line format is docs/claims-corpus.md). The
sets kept aside for a last check, benchmarks/claims/heldout.jsonl and heldout2.jsonl, are measured
only when named.

``metric`` and ``scope`` are the headline figure's (stated by the text, or inferred for a bare
figure, as the expert's figure list also gives them). Scoring, per field, over the claims: recall = claims where the expert states the field and the
reader gives the same value ÷ claims where the expert states it; precision = claims where the
reader gives the expert's value ÷ claims where the reader gives any value (a value the text does
not state counts against it). Models and GPUs are equal when both resolve to the same catalog
entry (or, outside the catalog, to the same normalised name); values are equal to 0.1 %.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "tests" / "data" / "claims" / "corpus.jsonl"
FIELDS = ("model", "gpu", "gpu_count", "value", "metric", "scope", "concurrency", "precision", "engine",
          "input_tokens", "output_tokens")
VERDICTS = ("plausible", "needs_explanation", "implausible", "unknown")


def load(paths: list[Path]) -> list[dict]:
    out = []
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out


def _norm(s) -> str:
    return re.sub(r"[^a-z0-9]", "", str(s).lower())


def _resolve(kind: str, name):
    from tokcheck.core.catalog import find_gpu, find_model

    try:
        return (find_gpu if kind == "gpu" else find_model)(str(name)).name
    except TokcheckError:
        return _norm(name)


def _precision(p) -> str | None:
    if p is None:
        return None
    p = str(p).upper()
    bits = re.fullmatch(r"([2-8])[\s\-]?BITS?", p)  # "3-bit" is INT3, as the conventions say of "4-bit"
    if bits:
        return f"INT{bits.group(1)}"
    p = re.sub(r"^UD-", "", p)  # Unsloth's dynamic files keep the type's name: "UD-Q4_K_XL" is scored as Q4_K_XL
    bpw = re.fullmatch(r"(\d+(?:\.\d+)?)\s*BPW", p)  # "2.70 bpw" is 2.7bpw
    if bpw:
        return f"{float(bpw.group(1)):g}BPW"
    return {"W4A16": "INT4", "AWQ": "INT4", "GPTQ": "INT4", "4BIT": "INT4", "W8A8": "INT8", "F16": "FP16"}.get(p, p)


def _num_eq(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        a = list(a) if isinstance(a, (list, tuple)) else [a]
        b = list(b) if isinstance(b, (list, tuple)) else [b]
        return len(a) == len(b) and all(_num_eq(x, y) for x, y in zip(a, b))
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return abs(a - b) <= 1e-3 * max(abs(a), abs(b), 1e-9)


def same(field: str, expert, got) -> bool:
    if field in ("model", "gpu"):
        return _resolve(field, expert) == _resolve(field, got)
    if field == "precision":
        return _precision(expert) == _precision(got)
    if field in ("value", "gpu_count", "concurrency", "input_tokens", "output_tokens"):
        return _num_eq(expert, got)
    if field == "engine":
        # vllm-ascend is vLLM with its Ascend plugin, mlx-lm is MLX's LLM runner, rknn-llm is the
        # repository of the RKLLM runtime, MLC is MLC-LLM, ds4 is ds4.c: the same engine
        same_as = {"vllmascend": "vllm", "mlxlm": "mlx", "rknnllm": "rkllm", "mlc": "mlcllm", "ds4": "ds4c"}
        return same_as.get(_norm(expert), _norm(expert)) == same_as.get(_norm(got), _norm(got))
    return _norm(expert) == _norm(got)


def reader_values(claim) -> dict:
    f = dict(claim.fields)
    head = claim.headline
    f["scope"] = head.scope if head else None
    f["metric"] = head.metric if head else None  # stated, or inferred for a bare figure
    return f


def expert_values(item: dict) -> dict:
    f = dict(item.get("fields") or {})
    head = next((x for x in item.get("figures") or [] if x.get("headline")), None)
    f["scope"] = head.get("scope") if head else None
    if head and head.get("metric"):
        f["metric"] = head["metric"]
    return f


def evaluate(items: list[dict], judge: bool = True) -> dict:
    from tokcheck.core.verdict import analyze_claim

    counts = {k: Counter() for k in FIELDS}
    misses: dict[str, list] = defaultdict(list)
    errors, verdicts, confusion = [], Counter(), Counter()
    figures_total = figures_found = 0
    for item in items:
        try:
            claim = parse_claim(item["text"])
        except TokcheckError as err:
            errors.append((item["id"], str(err)))
            continue
        got, exp = reader_values(claim), expert_values(item)
        for k in FIELDS:
            e, g = exp.get(k), got.get(k)
            if e is not None:
                counts[k]["stated"] += 1
            if g is not None:
                counts[k]["given"] += 1
            if e is not None and g is not None and same(k, e, g):
                counts[k]["right"] += 1
            elif e is not None or g is not None:
                misses[k].append((item["id"], e, g))
        for fig in item.get("figures") or []:
            figures_total += 1
            unit = fig.get("unit") or "tok/s"
            if unit == "ms" and fig.get("metric") == "tpot":
                unit = "ms/tok"  # a time per output token, however the answer wrote its unit
            if any(_num_eq(fig["value"], list(x.value) if isinstance(x.value, tuple) else x.value)
                   and unit == x.unit for x in claim.figures):
                figures_found += 1
        if judge and item.get("verdict"):
            try:
                verdict = analyze_claim(claim).verdict
            except TokcheckError as err:
                verdict = f"error: {err}"
            confusion[(item["verdict"], verdict)] += 1
            verdicts["agree" if verdict == item["verdict"] else "disagree"] += 1
            if verdict != item["verdict"]:
                misses["verdict"].append((item["id"], item["verdict"], verdict))
    fields = {}
    for k, c in counts.items():
        fields[k] = {"recall": c["right"] / c["stated"] if c["stated"] else None,
                     "precision": c["right"] / c["given"] if c["given"] else None,
                     "stated": c["stated"], "given": c["given"], "right": c["right"]}
    contradictions = sum(n for (e, g), n in confusion.items()
                         if {e, g} == {"plausible", "implausible"})
    return {"claims": len(items), "errors": errors, "fields": fields,
            "figures": {"total": figures_total, "found": figures_found},
            "verdict_agreement": verdicts["agree"] / max(1, sum(verdicts.values())),
            "contradictions": contradictions,
            "confusion": {f"{e} -> {g}": n for (e, g), n in sorted(confusion.items())},
            "misses": misses}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="*", type=Path, default=[DEFAULT])
    ap.add_argument("--show", action="append", default=[], help="print the misses of this field, or 'verdict' for the verdicts that disagree (repeatable)")
    ap.add_argument("--no-judge", action="store_true", help="read only; skip the verdicts")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    res = evaluate(load(args.corpus), judge=not args.no_judge)
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "misses"}, indent=2))
        return 0
    print(f"claims: {res['claims']}   errors: {len(res['errors'])}")
    for cid, err in res["errors"]:
        print(f"  error {cid}: {err}")
    print(f"{'field':<14}{'recall':>8}{'precision':>11}{'stated':>8}{'given':>7}")
    for k, v in res["fields"].items():
        r = "n/a" if v["recall"] is None else f"{v['recall']:.1%}"
        p = "n/a" if v["precision"] is None else f"{v['precision']:.1%}"
        print(f"{k:<14}{r:>8}{p:>11}{v['stated']:>8}{v['given']:>7}")
    fg = res["figures"]
    print(f"figures found: {fg['found']} of {fg['total']}")
    print(f"verdict agreement: {res['verdict_agreement']:.1%}   contradictions (plausible vs implausible): "
          f"{res['contradictions']}")
    for pair, n in res["confusion"].items():
        print(f"  expert {pair}: {n}")
    for k in args.show:
        print(f"\nmisses of {k}:")
        for cid, e, g in res["misses"][k]:
            print(f"  {cid}: expert {e!r}  reader {g!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
