"""``tokcheck serve … --pipeline-parallel-size P --nodes N --dry-run``: vLLM on a Ray cluster
(:mod:`tokcheck.engines.cluster_plan`): the options, and the plan printed."""

from __future__ import annotations

import argparse


def add_plan_options(p: argparse.ArgumentParser) -> None:
    """The options of a multi-node plan (``--tensor-parallel-size`` is serve's own)."""
    g = p.add_argument_group("past one node (vLLM on Ray)")
    g.add_argument("--pipeline-parallel-size", type=int, default=None, metavar="P",
                   help="pipeline-parallel stages (vLLM --pipeline-parallel-size); with it or --nodes the "
                        "launch runs on Ray (--distributed-executor-backend ray)")
    g.add_argument("--nodes", type=int, default=None, metavar="N", help="nodes of the Ray cluster")
    g.add_argument("--gpus-per-node", type=int, default=None, metavar="G",
                   help="GPUs per node (default: tensor × pipeline parallel ÷ nodes)")
    g.add_argument("--gpu", metavar="NAME", help="GPU model (catalog name) for the memory budget per GPU")
    g.add_argument("--precision", default=None,
                   help="weights precision for the memory budget (default: --quantization's, else BF16)")
    g.add_argument("--concurrency", type=int, default=1,
                   help="sequences of --max-model-len tokens the KV cache must hold (default 1)")
    g.add_argument("--head-ip", default="HEAD_IP", help="the Ray head node's address (default: the placeholder HEAD_IP)")
    g.add_argument("--ray-port", type=int, default=6379, help="the Ray head's port (default 6379)")
    g.add_argument("--ifname", metavar="IFACE", help="network interface between the nodes (NCCL/Gloo)")
    g.add_argument("--dry-run", action="store_true",
                   help="print the plan (ray start on each node, vllm serve, the environment, the memory "
                        "budget per GPU) and start nothing")


def wants_plan(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "dry_run", False) or getattr(args, "nodes", None)
                or getattr(args, "pipeline_parallel_size", None))


def run_plan(args: argparse.Namespace, settings) -> int:
    """Print the plan (``--dry-run``); a multi-node launch is run by hand from it (Ray starts on
    each node by its own operator), so without ``--dry-run`` this is a one-line error.
    ``settings``: serve's :class:`~tokcheck.engines.base.ServeSettings` from ``args``."""
    from tokcheck.core.catalog import find_gpu, resolve_model
    from tokcheck.engines.cluster_plan import plan_cluster
    from tokcheck.errors import TokcheckError

    if args.engine != "vllm":
        raise TokcheckError("--nodes/--pipeline-parallel-size plan vLLM on Ray: use --engine vllm")
    if not args.dry_run:
        raise TokcheckError("a multi-node launch starts Ray on every node: run the commands that "
                            "--dry-run prints (add --dry-run)")
    if settings.host == "127.0.0.1":  # a cluster's server answers on the network
        settings.host = "0.0.0.0"
    gpu = find_gpu(args.gpu) if args.gpu else None
    spec = resolve_model(args.model) if gpu is not None else None
    precision = args.precision or (args.quantization.upper() if args.quantization else "BF16")
    plan = plan_cluster(settings, pipeline_parallel=args.pipeline_parallel_size or 1, nodes=args.nodes or 1,
                        gpus_per_node=args.gpus_per_node, model_spec=spec, gpu=gpu, precision=precision,
                        concurrency=args.concurrency, head_ip=args.head_ip, ray_port=args.ray_port,
                        ifname=args.ifname)
    print(plan.text())
    return 0
