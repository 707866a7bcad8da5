"""A start that fails inside real vLLM (an architecture it does not know) ends as one line
from its log, and no engine process is left behind."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tokcheck.engines.base import ServeSettings
from tokcheck.engines.lifecycle import serve
from tokcheck.errors import TokcheckError

pytestmark = pytest.mark.e2e


def test_unknown_architecture_is_one_line_and_nothing_is_left(tiny_llama, vllm_python, tmp_path):
    model = tmp_path / "madeup"
    shutil.copytree(tiny_llama, model)
    cfg = json.loads((model / "config.json").read_text())
    cfg["architectures"] = ["MadeUpForCausalLM"]
    (model / "config.json").write_text(json.dumps(cfg))
    seen = []
    with pytest.raises(TokcheckError) as err:
        with serve(ServeSettings(model=str(model), python=str(vllm_python), enforce_eager=True,
                                 log_dir=str(tmp_path / "run"), startup_timeout_s=300),
                   progress=seen.append):
            pytest.fail("vLLM should not have started")
    msg = str(err.value)
    assert "does not support the model's architecture ['MadeUpForCausalLM']" in msg
    assert "\n" not in msg
    log = (tmp_path / "run" / "server.log").read_text()
    assert "MadeUpForCausalLM" in log
    # The engine ran in its own process group (its pid is the group id): nothing of it is left.
    started = [s for s in seen if s.startswith("Starting vLLM")]
    assert started
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    leftovers = []
    for pid in pids:
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(model) in cmd:
            leftovers.append(cmd)
    assert leftovers == []
