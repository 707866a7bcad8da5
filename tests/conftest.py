"""Shared fixtures. The environment is scrubbed of proxies and API keys (httpx's
``clean_environ`` practice) so that no test talks to anything but loopback or leaks a key."""

from __future__ import annotations

import os

import pytest

_SCRUB = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
          "OPENAI_API_KEY", "NO_PROXY", "no_proxy")


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory: pytest.TempPathFactory):
    """Path of a ``tokenizer.json`` trained locally (byte-level BPE, vocab 4096)."""
    from tokcheck.tinymodel import train_tokenizer

    return train_tokenizer(tmp_path_factory.mktemp("tok"))
