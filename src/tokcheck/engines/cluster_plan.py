"""Serving past one node: the launch of vLLM on a Ray cluster with tensor parallel T × pipeline
parallel P over N nodes (``tokcheck serve … --nodes N --dry-run``; README, "Past one machine").

vLLM runs multi-node serving on Ray (its ``--distributed-executor-backend ray``): a Ray head on
one node, a Ray worker on every other, each node seeing its own GPUs, then ``vllm serve`` on the
head with ``--tensor-parallel-size T --pipeline-parallel-size P``; vLLM places the T × P ranks on
the cluster's GPUs. vLLM's own guidance (its "distributed serving" docs): tensor parallel within
a node (its all-reduce on every layer wants NVLink), pipeline parallel across nodes.
:func:`plan_cluster` builds the commands, the environment each node needs and the memory budget
per GPU, and refuses a plan that does not fit.

The memory budget is :func:`tokcheck.core.roofline.memory_budget` over the T × P GPUs: the
weights and the KV cache split T × P ways (tensor parallel splits each layer, pipeline parallel
splits the layers), plus the per-GPU overhead it states (CUDA context, activations, the engine's
workspace). The speed side (pipeline stages add no bandwidth to one stream, tensor parallel
does, less its all-reduce) is :func:`tokcheck.core.roofline.decode_bound`'s, as in ``tokcheck
bound`` and ``claim`` (docs/guide.md); the plan states one stream's bound with it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from tokcheck.core.roofline import decode_bound, memory_budget
from tokcheck.core.units import fmt_bytes
from tokcheck.engines.base import ServeSettings
from tokcheck.errors import TokcheckError

GIB = 1024**3
#: Ray's default GCS port (``ray start --head --port``).
RAY_PORT = 6379


@dataclass
class ClusterPlan:
    """The launch of one vLLM server over ``nodes`` nodes (commands as argv lists; never run
    through a shell). ``env``: what every node exports before its ``ray start`` (the node's own
    address in ``VLLM_HOST_IP`` is the placeholder ``NODE_IP``); ``budget``: the
    per-GPU memory budget (None without a GPU); ``notes``: what the plan assumes."""

    tensor_parallel: int
    pipeline_parallel: int
    nodes: int
    gpus_per_node: int
    head_command: list[str]
    worker_command: list[str]
    serve_argv: list[str]
    env: dict[str, str]
    budget: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    on_ray: bool = True  # False: one node, one pipeline stage: a plain `vllm serve`, no Ray

    def _budget_lines(self) -> list[str]:
        if not self.budget:
            return []
        b = self.budget

        def gb(key: str) -> str:  # decimal units, as every size tokcheck prints
            return fmt_bytes(b[key] * GIB)

        lines = ["", f"memory per GPU ({b['gpu']}, {gb('available_gib')} usable at "
                     f"gpu_memory_utilization {b['gpu_memory_utilization']}): weights "
                     f"{gb('weights_gib')} + KV cache {gb('kv_cache_gib')} ({b['concurrency']} × "
                     f"{b['max_model_len']:,} tokens) + overhead {gb('overhead_gib')} = "
                     f"{gb('required_gib')}: fits"]
        one = b.get("single_stream")
        if one and one["hard_tok_s"]:
            lines.append(f"one stream's decode bound: {one['hard_tok_s']:,.0f} tok/s at peak bandwidth, "
                         f"{one['realistic_tok_s']:,.0f} realistic (the bandwidth of tensor parallel "
                         f"{self.tensor_parallel}'s GPUs; the {self.pipeline_parallel} pipeline stage(s) add none)")
        return lines

    def text(self) -> str:
        """The plan as a terminal shows it (``--dry-run``)."""
        if not self.on_ray:
            lines = [f"vLLM on one node: tensor parallel {self.tensor_parallel} (no Ray: within a node vLLM "
                     "runs its own worker processes)", "  " + shlex.join(self.serve_argv)]
            return "\n".join(lines + self._budget_lines() + [f"note: {n}" for n in self.notes])
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        lines = [f"vLLM on Ray: tensor parallel {self.tensor_parallel} × pipeline parallel "
                 f"{self.pipeline_parallel} = {self.tensor_parallel * self.pipeline_parallel} GPUs on "
                 f"{self.nodes} node(s) of {self.gpus_per_node} GPUs",
                 "(NODE_IP: each node's own address on the network between them)",
                 "", "every node first:", f"  export {env}",
                 "head node:", "  " + shlex.join(self.head_command)]
        if self.nodes > 1:
            lines += [f"each of the other {self.nodes - 1} node(s):", "  " + shlex.join(self.worker_command)]
        lines += ["then, on the head node (`ray status` shows every GPU first):", "  " + shlex.join(self.serve_argv)]
        lines += self._budget_lines()
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def plan_cluster(settings: ServeSettings, *, pipeline_parallel: int = 1, nodes: int = 1,
                 gpus_per_node: int | None = None, model_spec=None, gpu=None, precision: str = "BF16",
                 concurrency: int = 1, head_ip: str = "HEAD_IP", ray_port: int = RAY_PORT,
                 ifname: str | None = None, vllm: str = "vllm") -> ClusterPlan:
    """The launch of ``settings`` (a vLLM server) over ``nodes`` nodes with tensor parallel
    ``settings.tensor_parallel_size`` (default 1) × ``pipeline_parallel``.

    Args:
        model_spec, gpu: the model (:class:`~tokcheck.core.catalog.ModelSpec`) and GPU
            (:class:`~tokcheck.core.catalog.GpuSpec`) for the memory budget; without a GPU the
            budget is left out (said in ``notes``).
        precision: the weights' precision for the budget (``BF16``, ``FP8`` …).
        concurrency: sequences of ``settings.max_model_len`` tokens the KV cache must hold.
        head_ip, ray_port: the Ray head's address; ``ifname``: the network interface NCCL and
            Gloo use between nodes (``NCCL_SOCKET_IFNAME``/``GLOO_SOCKET_IFNAME``).
        vllm: the ``vllm`` command on the nodes.

    Raises:
        TokcheckError: sizes below 1; T × P not a whole number of GPUs per node; more GPUs than
            the nodes have; no ``max_model_len`` with a GPU; a plan whose memory per GPU does
            not fit (one line: the figures and what would fit).
    """
    tp = settings.tensor_parallel_size or 1
    pp = pipeline_parallel
    for name, v in (("--tensor-parallel-size", tp), ("--pipeline-parallel-size", pp), ("--nodes", nodes)):
        if v < 1:
            raise TokcheckError(f"{name} must be at least 1")
    world = tp * pp
    if gpus_per_node is None:
        if world % nodes:
            raise TokcheckError(f"tensor parallel {tp} × pipeline parallel {pp} = {world} GPUs do not split evenly "
                                f"over {nodes} nodes: give --gpus-per-node")
        gpus_per_node = world // nodes
    if gpus_per_node < 1 or world > nodes * gpus_per_node:
        raise TokcheckError(f"tensor parallel {tp} × pipeline parallel {pp} = {world} GPUs, but {nodes} node(s) of "
                            f"{gpus_per_node} GPUs have {nodes * gpus_per_node}")
    notes = []
    if tp > gpus_per_node:
        notes.append(f"tensor parallel {tp} spans nodes of {gpus_per_node} GPUs: its all-reduce on every layer "
                     "crosses the network; vLLM advises tensor parallel within a node, pipeline parallel across")
    if world < nodes * gpus_per_node:
        notes.append(f"{nodes * gpus_per_node - world} GPU(s) of the cluster stay idle")

    budget = None
    if gpu is not None and model_spec is not None:
        if settings.max_model_len is None:
            raise TokcheckError("the memory budget needs --max-model-len (the KV cache each sequence holds)")
        util = settings.gpu_memory_utilization or 0.9
        m = memory_budget(model_spec, gpu, precision, settings.max_model_len, concurrency, util, world)
        if m.fits is None:
            notes.append(f"no memory budget: {m.reason}")
        else:
            per = {k: v / world / GIB for k, v in (("weights_gib", m.weights_bytes), ("kv_cache_gib", m.kv_cache_bytes),
                                                    ("overhead_gib", m.overhead_bytes),
                                                    ("required_gib", m.required_bytes),
                                                    ("available_gib", m.available_bytes))}
            budget = {"gpu": gpu.name, "gpus": world, "precision": m.precision, "max_model_len": m.max_model_len,
                      "concurrency": m.concurrency, "gpu_memory_utilization": util, **per,
                      "max_concurrent_seqs": m.max_concurrent_seqs, "min_gpus": m.min_tensor_parallel}
            # one stream's decode bound (the roofline's: tensor parallel adds bandwidth less its
            # all-reduce, pipeline stages add none)
            bound = decode_bound(model_spec, gpu, precision, tensor_parallel=tp, pipeline_parallel=pp)
            budget["single_stream"] = {"hard_tok_s": bound.hard_tok_s, "realistic_tok_s": bound.realistic_tok_s,
                                       "notes": list(bound.notes)}
            if not m.fits:
                need = (f"needs {m.min_tensor_parallel} GPUs" if m.min_tensor_parallel
                        else "does not fit on 64 GPUs")
                def gb(key: str) -> str:
                    return fmt_bytes(per[key] * GIB)

                raise TokcheckError(
                    f"the plan does not fit: per GPU {gb('weights_gib')} weights + {gb('kv_cache_gib')} "
                    f"KV cache + {gb('overhead_gib')} overhead = {gb('required_gib')} > "
                    f"{gb('available_gib')} usable on {gpu.name} at gpu_memory_utilization {util} "
                    f"(tensor parallel {tp} × pipeline parallel {pp}; at these lengths it {need})")
    elif gpu is None:
        notes.append("no --gpu given: the memory budget per GPU is not checked")

    if nodes == 1 and pp == 1:  # one node: vLLM's own multiprocessing executor, no Ray
        serve = [vllm, "serve", *serve_args(settings, pipeline_parallel=1, ray=False)]
        return ClusterPlan(tp, pp, nodes, gpus_per_node, [], [], serve, {}, budget, notes, on_ray=False)
    address = f"{head_ip}:{ray_port}"
    env = {"VLLM_HOST_IP": "NODE_IP"}
    if ifname:
        env.update({"NCCL_SOCKET_IFNAME": ifname, "GLOO_SOCKET_IFNAME": ifname})
    else:
        notes.append("no --ifname: set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME to the interface between the nodes "
                     "when a node has more than one")
    head = ["ray", "start", "--head", f"--node-ip-address={head_ip}", f"--port={ray_port}",
            f"--num-gpus={gpus_per_node}", "--block"]
    worker = ["ray", "start", f"--address={address}", "--node-ip-address=NODE_IP",
              f"--num-gpus={gpus_per_node}", "--block"]
    serve = [vllm, "serve", *serve_args(settings, pipeline_parallel=pp)]
    return ClusterPlan(tp, pp, nodes, gpus_per_node, head, worker, serve, env, budget, notes)


def serve_args(settings: ServeSettings, *, pipeline_parallel: int = 1, ray: bool = True) -> list[str]:
    """The arguments of ``vllm serve`` (after ``serve``) for ``settings``: what
    :func:`tokcheck.engines.vllm.build_argv` passes, with ``--pipeline-parallel-size`` and, with
    ``ray``, ``--distributed-executor-backend ray``."""
    from tokcheck.engines.vllm import build_argv

    argv = build_argv(settings, "python", settings.port or 8000)[3:]  # drop "python -m ENTRYPOINT"
    if "--tensor-parallel-size" not in argv:
        argv += ["--tensor-parallel-size", str(settings.tensor_parallel_size or 1)]
    if ray:
        argv += ["--pipeline-parallel-size", str(pipeline_parallel), "--distributed-executor-backend", "ray"]
    return argv
