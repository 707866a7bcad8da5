from __future__ import annotations

import json

import pytest

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.prompts import make_prompts, prompts_sha256
from tokcheck.loadgen.tokens import load_tokenizer


def test_exact_length_prompts(tiny_tokenizer):
    tok = load_tokenizer(tiny_tokenizer.parent)  # a model directory works too
    for n in (1, 7, 100, 1000):
        prompts = make_prompts(tok, n, 5, seed=1)
        assert tok.count_many(prompts) == [n] * 5
        assert len(set(prompts)) == 5
    assert make_prompts(tok, 50, 3, seed=2) == make_prompts(tok, 50, 3, seed=2)
    assert prompts_sha256(make_prompts(tok, 50, 3, seed=2)) != prompts_sha256(make_prompts(tok, 50, 3, seed=3))


def test_special_tokens_never_count(tiny_tokenizer, tmp_path):
    # the same tokenizer with a post-processor that adds BOS/EOS: counts must not change
    data = json.loads(tiny_tokenizer.read_text())
    data["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<|bos|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "<|eos|>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|bos|>": {"id": "<|bos|>", "ids": [1], "tokens": ["<|bos|>"]},
                           "<|eos|>": {"id": "<|eos|>", "ids": [2], "tokens": ["<|eos|>"]}},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data))
    plain, with_bos = load_tokenizer(tiny_tokenizer), load_tokenizer(path)
    text = " the value of the data"
    assert with_bos.tokenizer.encode(text).ids[0] == 1  # the processor does add BOS …
    assert with_bos.count(text) == plain.count(text) == 5  # … and it is not counted
    assert plain.count(text + "<|eos|>") == 5  # a rendered special token is not output
    assert plain.sha256 != with_bos.sha256 and plain.vocab_size == 4096


def test_bad_tokenizer_paths(tmp_path):
    with pytest.raises(TokcheckError, match="no tokenizer.json"):
        load_tokenizer(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{not json")
    with pytest.raises(TokcheckError, match="cannot read tokenizer"):
        load_tokenizer(tmp_path)


def _save(tok, tmp_path, name):
    path = tmp_path / f"{name}.json"
    tok.save(str(path))
    return load_tokenizer(path)


WORDS = [a + b + c for a in "bdfgklmnprstvz" for b in "aeiou" for c in "bdgklmnprst"]


def _wordlevel(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, **{w: i + 1 for i, w in enumerate(WORDS)}}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return _save(tok, tmp_path, "wordlevel")


def _wordpiece(tmp_path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(WORDS)}, "##s": len(WORDS) + 1}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    return _save(tok, tmp_path, "wordpiece")


def _unigram(tmp_path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    corpus = [" ".join(WORDS[i:i + 40]) for i in range(0, len(WORDS), 7)] * 20
    tok.train_from_iterator(corpus, trainers.UnigramTrainer(vocab_size=1200, unk_token="<unk>",
                                                            special_tokens=["<unk>"]))
    return _save(tok, tmp_path, "unigram")


@pytest.mark.parametrize("build", [_wordlevel, _wordpiece, _unigram], ids=["WordLevel", "WordPiece", "Unigram"])
def test_exact_length_prompts_with_any_tokenizer(build, tmp_path):
    # no Ġ/▁ spellings to look for: words are found by encoding and checking counts
    tok = build(tmp_path)
    for n in (1, 13, 200):
        prompts = make_prompts(tok, n, 4, seed=3)
        assert tok.count_many(prompts) == [n] * 4 and len(set(prompts)) == 4


def test_a_vocabulary_without_repeatable_words_is_one_line_error(tmp_path):
    from tokenizers import Tokenizer, models

    tok = _save(Tokenizer(models.WordLevel({"[UNK]": 0, "ab": 1}, unk_token="[UNK]")), tmp_path, "tiny")
    with pytest.raises(TokcheckError, match="too few pieces"):
        make_prompts(tok, 5, 1)
