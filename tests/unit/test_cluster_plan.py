"""The multi-node vLLM plan (serve --nodes/--pipeline-parallel-size --dry-run): the commands, the
environment and the memory budget per GPU, which refuses a plan that does not fit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tokcheck.core.catalog import find_gpu, find_model
from tokcheck.core.roofline import DEFAULT_OVERHEAD_BYTES, weights_bytes
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.cluster_plan import GIB, plan_cluster, serve_args
from tokcheck.errors import TokcheckError


def settings(tp, **kw):
    return ServeSettings(model="/models/llama-405b", tensor_parallel_size=tp, max_model_len=8192,
                         host="0.0.0.0", port=8000, **kw)


def test_405b_bf16_fits_on_two_nodes_of_eight_but_not_on_one():
    model, gpu = find_model("Llama 3.1 405B"), find_gpu("H100-SXM")
    with pytest.raises(TokcheckError, match=r"^the plan does not fit: per GPU 101 GB weights .* > 77\.3 GB usable"
                                            r".*tensor parallel 8 × pipeline parallel 1; at these lengths it needs 16 GPUs"):
        plan_cluster(settings(8), nodes=1, model_spec=model, gpu=gpu)
    plan = plan_cluster(settings(8), pipeline_parallel=2, nodes=2, model_spec=model, gpu=gpu, head_ip="10.0.0.1",
                        ifname="eth1")
    b = plan.budget
    # the weights split 16 ways (tensor parallel splits each layer, pipeline parallel the layers)
    assert b["weights_gib"] == pytest.approx(weights_bytes(model, "BF16") / 16 / GIB)
    assert b["overhead_gib"] == pytest.approx(DEFAULT_OVERHEAD_BYTES / GIB)
    assert b["required_gib"] == pytest.approx(b["weights_gib"] + b["kv_cache_gib"] + b["overhead_gib"])
    assert b["available_gib"] == pytest.approx(80e9 * 0.9 / GIB, rel=0.1) and b["required_gib"] < b["available_gib"]
    assert plan.head_command[:3] == ["ray", "start", "--head"] and "--port=6379" in plan.head_command
    assert "--address=10.0.0.1:6379" in plan.worker_command and "--num-gpus=8" in plan.worker_command
    argv = plan.serve_argv
    assert argv[:2] == ["vllm", "serve"]
    for flag, value in (("--tensor-parallel-size", "8"), ("--pipeline-parallel-size", "2"),
                        ("--distributed-executor-backend", "ray"), ("--max-model-len", "8192")):
        assert argv[argv.index(flag) + 1] == value
    assert plan.env == {"VLLM_HOST_IP": "NODE_IP", "NCCL_SOCKET_IFNAME": "eth1", "GLOO_SOCKET_IFNAME": "eth1"}
    # one stream's bound: the roofline's, with 8 GPUs' bandwidth; the second stage adds none
    from tokcheck.core.roofline import decode_bound

    tp8 = decode_bound(model, gpu, "BF16", tensor_parallel=8)
    assert b["single_stream"]["hard_tok_s"] == pytest.approx(tp8.hard_tok_s)
    assert b["single_stream"]["hard_tok_s"] == pytest.approx(
        plan_cluster(settings(8), pipeline_parallel=4, nodes=4, model_spec=model, gpu=gpu).budget["single_stream"]
        ["hard_tok_s"])
    text = plan.text()
    assert "ray start --address=10.0.0.1:6379" in text and "vllm serve" in text and ": fits" in text
    assert "one stream's decode bound" in text


def test_sizes_must_match_the_nodes():
    with pytest.raises(TokcheckError, match="do not split evenly over 3 nodes"):
        plan_cluster(settings(8), pipeline_parallel=2, nodes=3)
    with pytest.raises(TokcheckError, match="but 2 node\\(s\\) of 4 GPUs have 8"):
        plan_cluster(settings(8), pipeline_parallel=2, nodes=2, gpus_per_node=4)
    with pytest.raises(TokcheckError, match="--pipeline-parallel-size must be at least 1"):
        plan_cluster(settings(2), pipeline_parallel=0)
    plan = plan_cluster(settings(4), pipeline_parallel=1, nodes=2)
    assert any("crosses the network" in n for n in plan.notes)  # tensor parallel 4 over nodes of 2
    assert any("memory budget per GPU is not checked" in n for n in plan.notes)


def test_serve_args_keep_what_serve_passes():
    argv = serve_args(settings(2, dtype="float16", served_model_name="m"), pipeline_parallel=3)
    assert argv[:2] == ["--model", "/models/llama-405b"]
    assert argv[argv.index("--dtype") + 1] == "float16" and argv[argv.index("--served-model-name") + 1] == "m"
    assert argv[-4:] == ["--pipeline-parallel-size", "3", "--distributed-executor-backend", "ray"]


def test_dry_run_from_the_command_line():
    base = [sys.executable, "-m", "tokcheck", "serve", "--model", "Llama 3.1 70B", "--max-model-len", "8192",
            "--gpu", "H100-SXM", "--dry-run"]
    ok = subprocess.run(base + ["--tensor-parallel-size", "4", "--pipeline-parallel-size", "2", "--nodes", "2"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "--distributed-executor-backend ray" in ok.stdout and "memory per GPU" in ok.stdout
    bad = subprocess.run(base + ["--tensor-parallel-size", "1"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "the plan does not fit" in bad.stderr


def test_one_node_one_stage_is_a_plain_vllm_serve_without_ray():
    """Tensor parallel 8 on one node of eight H100s: vLLM's own worker processes, no Ray; the
    budget still splits the 70B model's BF16 weights eight ways."""
    model, gpu = find_model("Llama 3.1 70B"), find_gpu("H100-SXM")
    plan = plan_cluster(settings(8), nodes=1, model_spec=model, gpu=gpu)
    assert not plan.on_ray and plan.head_command == [] and plan.env == {}
    assert "--distributed-executor-backend" not in plan.serve_argv and "ray" not in plan.serve_argv
    assert plan.serve_argv[plan.serve_argv.index("--tensor-parallel-size") + 1] == "8"
    assert plan.budget["weights_gib"] == pytest.approx(weights_bytes(model, "BF16") / 8 / GIB)
    text = plan.text()
    assert text.startswith("vLLM on one node: tensor parallel 8 (no Ray") and "ray start" not in text
