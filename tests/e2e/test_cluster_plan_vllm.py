"""The multi-node plan's ``vllm serve`` arguments, read by vLLM's own argument parser (the one
its OpenAI server uses) in the cached vLLM environment: every flag is one vLLM knows, with the
values the plan meant."""

from __future__ import annotations

import json
import subprocess

import pytest

from tokcheck.core.catalog import find_gpu, find_model
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.cluster_plan import plan_cluster

pytestmark = pytest.mark.e2e

PARSE = """
import json, sys
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.entrypoints.launchers.cli_args import make_arg_parser
a = make_arg_parser(FlexibleArgumentParser()).parse_args(json.loads(sys.argv[1]))
print(json.dumps({k: getattr(a, k) for k in ("model", "tensor_parallel_size", "pipeline_parallel_size",
      "distributed_executor_backend", "max_model_len", "dtype", "host", "port", "gpu_memory_utilization")}))
"""


def test_vllms_own_parser_reads_the_plan(vllm_python):
    s = ServeSettings(model="/models/llama-70b", tensor_parallel_size=4, max_model_len=8192, host="0.0.0.0",
                      port=8000, gpu_memory_utilization=0.9)
    plan = plan_cluster(s, pipeline_parallel=2, nodes=2, model_spec=find_model("Llama 3.1 70B"),
                        gpu=find_gpu("H100-SXM"), head_ip="10.0.0.1")
    assert plan.serve_argv[:2] == ["vllm", "serve"]
    proc = subprocess.run([str(vllm_python), "-c", PARSE, json.dumps(plan.serve_argv[2:])],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"model": "/models/llama-70b", "tensor_parallel_size": 4, "pipeline_parallel_size": 2,
                   "distributed_executor_backend": "ray", "max_model_len": 8192, "dtype": "bfloat16",
                   "host": "0.0.0.0", "port": 8000, "gpu_memory_utilization": 0.9}
