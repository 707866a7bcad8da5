"""``tokcheck bound``: the decode roofline and memory budget without a claim."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "bound", help="bytes per token, tok/s bound and memory budget for a model on a GPU",
        description="Bound single-request decode speed by memory bandwidth and check the memory budget.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="catalog name, a config.json, or a model directory")
    src.add_argument("--model-config", help="a Hugging Face config.json (or a directory holding one)")
    src.add_argument("--weights", help="bytes read per token as a size, e.g. 120GB (KV cache not counted)")
    p.add_argument("--gpu", help="GPU model (catalog name)")
    p.add_argument("--bandwidth", help="peak memory bandwidth, e.g. 3.35TB/s (overrides the GPU's)")
    p.add_argument("--precision", default="BF16",
                   help="BF16 (default), FP16, FP32, FP8, INT8, INT4, MXFP4, NVFP4, or 'released'")
    p.add_argument("--context", default="1500", help="tokens in the KV cache (default 1500 = 1000 in + 500)")
    p.add_argument("--concurrency", default="1", help="concurrent sequences (memory budget, aggregate bound)")
    p.add_argument("--max-model-len", default="8192", help="max_model_len for the memory budget (default 8192)")
    p.add_argument("--gpus", default="1", help="tensor parallel size")
    p.add_argument("--pipeline-parallel", default="1",
                   help="pipeline-parallel stages (default 1): they hold the weights but add no bandwidth to one "
                        "stream; the aggregate bound counts their memory and compute")
    p.add_argument("--gpu-memory-utilization", default="0.9", help="share of GPU memory the engine may use (default 0.9)")
    p.add_argument("--acceptance-rate", help="speculative decoding: per-token acceptance rate α (0 to 1)")
    p.add_argument("--draft-tokens", default="0", help="speculative decoding: draft tokens γ per step")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from tokcheck.core.catalog import GpuSpec, find_gpu, gpu_from_bandwidth, resolve_model
    from tokcheck.errors import TokcheckError
    from tokcheck.core.roofline import (
        WeightsOnly,
        aggregate_bound,
        decode_bound,
        max_seqs_by_max_model_len,
        memory_budget,
        precision_options,
    )
    from tokcheck.core.units import parse_bandwidth, parse_bytes, parse_count, parse_fraction
    from tokcheck.core.verdict import _bound_json, _memory_json

    args.concurrency = parse_count(args.concurrency, "--concurrency", "requests")
    args.gpus = parse_count(args.gpus, "--gpus", "GPUs")
    args.pipeline_parallel = parse_count(args.pipeline_parallel, "--pipeline-parallel", "stages")
    args.draft_tokens = parse_count(args.draft_tokens, "--draft-tokens", "tokens", allow_zero=True)
    args.gpu_memory_utilization = parse_fraction(args.gpu_memory_utilization, "--gpu-memory-utilization",
                                                 meaning="a share of GPU memory, e.g. 0.9")
    if args.acceptance_rate is not None:
        args.acceptance_rate = parse_fraction(args.acceptance_rate, "--acceptance-rate", allow_zero=True,
                                              meaning="per-token acceptance rate α")
    context = parse_count(args.context, "--context", "tokens", allow_zero=True)
    max_model_len = parse_count(args.max_model_len, "--max-model-len", "tokens")
    if args.weights:
        model = WeightsOnly(parse_bytes(args.weights))
        precision = "BF16" if args.precision.lower() == "released" else args.precision
    else:
        model = resolve_model(args.model or args.model_config)
        precision = args.precision
    gpu = find_gpu(args.gpu) if args.gpu else None
    if args.bandwidth:
        bw = parse_bandwidth(args.bandwidth)
        gpu = gpu_from_bandwidth(bw) if gpu is None else GpuSpec(**{
            **asdict(gpu), "name": f"{gpu.name} at {bw / 1e12:g} TB/s", "peak_bandwidth_bytes_per_s": bw})
    if args.acceptance_rate is not None and not args.draft_tokens:
        raise TokcheckError("--acceptance-rate needs --draft-tokens")
    pp = args.pipeline_parallel
    b = decode_bound(model, gpu, precision, context, args.gpus,
                     acceptance_rate=args.acceptance_rate, draft_tokens=args.draft_tokens, pipeline_parallel=pp)
    m = memory_budget(model, gpu, precision, max_model_len, args.concurrency, args.gpu_memory_utilization,
                      args.gpus * pp)
    data = {"model": b.model, "gpu": gpu.name if gpu else None, "bound": _bound_json(b), "memory": _memory_json(m)}
    if not isinstance(model, WeightsOnly):
        from tokcheck.core.architecture import active_params, total_params

        data["parameters"] = {"total": total_params(model), "active_per_token": active_params(model),
                              "experts": model.num_experts or None,
                              "experts_per_token": model.experts_per_token or None}
    if m.fits is not None and not isinstance(model, WeightsOnly):
        data["memory"]["max_seqs_by_max_model_len"] = max_seqs_by_max_model_len(
            model, gpu, precision, args.gpu_memory_utilization, args.gpus * pp)
    if gpu is not None and args.concurrency > 1:
        data["bound"]["aggregate"] = aggregate_bound(model, gpu, precision, context, args.concurrency, args.gpus, pp)
    if not isinstance(model, WeightsOnly):
        data["precision_options"] = [asdict(o) for o in precision_options(
            model, gpu, context, max_model_len, args.concurrency, args.gpus, args.gpu_memory_utilization)]
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return 0
    from rich.console import Console

    from tokcheck.cli.boundview import bound_table, options_table

    console = Console(soft_wrap=False)
    if p := data.get("parameters"):
        moe = (f"; a mixture of experts ({p['experts']} experts, {p['experts_per_token']} per token): decode reads "
               "the active parameters, memory holds them all" if p.get("experts") else "")
        def count(x: float) -> str:  # parameters as model cards write them: 30.5 B, 3.41 M
            return f"{x / 1e9:,.1f} B" if x >= 1e9 else f"{x / 1e6:,.2f} M"

        console.print(f"{b.model}: {count(p['total'])} parameters, {count(p['active_per_token'])} active "
                      f"per token{moe}", highlight=False)
    console.print(bound_table(data["bound"], data["memory"], title=f"{b.model}: bound and memory"))
    if data.get("precision_options"):
        console.print(options_table(data["precision_options"]))
    return 0
