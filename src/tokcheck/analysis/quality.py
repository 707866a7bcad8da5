"""output quality of two servings of a model (e.g. full precision vs quantized).

The same prompts with greedy decoding (temperature 0) on both sides; per prompt:

- **first divergence** — the index of the first output token where the two differ (``None``
  when identical; the shorter length when one is a prefix of the other);
- **token agreement** — equal tokens at equal positions ÷ the longer output's length;
- **mean log-probability difference** — where the servers return logprobs: the mean over the
  reference's output tokens of ``logprob_ref(token) − logprob_candidate(token)`` (nats; the
  candidate scores the *reference's* tokens, by echoing prompt + reference with
  ``echo: true, logprobs: 0``), so it measures how far the candidate's distribution moved,
  even where the greedy choice did not change.

The pure part is :func:`token_agreement` and :func:`summarize`; :func:`quality_live` talks to
two OpenAI-compatible servers (vLLM's ``return_tokens_as_token_ids`` gives exact token ids);
:func:`quality_from_runs` re-tokenizes the texts two runs kept.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tokcheck.errors import TokcheckError

#: Prompts for the live comparison: short, varied, in the kind of text the tiny model's
#: tokenizer was trained on (Python source) as well as plain English.
DEFAULT_PROMPTS = (
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "The three most important facts about memory bandwidth are",
    "import os\nimport sys\n\n\ndef main(argv):\n",
    "Explain continuous batching in one paragraph:",
    "class LRUCache:\n    def __init__(self, capacity):\n",
    "Translate to French: The weather is nice today.",
    "for i in range(10):\n    if i % 3 == 0:\n",
    "A list of prime numbers: 2, 3, 5, 7,",
)


@dataclass
class PromptQuality:
    """One prompt's comparison (token positions are 0-based output positions)."""

    prompt_index: int
    ref_tokens: int
    cand_tokens: int
    first_divergence: int | None
    agreement: float
    mean_logprob_diff: float | None = None


def token_agreement(ref: list[int], cand: list[int]) -> tuple[int | None, float]:
    """``(first_divergence, agreement)`` of two token-id sequences; see the module doc.
    Two empty outputs agree fully (1.0)."""
    n = max(len(ref), len(cand))
    if n == 0:
        return None, 1.0
    first = next((i for i, (a, b) in enumerate(zip(ref, cand)) if a != b), None)
    if first is None and len(ref) != len(cand):
        first = min(len(ref), len(cand))
    same = sum(1 for a, b in zip(ref, cand) if a == b)
    return first, same / n


def summarize(items: list[PromptQuality]) -> dict[str, Any]:
    """Mean agreement, identical outputs, median first divergence (diverging prompts only) and
    mean log-probability difference (prompts that have one); ``None`` where no data."""
    div = [i.first_divergence for i in items if i.first_divergence is not None]
    lps = [i.mean_logprob_diff for i in items if i.mean_logprob_diff is not None]
    return {
        "prompts": len(items),
        "identical": sum(1 for i in items if i.first_divergence is None),
        "mean_token_agreement": statistics.fmean(i.agreement for i in items) if items else None,
        "median_first_divergence": statistics.median(div) if div else None,
        "mean_logprob_diff": statistics.fmean(lps) if lps else None,
        "mean_logprob_diff_reason": None if lps else "no logprobs from the servers (or runs: texts only)",
        "per_prompt": [asdict(i) for i in items],
    }


# ----------------------------------------------------------------------------- from two runs

def _load_tokenizer(source: str | Path):
    from tokenizers import Tokenizer

    p = Path(source)
    if p.is_dir():
        p = p / "tokenizer.json"
    if not p.is_file():
        raise TokcheckError(f"no tokenizer at {source} (give --tokenizer DIR_OR_FILE)")
    return Tokenizer.from_file(str(p))


def quality_from_runs(run_a, run_b, tokenizer: str | Path | None = None) -> dict[str, Any]:
    """Compare the texts two runs kept for the same prompts, token by token (with the
    tokenizer of run A's record, or ``tokenizer``). Raises TokcheckError when the runs used
    different prompts or no tokenizer is at hand. Adds ``warnings`` when a run was not greedy."""
    from tokcheck.analysis.compare import text_samples

    from tokcheck.record.schema import Workload

    wa, wb = run_a.conditions.workload or Workload(), run_b.conditions.workload or Workload()
    if wa.prompts_sha256 and wb.prompts_sha256 and wa.prompts_sha256 != wb.prompts_sha256:
        raise TokcheckError("the two runs used different prompts (workload.prompts_sha256 differ): "
                            "quality needs the same prompts")
    source = tokenizer or (run_a.conditions.tokenizer.source if run_a.conditions.tokenizer else None)
    if not source:
        raise TokcheckError("run A records no tokenizer: give --tokenizer DIR_OR_FILE")
    tok = _load_tokenizer(source)
    warnings = []
    for name, w in ((run_a.name, wa), (run_b.name, wb)):
        if w.temperature not in (0, 0.0):
            warnings.append(f"{name} was not greedy (temperature {w.temperature}): outputs "
                            "diverge by sampling alone")
    items = []
    for s in text_samples([run_a, run_b], limit=10_000):
        ra = tok.encode(s["texts"][0], add_special_tokens=False).ids
        rb = tok.encode(s["texts"][1], add_special_tokens=False).ids
        first, agree = token_agreement(ra, rb)
        items.append(PromptQuality(s["prompt_index"], len(ra), len(rb), first, agree))
    if not items:
        raise TokcheckError("the two runs have no prompt in common with a kept text")
    out = summarize(items)
    out.update({"mode": "runs", "reference": run_a.name, "candidate": run_b.name, "warnings": warnings})
    return out


# ----------------------------------------------------------------------------- live servers

def _tokenize(client, url: str, model: str, text: str) -> list[int]:
    r = client.post(f"{url}/tokenize", json={"model": model, "prompt": text, "add_special_tokens": False})
    if r.status_code != 200:
        raise TokcheckError(f"{url}/tokenize answered HTTP {r.status_code}: give --tokenizer DIR_OR_FILE")
    return list(r.json()["tokens"])


def _ids_from_tokens(tokens: list[str]) -> list[int]:
    # vLLM's return_tokens_as_token_ids: each token comes back as "token_id:123".
    try:
        return [int(t.split("token_id:", 1)[1]) for t in tokens]
    except (IndexError, ValueError):
        raise TokcheckError("the server did not return token ids (needs vLLM's "
                            "return_tokens_as_token_ids)") from None


def _greedy(client, url: str, model: str, prompt_ids: list[int], max_tokens: int) -> tuple[list[int], list[float] | None]:
    body = {"model": model, "prompt": prompt_ids, "max_tokens": max_tokens, "temperature": 0,
            "logprobs": 1, "return_tokens_as_token_ids": True, "stream": False}
    r = client.post(f"{url}/v1/completions", json=body)
    if r.status_code != 200:
        raise TokcheckError(f"{url}/v1/completions answered HTTP {r.status_code}: {r.text[:200]}")
    ch = r.json()["choices"][0]
    lp = ch.get("logprobs") or {}
    if not lp.get("tokens"):
        raise TokcheckError(f"{url} returned no logprobs tokens: cannot compare token ids")
    return _ids_from_tokens(lp["tokens"]), lp.get("token_logprobs")


def _score(client, url: str, model: str, prompt_ids: list[int], ref_ids: list[int]) -> list[float] | None:
    """The candidate's log-probabilities of the reference's tokens (prompt echo), or None."""
    body = {"model": model, "prompt": prompt_ids + ref_ids, "max_tokens": 1, "temperature": 0,
            "echo": True, "logprobs": 0, "stream": False}
    r = client.post(f"{url}/v1/completions", json=body)
    if r.status_code != 200:
        return None
    lp = (r.json()["choices"][0].get("logprobs") or {}).get("token_logprobs")
    if not lp or len(lp) < len(prompt_ids) + len(ref_ids):
        return None
    return lp[len(prompt_ids): len(prompt_ids) + len(ref_ids)]


def quality_live(url_a: str, model_a: str, url_b: str, model_b: str, *,
                 prompts: tuple[str, ...] = DEFAULT_PROMPTS, max_tokens: int = 64,
                 tokenizer: str | Path | None = None, timeout_s: float = 120.0) -> dict[str, Any]:
    """Greedy outputs of the same prompts from server A (reference) and B (candidate),
    compared token by token, with B's log-probabilities of A's tokens where available."""
    import httpx

    url_a, url_b = url_a.rstrip("/"), url_b.rstrip("/")
    tok = _load_tokenizer(tokenizer) if tokenizer else None
    items = []
    with httpx.Client(timeout=timeout_s, trust_env=False) as client:
        for i, text in enumerate(prompts):
            ids = tok.encode(text, add_special_tokens=False).ids if tok else _tokenize(client, url_a, model_a, text)
            ra, lpa = _greedy(client, url_a, model_a, ids, max_tokens)
            rb, _ = _greedy(client, url_b, model_b, ids, max_tokens)
            first, agree = token_agreement(ra, rb)
            diff = None
            lpb = _score(client, url_b, model_b, ids, ra) if lpa else None
            if lpa and lpb and len(lpa) == len(ra):
                pairs = [(a, b) for a, b in zip(lpa, lpb) if a is not None and b is not None]
                if pairs:
                    diff = statistics.fmean(a - b for a, b in pairs)
            items.append(PromptQuality(i, len(ra), len(rb), first, agree, diff))
    out = summarize(items)
    out.update({"mode": "live", "reference": f"{model_a} @ {url_a}", "candidate": f"{model_b} @ {url_b}",
                "max_tokens": max_tokens, "warnings": []})
    return out


# ----------------------------------------------------------------------------- by text (any engine)
#
# For servers that take no token-id prompts and return tokens as text (llama.cpp): greedy
# outputs are compared token by token as the server's token strings, and the candidate's
# log-probabilities of the reference's tokens come from teacher forcing, one request per
# position: prompt = prompt text + the reference's first i tokens, max_tokens 1, the reference
# token forced with ``logit_bias`` +100, ``logprobs`` 1 — the logprob the server reports is
# computed before the bias (llama.cpp; checked: same model, max |Δ| 2e-4 against its own greedy
# logprobs). ``echo`` is not used: llama-cpp-python 0.3.36 scores prompt token i with the
# distribution *after* it (``docs/engines.md``).

#: Prompts for the comparison by text: each ends in a word, so the text of a generated token
#: appended to it tokenizes as that token (a prompt ending in spaces or a newline merges with it).
TEXT_PROMPTS = (
    "def fibonacci(n): return the number",
    "The three most important facts about memory bandwidth are",
    "import os\nimport sys\n\ndef main(argv): return",
    "Explain continuous batching in one paragraph for the reader",
    "class LRUCache: def get(self, key): return self",
    "Translate to French the sentence about the weather",
    "for i in range(10): if i is even then print the value",
    "A list of prime numbers and their sum is",
)


@dataclass
class GreedyOutput:
    """One prompt's greedy output from a server: ``tokens`` (the server's token strings, in
    order) and ``logprobs`` (natural log, one per token; None where the server sent none)."""

    prompt: str
    tokens: list[str]
    logprobs: list[float] | None

    @property
    def text(self) -> str:
        return "".join(self.tokens)


def _completion(client, url: str, body: dict) -> dict:
    r = client.post(f"{url}/v1/completions", json=body)
    if r.status_code != 200:
        raise TokcheckError(f"{url}/v1/completions answered HTTP {r.status_code}: "
                            f"{' '.join(r.text.split())[:200]}")
    return r.json()["choices"][0]


def _with_bias(extra: dict, bias: dict[str, float]) -> dict:
    body = dict(extra)
    body["logit_bias"] = {**(extra.get("logit_bias") or {}), **bias}
    return body


def greedy_outputs(url: str, model: str, *, prompts: tuple[str, ...] = TEXT_PROMPTS,
                   max_tokens: int = 64, extra: dict | None = None,
                   timeout_s: float = 120.0) -> list[GreedyOutput]:
    """Greedy outputs (temperature 0, exactly ``max_tokens`` tokens: ``min_tokens`` =
    ``max_tokens``, with ``extra`` — the engine's fields, e.g. llama.cpp's end-of-generation
    ``logit_bias``) of ``prompts`` from the server at ``url``, with the logprob of each token.

    Raises:
        TokcheckError: a request fails, or the server returns no token strings.
    """
    import httpx

    url = url.rstrip("/")
    out = []
    with httpx.Client(timeout=timeout_s, trust_env=False) as client:
        for text in prompts:
            body = {"model": model, "prompt": text, "max_tokens": max_tokens,
                    "min_tokens": max_tokens, "temperature": 0, "logprobs": 1, "stream": False,
                    **(extra or {})}
            ch = _completion(client, url, body)
            lp = ch.get("logprobs") or {}
            tokens = lp.get("tokens")
            if not tokens:
                raise TokcheckError(f"{url} returned no logprobs tokens: cannot compare tokens")
            lps = lp.get("token_logprobs")
            out.append(GreedyOutput(text, list(tokens),
                                    [float(x) for x in lps] if lps and None not in lps else None))
    return out


def forced_logprobs(url: str, model: str, ref: list[GreedyOutput], tokenizer: str | Path, *,
                    extra: dict | None = None,
                    timeout_s: float = 120.0) -> list[list[float | None] | None]:
    """The logprobs the server at ``url`` gives the reference's tokens, by teacher forcing (see
    above); ``tokenizer`` (the model's ``tokenizer.json`` or its folder) gives each reference
    token's id. Per prompt a list (None at a position where the server's token differs from
    the reference's: the prompt text tokenized otherwise), or None for a prompt whose output
    does not re-tokenize to the same tokens.

    Raises:
        TokcheckError: a request fails or no tokenizer is found.
    """
    import httpx

    tok = _load_tokenizer(tokenizer)
    url = url.rstrip("/")
    out: list[list[float | None] | None] = []
    with httpx.Client(timeout=timeout_s, trust_env=False) as client:
        for g in ref:
            enc = tok.encode(g.text, add_special_tokens=False)
            if [tok.decode([i]) for i in enc.ids] != g.tokens:
                out.append(None)
                continue
            lps: list[float | None] = []
            prefix = g.prompt
            for tid, piece in zip(enc.ids, g.tokens):
                body = {"model": model, "prompt": prefix, "max_tokens": 1, "temperature": 0,
                        "logprobs": 1, "stream": False,
                        **_with_bias(extra or {}, {str(tid): 100})}
                ch = _completion(client, url, body)
                lp = ch.get("logprobs") or {}
                got = (lp.get("tokens") or [None])[0]
                value = (lp.get("token_logprobs") or [None])[0]
                lps.append(float(value) if got == piece and value is not None else None)
                prefix += piece
            out.append(lps)
    return out


def compare_greedy(ref: list[GreedyOutput], cand: list[GreedyOutput],
                   cand_forced: list[list[float | None] | None] | None = None) -> dict[str, Any]:
    """Token agreement and first divergence of ``cand``'s greedy outputs against ``ref``'s
    (same prompts, in order), and — with ``cand_forced`` (:func:`forced_logprobs`) — the mean
    log-probability difference ``logprob_ref − logprob_cand`` of the reference's tokens, signed
    (:func:`summarize`) and absolute (``mean_abs_logprob_diff``: how far the distribution moved
    either way). Pure.

    Raises:
        TokcheckError: the two lists are not of the same prompts.
    """
    if [g.prompt for g in ref] != [g.prompt for g in cand]:
        raise TokcheckError("the two sets of greedy outputs are not of the same prompts")
    items, abs_diffs = [], []
    for i, (a, b) in enumerate(zip(ref, cand)):
        first, agree = token_agreement(a.tokens, b.tokens)
        diff = None
        forced = cand_forced[i] if cand_forced is not None else None
        if forced is not None and a.logprobs is not None:
            pairs = [(x, y) for x, y in zip(a.logprobs, forced) if y is not None]
            if pairs:
                diff = statistics.fmean(x - y for x, y in pairs)
                abs_diffs.append(statistics.fmean(abs(x - y) for x, y in pairs))
        items.append(PromptQuality(i, len(a.tokens), len(b.tokens), first, agree, diff))
    out = summarize(items)
    out["mean_abs_logprob_diff"] = statistics.fmean(abs_diffs) if abs_diffs else None
    out["mode"] = "text"
    return out
