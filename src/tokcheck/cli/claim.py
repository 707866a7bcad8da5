"""``tokcheck claim "TEXT"``: take a tok/s claim apart and bound it by physics."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "claim", help="take a tok/s claim apart and judge it against the bandwidth bound",
        description="Parse a tok/s claim (English or Chinese), list the facts it leaves out, and judge it "
                    "against the decode roofline. Options complete or override what the text says.")
    p.add_argument("text", help='the claim, e.g. "DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"')
    p.add_argument("--gpu", help="GPU model (catalog name, loose: H200, 4090, MI300X)")
    p.add_argument("--gpus", help="number of GPUs (tensor parallel × pipeline parallel)")
    p.add_argument("--pipeline-parallel", help="pipeline-parallel stages among the GPUs (llama.cpp's layer split is a "
                                               "pipeline); one stream gets no bandwidth from them")
    p.add_argument("--model", help="model: catalog name, a config.json, or a model directory")
    p.add_argument("--model-config", help="a Hugging Face config.json (or a directory holding one)")
    p.add_argument("--weights", help="bound a bare weight size instead of a model, e.g. 120GB")
    p.add_argument("--bandwidth", help="peak memory bandwidth instead of the GPU's, e.g. 3.35TB/s")
    p.add_argument("--precision", help="BF16, FP16, FP32, FP8, INT8, INT4, MXFP4, NVFP4, or 'full'")
    p.add_argument("--concurrency", help="concurrent requests the figure was measured at")
    p.add_argument("--input-len", help="input tokens per request")
    p.add_argument("--output-len", help="output tokens per request")
    p.add_argument("--max-model-len", help="max_model_len of the server (e.g. 8192 or 8k)")
    p.add_argument("--metric", choices=("ttft", "generation_tok_s", "e2e_tok_s", "aggregate_throughput"),
                   help="what the figure measures")
    p.add_argument("--engine", help="inference engine (vLLM, SGLang, llama.cpp …)")
    p.add_argument("--spec-decode", action="store_true", help="the figure was measured with speculative decoding")
    p.add_argument("--acceptance-rate", help="speculative decoding: per-token acceptance rate α (0 to 1)")
    p.add_argument("--draft-tokens", default="0", help="speculative decoding: draft tokens γ per step")
    p.add_argument("--gpu-memory-utilization", default="0.9", help="share of GPU memory the engine may use (default 0.9)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from tokcheck.core.catalog import find_gpu, find_model, model_from_config, resolve_model
    from tokcheck.core.claim import apply_overrides, is_model_family, parse_claim
    from tokcheck.errors import TokcheckError
    from tokcheck.core.precision import canonical_precision
    from tokcheck.core.roofline import WeightsOnly
    from tokcheck.core.units import parse_bandwidth, parse_bytes, parse_count, parse_fraction
    from tokcheck.core.verdict import analyze_claim

    claim = parse_claim(args.text)
    for name, unit in (("gpus", "GPUs"), ("pipeline_parallel", "stages"), ("concurrency", "requests"), ("input_len", "tokens"),
                       ("output_len", "tokens"), ("draft_tokens", "tokens")):
        v = getattr(args, name)
        if v is not None:
            setattr(args, name, parse_count(v, f"--{name.replace('_', '-')}", unit,
                                            allow_zero=name == "draft_tokens"))
    args.gpu_memory_utilization = parse_fraction(args.gpu_memory_utilization, "--gpu-memory-utilization",
                                                 meaning="a share of GPU memory, e.g. 0.9")
    if args.acceptance_rate is not None:
        args.acceptance_rate = parse_fraction(args.acceptance_rate, "--acceptance-rate", allow_zero=True,
                                              meaning="per-token acceptance rate α")
    gpu = find_gpu(args.gpu) if args.gpu else None
    model = None
    model_name = None
    if args.model_config:
        model = model_from_config(args.model_config)
        model_name = model.name
    elif args.model:
        model = resolve_model(args.model)
        model_name = model.name
    elif args.weights:
        model = WeightsOnly(parse_bytes(args.weights))
    precision = None
    if args.precision:
        precision = "full" if args.precision.lower() in ("full", "full precision") else canonical_precision(args.precision)
    claim = apply_overrides(
        claim, gpu=gpu.name if gpu else None, gpu_count=args.gpus, model=model_name, precision=precision,
        concurrency=args.concurrency, input_tokens=args.input_len, output_tokens=args.output_len,
        max_model_len=parse_count(args.max_model_len, "--max-model-len", "tokens") if args.max_model_len else None,
        metric=args.metric, engine=args.engine, speculative_decoding=True if args.spec_decode else None)
    if args.pipeline_parallel:
        n = int(claim.fields.get("gpu_count") or args.pipeline_parallel)
        if n % args.pipeline_parallel:
            raise TokcheckError(f"--pipeline-parallel {args.pipeline_parallel} does not divide {n} GPUs")
        claim.footprint["pipeline_parallel"] = args.pipeline_parallel
        claim.footprint["tensor_parallel"] = n // args.pipeline_parallel
        claim = apply_overrides(claim, gpu_count=n)
    if model is None and claim.fields.get("model") and args.model is None and not is_model_family(claim.fields["model"]):
        try:
            model = find_model(claim.fields["model"])
        except TokcheckError:
            model = None
    bandwidth = parse_bandwidth(args.bandwidth) if args.bandwidth else None
    if args.acceptance_rate is not None and not args.draft_tokens:
        raise TokcheckError("--acceptance-rate needs --draft-tokens")
    analysis = analyze_claim(claim, model=model, gpu=gpu, bandwidth_bytes_per_s=bandwidth,
                             gpu_memory_utilization=args.gpu_memory_utilization,
                             acceptance_rate=args.acceptance_rate, draft_tokens=args.draft_tokens)
    data = analysis.to_json()
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return 0
    from rich.console import Console

    from tokcheck.cli.boundview import claim_report

    Console(soft_wrap=False).print(claim_report(data))
    return 0
