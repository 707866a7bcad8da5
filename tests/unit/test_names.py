"""The one name normaliser (tokcheck.core.names), used by the claim reader, the catalog and verify."""

import pytest

from tokcheck.core.catalog import find_gpu, find_model, models
from tokcheck.core.claim import parse_claim
from tokcheck.core.names import (
    base_name,
    contains_words,
    find_in_text,
    key,
    loose_key,
    same_model,
    strip_org,
    version_suffix,
    words,
)


def test_keys():
    assert key("NVIDIA GeForce RTX-4090") == "rtx4090"
    assert key("qwen3:30b-a3b") == key("Qwen3-30B-A3B") == key("QWEN3 30B_A3B") == "qwen330ba3b"
    assert key("Llama-3.1-8B") == key("llama31 8b")
    assert loose_key("Llama-3.1-8B") == "llama3.18b" and loose_key("v0.6.3") == "v0.6.3"
    assert words("Qwen/Qwen3-30B-A3B") == "qwen qwen3 30b a3b"
    assert words("qwen3:30b-a3b") == "qwen3 30b a3b"


def test_whole_word_containment():
    assert contains_words("h200 141gb", "h200")
    assert not contains_words("h2000", "h200")
    assert contains_words("llama3.1 8b", "llama 3.1 8b")


def test_org_and_directory_prefixes():
    assert strip_org("meta-llama/Llama-3.1-8B") == "Llama-3.1-8B"
    assert strip_org("/models/qwen3-8b/") == "qwen3-8b"
    assert base_name("/cache/tiny-llama-341117c394bd") == "tiny-llama"


@pytest.mark.parametrize("query, expected", [
    ("qwen3:30b-a3b", "Qwen3-30B-A3B"),        # Ollama tags
    ("qwen3:30b-a3b-q4_K_M", "Qwen3-30B-A3B"),
    ("llama3.1:8b", "Llama 3.1 8B"),
    ("gpt-oss:20b", "gpt-oss-20b"),
    ("qwen3:32b", "Qwen3-32B"),
    ("meta-llama/Llama-3.1-8B-Instruct", "Llama 3.1 8B"),  # Hugging Face ids
    ("Qwen/Qwen3-8B", "Qwen3-8B"),
    ("deepseek-ai/DeepSeek-R1", "DeepSeek R1"),
])
def test_model_spellings(query, expected):
    assert find_model(query).name == expected


@pytest.mark.parametrize("query, expected", [
    ("NVIDIA GeForce RTX 4090", "RTX 4090"), ("NVIDIA H200", "H200"),
    ("NVIDIA H100 80GB HBM3", "H100 SXM"), ("nvidia-h200-141gb", "H200"),
])
def test_gpu_spellings(query, expected):
    assert find_gpu(query).name == expected


def test_find_in_text_and_version_suffix():
    entries = [(m.name, m.aliases) for m in models()]
    text = "Qwen3 30B-A3B on one H200"
    name, start, end = find_in_text(text, entries)
    assert name == "Qwen3-30B-A3B" and text[start:end] == "Qwen3 30B-A3B"
    assert find_in_text("qwen3:30b-a3b at 40 tok/s", entries)[0] == "Qwen3-30B-A3B"
    assert find_in_text("no model here", entries) is None
    assert version_suffix("Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B") == "Instruct-2507"
    assert version_suffix("DeepSeek-R1-0528", "DeepSeek R1") == "0528"
    assert version_suffix("Qwen3-30B-A3B", "Qwen3-30B-A3B") is None


def test_claim_reader_uses_the_normaliser():
    c = parse_claim("qwen3:30b-a3b at 50 tok/s on one H200")
    assert c.fields["model"] == "Qwen3-30B-A3B" and c.fields["gpu"] == "H200"


@pytest.mark.parametrize("claimed, served, expected", [
    ("Qwen3-8B", ["Qwen/Qwen3-8B"], True),
    ("qwen3:8b", ["Qwen/Qwen3-8B"], True),
    ("tiny-llama", ["/root/.cache/tokcheck/models/tiny-llama-341117c394bd"], True),
    ("Llama 3.1 8B", "meta-llama/Llama-3.1-8B-Instruct", True),
    ("Qwen2.5-7B", ["Qwen/Qwen2-57B-A14B"], False),   # dots keep versions apart
    ("Qwen3-8B", ["Qwen/Qwen3-32B"], False),
    ("", ["Qwen/Qwen3-8B"], False),
])
def test_same_model(claimed, served, expected):
    assert same_model(claimed, served) is expected
